"""Ops that define new tensors inside ``with fusion:``.

Every public op is in ``__all__`` and has a one-line docstring summary: ``fusion_ir.ops_table``
prints the op table of docs/tutorial.md from them.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from .exprs import BinaryOp, BroadcastOp, CastOp, LoadStoreOp, MmaOp, ReductionOp, UnaryOp
from .fusion import ExtentConstraint, Fusion
from .iter_domain import IterDomain
from .tensor_view import TensorView
from .types import DataType, IterType, LoadStoreOpType, ScheduleError, promote

UNARY_OPS = ("neg", "exp", "abs", "relu", "sqrt", "sin", "cos", "log", "rsqrt", "tanh", "sigmoid")
BINARY_OPS = ("add", "sub", "mul", "div", "maximum", "minimum")
REDUCTION_OPS = ("sum", "max")

__all__ = ["set", *UNARY_OPS, "gelu", "cast", *BINARY_OPS, "broadcast", "permute", "transpose", *REDUCTION_OPS,
           "matmul"]


def _fusion_of(*xs: object) -> Fusion:
    fusion = Fusion.current()
    for x in xs:
        if isinstance(x, TensorView) and x.fusion is not fusion:
            raise ScheduleError(f"T{x.name} belongs to another fusion than the active one")
    return fusion


def _check_tensor(x: object, op: str) -> TensorView:
    if not isinstance(x, TensorView):
        raise ScheduleError(f"{op}: expected a TensorView, got {type(x).__name__}")
    return x


def set(x: TensorView) -> TensorView:
    """A copy of ``x`` (``cache_after`` and ``cache_before`` make such copies for a schedule)."""
    x = _check_tensor(x, "set")
    fusion = _fusion_of(x)
    out = fusion.new_tensor_like(x)
    fusion.add_expr(LoadStoreOp(inputs=[x], outputs=[out], op_type=LoadStoreOpType.Set))
    return out


def _unary(op: str, x: TensorView) -> TensorView:
    x = _check_tensor(x, op)
    fusion = _fusion_of(x)
    dtype = x.dtype
    if op not in ("neg", "abs", "relu") and not dtype.is_float:
        dtype = DataType.Float
    out = fusion.new_tensor_like(x, dtype=dtype)
    fusion.add_expr(UnaryOp(inputs=[x], outputs=[out], op=op))
    return out


def neg(x: TensorView) -> TensorView:
    """``-x``. A Bool is refused: CUDA would promote it to the int -1 and convert that back to true."""
    x = _check_tensor(x, "neg")
    if x.dtype is DataType.Bool:
        raise ScheduleError(f"neg: T{x.name} is Bool, and negating a boolean is not defined (CUDA promotes it to "
                            f"int, -1 converts back to true: x unchanged); cast T{x.name} to Int32 or Float first")
    return _unary("neg", x)


def exp(x: TensorView) -> TensorView:
    """``exp(x)``."""
    return _unary("exp", x)


def abs(x: TensorView) -> TensorView:
    """``abs(x)``, the absolute value."""
    return _unary("abs", x)


def relu(x: TensorView) -> TensorView:
    """``max(x, 0)``."""
    return _unary("relu", x)


def sqrt(x: TensorView) -> TensorView:
    """``sqrt(x)``."""
    return _unary("sqrt", x)


def sin(x: TensorView) -> TensorView:
    """``sin(x)``."""
    return _unary("sin", x)


def cos(x: TensorView) -> TensorView:
    """``cos(x)``."""
    return _unary("cos", x)


def log(x: TensorView) -> TensorView:
    """``log(x)``, the natural logarithm."""
    return _unary("log", x)


def rsqrt(x: TensorView) -> TensorView:
    """``1 / sqrt(x)``."""
    return _unary("rsqrt", x)


def tanh(x: TensorView) -> TensorView:
    """``tanh(x)``."""
    return _unary("tanh", x)


def sigmoid(x: TensorView) -> TensorView:
    """``1 / (1 + exp(-x))``."""
    return _unary("sigmoid", x)


def gelu(x: TensorView) -> TensorView:
    """GELU, tanh form (torch's ``gelu(x, approximate="tanh")``), built of ``mul``, ``add`` and ``tanh``.

    ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``.
    """
    x = _check_tensor(x, "gelu")
    cube = mul(mul(x, x), x)
    inner = mul(add(x, mul(cube, 0.044715)), 0.7978845608028654)
    return mul(mul(x, 0.5), add(tanh(inner), 1.0))


def cast(x: TensorView, dtype: DataType) -> TensorView:
    """``x`` converted to ``dtype`` (Float, Half, BFloat16, Int32, ...)."""
    x = _check_tensor(x, "cast")
    if not isinstance(dtype, DataType):
        raise ScheduleError(f"cast: {dtype!r} is not a DataType")
    fusion = _fusion_of(x)
    out = fusion.new_tensor_like(x, dtype=dtype)
    fusion.add_expr(CastOp(inputs=[x], outputs=[out], dtype=dtype))
    return out


def _scalar_dtype(s: object) -> DataType:
    if isinstance(s, bool) or not isinstance(s, (int, float)):
        raise ScheduleError(f"scalar operand {s!r} must be an int or a float")
    return DataType.Int32 if isinstance(s, int) else DataType.Float


def _binary(op: str, a: object, b: object) -> TensorView:
    tensors = [x for x in (a, b) if isinstance(x, TensorView)]
    if not tensors:
        raise ScheduleError(f"{op}: at least one operand must be a TensorView")
    fusion = _fusion_of(*tensors)
    dtypes = [x.dtype if isinstance(x, TensorView) else _scalar_dtype(x) for x in (a, b)]
    dtype = promote(*dtypes)
    if op == "div" and not dtype.is_float:
        dtype = DataType.Float
    if len(tensors) == 1:
        out = fusion.new_tensor_like(tensors[0], dtype=dtype)
    else:
        out = fusion.new_tensor(_broadcast_root(fusion, op, a, b), dtype)  # type: ignore[arg-type]
    fusion.add_expr(BinaryOp(inputs=[a, b], outputs=[out], op=op))
    return out


def _broadcast_root(fusion: Fusion, op: str, a: TensorView, b: TensorView) -> list[IterDomain]:
    ia, ib = a.shape_ids, b.shape_ids
    if len(ia) != len(ib):
        raise ScheduleError(f"{op}: T{a.name} has rank {len(ia)} and T{b.name} has rank {len(ib)}; "
                            f"insert explicit broadcast axes with ops.broadcast")
    root = []
    for k, (x, y) in enumerate(zip(ia, ib)):
        if x.is_broadcast and not y.is_broadcast:
            src = y
        else:
            src = x
            if not x.is_broadcast and not y.is_broadcast and x.extent != y.extent:
                (first, subject), (second, _) = _axis_source(a, k), _axis_source(b, k)
                message = f"{op}: {first} and {second} must have equal extents"
                fusion.extent_constraints.append(ExtentConstraint(x.extent, y.extent, message, f"T{subject.name}"))
        it = IterType.Broadcast if (x.is_broadcast and y.is_broadcast) else IterType.Iteration
        root.append(fusion.new_iter_domain(src.extent, it))
    return root


def _axis_source(tv: TensorView, k: int) -> tuple[str, TensorView]:
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


def add(a: object, b: object) -> TensorView:
    """``a + b``: tensors of one rank (extents equal on every non-broadcast axis), or a tensor and a scalar."""
    return _binary("add", a, b)


def sub(a: object, b: object) -> TensorView:
    """``a - b``."""
    return _binary("sub", a, b)


def mul(a: object, b: object) -> TensorView:
    """``a * b``."""
    return _binary("mul", a, b)


def div(a: object, b: object) -> TensorView:
    """``a / b``, a float result even for integer operands."""
    return _binary("div", a, b)


def maximum(a: object, b: object) -> TensorView:
    """The larger of ``a`` and ``b``, elementwise."""
    return _binary("maximum", a, b)


def minimum(a: object, b: object) -> TensorView:
    """The smaller of ``a`` and ``b``, elementwise."""
    return _binary("minimum", a, b)


def broadcast(x: TensorView, is_broadcast_dims: Sequence[bool]) -> TensorView:
    """``x`` with a new extent-1 axis wherever ``is_broadcast_dims`` is True (binary ops need equal ranks)."""
    x = _check_tensor(x, "broadcast")
    fusion = _fusion_of(x)
    flags = tuple(bool(f) for f in is_broadcast_dims)
    kept = x.shape_ids
    n_kept = len([f for f in flags if not f])
    if n_kept != len(kept):
        raise ScheduleError(f"broadcast: T{x.name} has rank {len(kept)} but is_broadcast_dims {list(flags)} "
                            f"keeps {n_kept} axes")
    it = iter(kept)
    root = []
    from .scalar import Val

    for f in flags:
        if f:
            root.append(fusion.new_iter_domain(Val.const(1), IterType.Broadcast))
        else:
            src = next(it)
            root.append(fusion.new_iter_domain(src.extent, src.iter_type))
    out = fusion.new_tensor(root, x.dtype)
    fusion.add_expr(BroadcastOp(inputs=[x], outputs=[out], is_broadcast_dims=flags))
    return out


def _dim(x: TensorView, op: str, argument: str, d: object, rank: int) -> int:
    """``d`` as an axis of ``x`` in [0, rank): an int in [-rank, rank), negative counting from the end (torch)."""
    if isinstance(d, bool) or not isinstance(d, int) or not -rank <= d < rank:
        raise ScheduleError(f"{op}: {argument} {d!r} is not an axis of T{x.name} of rank {rank}; an axis is an int "
                            f"in [{-rank}, {rank}) (negative counts from the end)")
    return d % rank


def permute(x: TensorView, dims: Sequence[int]) -> TensorView:
    """``x`` with its axes reordered: axis ``i`` of the result is axis ``dims[i]`` of ``x`` (torch's ``permute``)."""
    x = _check_tensor(x, "permute")
    fusion = _fusion_of(x)
    ids = x.shape_ids
    if isinstance(dims, (str, bytes)) or not isinstance(dims, Sequence):
        raise ScheduleError(f"permute: dims {dims!r} for T{x.name} must be a sequence of {len(ids)} axes")
    order = tuple(_dim(x, "permute", f"dims[{k}]", d, len(ids)) for k, d in enumerate(dims))
    if len(order) != len(ids) or len(_frozenset(order)) != len(order):
        raise ScheduleError(f"permute: dims {list(dims)} must name each of the {len(ids)} axes of T{x.name} exactly "
                            f"once (a permutation of 0 .. {len(ids) - 1})")
    root = [fusion.new_iter_domain(ids[p].extent, ids[p].iter_type) for p in order]
    out = fusion.new_tensor(root, x.dtype)
    fusion.add_expr(LoadStoreOp(inputs=[x], outputs=[out], op_type=LoadStoreOpType.Set, permutation=order))
    return out


def transpose(x: TensorView, dim0: int, dim1: int) -> TensorView:
    """``x`` with axes ``dim0`` and ``dim1`` swapped (torch's ``transpose``; ``permute`` with one swap)."""
    x = _check_tensor(x, "transpose")
    rank = len(x.shape_ids)
    d0 = _dim(x, "transpose", "dim0", dim0, rank)
    d1 = _dim(x, "transpose", "dim1", dim1, rank)
    order = list(range(rank))
    order[d0], order[d1] = order[d1], order[d0]
    return permute(x, order)


def _reduction(op: str, x: TensorView, axes: int | Sequence[int]) -> TensorView:
    x = _check_tensor(x, op)
    fusion = _fusion_of(x)
    ids = x.shape_ids
    n = len(ids)
    axes_list = [axes] if isinstance(axes, int) else list(axes)
    norm = []
    for a in axes_list:
        if isinstance(a, bool) or not isinstance(a, int) or not -n <= a < n:
            raise ScheduleError(f"{op}: axis {a!r} is out of range for T{x.name} of rank {n}")
        norm.append(a % n)
    if not norm or len(norm) != len(_frozenset(norm)):
        raise ScheduleError(f"{op}: axes {axes_list} must be a non-empty list of distinct axes")
    root = []
    for k, i in enumerate(ids):
        it = IterType.Reduction if k in norm else i.iter_type
        root.append(fusion.new_iter_domain(i.extent, it))
    out = fusion.new_tensor(root, x.dtype)
    init = 0.0 if op == "sum" else _lowest(x.dtype)
    fusion.add_expr(ReductionOp(inputs=[x], outputs=[out], op=op, axes=tuple(sorted(norm)), init=init))
    return out


def _lowest(dtype: DataType) -> float | int:
    """The identity of ``max``: -inf for floats, the smallest value for integers (no -inf there)."""
    if dtype.is_float:
        return float("-inf")
    if dtype is DataType.Bool:
        return 0
    return -(1 << (8 * dtype.size - 1))


def _frozenset(xs: Sequence[int]) -> frozenset[int]:
    """A frozenset of ``xs`` (``set`` is an op in this module, so the builtin is out of reach)."""
    return frozenset(xs)


def sum(x: TensorView, axes: int | Sequence[int]) -> TensorView:
    """The sum over ``axes``; they stay in the result as reduction axes (``rS``)."""
    return _reduction("sum", x, axes)


def max(x: TensorView, axes: int | Sequence[int]) -> TensorView:
    """The maximum over ``axes``; they stay in the result as reduction axes (``rS``)."""
    return _reduction("max", x, axes)


def matmul(a: TensorView, b: TensorView) -> TensorView:
    """``[..., M, K] @ [..., K, N] -> [..., M, N, rK]`` as one MMA op (a float result), batched as ``torch.matmul``."""
    a, b = _check_tensor(a, "matmul"), _check_tensor(b, "matmul")
    fusion = _fusion_of(a, b)
    if len(a.shape_ids) < 2 or len(b.shape_ids) < 2:
        raise ScheduleError(f"matmul: T{a.name} (rank {len(a.shape_ids)}) and T{b.name} (rank {len(b.shape_ids)}) "
                            f"must both have at least 2 axes ([..., M, K] and [..., K, N])")
    *_, m, k = a.shape_ids
    *_, k2, n = b.shape_ids
    if k.extent != k2.extent:
        fusion.extent_constraints.append(ExtentConstraint(k.extent, k2.extent,
                                                          f"matmul: K of T{a.name} and T{b.name} must match",
                                                          f"T{a.name}"))
    root = _matmul_batch_root(fusion, a, b) + [
        fusion.new_iter_domain(m.extent), fusion.new_iter_domain(n.extent),
        fusion.new_iter_domain(k.extent, IterType.Reduction)]
    dtype = DataType.Float
    out = fusion.new_tensor(root, dtype)
    fusion.add_expr(MmaOp(inputs=[a, b], outputs=[out]))
    return out


def _matmul_batch_root(fusion: Fusion, a: TensorView, b: TensorView) -> list[IterDomain]:
    """The batch axes of ``a @ b``: ``a``'s and ``b``'s leading axes aligned from the right (``torch.matmul``).

    An operand with fewer batch axes (a 2-D one) is broadcast over the missing ones. Two batch axes at one
    position must be equal: a size-1 axis against a larger one (a batch broadcast through an extent-1 axis)
    is refused; drop the axis instead (a 2-D operand is broadcast over the whole batch)."""
    ba, bb = a.shape_ids[:-2], b.shape_ids[:-2]
    rank = builtins.max(len(ba), len(bb))      # ``max`` here is the reduction op
    root = []
    for pos in range(rank):
        x = ba[pos - rank + len(ba)] if pos >= rank - len(ba) else None
        y = bb[pos - rank + len(bb)] if pos >= rank - len(bb) else None
        if x is not None and y is not None:
            cx, cy = x.extent.const_value(), y.extent.const_value()
            if x.is_broadcast or y.is_broadcast or (cx is not None and cy is not None and cx != cy
                                                      and 1 in (cx, cy)):
                ka = a.shape_ids.index(x)
                kb = b.shape_ids.index(y)
                raise ScheduleError(f"matmul: batch axis {ka} of T{a.name} ({x.label()}) and batch axis {kb} of "
                                    f"T{b.name} ({y.label()}) differ and one is of size 1 (or a broadcast); "
                                    f"batch axes must be equal: a size-1 batch axis is not broadcast, give that "
                                    f"operand without it (a 2-D operand is broadcast over the whole batch)")
            if x.extent != y.extent:
                fusion.extent_constraints.append(ExtentConstraint(
                    x.extent, y.extent, f"matmul: batch axis {a.shape_ids.index(x)} of T{a.name} and batch axis "
                    f"{b.shape_ids.index(y)} of T{b.name} must have equal extents", f"T{a.name}"))
        src = x if x is not None else y
        root.append(fusion.new_iter_domain(src.extent))
    return root
