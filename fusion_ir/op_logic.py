"""Comparisons, logical ops and ``where``: the ops that make and consume Bool tensors.

A comparison computes in the promoted type of its operands and gives a Bool; the logical ops read any
operand as a Bool (nonzero is true, NaN included: ``fusion_ir.value_semantics``).
"""

from __future__ import annotations

from .exprs import WhereOp
from .op_core import binary, broadcast_root, check_tensor, fusion_of, operand_dtype, unary
from .tensor_view import TensorView
from .types import DataType, ScheduleError, promote


def lt(a: object, b: object) -> TensorView:
    """``a < b``, a Bool tensor (operands broadcast and promote as for ``add``)."""
    return binary("lt", a, b)


def le(a: object, b: object) -> TensorView:
    """``a <= b``, a Bool tensor."""
    return binary("le", a, b)


def gt(a: object, b: object) -> TensorView:
    """``a > b``, a Bool tensor."""
    return binary("gt", a, b)


def ge(a: object, b: object) -> TensorView:
    """``a >= b``, a Bool tensor."""
    return binary("ge", a, b)


def eq(a: object, b: object) -> TensorView:
    """``a == b``, a Bool tensor (NaN equals nothing)."""
    return binary("eq", a, b)


def ne(a: object, b: object) -> TensorView:
    """``a != b``, a Bool tensor (NaN differs from everything, itself included)."""
    return binary("ne", a, b)


def logical_and(a: object, b: object) -> TensorView:
    """``a`` and ``b``, a Bool tensor; a non-Bool operand is true where nonzero."""
    return binary("logical_and", a, b)


def logical_or(a: object, b: object) -> TensorView:
    """``a`` or ``b``, a Bool tensor; a non-Bool operand is true where nonzero."""
    return binary("logical_or", a, b)


def logical_not(x: TensorView) -> TensorView:
    """``!x``, a Bool tensor; a non-Bool ``x`` is true where nonzero."""
    return unary("logical_not", check_tensor(x, "logical_not"), DataType.Bool)


def where(cond: object, a: object, b: object) -> TensorView:
    """``a`` where ``cond`` is true, else ``b``; any may be a scalar (``a``, ``b``: or a scalar input), tensors broadcast as for ``add``."""
    tensors = [x for x in (cond, a, b) if isinstance(x, TensorView)]
    if not tensors:
        raise ScheduleError("where: at least one of cond, a and b must be a TensorView")
    if not isinstance(cond, (TensorView, bool)):
        raise ScheduleError(f"where: cond {cond!s} must be a TensorView or a bool")
    fusion = fusion_of(cond, a, b)
    dtype = promote(operand_dtype(a), operand_dtype(b))
    out = fusion.new_tensor(broadcast_root(fusion, "where", tensors), dtype)
    fusion.add_expr(WhereOp(inputs=[cond, a, b], outputs=[out]))
    return out
