"""A tanh whose every use ends in bfloat16 outputs is computed by ``tanh.approx.f32`` (``lowering/precision.py``);
any float or half output, or a reduction, keeps ``tanhf``."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ops
from lowering import kernel_ir as k
from lowering import lower
from lowering.precision import only_bf16_outputs


def _unary_ops(kernel: k.Kernel) -> set[str]:
    found: set[str] = set()

    def visit(value: object) -> None:
        if isinstance(value, k.UnaryValue):
            found.add(value.op)
        for name in ("x", "a", "b", "cond", "value"):
            inner = getattr(value, name, None)
            if inner is not None and not isinstance(inner, (str, int, float)):
                visit(inner)

    for node in k.walk(kernel.body):
        if isinstance(node, k.Assign):
            visit(node.value)
    return found


def _gelu(out_dtypes: tuple[DataType, ...], reduce: bool = False) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 128), dtype=DataType.Float)
        g = ops.gelu(x)
        for dtype in out_dtypes:
            fusion.add_output(ops.cast(g, dtype) if dtype is not DataType.Float else g)
        if reduce:
            fusion.add_output(ops.sum(g, [1]))
    fusion.auto_schedule = False          # one thread: the rule reads the fusion, not the schedule
    return fusion


@pytest.mark.parametrize("outs,reduce,approx", [
    ((DataType.BFloat16,), False, True),
    ((DataType.Float,), False, False),
    ((DataType.Half,), False, False),
    ((DataType.BFloat16, DataType.Float), False, False),
    ((DataType.BFloat16,), True, False),
], ids=["bf16", "float", "half", "bf16_and_float", "bf16_and_a_sum"])
def test_tanh_is_approximated_only_where_bf16_outputs_alone_see_it(outs: tuple, reduce: bool, approx: bool) -> None:
    kernel = lower(_gelu(outs, reduce))
    ops_seen = _unary_ops(kernel)
    assert ("tanh_approx" in ops_seen) is approx and ("tanh" in ops_seen) is not approx


def test_the_rule_follows_copies_to_the_output() -> None:
    fusion = _gelu((DataType.BFloat16,))
    out = fusion.outputs[0]
    tanh = next(tv for tv in fusion.used_tensors() if tv.definition is not None
                and getattr(tv.definition, "op", None) == "tanh")
    assert only_bf16_outputs(tanh) and only_bf16_outputs(out)


# ------------------------------------------------------------------ exp
def _softmax(out_dtypes: tuple[DataType, ...], reduce: str | None = None,
             reduce_dtype: DataType | None = None) -> Fusion:
    """``softmax(x, -1)`` of a float input, cast to each of ``out_dtypes``; ``reduce``: also an output of that
    reduction of the exponentials (cast to ``reduce_dtype``, by default the first dtype)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(8, 32), dtype=DataType.Float)
        e = ops.exp(ops.sub(x, ops.broadcast(ops.max(x, [1]), [False, True])))
        p = ops.div(e, ops.broadcast(ops.sum(e, [1]), [False, True]))
        for dtype in out_dtypes:
            fusion.add_output(ops.cast(p, dtype) if dtype is not DataType.Float else p)
        if reduce is not None:
            r = getattr(ops, reduce)(e, [1])
            dtype = out_dtypes[0] if reduce_dtype is None else reduce_dtype
            fusion.add_output(ops.cast(r, dtype) if dtype is not DataType.Float else r)
    fusion.auto_schedule = False
    return fusion


@pytest.mark.parametrize("outs,reduce,reduce_dtype,approx", [
    ((DataType.BFloat16,), None, None, True),
    ((DataType.Half,), None, None, True),
    ((DataType.BFloat16,), "max", None, True),
    ((DataType.Float,), None, None, False),
    ((DataType.BFloat16, DataType.Float), None, None, False),
    ((DataType.BFloat16,), "sum", DataType.Float, False),
], ids=["bf16", "half", "bf16_and_a_max", "float", "bf16_and_float", "bf16_and_a_float_sum"])
def test_exp_is_approximated_only_where_16bit_outputs_alone_see_it(outs: tuple, reduce: str | None,
                                                                     reduce_dtype: DataType | None,
                                                                     approx: bool) -> None:
    ops_seen = _unary_ops(lower(_softmax(outs, reduce, reduce_dtype)))
    assert ("exp_approx" in ops_seen) is approx and ("exp" in ops_seen) is not approx


def test_exp_approximation_is_exp2f_of_the_scaled_argument_and_simulates_to_numpy() -> None:
    import numpy as np

    from codegen.cuda import to_cuda
    from runtime import simulate

    fusion = _softmax((DataType.BFloat16,))
    kernel = lower(fusion)
    src = to_cuda(kernel)
    assert "exp2f(1.4426950408889634f * T" in src and "expf(" not in src
    x = np.random.default_rng(0).standard_normal((8, 32)).astype(np.float32) * 4
    (out,) = simulate(fusion, [x])
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    want = e / e.sum(1, keepdims=True)
    assert np.abs(out.astype(np.float64) - want).max() <= 2 ** -8 * want.max()


def test_the_exp_rule_reaches_through_a_matmul_of_its_cast() -> None:
    """Attention's ``exp(s - m)``: cast to bf16 for ``p @ v`` and summed per row, both ending in a bf16 output."""
    from examples import attention
    from fusion_ir.online_softmax import online_softmax
    from lowering.precision import only_16bit_outputs

    fusion = attention.fusion_of(1, 2, 64, 64, 64)
    online_softmax(fusion, 64)
    exps = [tv for tv in fusion.used_tensors() if getattr(tv.definition, "op", None) == "exp"]
    assert exps and all(only_16bit_outputs(tv) for tv in exps)
