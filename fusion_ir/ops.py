"""Ops that define new tensors inside ``with fusion:``.

Every public op is in ``__all__`` and has a one-line docstring summary: ``fusion_ir.ops_table``
prints the op table of docs/tutorial.md from them. The ops of one family live in a module of their own
(``op_logic``, ``op_math``, ...) built on ``op_core``, and are re-exported here.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from .exprs import BroadcastOp, CastOp, LoadStoreOp, MmaOp
from .fusion import ExtentConstraint, Fusion
from .iter_domain import IterDomain
from .op_core import binary, check_tensor, dim, fusion_of, reduction, unary
from .op_logic import eq, ge, gt, le, logical_and, logical_not, logical_or, lt, ne, where
from .op_math import clamp, erf, expm1, log1p, pow, silu
from .op_factory import full, iota
from .op_norm import mean, var_mean
from .op_pad import pad
from .op_scan import cummax, cumsum, rescaled_sum
from .op_reshape import reshape
from .scalar import Val
from .tensor_view import TensorView
from .types import DataType, IterType, LoadStoreOpType, ScheduleError

UNARY_OPS = ("neg", "exp", "abs", "relu", "sqrt", "sin", "cos", "log", "rsqrt", "tanh", "sigmoid")
BINARY_OPS = ("add", "sub", "mul", "div", "maximum", "minimum")
REDUCTION_OPS = ("sum", "max")

__all__ = ["set", *UNARY_OPS, "gelu", "cast", *BINARY_OPS, "broadcast", "permute", "transpose", *REDUCTION_OPS,
           "matmul",
           # re-exported from the op-family modules
           "lt", "le", "gt", "ge", "eq", "ne", "logical_and", "logical_or", "logical_not", "where",
           "erf", "silu", "log1p", "expm1", "pow", "clamp", "mean", "var_mean", "iota", "full", "reshape",
           "pad", "cummax", "cumsum", "rescaled_sum"]


def set(x: TensorView) -> TensorView:
    """A copy of ``x`` (``cache_after`` and ``cache_before`` make such copies for a schedule)."""
    x = check_tensor(x, "set")
    fusion = fusion_of(x)
    out = fusion.new_tensor_like(x)
    fusion.add_expr(LoadStoreOp(inputs=[x], outputs=[out], op_type=LoadStoreOpType.Set))
    return out


def neg(x: TensorView) -> TensorView:
    """``-x``. A Bool is refused: CUDA would promote it to the int -1 and convert that back to true."""
    x = check_tensor(x, "neg")
    if x.dtype is DataType.Bool:
        raise ScheduleError(f"neg: T{x.name} is Bool, and negating a boolean is not defined (CUDA promotes it to "
                            f"int, -1 converts back to true: x unchanged); cast T{x.name} to Int32 or Float first")
    return unary("neg", x)


def exp(x: TensorView) -> TensorView:
    """``exp(x)``."""
    return unary("exp", x)


def abs(x: TensorView) -> TensorView:
    """``abs(x)``, the absolute value."""
    return unary("abs", x)


def relu(x: TensorView) -> TensorView:
    """``max(x, 0)``."""
    return unary("relu", x)


def sqrt(x: TensorView) -> TensorView:
    """``sqrt(x)``."""
    return unary("sqrt", x)


def sin(x: TensorView) -> TensorView:
    """``sin(x)``."""
    return unary("sin", x)


def cos(x: TensorView) -> TensorView:
    """``cos(x)``."""
    return unary("cos", x)


def log(x: TensorView) -> TensorView:
    """``log(x)``, the natural logarithm."""
    return unary("log", x)


def rsqrt(x: TensorView) -> TensorView:
    """``1 / sqrt(x)``."""
    return unary("rsqrt", x)


def tanh(x: TensorView) -> TensorView:
    """``tanh(x)``."""
    return unary("tanh", x)


def sigmoid(x: TensorView) -> TensorView:
    """``1 / (1 + exp(-x))``."""
    return unary("sigmoid", x)


GELU_C0 = 0.7978845608028654              # sqrt(2 / pi)
GELU_C1 = 0.044715 * GELU_C0             # its x^3 coefficient times sqrt(2 / pi)


def gelu(x: TensorView) -> TensorView:
    """GELU, tanh form (torch's ``gelu(x, approximate="tanh")``), built of ``mul``, ``add`` and ``tanh``.

    ``0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))``, arranged as ``h t + h`` with ``h = 0.5 x`` and
    ``t = tanh(x (c0 + c1 x^2))``: each ``a * b + c`` is one fused multiply-add, 5 FP32 instructions and the tanh
    (the textbook order takes 8).
    """
    x = check_tensor(x, "gelu")
    inner = mul(x, add(mul(mul(x, x), GELU_C1), GELU_C0))
    half = mul(x, 0.5)
    return add(mul(half, tanh(inner)), half)


def cast(x: TensorView, dtype: DataType) -> TensorView:
    """``x`` converted to ``dtype`` (Float, Half, BFloat16, Int32, ...)."""
    x = check_tensor(x, "cast")
    if not isinstance(dtype, DataType):
        raise ScheduleError(f"cast: {dtype!r} is not a DataType")
    fusion = fusion_of(x)
    out = fusion.new_tensor_like(x, dtype=dtype)
    fusion.add_expr(CastOp(inputs=[x], outputs=[out], dtype=dtype))
    return out


def add(a: object, b: object) -> TensorView:
    """``a + b``: tensors of one rank (extents equal on every non-broadcast axis), or a tensor and a scalar (a number or a scalar input)."""
    return binary("add", a, b)


def sub(a: object, b: object) -> TensorView:
    """``a - b``."""
    return binary("sub", a, b)


def mul(a: object, b: object) -> TensorView:
    """``a * b``."""
    return binary("mul", a, b)


def div(a: object, b: object) -> TensorView:
    """``a / b``, a float result even for integer operands."""
    return binary("div", a, b)


def maximum(a: object, b: object) -> TensorView:
    """The larger of ``a`` and ``b``, elementwise."""
    return binary("maximum", a, b)


def minimum(a: object, b: object) -> TensorView:
    """The smaller of ``a`` and ``b``, elementwise."""
    return binary("minimum", a, b)


def broadcast(x: TensorView, is_broadcast_dims: Sequence[bool]) -> TensorView:
    """``x`` with a new extent-1 axis wherever ``is_broadcast_dims`` is True (binary ops need equal ranks)."""
    x = check_tensor(x, "broadcast")
    fusion = fusion_of(x)
    flags = tuple(bool(f) for f in is_broadcast_dims)
    kept = x.shape_ids
    n_kept = len([f for f in flags if not f])
    if n_kept != len(kept):
        raise ScheduleError(f"broadcast: T{x.name} has rank {len(kept)} but is_broadcast_dims {list(flags)} "
                            f"keeps {n_kept} axes")
    it = iter(kept)
    root = []
    for f in flags:
        if f:
            root.append(fusion.new_iter_domain(Val.const(1), IterType.Broadcast))
        else:
            src = next(it)
            root.append(fusion.new_iter_domain(src.extent, src.iter_type))
    out = fusion.new_tensor(root, x.dtype)
    fusion.add_expr(BroadcastOp(inputs=[x], outputs=[out], is_broadcast_dims=flags))
    return out


def permute(x: TensorView, dims: Sequence[int]) -> TensorView:
    """``x`` with its axes reordered: axis ``i`` of the result is axis ``dims[i]`` of ``x`` (torch's ``permute``)."""
    x = check_tensor(x, "permute")
    fusion = fusion_of(x)
    ids = x.shape_ids
    if isinstance(dims, (str, bytes)) or not isinstance(dims, Sequence):
        raise ScheduleError(f"permute: dims {dims!r} for T{x.name} must be a sequence of {len(ids)} axes")
    order = tuple(dim(x, "permute", f"dims[{k}]", d, len(ids)) for k, d in enumerate(dims))
    if len(order) != len(ids) or len(frozenset(order)) != len(order):
        raise ScheduleError(f"permute: dims {list(dims)} must name each of the {len(ids)} axes of T{x.name} exactly "
                            f"once (a permutation of 0 .. {len(ids) - 1})")
    root = [fusion.new_iter_domain(ids[p].extent, ids[p].iter_type) for p in order]
    out = fusion.new_tensor(root, x.dtype)
    fusion.add_expr(LoadStoreOp(inputs=[x], outputs=[out], op_type=LoadStoreOpType.Set, permutation=order))
    return out


def transpose(x: TensorView, dim0: int, dim1: int) -> TensorView:
    """``x`` with axes ``dim0`` and ``dim1`` swapped (torch's ``transpose``; ``permute`` with one swap)."""
    x = check_tensor(x, "transpose")
    rank = len(x.shape_ids)
    d0 = dim(x, "transpose", "dim0", dim0, rank)
    d1 = dim(x, "transpose", "dim1", dim1, rank)
    order = list(range(rank))
    order[d0], order[d1] = order[d1], order[d0]
    return permute(x, order)


def sum(x: TensorView, axes: int | Sequence[int]) -> TensorView:
    """The sum over ``axes``; they stay in the result as reduction axes (``rS``)."""
    return reduction("sum", x, axes)


def max(x: TensorView, axes: int | Sequence[int]) -> TensorView:
    """The maximum over ``axes``; they stay in the result as reduction axes (``rS``)."""
    return reduction("max", x, axes)


def matmul(a: TensorView, b: TensorView) -> TensorView:
    """``[..., M, K] @ [..., K, N] -> [..., M, N, rK]`` as one MMA op (a float result), batched as ``torch.matmul``."""
    a, b = check_tensor(a, "matmul"), check_tensor(b, "matmul")
    fusion = fusion_of(a, b)
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
