"""Unary math beyond ``exp`` (``erf``, ``silu``, ``log1p``, ``expm1``), ``pow`` and ``clamp``."""

from __future__ import annotations

from .op_core import binary, check_tensor, unary
from .op_logic import gt, lt, where
from .scalar_input import ScalarInput
from .tensor_view import TensorView
from .types import ScheduleError


def erf(x: TensorView) -> TensorView:
    """``erf(x)``, the error function."""
    return unary("erf", x)


def silu(x: TensorView) -> TensorView:
    """``x * sigmoid(x)`` (SiLU, swish)."""
    return unary("silu", x)


def log1p(x: TensorView) -> TensorView:
    """``log(1 + x)``, accurate for small ``x``."""
    return unary("log1p", x)


def expm1(x: TensorView) -> TensorView:
    """``exp(x) - 1``, accurate for small ``x``."""
    return unary("expm1", x)


def pow(a: object, b: object) -> TensorView:
    """``a ** b``: a tensor or scalar base and exponent, a float result even for integer operands."""
    return binary("pow", a, b)


def clamp(x: TensorView, min: float | ScalarInput | None, max: float | ScalarInput | None) -> TensorView:
    """``x`` limited to [min, max] (scalars or scalar inputs; None: no bound); NaN stays NaN, as in torch."""
    x = check_tensor(x, "clamp")
    for name, bound in (("min", min), ("max", max)):
        if isinstance(bound, ScalarInput):
            continue
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, (int, float))):
            raise ScheduleError(f"clamp: {name} {bound!r} for T{x.name} must be a Python int or float, or a "
                                f"scalar input")
    if isinstance(min, (int, float)) and isinstance(max, (int, float)) and min > max:
        raise ScheduleError(f"clamp: min {min!r} is greater than max {max!r} for T{x.name}; clamp needs min <= max")
    out = x
    if max is not None:                 # comparisons are false for NaN: it passes through both
        out = where(gt(out, max), max, out)
    if min is not None:
        out = where(lt(out, min), min, out)
    return out
