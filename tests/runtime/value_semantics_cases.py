"""Small fusions whose integer and boolean results pin down ``fusion_ir.value_semantics``: each with
inputs and the exact output CUDA computes. Shared by the simulator/reference tests and the GPU tier."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

INT32_MIN, INT32_MAX = -(2**31), 2**31 - 1
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
N = 64          # elements of every 1-D input: two blocks of 32 threads


@dataclass(frozen=True)
class ValueCase:
    name: str
    dtypes: tuple[DataType, ...]
    math: Callable[..., object]            # the ops on the inputs (TensorViews), inside ``with fusion``
    inputs: tuple[np.ndarray, ...]
    expected: np.ndarray                   # the output, in its own numpy dtype

    def build(self) -> Fusion:
        reduces = self.inputs[0].ndim == 2
        return row_reduction(self.dtypes, self.math) if reduces else pointwise(self.dtypes, self.math)


def pointwise(dtypes: tuple[DataType, ...], math: Callable[..., object]) -> Fusion:
    """``math`` of 1-D inputs, split by 32 onto threads, every intermediate inlined into one expression."""
    fusion = Fusion()
    with fusion:
        ins = [fusion.add_input(ndim=1, dtype=d) for d in dtypes]
        out = math(*ins)
        fusion.add_output(out)
    out.split(0, 32)
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion


def row_reduction(dtypes: tuple[DataType, ...], math: Callable[..., object]) -> Fusion:
    """``math`` of 2-D inputs reducing axis 1: a row per thread, the reduction a serial loop."""
    fusion = Fusion()
    with fusion:
        ins = [fusion.add_input(ndim=2, dtype=d) for d in dtypes]
        out = math(*ins)
        fusion.add_output(out)
    out.axis(0).parallelize(ParallelType.TIDx)
    return fusion


def _tile(values: list, dtype: object) -> np.ndarray:
    return np.resize(np.array(values, dtype=dtype), N)


A = _tile([0, 1, 0, 1], bool)
B = _tile([0, 0, 1, 1], bool)
FLOATS = [np.nan, 3e9, -3e9, np.inf, -np.inf, 2.7, -2.7, 2147483520.0, -0.0, 0.5]
INT_EDGE = _tile([INT32_MAX, INT32_MIN, INT32_MAX, 5], np.int32)
INT_STEP = _tile([1, -1, INT32_MAX, 7], np.int32)

CASES = [
    # Bool arithmetic: the operands promote to int, the result converts back (nonzero is true)
    ValueCase("bool_add_is_or", (DataType.Bool,) * 2, ops.add, (A, B), A | B),
    ValueCase("bool_sub_is_xor", (DataType.Bool,) * 2, ops.sub, (A, B), A ^ B),
    ValueCase("bool_mul_is_and", (DataType.Bool,) * 2, ops.mul, (A, B), A & B),
    ValueCase("bool_maximum_is_or", (DataType.Bool,) * 2, ops.maximum, (A, B), A | B),
    ValueCase("bool_minimum_is_and", (DataType.Bool,) * 2, ops.minimum, (A, B), A & B),
    ValueCase("bool_add_then_cast_to_int32", (DataType.Bool,) * 2,
              lambda a, b: ops.cast(ops.add(a, b), DataType.Int32), (A, B), (A | B).astype(np.int32)),
    ValueCase("bool_plus_int_scalar_is_int32", (DataType.Bool,), lambda a: ops.add(a, 1), (A,),
              A.astype(np.int32) + 1),
    ValueCase("bool_sum_is_any", (DataType.Bool,), lambda a: ops.sum(a, [1]),
              (np.array([[0, 0, 0], [0, 1, 0], [1, 1, 1], [1, 0, 1]], bool),), np.array([0, 1, 1, 1], bool)),
    # Int32 wraps in two's complement
    ValueCase("int32_add_wraps", (DataType.Int32,) * 2, ops.add, (INT_EDGE, INT_STEP),
              (INT_EDGE.astype(np.int64) + INT_STEP).astype(np.int32)),
    ValueCase("int32_sub_wraps", (DataType.Int32,) * 2, ops.sub, (INT_EDGE, INT_STEP),
              (INT_EDGE.astype(np.int64) - INT_STEP).astype(np.int32)),
    ValueCase("int32_mul_wraps", (DataType.Int32,) * 2, ops.mul, (INT_EDGE, INT_STEP),
              (INT_EDGE.astype(np.int64) * INT_STEP).astype(np.int32)),
    ValueCase("int32_neg_of_int_min_wraps", (DataType.Int32,), ops.neg, (_tile([INT32_MIN, -3, 4, 0], np.int32),),
              _tile([INT32_MIN, 3, -4, 0], np.int32)),
    ValueCase("int32_abs_of_int_min_wraps", (DataType.Int32,), ops.abs, (_tile([INT32_MIN, -3, 4, 0], np.int32),),
              _tile([INT32_MIN, 3, 4, 0], np.int32)),
    ValueCase("int32_sum_wraps", (DataType.Int32,), lambda a: ops.sum(a, [1]),
              (np.array([[INT32_MAX, 1, 1], [INT32_MIN, -1, 0]], np.int32),),
              np.array([INT32_MIN + 1, INT32_MAX], np.int32)),
    ValueCase("int64_cast_to_int32_keeps_the_low_bits", (DataType.Int64,),
              lambda a: ops.cast(a, DataType.Int32), (_tile([2**33 + 5, INT32_MIN - 1, 7, 2**31], np.int64),),
              _tile([5, INT32_MAX, 7, INT32_MIN], np.int32)),
    # Int32 / Int32 and Int32 + a float scalar are Float (operands converted to float first): times 2
    # and cast back, -7 / 2 gives -7, where C++'s truncating int division would give -6
    ValueCase("int32_div_is_float_division", (DataType.Int32,) * 2,
              lambda a, b: ops.cast(ops.mul(ops.div(a, b), 2.0), DataType.Int32),
              (_tile([-7, 7, -7, 1], np.int32), _tile([2, 2, -2, 4], np.int32)), _tile([-7, 7, 7, 0], np.int32)),
    ValueCase("int32_plus_float_scalar_is_float", (DataType.Int32,),
              lambda a: ops.cast(ops.mul(ops.add(a, 0.5), 2.0), DataType.Int32),
              (_tile([3, -3, 0, 100], np.int32),), _tile([7, -5, 1, 201], np.int32)),
    # float -> integer: truncate toward zero, saturate, NaN -> 0 (cvt.rzi)
    ValueCase("float_cast_to_int32_saturates", (DataType.Float,), lambda a: ops.cast(a, DataType.Int32),
              (_tile(FLOATS, np.float32),),
              _tile([0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 2, -2, 2147483520, 0, 0], np.int32)),
    ValueCase("float_cast_to_int64_saturates", (DataType.Float,), lambda a: ops.cast(a, DataType.Int64),
              (_tile([np.nan, 1e19, -1e19, 3e9, -2.5], np.float32),),
              _tile([INT64_MIN, INT64_MAX, INT64_MIN, 3000000000, -2], np.int64)),   # NaN: INT64_MIN (H100)
    ValueCase("half_cast_to_int32", (DataType.Half,), lambda a: ops.cast(a, DataType.Int32),
              (_tile([np.nan, 65504, -65504, np.inf, -1.5], np.float16),),
              _tile([0, 65504, -65504, INT32_MAX, -1], np.int32)),
    ValueCase("float_arithmetic_cast_to_int32", (DataType.Float,),
              lambda a: ops.cast(ops.mul(a, 1e10), DataType.Int32), (_tile([1.0, -1.0, 0.0, np.nan], np.float32),),
              _tile([INT32_MAX, INT32_MIN, 0, 0], np.int32)),
    # to Bool: nonzero (NaN included) is true
    ValueCase("float_cast_to_bool", (DataType.Float,), lambda a: ops.cast(a, DataType.Bool),
              (_tile([np.nan, 0.5, -0.0, 0.0, -3.0], np.float32),), _tile([1, 1, 0, 0, 1], bool)),
    ValueCase("int32_cast_to_bool", (DataType.Int32,), lambda a: ops.cast(a, DataType.Bool),
              (_tile([0, 2, -1, INT32_MIN], np.int32),), _tile([0, 1, 1, 1], bool)),
]
