"""Integer and boolean values as CUDA computes them (``fusion_ir/value_semantics.py``): the numpy
reference and the simulator give the same exact results, codegen emits the defined conversions, and
ops that make no sense for a dtype are refused when the fusion is built."""

from __future__ import annotations

import numpy as np
import pytest

from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.reference import evaluate
from fusion_ir.value_semantics import to_bool, to_integer
from lowering import lower
from runtime import simulate
from tests.runtime.value_semantics_cases import CASES, INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN, ValueCase

IDS = [c.name for c in CASES]


def assert_exact(actual: np.ndarray, case: ValueCase) -> None:
    assert actual.dtype == case.expected.dtype, f"{case.name}: dtype {actual.dtype}, expected {case.expected.dtype}"
    np.testing.assert_array_equal(actual, case.expected, err_msg=case.name)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_reference_computes_as_cuda_does(case: ValueCase) -> None:
    (out,) = evaluate(case.build(), list(case.inputs))
    assert_exact(out, case)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_simulator_computes_as_cuda_does(case: ValueCase) -> None:
    fusion = case.build()
    (out,) = simulate(lower(fusion), list(case.inputs))
    assert_exact(out, case)


def test_float_to_integer_conversions_are_defined_in_the_cuda() -> None:
    """A C cast of an out-of-range float (or NaN) to int is undefined; the cvt.rzi intrinsics saturate."""
    by_name = {c.name: c for c in CASES}
    int32 = to_cuda(lower(by_name["float_cast_to_int32_saturates"].build()))
    int64 = to_cuda(lower(by_name["float_cast_to_int64_saturates"].build()))
    half = to_cuda(lower(by_name["half_cast_to_int32"].build()))
    assert "__float2int_rz(T0.data[" in int32 and "static_cast<int>(T0" not in int32
    assert "__float2ll_rz(T0.data[" in int64
    assert "__float2int_rz(__half2float(T0.data[" in half


def test_boolean_arithmetic_is_converted_back_to_bool_in_the_cuda() -> None:
    case = next(c for c in CASES if c.name == "bool_add_then_cast_to_int32")
    assert "= static_cast<bool>(T0.data[" in to_cuda(lower(case.build()))


def test_neg_of_a_bool_is_refused_naming_the_tensor() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Bool)
        with pytest.raises(ScheduleError, match=r"neg: T0 is Bool, and negating a boolean is not defined"):
            ops.neg(x)
        ops.neg(ops.cast(x, DataType.Int32))          # what the message suggests works


def test_conversion_helpers() -> None:
    floats = np.array([np.nan, 3e9, -3e9, np.inf, -np.inf, 2.9, -2.9, 1e19, -1e19])
    assert to_integer(DataType.Int32, floats).tolist() == [0, INT32_MAX, INT32_MIN, INT32_MAX, INT32_MIN, 2, -2,
                                                           INT32_MAX, INT32_MIN]
    assert to_integer(DataType.Int64, floats).tolist() == [INT64_MIN, 3000000000, -3000000000, INT64_MAX, INT64_MIN, 2, -2,
                                                           INT64_MAX, INT64_MIN]
    assert to_integer(DataType.Int32, np.array([2**32 + 3, 2**31])).tolist() == [3, INT32_MIN]
    assert to_integer(DataType.Int32, np.array([True, False])).dtype == np.int32
    assert to_bool(np.array([np.nan, 0.0, -0.0, 2])).tolist() == [True, False, False, True]


@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_value_kernels_compile_for_sm90a(case: ValueCase) -> None:
    compile_check(to_cuda(lower(case.build())))
