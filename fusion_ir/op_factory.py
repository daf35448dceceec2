"""Tensors defined by no input: ``full`` and ``iota``. Their extents are given (ints, or extents of other
tensors from ``TensorView.size``), so they broadcast against inputs like any other operand."""

from __future__ import annotations

from collections.abc import Sequence

from .exprs import FullOp, IotaOp
from .fusion import Fusion
from .scalar import Val
from .tensor_view import TensorView
from .types import DataType, ScheduleError

_IOTA_TYPES = (DataType.Int32, DataType.Int64, DataType.Float)


def _extent(op: str, argument: str, n: object) -> Val:
    """A positive int or an extent ``Val`` (``tv.size(d)``) as an extent."""
    if isinstance(n, Val):
        return n
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ScheduleError(f"{op}: {argument} {n!r} must be a positive int or an extent Val (tv.size(d))")
    return Val.const(n)


def full(shape: Sequence[int | Val], value: float | bool, dtype: DataType) -> TensorView:
    """A tensor of ``shape`` (ints or ``tv.size(d)`` extents) holding ``value`` everywhere."""
    if not isinstance(dtype, DataType):
        raise ScheduleError(f"full: dtype {dtype!r} is not a DataType")
    if isinstance(shape, (str, bytes)) or not isinstance(shape, Sequence):
        raise ScheduleError(f"full: shape {shape!r} must be a sequence of extents")
    if not isinstance(value, (bool, int, float)):
        raise ScheduleError(f"full: value {value!r} must be a bool, an int or a float")
    if isinstance(value, float) and not dtype.is_float:
        raise ScheduleError(f"full: value {value!r} is a float but dtype is {dtype.name}; give an int or a float "
                            f"dtype")
    fusion = Fusion.current()
    extents = [_extent("full", f"shape[{k}]", n) for k, n in enumerate(shape)]
    out = fusion.new_tensor([fusion.new_iter_domain(e) for e in extents], dtype)
    fusion.add_expr(FullOp(inputs=[], outputs=[out], value=value))
    return out


def iota(length: int | Val, start: float = 0, step: float = 1,
         dtype: DataType = DataType.Int32) -> TensorView:
    """The 1-D tensor ``start + i * step`` for ``i`` in [0, length) (``length`` an int or ``tv.size(d)``)."""
    if dtype not in _IOTA_TYPES:
        raise ScheduleError(f"iota: dtype {dtype!r} must be one of {', '.join(d.name for d in _IOTA_TYPES)}")
    for name, v in (("start", start), ("step", step)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ScheduleError(f"iota: {name} {v!r} must be an int or a float")
        if isinstance(v, float) and not dtype.is_float:
            raise ScheduleError(f"iota: {name} {v!r} is a float but dtype is {dtype.name}; use DataType.Float")
    fusion = Fusion.current()
    out = fusion.new_tensor([fusion.new_iter_domain(_extent("iota", "length", length))], dtype)
    fusion.add_expr(IotaOp(inputs=[], outputs=[out], start=start, step=step))
    return out
