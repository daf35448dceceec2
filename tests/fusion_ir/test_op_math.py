"""fusion_ir.op_math: ``erf``, ``silu``, ``log1p``, ``expm1``, ``pow`` and ``clamp``: result types, the
float64 reference, and the errors."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.reference import erf, evaluate


@pytest.mark.parametrize("name", ["erf", "silu", "log1p", "expm1"])
@pytest.mark.parametrize(("dtype", "result"), [(DataType.Float, DataType.Float), (DataType.Half, DataType.Half),
                                               (DataType.Int32, DataType.Float)])
def test_unary_math_keeps_float_types_and_makes_float_of_integers(name: str, dtype: DataType,
                                                                  result: DataType) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3, dtype=dtype)
        out = getattr(ops, name)(x)
    assert out.dtype is result and len(out.shape_ids) == 3
    assert f"{name}(T0" in str(fusion)


def test_unary_math_reference_values() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        for o in (ops.erf(x), ops.silu(x), ops.log1p(x), ops.expm1(x)):
            fusion.add_output(o)
    xs = np.array([-0.5, -1e-9, 0.0, 0.5, 3.0])
    e, s, l1p, em1 = evaluate(fusion, [xs])
    np.testing.assert_allclose(e, [math.erf(v) for v in xs], rtol=1e-15)
    np.testing.assert_allclose(s, xs / (1 + np.exp(-xs)), rtol=1e-15)
    np.testing.assert_allclose(l1p, np.log1p(xs), rtol=1e-15)
    assert em1[1] == pytest.approx(-1e-9, rel=1e-9)       # not exp(x) - 1, which loses every digit
    assert erf(np.zeros((0,))).shape == (0,)


def test_pow_takes_tensor_or_scalar_base_and_exponent_and_gives_a_float() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Int32)
        y = fusion.add_input(ndim=1, dtype=DataType.Half)
        outs = [ops.pow(x, 2), ops.pow(2.0, x), ops.pow(y, x), ops.pow(y, 0.5)]
        for o in outs:
            fusion.add_output(o)
    assert [o.dtype for o in outs] == [DataType.Float, DataType.Float, DataType.Half, DataType.Float]
    a, b, c, d = evaluate(fusion, [np.array([-3, 0, 2], np.int32), np.array([4.0, 9.0, 0.25], np.float16)])
    np.testing.assert_array_equal(a, [9, 0, 4])
    np.testing.assert_array_equal(b, [0.125, 1, 4])
    np.testing.assert_array_equal(c, [1 / 64, 1, 1 / 16])
    np.testing.assert_array_equal(d, [2, 3, 0.5])


def test_clamp_limits_and_keeps_nan() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        fusion.add_output(ops.clamp(x, -1.0, 2))
        fusion.add_output(ops.clamp(x, 0, None))
    lo_hi, lo = evaluate(fusion, [np.array([-5.0, 0.5, 7.0, np.nan])])
    np.testing.assert_array_equal(lo_hi, [-1.0, 0.5, 2.0, np.nan])
    np.testing.assert_array_equal(lo, [0.0, 0.5, 7.0, np.nan])


@pytest.mark.parametrize(("call", "match"), [
    (lambda x: ops.clamp(x, 2.0, 1.0), r"clamp: min 2.0 is greater than max 1.0 for T0; clamp needs min <= max"),
    (lambda x: ops.clamp(x, "0", 1.0), "clamp: min '0' for T0 must be a Python int or float"),
    (lambda x: ops.clamp(x, 0, True), "clamp: max True for T0 must be a Python int or float"),
    (lambda x: ops.clamp(1.0, 0, 1), "clamp: expected a TensorView"),
    (lambda x: ops.pow(2, 3), "pow: at least one operand must be a TensorView"),
    (lambda x: ops.erf(2.0), "erf: expected a TensorView"),
])
def test_bad_arguments_are_refused(call, match: str) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        with pytest.raises(ScheduleError, match=match):
            call(x)
