"""Fuzz failure of property 2 simulate: run 0 (input shapes [(39,)]): output 0: error norm 2.179e+01 over reference norm 2.169e+01 (noise floor 0.0e+00); worst at (2, 0, 0): got 0.0, expected 1.0

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
    t0 = fusion.add_input(shape=(39,), dtype=DataType.Bool)
    t1 = ops.cast(t0, DataType.Int32)
    t2 = ops.add(t1, 1.0)
    t3 = ops.rsqrt(t2)
    t4 = ops.broadcast(t2, [True, False])
    t5 = ops.broadcast(t1, [False, True])
    t6 = ops.div(t5, t4)
    t7 = ops.abs(t2)
    t8 = ops.sub(t6, t5)
    t9 = ops.broadcast(t6, [False, False, True])
    fusion.add_output(t9)
    fusion.add_output(t5)

fusion.set_index_type(DataType.Int32)

print(fusion)
kernel = lower(fusion)
print(kernel)
EXACT = False  # integer-valued math: must match numpy exactly
for run, shapes in enumerate([[(39,)]]):
    inputs = case_inputs(shapes, ['bool'], [984, run], specials=False, strided=False)
    outputs = simulate(kernel, inputs, seed=984 + run)
    for k, (got, want) in enumerate(zip(outputs, evaluate(fusion, inputs))):
        if EXACT or want.dtype.kind != 'f':
            np.testing.assert_array_equal(got, want, err_msg=f'run {run}, output {k}')
        else:
            error = np.linalg.norm((got - want).ravel()) / max(np.linalg.norm(want.ravel()), 1e-30)
            assert error < 1e-4, f'run {run}, output {k}: relative error {error:.3e}'
print('matches numpy')
