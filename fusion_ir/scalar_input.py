"""Scalar inputs: a fusion input holding one value, given at launch (nvFuser's ``fd.define_scalar``).

A ``ScalarInput`` is an operand of elementwise ops as a Python number is (``ops.mul(t, alpha)``): it has no
axes, so nothing schedules, caches, indexes or loads it. It sits in ``fusion.inputs`` at the place it was added
(``execute`` and ``simulate`` take its value there) and the kernel takes it as a parameter by value
(``float S3``), read directly wherever an expression uses it. Half and BFloat16 scalars travel as ``float``
holding the value rounded to their precision; every other type travels as itself.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .types import DataType, ScheduleError

# the types a scalar input may have (no Bool: a condition is a tensor comparison)
SCALAR_DTYPES = (DataType.Float, DataType.Half, DataType.BFloat16, DataType.Int32, DataType.Int64)


class ScalarInput:
    """One value of ``dtype`` given at launch; printed and passed as ``S{name}``."""

    def __init__(self, fusion: Any, name: int, dtype: DataType) -> None:   # the Fusion it belongs to
        if dtype not in SCALAR_DTYPES:
            raise ScheduleError(f"add_scalar_input: dtype {dtype!r} is not a scalar type; use one of "
                                f"{', '.join(d.name for d in SCALAR_DTYPES)}")
        self.fusion = fusion
        self.name = name
        self.dtype = dtype

    # no axes: code that walks every input's shape (sizes, extents) sees an empty one
    shape_ids: tuple = ()
    logical: tuple = ()
    root: tuple = ()
    ndim = 0
    is_input = True
    is_output = False

    @property
    def param_name(self) -> str:
        """The kernel parameter's name (a C identifier)."""
        return f"S{self.name}"

    @property
    def param_dtype(self) -> DataType:
        """The type the kernel parameter is declared with: ``float`` for Half and BFloat16."""
        return param_dtype(self.dtype)

    def uses(self) -> list:
        return [e for e in self.fusion.exprs if any(x is self for x in e.inputs)]

    def __str__(self) -> str:
        return self.param_name

    def __repr__(self) -> str:
        return f"ScalarInput(S{self.name}, {self.dtype.name})"


def param_dtype(dtype: DataType) -> DataType:
    """A scalar of ``dtype`` is passed as this type (16-bit floats as float: no conversion at the call)."""
    return DataType.Float if dtype in (DataType.Half, DataType.BFloat16) else dtype


def stored_scalar(dtype: DataType, value: Any, name: str) -> np.generic:
    """``value`` (a Python number, numpy scalar or 0-d array) as the kernel holds a ``dtype`` scalar: a float32,
    a float32 rounded to Half or BFloat16 precision, an int32 or int64. ``ValueError`` naming ``name`` and what
    it expects for anything else: an array with axes, a bool, a float where an integer goes, an integer out of
    range."""
    expects = f"a Python {'int' if not dtype.is_float else 'number'}, a numpy scalar or a 0-d numpy array"
    if isinstance(value, np.ndarray):
        if value.shape != ():
            raise ValueError(f"input {name} is a scalar ({dtype.name}): expected {expects}, got an array of shape "
                             f"{value.shape}")
        value = value[()]
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        shape = getattr(value, "shape", None)
        what = type(value).__name__ + (f" of shape {tuple(shape)}" if shape is not None else "")
        hint = " (call .item() on a tensor)" if shape is not None else ""
        # a ValueError like every other refusal here: the runtime raises each as one InputError
        raise ValueError(f"input {name} is a scalar ({dtype.name}): expected {expects}, got {what}{hint}")  # noqa: TRY004
    if dtype.is_float:
        return _rounded(dtype, float(value))
    if isinstance(value, (float, np.floating)) and (not math.isfinite(float(value)) or float(value) != int(value)):
        raise ValueError(f"input {name} is a scalar ({dtype.name}): expected an integer, got {value!r}")
    n = int(value)
    info = np.iinfo(np.dtype(dtype.numpy_name))
    if not info.min <= n <= info.max:
        raise ValueError(f"input {name} is a scalar ({dtype.name}): {n} is out of its range "
                         f"[{info.min}, {info.max}]")
    return np.dtype(dtype.numpy_name).type(n)


def _rounded(dtype: DataType, x: float) -> np.float32:
    """``x`` as float32, rounded to Half or BFloat16 precision (to nearest even, as ``reference.round_bf16``)."""
    with np.errstate(over="ignore"):
        f = np.float32(x)
        if dtype is DataType.Half:
            return np.float32(np.float16(f))
    if dtype is not DataType.BFloat16 or np.isnan(f):
        return f
    bits = int(np.array(f, dtype=np.float32).view(np.uint32))
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFFFFFF & 0xFFFF0000
    return np.array(bits, dtype=np.uint32).view(np.float32)[()]
