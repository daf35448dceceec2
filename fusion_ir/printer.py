"""nvFuser-style text of a fusion: inputs, outputs and each expression."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .exprs import (
    BinaryOp,
    BroadcastOp,
    CastOp,
    Expr,
    FullOp,
    IotaOp,
    LoadStoreOp,
    MmaOp,
    PadOp,
    ReductionOp,
    RescaledSumOp,
    ScanOp,
    UnaryOp,
    ViewOp,
    WhereOp,
)
from .scalar import Val
from .scalar_input import ScalarInput

if TYPE_CHECKING:
    from .fusion import Fusion

_INFIX = {"add": "+", "sub": "-", "mul": "*", "div": "/"}


def operand(x: object) -> str:
    from .tensor_view import TensorView

    if isinstance(x, (TensorView, ScalarInput)):
        return str(x)
    if isinstance(x, Val):
        return f"int64_t({x})"
    if isinstance(x, bool):
        return f"bool({str(x).lower()})"
    if isinstance(x, float):
        return f"double({x!r})"
    return f"int64_t({x!r})"


def expr_rhs(e: Expr) -> str:
    ins = e.inputs
    if isinstance(e, LoadStoreOp) and e.permutation is not None:
        dims = ", ".join(str(d) for d in e.permutation)
        return f"{e.op_string()}( {operand(ins[0])}, dims = {{{dims}}} )"
    if isinstance(e, LoadStoreOp):
        return f"{e.op_string()}( {operand(ins[0])} )"
    if isinstance(e, UnaryOp):
        return f"{e.op}({operand(ins[0])})"
    if isinstance(e, CastOp):
        return f"__to_{e.dtype.short_name}({operand(ins[0])})"
    if isinstance(e, BinaryOp):
        if e.op in _INFIX:
            return f"{operand(ins[0])}\n   {_INFIX[e.op]} {operand(ins[1])}"
        return f"{e.op}({operand(ins[0])},\n          {operand(ins[1])})"
    if isinstance(e, BroadcastOp):
        flags = ", ".join("true" if b else "false" for b in e.is_broadcast_dims)
        return f"broadcast( {operand(ins[0])}, flags = {{{flags}}} )"
    if isinstance(e, ReductionOp):
        return f"reduction( {operand(ins[0])}, op = {e.op}, initial value = {e.init!r} )"
    if isinstance(e, WhereOp):
        return f"where({operand(ins[0])},\n          {operand(ins[1])},\n          {operand(ins[2])})"
    if isinstance(e, FullOp):
        return f"full( {operand(e.value)} )"
    if isinstance(e, ViewOp):
        shape = ", ".join(str(i.extent) for i in e.output.shape_ids)
        return f"reshape( {operand(ins[0])}, new_shape = [{shape}] )"
    if isinstance(e, IotaOp):
        return f"iota( start = {operand(e.start)}, step = {operand(e.step)} )"
    if isinstance(e, PadOp):
        widths = ", ".join(f"{{{b}, {a}}}" for b, a in e.pads)
        return f"pad( {operand(ins[0])}, widths = {{{widths}}}, value = {operand(e.value)} )"
    if isinstance(e, ScanOp):
        kind = ", exclusive" if e.exclusive else ""
        return f"scan( {operand(ins[0])}, op = {e.op}, axis = {e.axis}{kind}, initial value = {e.init!r} )"
    if isinstance(e, RescaledSumOp):
        return f"rescaled_sum({operand(ins[0])},\n          scale = {operand(ins[1])}, axis = {e.axis})"
    if isinstance(e, MmaOp):
        return f"mma({operand(ins[0])},\n       {operand(ins[1])})"
    raise TypeError(type(e).__name__)


def fusion_math(fusion: "Fusion") -> str:
    lines = ["Inputs:"]
    lines += [f"  {tv}, {tv.dtype.short_name}{' (scalar)' if isinstance(tv, ScalarInput) else ''}"
              for tv in fusion.inputs]
    lines.append("Outputs:")
    lines += [f"  {tv}, {tv.dtype.short_name}" for tv in fusion.outputs]
    lines.append("")
    lines.append("%kernel_math {")
    for e in fusion.exprs:
        lines.append(f"{e.output}\n   = {expr_rhs(e)};")
    lines.append("} // %kernel_math")
    return "\n".join(lines)
