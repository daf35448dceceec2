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
