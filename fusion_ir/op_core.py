"""What every op module builds on: operand checks, result types, broadcasting of operand shapes, and the
generic unary, elementwise and reduction builders (``fusion_ir.ops`` re-exports the public ops)."""

from __future__ import annotations

from collections.abc import Sequence

from .exprs import BinaryOp, ReductionOp, UnaryOp
from .fusion import ExtentConstraint, Fusion
from .iter_domain import IterDomain
from .scalar import Val
from .scalar_input import ScalarInput
from .tensor_view import TensorView
from .types import DataType, IterType, ScheduleError, promote

# ops whose result is a Bool whatever their operands' type
COMPARE_OPS = ("lt", "le", "gt", "ge", "eq", "ne")
LOGICAL_OPS = ("logical_and", "logical_or")
# unary ops that keep an integer (or Bool) operand's type; every other unary op makes a Float of one
TYPE_KEEPING_UNARY = ("neg", "abs", "relu")


def fusion_of(*xs: object) -> Fusion:
    fusion = Fusion.current()
    for x in xs:
        if isinstance(x, TensorView) and x.fusion is not fusion:
            raise ScheduleError(f"T{x.name} belongs to another fusion than the active one")
        if isinstance(x, ScalarInput) and x.fusion is not fusion:
            raise ScheduleError(f"scalar input {x} belongs to another fusion than the active one")
    return fusion


def check_tensor(x: object, op: str) -> TensorView:
    if isinstance(x, ScalarInput):
        raise ScheduleError(f"{op}: {x} is a scalar input (one {x.dtype.name} value, no axes), but {op} takes a "
                            f"tensor; use it as an operand of an elementwise op (ops.mul(t, {x}))")
    if not isinstance(x, TensorView):
        raise ScheduleError(f"{op}: expected a TensorView, got {type(x).__name__}")
    return x


def scalar_dtype(s: object) -> DataType:
    """The type of a scalar operand: Int32 for a Python int, Float for a float, Int64 (the index type
    nvFuser gives extents) for a ``Val`` such as ``tv.size(1)``, its own type for a ``ScalarInput``."""
    if isinstance(s, ScalarInput):
        return s.dtype
    if isinstance(s, Val):
        return DataType.Int64
    if isinstance(s, bool) or not isinstance(s, (int, float)):
        raise ScheduleError(f"scalar operand {s!r} must be an int or a float, a scalar input "
                            f"(fusion.add_scalar_input) or an extent Val (tv.size(d))")
    return DataType.Int32 if isinstance(s, int) else DataType.Float


def operand_dtype(x: object) -> DataType:
    return x.dtype if isinstance(x, TensorView) else scalar_dtype(x)


def unary(op: str, x: TensorView, dtype: DataType | None = None) -> TensorView:
    """``op`` of ``x``: a Float result for an integer ``x`` unless the op keeps its type, or ``dtype``."""
    x = check_tensor(x, op)
    fusion = fusion_of(x)
    if dtype is None:
        dtype = x.dtype
        if op not in TYPE_KEEPING_UNARY and not dtype.is_float:
            dtype = DataType.Float
    out = fusion.new_tensor_like(x, dtype=dtype)
    fusion.add_expr(UnaryOp(inputs=[x], outputs=[out], op=op))
    return out


def binary_dtype(op: str, a: object, b: object) -> DataType:
    """The result type of ``op``: Bool for comparisons and logical ops; else the promoted operand type,
    a Float for ``div`` and ``pow`` of integers."""
    if op in COMPARE_OPS or op in LOGICAL_OPS:
        return DataType.Bool
    dtype = promote(operand_dtype(a), operand_dtype(b))
    if op in ("div", "pow") and not dtype.is_float:
        return DataType.Float
    return dtype


def binary(op: str, a: object, b: object) -> TensorView:
    tensors = [x for x in (a, b) if isinstance(x, TensorView)]
    if not tensors:
        raise ScheduleError(f"{op}: at least one operand must be a TensorView (got {a!s} and {b!s})")
    fusion = fusion_of(a, b)
    dtype = binary_dtype(op, a, b)
    out = fusion.new_tensor(broadcast_root(fusion, op, tensors), dtype)
    fusion.add_expr(BinaryOp(inputs=[a, b], outputs=[out], op=op))
    return out


def broadcast_root(fusion: Fusion, op: str, tensors: Sequence[TensorView]) -> list[IterDomain]:
    """The root of an elementwise op's result over ``tensors`` of one rank: on each axis the extent of an
    operand not broadcast there (a broadcast axis only where all are); unequal extents become checks."""
    if len(tensors) == 1:
        return [fusion.new_iter_domain(i.extent, i.iter_type) for i in tensors[0].shape_ids]
    first = tensors[0]
    for other in tensors[1:]:
        if len(other.shape_ids) != len(first.shape_ids):
            raise ScheduleError(f"{op}: T{first.name} has rank {len(first.shape_ids)} and T{other.name} has rank "
                                f"{len(other.shape_ids)}; insert explicit broadcast axes with ops.broadcast")
    root = []
    for k in range(len(first.shape_ids)):
        axes = [(tv, tv.shape_ids[k]) for tv in tensors]
        full = [(tv, i) for tv, i in axes if not i.is_broadcast]
        (src_tv, src), rest = (full[0], full[1:]) if full else (axes[0], [])
        for tv, i in rest:
            if i.extent != src.extent:
                (name_a, subject), (name_b, _) = axis_source(src_tv, k), axis_source(tv, k)
                message = f"{op}: {name_a} and {name_b} must have equal extents"
                fusion.extent_constraints.append(ExtentConstraint(src.extent, i.extent, message, f"T{subject.name}"))
        it = IterType.Iteration if full else IterType.Broadcast
        root.append(fusion.new_iter_domain(src.extent, it))
    return root


def axis_source(tv: TensorView, k: int) -> tuple[str, TensorView]:
    """Name axis ``k`` of ``tv`` by the fusion input it comes from, when it comes from one; with the tensor
    the name starts with.

    An operand made by ``broadcast`` (or any op) is the user's input under another name: a
    shape mismatch reads better as "axis 0 of input T1" than as an axis of an internal tensor.
    """
    i, cur = tv.shape_ids[k], tv
    while not cur.is_input and cur.definition is not None:
        step = next(((p, m[i]) for p in cur.definition.tensor_inputs()
                     if i in (m := cur.definition.root_map(p))), None)
        if step is None:
            break
        cur, i = step
    if cur is tv:
        return f"axis {k} of {'input ' if tv.is_input else ''}T{tv.name}", tv
    if not cur.is_input or i not in cur.shape_ids:
        return f"axis {k} of T{tv.name}", tv
    return f"axis {cur.shape_ids.index(i)} of input T{cur.name} (axis {k} of T{tv.name})", cur


def dim(x: TensorView, op: str, argument: str, d: object, rank: int) -> int:
    """``d`` as an axis of ``x`` in [0, rank): an int in [-rank, rank), negative counting from the end (torch)."""
    if isinstance(d, bool) or not isinstance(d, int) or not -rank <= d < rank:
        raise ScheduleError(f"{op}: {argument} {d!r} is not an axis of T{x.name} of rank {rank}; an axis is an int "
                            f"in [{-rank}, {rank}) (negative counts from the end)")
    return d % rank


def reduction_axes(op: str, x: TensorView, axes: int | Sequence[int]) -> list[int]:
    """``axes`` of ``x`` normalized to [0, rank): a non-empty list of distinct axes."""
    n = len(x.shape_ids)
    axes_list = [axes] if isinstance(axes, int) else list(axes)
    norm = []
    for a in axes_list:
        if isinstance(a, bool) or not isinstance(a, int) or not -n <= a < n:
            raise ScheduleError(f"{op}: axis {a!r} is out of range for T{x.name} of rank {n}")
        norm.append(a % n)
    if not norm or len(norm) != len(frozenset(norm)):
        raise ScheduleError(f"{op}: axes {axes_list} must be a non-empty list of distinct axes")
    return sorted(norm)


def reduction(op: str, x: TensorView, axes: int | Sequence[int]) -> TensorView:
    x = check_tensor(x, op)
    fusion = fusion_of(x)
    norm = reduction_axes(op, x, axes)
    root = []
    for k, i in enumerate(x.shape_ids):
        it = IterType.Reduction if k in norm else i.iter_type
        root.append(fusion.new_iter_domain(i.extent, it))
    out = fusion.new_tensor(root, x.dtype)
    init = 0.0 if op == "sum" else lowest(x.dtype)
    fusion.add_expr(ReductionOp(inputs=[x], outputs=[out], op=op, axes=tuple(norm), init=init))
    return out


def lowest(dtype: DataType) -> float | int:
    """The identity of ``max``: -inf for floats, the smallest value for integers (no -inf there)."""
    if dtype.is_float:
        return float("-inf")
    if dtype is DataType.Bool:
        return 0
    return -(1 << (8 * dtype.size - 1))
