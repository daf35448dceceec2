"""Scalar inputs in the simulator against numpy: every scheduler takes a fusion that reads one (pointwise,
reduction, normalization, transpose), one kernel runs with different values, and the launch's inputs are
checked by kind, naming the input and what it expects."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ops
from lowering import lower
from runtime import simulate
from runtime.errors import InputError
from tests.helpers import assert_matches, random_inputs


def _scaled(dtype: DataType = DataType.Float, scalar: DataType = DataType.Float) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype)
        alpha = fusion.add_scalar_input(scalar)
        fusion.add_output(ops.add(ops.mul(x, alpha), 1))
    return fusion


def _lowered(fusion: Fusion, sizes: list) -> object:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")        # the AutoScheduleWarning of an unscheduled fusion
        return lower(fusion, sizes=sizes)


@pytest.mark.parametrize("dtype, scalar", [(DataType.Float, DataType.Float), (DataType.BFloat16, DataType.BFloat16),
                                           (DataType.Half, DataType.Half), (DataType.Int32, DataType.Int32),
                                           (DataType.Int32, DataType.Int64), (DataType.BFloat16, DataType.Float)])
def test_one_pointwise_kernel_matches_numpy_for_each_value(dtype: DataType, scalar: DataType) -> None:
    fusion = _scaled(dtype, scalar)
    kernel = _lowered(fusion, [(67, 130), ()])
    values = [3, -2] if not scalar.is_float else [1.5, -0.3125]
    for seed, value in enumerate(values):
        inputs = random_inputs(fusion, [(67, 130), ()], seed=seed)
        inputs[1] = value
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=1e-2)


def test_numpy_scalars_and_0_d_arrays_are_values_too() -> None:
    fusion = _scaled()
    kernel = _lowered(fusion, [(8, 32), ()])
    x = np.ones((8, 32), np.float32)
    for value in (np.float32(2.5), np.float64(2.5), np.array(2.5), 2.5, np.int64(2)):
        (out,) = simulate(kernel, [x, value])
        np.testing.assert_array_equal(out, np.full((8, 32), float(value) + 1, np.float32))


def test_a_bfloat16_scalar_is_rounded_as_a_bfloat16_tensor_would_be() -> None:
    fusion = _scaled(DataType.Float, DataType.BFloat16)            # a float result: the rounding shows
    (out,) = simulate(_lowered(fusion, [(4, 16), ()]), [np.ones((4, 16), np.float32), 3.14159])
    np.testing.assert_array_equal(out, np.full((4, 16), 4.140625, np.float32))    # bf16(3.14159) + 1


def test_the_reduction_scheduler_takes_a_scaled_sum() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(96, 1024))
        alpha = fusion.add_scalar_input()
        fusion.add_output(ops.sum(ops.mul(x, alpha), [1]))
    inputs = random_inputs(fusion, [(96, 1024), ()], seed=3)
    assert_matches(fusion, inputs, simulate(fusion, inputs), tol=1e-5)
    assert type(fusion.scheduler_choice).__name__ == "ReductionParams"


def test_the_normalization_scheduler_takes_softmax_of_a_scaled_input() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 1024))
        scale = fusion.add_scalar_input()
        y = ops.mul(x, scale)
        shifted = ops.sub(y, ops.broadcast(ops.max(y, [1]), [False, True]))
        e = ops.exp(shifted)
        fusion.add_output(ops.div(e, ops.broadcast(ops.sum(e, [1]), [False, True])))
    kernel = _lowered(fusion, [(64, 1024), ()])
    assert type(fusion.scheduler_choice).__name__ == "NormalizationParams"
    for seed, value in enumerate([0.125, 4.0]):
        inputs = random_inputs(fusion, [(64, 1024), ()], seed=seed)
        inputs[1] = value
        assert_matches(fusion, inputs, simulate(kernel, inputs), tol=1e-5)


def test_the_transpose_scheduler_takes_a_scaled_transpose() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(256, 320))
        alpha = fusion.add_scalar_input()
        fusion.add_output(ops.mul(ops.transpose(x, 0, 1), alpha))
    inputs = random_inputs(fusion, [(256, 320), ()], seed=4)
    assert_matches(fusion, inputs, simulate(fusion, inputs), tol=1e-6)
    assert type(fusion.scheduler_choice).__name__ == "TransposeParams"


def test_where_clamp_and_pow_read_the_scalar_inside_the_loops() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        lo = fusion.add_scalar_input()
        hi = fusion.add_scalar_input()
        clamped = ops.clamp(x, lo, hi)
        fusion.add_output(ops.where(ops.gt(x, 0), ops.pow(ops.abs(clamped), hi), lo))
    kernel = _lowered(fusion, [(33, 70), (), ()])
    inputs = random_inputs(fusion, [(33, 70), (), ()], seed=9)
    inputs[1:] = [-0.5, 1.5]
    assert_matches(fusion, inputs, simulate(kernel, inputs), tol=1e-5)


def test_inputs_are_checked_by_kind_naming_the_input() -> None:
    fusion = _scaled()
    kernel = _lowered(fusion, [(8, 32), ()])
    x = np.ones((8, 32), np.float32)
    alpha = fusion.inputs[1]
    with pytest.raises(InputError, match=rf"takes 2 inputs \(T0, {alpha}\), got 1"):
        simulate(kernel, [x])
    with pytest.raises(InputError, match=rf"input 1 \({alpha}\) is a scalar \(Float\): expected a Python number, "
                                         rf"a numpy scalar or a 0-d numpy array, got an array of shape \(8, 32\)"):
        simulate(kernel, [x, x])
    with pytest.raises(InputError, match=r"input 0 \(T0\) is a tensor: expected an array, got float 2.0"):
        simulate(kernel, [2.0, 2.0])
    with pytest.raises(InputError, match=rf"input 1 \({alpha}\) .*got NoneType") as e:
        simulate(kernel, [x, None])
    assert e.value.subject == str(alpha)
