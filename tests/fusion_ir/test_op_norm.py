"""fusion_ir.op_norm and ``TensorView.size``: extents as scalars, ``mean`` and ``var_mean`` in the IR and
in the float64 reference."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.reference import evaluate
from fusion_ir.scalar import Val


def test_size_is_the_extent_val_symbolic_or_constant_and_counts_negative_dims_from_the_end() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3)
        c = fusion.add_input(shape=(4, 6))
        s = ops.sum(x, [1])
    assert x.size(0) == x.shape_ids[0].extent and x.size(0).is_symbol
    assert x.size(-1) == x.size(2) != x.size(1)
    assert c.size(1) == Val.const(6) and c.size(-2) == Val.const(4)
    assert s.size(1) == x.size(2)       # a reduction axis is not counted


@pytest.mark.parametrize("dim", [3, -4, 1.0, True, None])
def test_size_of_an_axis_out_of_range_names_the_tensor_the_dim_and_the_rank(dim: object) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3)
    with pytest.raises(ScheduleError, match=rf"size: dim {dim!r} is out of range for T0 of rank 3"):
        x.size(dim)  # type: ignore[arg-type]


def test_an_extent_is_a_scalar_operand_of_the_int64_index_type() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Int32)
        scaled = ops.mul(x, x.size(1))
        ratio = ops.div(x.size(0), ops.add(x, 10))
        fusion.add_output(scaled)
        fusion.add_output(ratio)
    assert scaled.dtype is DataType.Int64 and ratio.dtype is DataType.Float
    assert "int64_t(i1)" in str(fusion)
    xs = np.arange(6, dtype=np.int32).reshape(2, 3)
    a, b = evaluate(fusion, [xs])
    np.testing.assert_array_equal(a, xs * 3)
    np.testing.assert_allclose(b, 2 / (xs + 10))


@pytest.mark.parametrize(("dtype", "result"), [(DataType.Float, DataType.Float), (DataType.Half, DataType.Half),
                                               (DataType.Int32, DataType.Float)])
def test_mean_divides_the_sum_by_the_reduced_extents(dtype: DataType, result: DataType) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3, dtype=dtype)
        m = ops.mean(x, [0, -1])
        fusion.add_output(m)
    assert m.dtype is result and [i.extent for i in m.shape_ids] == [x.size(1)]
    assert "int64_t(i0 * i2)" in str(fusion)
    xs = np.random.default_rng(0).integers(-5, 5, size=(3, 5, 7)).astype(np.dtype(dtype.numpy_name))
    (out,) = evaluate(fusion, [xs])
    np.testing.assert_allclose(out, xs.astype(np.float64).mean(axis=(0, 2)), rtol=1e-12)


def test_mean_of_constant_extents_divides_by_a_constant() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 6))
        fusion.add_output(ops.mean(x, 1))
    assert "int64_t(6)" in str(fusion)


@pytest.mark.parametrize("correction", [0, 1, 2])
def test_var_mean_matches_numpy_with_its_correction(correction: int) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        var, m = ops.var_mean(x, [1], correction=correction)
        fusion.add_output(var)
        fusion.add_output(m)
    assert var.dtype is DataType.Float and m.dtype is DataType.Float
    assert [i.extent for i in var.shape_ids] == [x.size(0)]
    xs = 1.0e4 + np.random.default_rng(1).standard_normal((3, 11))
    v, mean = evaluate(fusion, [xs])
    np.testing.assert_allclose(v, np.var(xs, axis=1, ddof=correction), rtol=1e-9)
    np.testing.assert_allclose(mean, xs.mean(axis=1), rtol=1e-15)


@pytest.mark.parametrize(("call", "match"), [
    (lambda x: ops.mean(x, 2), "mean: axis 2 is out of range for T0 of rank 2"),
    (lambda x: ops.mean(x, []), "mean: axes \\[\\] must be a non-empty list of distinct axes"),
    (lambda x: ops.var_mean(x, [0, -2]), "var_mean: axes \\[0, -2\\] must be a non-empty list of distinct axes"),
    (lambda x: ops.var_mean(x, 1, correction=-1), "var_mean: correction -1 for T0 must be a non-negative int"),
    (lambda x: ops.var_mean(x, 1, correction=0.5), "var_mean: correction 0.5 for T0 must be a non-negative int"),
    (lambda x: ops.mean(1.0, 0), "mean: expected a TensorView"),
])
def test_bad_arguments_are_refused(call, match: str) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        with pytest.raises(ScheduleError, match=match):
            call(x)
