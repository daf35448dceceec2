"""Fuzz failure of property 2 simulate: run 0 (input shapes [(4, 5, 3, 5), (4, 5, 3, 5), (4, 5, 3, 5)]): output 0: error norm 8.000e+00 over reference norm 6.840e+02 (noise floor 0.0e+00); worst at (): got 692.0, expected 684.0

Run from the repository root: python3 THIS_FILE.py
"""
import numpy as np

from fusion_ir import (DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, Pipelined, ScheduleError,
                       SmemSwizzle, WarpSpecialized, inline_most, ops, parallelize_like, transform_like)
from fusion_ir.reference import evaluate
from fuzz.case import case_inputs
from lowering import lower
from runtime import simulate


def rejected(call):
    """A call the schedule API must reject with ScheduleError, leaving the fusion unchanged."""
    before = fusion.state_fingerprint()
    try:
        call()
    except ScheduleError as e:
        print(f"rejected (ok): {e}")
    else:
        raise AssertionError("the call was expected to raise ScheduleError")
    assert fusion.state_fingerprint() == before, "a rejected call changed the fusion"

fusion = Fusion()
with fusion:
    t0 = fusion.add_input(ndim=4, dtype=DataType.BFloat16)
    t1 = fusion.add_input(ndim=4, dtype=DataType.Float)
    t2 = fusion.add_input(ndim=4, dtype=DataType.BFloat16)
    t3 = ops.abs(t2)
    t4 = ops.add(t3, 1)
    t5 = ops.div(t0, t4)
    t6 = ops.minimum(t3, t3)
    t7 = ops.minimum(t3, t3)
    t8 = ops.sum(t3, [0, 1, 2, 3])
    t9 = ops.maximum(t7, t0)
    t10 = ops.set(t8)
    fusion.add_output(t10)

t11 = t1.cache_after(LoadStoreOpType.CpAsync)
transform_like(t10)
parallelize_like(t10)
inline_most(fusion)
rejected(lambda: t10.reorder({0: 0}))
rejected(lambda: t10.set_store_wait('deferred'))
rejected(lambda: t10.axis(-1).parallelize(ParallelType.Vectorize))

print(fusion)
kernel = lower(fusion)
print(kernel)
EXACT = False  # integer-valued math: must match numpy exactly
for run, shapes in enumerate([[(4, 5, 3, 5), (4, 5, 3, 5), (4, 5, 3, 5)], [(3, 4, 3, 4), (3, 4, 3, 4), (3, 4, 3, 4)]]):
    inputs = case_inputs(shapes, ['bfloat16', 'float32', 'bfloat16'], [2063, run], specials=False, strided=True)
    outputs = simulate(kernel, inputs, seed=2063 + run)
    for k, (got, want) in enumerate(zip(outputs, evaluate(fusion, inputs))):
        if EXACT or want.dtype.kind != 'f':
            np.testing.assert_array_equal(got, want, err_msg=f'run {run}, output {k}')
        else:
            error = np.linalg.norm((got - want).ravel()) / max(np.linalg.norm(want.ravel()), 1e-30)
            assert error < 1e-4, f'run {run}, output {k}: relative error {error:.3e}'
print('matches numpy')
