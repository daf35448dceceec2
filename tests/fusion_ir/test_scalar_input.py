"""Scalar inputs (``Fusion.add_scalar_input``): construction, printing, the result types of ops that take them,
and the refusals of uses that need a tensor, each naming the scalar and the rule."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ScalarInput, ScheduleError, ops
from fusion_ir.reference import evaluate
from fusion_ir.scalar_input import stored_scalar
from fusion_ir.schedulers.matmul_key import problem_key


def _fusion(dtype: DataType = DataType.Float, scalar: DataType = DataType.Float):
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype)
        alpha = fusion.add_scalar_input(scalar)
    return fusion, x, alpha


def test_a_scalar_input_takes_its_place_among_the_inputs() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        alpha = fusion.add_scalar_input(DataType.Float)
        y = fusion.add_input(ndim=2)
        fusion.add_output(ops.add(ops.mul(x, alpha), y))
    assert isinstance(alpha, ScalarInput) and alpha.dtype is DataType.Float
    assert fusion.inputs == [x, alpha, y]
    assert fusion.tensor_inputs == [x, y] and fusion.scalar_inputs == [alpha]
    assert str(alpha) == f"S{alpha.name}" and alpha.name not in (x.name, y.name)
    assert alpha.uses() == [fusion.exprs[0]]
    assert alpha not in fusion.used_tensors()            # no tensor: nothing schedules it


def test_printing_names_the_scalar_in_the_inputs_and_the_math() -> None:
    fusion, x, alpha = _fusion()
    with fusion:
        fusion.add_output(ops.mul(x, alpha))
    text = str(fusion)
    assert f"  {alpha}, float (scalar)" in text
    assert f"* {alpha};" in text


@pytest.mark.parametrize("tensor, scalar, want", [
    (DataType.Float, DataType.Float, DataType.Float),
    (DataType.BFloat16, DataType.Float, DataType.Float),
    (DataType.BFloat16, DataType.BFloat16, DataType.BFloat16),
    (DataType.Half, DataType.BFloat16, DataType.Float),
    (DataType.Int32, DataType.Int32, DataType.Int32),
    (DataType.Int32, DataType.Int64, DataType.Int64),
    (DataType.Int32, DataType.Float, DataType.Float),
])
def test_the_result_type_is_the_promoted_type_as_for_any_scalar_operand(tensor, scalar, want) -> None:
    fusion, x, alpha = _fusion(tensor, scalar)
    with fusion:
        assert ops.mul(x, alpha).dtype is want
        assert ops.add(alpha, x).dtype is want
        assert ops.maximum(x, alpha).dtype is want
        assert ops.where(ops.gt(x, 0), x, alpha).dtype is want
        assert ops.lt(x, alpha).dtype is DataType.Bool
        assert ops.pow(x, alpha).dtype is (want if want.is_float else DataType.Float)


def test_every_elementwise_op_takes_it_and_the_reference_broadcasts_it() -> None:
    fusion, x, alpha = _fusion()
    with fusion:
        outs = [ops.sub(alpha, x), ops.div(x, alpha), ops.minimum(alpha, x), ops.clamp(x, alpha, 1.5),
                ops.where(ops.ge(x, alpha), alpha, x), ops.pow(alpha, x)]
        for out in outs:
            fusion.add_output(out)
    xs = np.linspace(0.25, 2.0, 12, dtype=np.float32).reshape(3, 4)
    a = 0.75
    want = [a - xs, xs / a, np.minimum(a, xs), np.clip(xs, a, 1.5), np.where(xs >= a, a, xs), a ** xs]
    for got, w in zip(evaluate(fusion, [xs, a]), want):
        np.testing.assert_allclose(got, w, rtol=1e-6)


@pytest.mark.parametrize("op", ["sum", "max"])
def test_a_reduction_of_a_scalar_is_refused_naming_it(op: str) -> None:
    fusion, _, alpha = _fusion()
    with fusion, pytest.raises(ScheduleError, match=rf"{op}: {alpha} is a scalar input .*no axes"):
        getattr(ops, op)(alpha, [0])


@pytest.mark.parametrize("call", [lambda s: ops.exp(s), lambda s: ops.cast(s, DataType.Half),
                                  lambda s: ops.broadcast(s, [True])])
def test_ops_that_need_a_tensor_refuse_a_scalar(call) -> None:
    fusion, _, alpha = _fusion()
    with fusion, pytest.raises(ScheduleError, match=rf"{alpha} is a scalar input"):
        call(alpha)


def test_two_scalars_alone_make_no_tensor() -> None:
    fusion, _, alpha = _fusion()
    with fusion:
        beta = fusion.add_scalar_input(DataType.Float)
        with pytest.raises(ScheduleError, match=rf"add: at least one operand must be a TensorView \(got {alpha} "
                                                rf"and {beta}\)"):
            ops.add(alpha, beta)


def test_a_scalar_input_is_no_output() -> None:
    fusion, _, alpha = _fusion()
    with pytest.raises(ScheduleError, match=rf"add_output: {alpha} is a scalar input"):
        fusion.add_output(alpha)


def test_a_scalar_of_another_fusion_is_refused() -> None:
    _, _, alpha = _fusion()
    fusion, x, _ = _fusion()
    with fusion, pytest.raises(ScheduleError, match=rf"scalar input {alpha} belongs to another fusion"):
        ops.mul(x, alpha)


@pytest.mark.parametrize("dtype", [DataType.Bool, "float"])
def test_a_dtype_that_is_no_scalar_type_is_refused(dtype) -> None:
    with pytest.raises(ScheduleError, match="add_scalar_input: dtype"):
        Fusion().add_scalar_input(dtype)


@pytest.mark.parametrize("dtype, value, stored", [
    (DataType.Float, 0.1, np.float32(0.1)),
    (DataType.Half, 0.1, np.float32(np.float16(0.1))),
    (DataType.BFloat16, 3.14159, np.float32(3.140625)),
    (DataType.Int32, 7.0, np.int32(7)),
    (DataType.Int64, np.int64(2**40), np.int64(2**40)),
    (DataType.Float, np.array(2.5), np.float32(2.5)),
])
def test_a_value_is_held_as_the_kernel_holds_it(dtype, value, stored) -> None:
    got = stored_scalar(dtype, value, "S1")
    assert got == stored and got.dtype == stored.dtype


@pytest.mark.parametrize("dtype, value, message", [
    (DataType.Float, np.ones(3), r"input S1 is a scalar \(Float\): expected .* got an array of shape \(3,\)"),
    (DataType.Float, True, r"input S1 is a scalar \(Float\): expected .* got bool"),
    (DataType.Float, "2", r"got str"),
    (DataType.Int32, 2.5, r"input S1 is a scalar \(Int32\): expected an integer, got 2.5"),
    (DataType.Int32, 2**31, r"2147483648 is out of its range"),
])
def test_a_value_that_is_no_scalar_of_its_type_is_refused(dtype, value, message) -> None:
    with pytest.raises(ValueError, match=message):
        stored_scalar(dtype, value, "S1")


def test_the_matmul_key_holds_the_scalar_by_type_not_value() -> None:
    def build() -> Fusion:
        fusion = Fusion()
        with fusion:
            a = fusion.add_input(shape=(256, 128), dtype=DataType.BFloat16)
            b = fusion.add_input(shape=(128, 256), dtype=DataType.BFloat16)
            alpha = fusion.add_scalar_input(DataType.Float)
            fusion.add_output(ops.cast(ops.mul(ops.matmul(a, b), alpha), DataType.BFloat16))
        return fusion

    key = problem_key(build())
    assert key == problem_key(build())
    assert "mul(acc,arg<float>)" in key
