"""Precision the outputs cannot see: where a float function may be computed by its hardware approximation.

A ``tanh`` whose every use ends in bfloat16 outputs, through pointwise ops and copies only (no reduction, no
float output), is computed by ``tanh.approx.f32`` (``op="tanh_approx"``):
its error (at most 2^-10.7 relative, PTX ISA) is under a quarter of bfloat16's rounding (2^-9, half a unit in the
last of its 8 bits), so the output cannot tell it from ``tanhf``, which takes about 20 instructions to the
approximation's one. A gelu epilogue's tanh is the case that matters: on the H100, ``gelu(a @ b + bias)`` at
8192 x 8192 x 2048 ran at 0.79 of cuBLASLt's fused kernel with ``tanhf`` and 0.85 with the approximation.
Half outputs (2^-12 rounding) keep ``tanhf``. The simulator evaluates both with numpy's tanh.
"""

from __future__ import annotations

from fusion_ir import DataType, TensorView
from fusion_ir.exprs import BinaryOp, CastOp, LoadStoreOp, UnaryOp, WhereOp

APPROXIMATE = {"tanh": "tanh_approx"}    # the functions with an approximation, and its op name
_POINTWISE = (UnaryOp, BinaryOp, WhereOp, CastOp, LoadStoreOp)


def op_for(tv: TensorView, op: str) -> str:
    """The unary op ``tv`` computes ``op`` with: its approximation where ``tv`` reaches only bfloat16 outputs."""
    approx = APPROXIMATE.get(op)
    return approx if approx is not None and only_bf16_outputs(tv) else op


def only_bf16_outputs(tv: TensorView, seen: dict[TensorView, bool] | None = None) -> bool:
    """Every use of ``tv`` ends in a bfloat16 output through pointwise ops and copies."""
    seen = {} if seen is None else seen
    if tv in seen:
        return seen[tv]
    if tv.is_output:
        result = tv.dtype is DataType.BFloat16 and not tv.consumers()
    else:
        consumers = tv.consumers()
        result = bool(consumers) and all(isinstance(c.definition, _POINTWISE) and only_bf16_outputs(c, seen)
                                         for c in consumers)
    seen[tv] = result
    return result
