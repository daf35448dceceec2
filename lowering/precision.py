"""Precision the outputs cannot see: where a float function may be computed by its hardware approximation.

A ``tanh`` whose every use ends in bfloat16 outputs, through pointwise ops and copies only (no reduction, no
float output), is computed by ``tanh.approx.f32`` (``op="tanh_approx"``):
its error (at most 2^-10.7 relative, PTX ISA) is under a quarter of bfloat16's rounding (2^-9, half a unit in the
last of its 8 bits), so the output cannot tell it from ``tanhf``, which takes about 20 instructions to the
approximation's one. A gelu epilogue's tanh is the case that matters: on the H100, ``gelu(a @ b + bias)`` at
8192 x 8192 x 2048 ran at 0.79 of cuBLASLt's fused kernel with ``tanhf`` and 0.85 with the approximation.
Half outputs (2^-12 rounding) keep ``tanhf``. The simulator evaluates both with numpy's tanh.

An ``exp`` whose every use ends in 16-bit float outputs (bfloat16 or half) is computed as ``exp2f(log2(e) * x)``
(``op="exp_approx"``): CUDA's ``exp2f`` is within 2 ulp (one MUFU.EX2 and a few instructions, against ``expf``'s
accurate range reduction), and rounding the product ``log2(e) * x`` adds at most ``|x| log2(e) 2^-24`` to the
exponent, a relative error under 5e-6 for every ``|x| < 88`` (where ``exp`` neither overflows nor leaves the normal
range): under a hundredth of half's rounding (2^-12) and bfloat16's (2^-9). The paths it may take to those outputs
are the ones that keep a relative error relative: pointwise ops, casts, copies, broadcasts and views, and sums,
maxima and minima (reductions, scans and rescaled sums) of it, and matmuls of it; a float output or a product
reduction keeps ``expf``. Attention's ``exp(s - m)`` is the case that matters: its probabilities are rounded to
bfloat16 for the second matmul and its row sums feed a bfloat16 output; on the H100 the tensor-core attention kernel
at ``[4, 16, 4096, 128]`` ran at 0.72 of torch's flash attention with ``expf`` and 0.90 with ``exp2f``, its error
against float64 unchanged (2.27e-3). The simulator evaluates both with numpy's exp.
"""

from __future__ import annotations

from fusion_ir import DataType, TensorView
from fusion_ir.exprs import (BinaryOp, BroadcastOp, CastOp, LoadStoreOp, MmaOp, ReductionOp, RescaledSumOp, ScanOp,
                             UnaryOp, WhereOp, is_view_expr)

_POINTWISE = (UnaryOp, BinaryOp, WhereOp, CastOp, LoadStoreOp)
_SUMS = ("sum", "max", "min")           # reductions and scans that keep a relative error relative


def op_for(tv: TensorView, op: str) -> str:
    """The unary op ``tv`` computes ``op`` with: its approximation where the outputs ``tv`` reaches cannot see it
    (``tanh``: only bfloat16 outputs; ``exp``: only 16-bit float outputs)."""
    if op == "tanh" and only_bf16_outputs(tv):
        return "tanh_approx"
    if op == "exp" and only_16bit_outputs(tv):
        return "exp_approx"
    return op


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


def only_16bit_outputs(tv: TensorView, seen: dict[TensorView, bool] | None = None) -> bool:
    """Every use of ``tv`` ends in a bfloat16 or half output, through ops that keep a relative error relative:
    pointwise ops, copies, broadcasts, views, sums, maxima and minima (reductions, scans, rescaled sums) and
    matmuls."""
    seen = {} if seen is None else seen
    if tv in seen:
        return seen[tv]
    seen[tv] = False                     # a cycle cannot happen in a fusion; this only guards the recursion
    consumers = tv.consumers()
    if tv.is_output and tv.dtype not in (DataType.BFloat16, DataType.Half):
        result = False
    else:
        result = (tv.is_output or bool(consumers)) and all(
            _keeps_relative_error(c) and only_16bit_outputs(c, seen) for c in consumers)
    seen[tv] = result
    return result


def _keeps_relative_error(tv: TensorView) -> bool:
    d = tv.definition
    if isinstance(d, (ReductionOp, ScanOp)):
        return d.op in _SUMS
    return isinstance(d, (*_POINTWISE, BroadcastOp, RescaledSumOp, MmaOp)) or is_view_expr(d)
