"""What a value of each dtype is, as the generated CUDA computes it: the one definition the numpy
reference (``fusion_ir.reference``) and the simulator (``runtime``) both follow.

- **Bool arithmetic** is C++'s: the operands promote to ``int``, the result converts back to
  ``bool`` (nonzero is true). So ``add`` and ``maximum`` are a logical or, ``mul`` and
  ``minimum`` a logical and, ``sub`` an exclusive or; ``sum`` over booleans is "any".
  ``neg`` of a Bool is refused by ``ops.neg`` (it would give its operand back).
- **Integers wrap** in two's complement: Int32 ``add``, ``sub``, ``mul``, ``neg`` and ``abs``
  (of ``INT_MIN``) and sums keep the low 32 bits, as ``add.s32``/``mul.lo.s32`` do; Int64 the low
  64. A cast from Int64 to Int32 keeps the low 32 bits.
- **Division and float scalars promote to Float**: ``div`` of integers (or booleans) and an integer
  tensor with a Python float scalar give a Float tensor (``fusion_ir.ops``); codegen converts the
  operands to ``float`` before the operator, so ``-7 / 2`` is ``-3.5`` and C++'s truncating integer
  division is never emitted for tensor values (a zero divisor gives ``inf``/NaN, as in float).
- **Float to integer** casts round toward zero and saturate at the type's range; NaN becomes 0 in
  Int32 and ``INT64_MIN`` in Int64 (measured on the H100): PTX ``cvt.rzi.s32.f32`` /
  ``cvt.rzi.s64.f32``, which codegen emits as ``__float2int_rz`` / ``__float2ll_rz`` (a plain C
  cast of an out-of-range float is undefined behaviour).
- **To Bool**: nonzero is true, NaN included.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .types import DataType

INT_RANGE = {DataType.Int32: (-(2**31), 2**31 - 1), DataType.Int64: (-(2**63), 2**63 - 1)}


def to_bool(x: Any) -> np.ndarray:
    """``static_cast<bool>(x)``: nonzero (and NaN) is true."""
    return np.asarray(x) != 0


def to_integer(dtype: DataType, x: Any) -> np.ndarray:
    """``x`` converted to ``dtype`` (Int32 or Int64) as CUDA does, returned in ``dtype``'s numpy type:
    floats truncate toward zero, saturate at the range and map NaN to 0 (Int32) or the range's
    low end (Int64, as ``cvt.rzi.s64`` does on the H100); integers and booleans
    keep their low bits (two's complement)."""
    lo, hi = INT_RANGE[dtype]
    a = np.asarray(x)
    if a.dtype.kind == "f":
        t = np.trunc(a.astype(np.float64))
        nan = np.isnan(t)
        above = t >= float(hi) + 1          # 2^31 (2^63): the first value past the range
        below = t < float(lo)
        inside = np.where(nan | above | below, 0.0, t).astype(np.int64)
        nan_value = lo if dtype is DataType.Int64 else 0
        a = np.where(above, hi, np.where(below, lo, np.where(nan, nan_value, inside))).astype(np.int64)
    elif a.dtype.kind == "b":
        a = a.astype(np.int64)
    return a.astype(np.int64).astype(np.dtype(dtype.numpy_name))


def promoted(x: Any) -> Any:
    """An integer operand as C++ computes with it: a bool becomes an ``int`` (0 or 1)."""
    a = np.asarray(x)
    return a.astype(np.int32) if a.dtype.kind == "b" else x
