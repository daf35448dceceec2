"""Normalization statistics: ``mean`` and ``var_mean``, composites of ``sum`` and pointwise ops whose
element counts are the reduced extents of the IR (``TensorView.size``), so a kernel for symbolic sizes
divides by the extents bound at launch."""

from __future__ import annotations

from collections.abc import Sequence

from .exprs import BroadcastOp
from .op_core import binary, check_tensor, fusion_of, reduction, reduction_axes
from .scalar import Val
from .tensor_view import TensorView
from .types import IterType, ScheduleError


def _count(x: TensorView, axes: list[int]) -> Val:
    """The number of elements each result element reduces: the product of the reduced extents."""
    n = Val.const(1)
    for a in axes:
        n = n * x.size(a)
    return n


def _broadcast_back(x: TensorView, stat: TensorView, axes: list[int]) -> TensorView:
    """``stat`` (``x`` reduced over ``axes``) with its reduced axes back as broadcast axes."""
    fusion = fusion_of(x)
    flags = tuple(k in axes for k in range(len(x.shape_ids)))
    kept = iter(stat.shape_ids)
    root = []
    for flag in flags:
        if flag:
            root.append(fusion.new_iter_domain(Val.const(1), IterType.Broadcast))
        else:
            src = next(kept)
            root.append(fusion.new_iter_domain(src.extent, src.iter_type))
    out = fusion.new_tensor(root, stat.dtype)
    fusion.add_expr(BroadcastOp(inputs=[stat], outputs=[out], is_broadcast_dims=flags))
    return out


def mean(x: TensorView, axes: int | Sequence[int]) -> TensorView:
    """The mean over ``axes``: ``sum`` divided by the product of the reduced extents (symbolic or constant)."""
    x = check_tensor(x, "mean")
    norm = reduction_axes("mean", x, axes)
    return binary("div", reduction("sum", x, norm), _count(x, norm))


def var_mean(x: TensorView, axes: int | Sequence[int], correction: int = 1) -> tuple[TensorView, TensorView]:
    """``(var, mean)`` over ``axes``: the mean, then the mean squared deviation from it times N/(N-correction).

    Two passes over ``x`` (not ``E[x^2] - E[x]^2``, which cancels catastrophically for data far from 0);
    a normalization schedule keeps ``x`` in registers or shared memory between them (a persistent buffer).
    """
    x = check_tensor(x, "var_mean")
    if isinstance(correction, bool) or not isinstance(correction, int) or correction < 0:
        raise ScheduleError(f"var_mean: correction {correction!r} for T{x.name} must be a non-negative int "
                            f"(1: Bessel's correction, 0: the population variance)")
    norm = reduction_axes("var_mean", x, axes)
    m = mean(x, norm)
    centred = binary("sub", x, _broadcast_back(x, m, norm))
    squares = reduction("sum", binary("mul", centred, centred), norm)
    return binary("div", squares, _count(x, norm) - correction), m
