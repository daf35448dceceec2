"""``pad``: elements of one value added before and after axes (``torch.nn.functional.pad``'s widths)."""

from __future__ import annotations

from collections.abc import Sequence

from .exprs import PadOp
from .op_core import check_tensor, fusion_of
from .scalar import Val, ceil_div
from .tensor_view import TensorView
from .types import ScheduleError


def _width(argument: str, w: object) -> Val:
    if isinstance(w, Val):
        return w
    if isinstance(w, bool) or not isinstance(w, int) or w < 0:
        raise ScheduleError(f"pad: {argument} {w!r} must be a non-negative int or an extent Val")
    return Val.const(w)


def _value(x: TensorView, value: object) -> float | int | bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ScheduleError(f"pad: value {value!r} must be an int or a float")
    if isinstance(value, float) and not x.dtype.is_float and value not in (float("inf"), float("-inf")):
        raise ScheduleError(f"pad: value {value!r} is a float but T{x.name} is {x.dtype.name}")
    return value


def _padded(x: TensorView, pads: list[tuple[Val, Val]], extents: list[Val], value: object) -> TensorView:
    fusion = fusion_of(x)
    ids = x.shape_ids
    for k, ((before, after), i) in enumerate(zip(pads, ids)):
        if i.is_broadcast and not (before.const_value() == 0 and after.const_value() == 0):
            raise ScheduleError(f"pad: axis {k} of T{x.name} ({i.label()}) is a broadcast axis; pad it after "
                                f"broadcasting to an extent")
    out = fusion.new_tensor([fusion.new_iter_domain(e, i.iter_type) for e, i in zip(extents, ids)], x.dtype)
    fusion.add_expr(PadOp(inputs=[x], outputs=[out], pads=tuple(pads), value=_value(x, value)))
    return out


def pad(x: TensorView, pad_widths: Sequence[int | Val], value: float = 0.0) -> TensorView:
    """``x`` with ``value`` added around its last axes: widths (before, after) from the last axis back, as torch."""
    x = check_tensor(x, "pad")
    if isinstance(pad_widths, (str, bytes)) or not isinstance(pad_widths, Sequence):
        raise ScheduleError(f"pad: pad_widths {pad_widths!r} must be a sequence of (before, after) widths, the last "
                            f"axis first")
    rank = len(x.shape_ids)
    if len(pad_widths) % 2 or not 0 < len(pad_widths) <= 2 * rank:
        raise ScheduleError(f"pad: pad_widths has {len(pad_widths)} entries; give an even number, at most "
                            f"{2 * rank} (a before and an after width per axis of T{x.name}, the last axis first)")
    pads = [(Val.const(0), Val.const(0)) for _ in range(rank)]
    for j in range(len(pad_widths) // 2):
        k = rank - 1 - j
        pads[k] = (_width(f"pad_widths[{2 * j}]", pad_widths[2 * j]),
                   _width(f"pad_widths[{2 * j + 1}]", pad_widths[2 * j + 1]))
    extents = [before + i.extent + after if (before.const_value(), after.const_value()) != (0, 0) else i.extent
               for (before, after), i in zip(pads, x.shape_ids)]
    return _padded(x, pads, extents, value)


def pad_to_multiple(x: TensorView, axis: int, multiple: int, value: float = 0.0) -> TensorView:
    """``x`` with ``value`` added after ``axis`` up to a multiple of ``multiple`` elements (its extent then reads
    ``ceilDiv(n, multiple) * multiple``, which ``reshape`` splits by ``multiple``)."""
    x = check_tensor(x, "pad_to_multiple")
    if isinstance(multiple, bool) or not isinstance(multiple, int) or multiple < 1:
        raise ScheduleError(f"pad_to_multiple: multiple {multiple!r} must be a positive int")
    rank = len(x.shape_ids)
    k = axis % rank if isinstance(axis, int) and -rank <= axis < rank else None
    if k is None:
        raise ScheduleError(f"pad_to_multiple: axis {axis!r} is not an axis of T{x.name} of rank {rank}")
    n = x.shape_ids[k].extent
    padded = ceil_div(n, multiple) * multiple
    pads = [(Val.const(0), Val.const(0)) for _ in range(rank)]
    pads[k] = (Val.const(0), padded - n)
    extents = [padded if j == k else i.extent for j, i in enumerate(x.shape_ids)]
    return _padded(x, pads, extents, value)
