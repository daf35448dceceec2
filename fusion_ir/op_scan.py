"""Running reductions: ``cummax`` and ``cumsum`` (scans along one axis) and ``rescaled_sum`` (a sum whose
running total is rescaled before each term, the accumulation of an online softmax)."""

from __future__ import annotations

from .exprs import RescaledSumOp, ScanOp
from .op_core import broadcast_root, check_tensor, dim, fusion_of, lowest
from .tensor_view import TensorView
from .types import IterType, ScheduleError


def _scan(op: str, x: TensorView, axis: int, exclusive: bool) -> TensorView:
    name = f"cum{op}"
    x = check_tensor(x, name)
    if not isinstance(exclusive, bool):
        raise ScheduleError(f"{name}: exclusive {exclusive!r} must be a bool")
    ids = x.shape_ids
    d = dim(x, name, "axis", axis, len(ids))
    if ids[d].is_broadcast:
        raise ScheduleError(f"{name}: axis {axis} of T{x.name} ({ids[d].label()}) is a broadcast axis; a scan runs "
                            f"along an axis with elements")
    fusion = fusion_of(x)
    out = fusion.new_tensor([fusion.new_iter_domain(i.extent, i.iter_type) for i in ids], x.dtype)
    init = 0.0 if op == "sum" else lowest(x.dtype)
    fusion.add_expr(ScanOp(inputs=[x], outputs=[out], op=op, axis=d, exclusive=exclusive, init=init))
    return out


def cummax(x: TensorView, axis: int, exclusive: bool = False) -> TensorView:
    """The running maximum along ``axis`` (``exclusive``: of the elements before, ``-inf`` first)."""
    return _scan("max", x, axis, exclusive)


def cumsum(x: TensorView, axis: int, exclusive: bool = False) -> TensorView:
    """The running sum along ``axis`` (``exclusive``: of the elements before, 0 first)."""
    return _scan("sum", x, axis, exclusive)


def rescaled_sum(x: TensorView, scale: TensorView, axis: int) -> TensorView:
    """The sum over ``axis`` of ``x``, the running total multiplied by ``scale[j]`` before ``x[j]`` is added."""
    x, scale = check_tensor(x, "rescaled_sum"), check_tensor(scale, "rescaled_sum")
    for name, t in (("x", x), ("scale", scale)):
        if not t.dtype.is_float:
            raise ScheduleError(f"rescaled_sum: {name} T{t.name} is {t.dtype.name}; it sums floats")
    ids = x.shape_ids
    if len(scale.shape_ids) != len(ids):
        raise ScheduleError(f"rescaled_sum: scale T{scale.name} has rank {len(scale.shape_ids)} and x T{x.name} rank "
                            f"{len(ids)}; give scale x's rank (ops.broadcast its missing axes)")
    d = dim(x, "rescaled_sum", "axis", axis, len(ids))
    if ids[d].is_broadcast or scale.shape_ids[d].is_broadcast:
        which = f"x T{x.name}" if ids[d].is_broadcast else f"scale T{scale.name}"
        raise ScheduleError(f"rescaled_sum: axis {axis} of {which} is a broadcast axis; x and scale both run along "
                            f"the summed axis")
    fusion = fusion_of(x, scale)
    root = broadcast_root(fusion, "rescaled_sum", [x, scale])
    root[d].iter_type = IterType.Reduction
    out = fusion.new_tensor(root, x.dtype)
    fusion.add_expr(RescaledSumOp(inputs=[x, scale], outputs=[out], axis=d))
    return out
