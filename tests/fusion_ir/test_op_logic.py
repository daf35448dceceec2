"""fusion_ir.op_logic: comparisons, logical ops and ``where`` make the right types and shapes, print,
and refuse what they cannot do."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.reference import evaluate

COMPARES = ("lt", "le", "gt", "ge", "eq", "ne")


@pytest.mark.parametrize("name", COMPARES)
@pytest.mark.parametrize("dtype", [DataType.Float, DataType.Half, DataType.Int32, DataType.Bool])
def test_comparison_is_bool_with_the_broadcast_shape(name: str, dtype: DataType) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype)
        y = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = getattr(ops, name)(x, ops.broadcast(y, [True, False]))
        scalar = getattr(ops, name)(x, 1)
    assert out.dtype is DataType.Bool and scalar.dtype is DataType.Bool
    assert [i.extent for i in out.shape_ids] == [i.extent for i in x.shape_ids]
    assert not any(i.is_broadcast for i in out.shape_ids)
    assert f"{name}(" in str(fusion)


def test_logical_ops_are_bool_and_read_nonzero_as_true() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Bool)
        outs = [ops.logical_and(x, b), ops.logical_or(x, b), ops.logical_not(x)]
        for o in outs:
            fusion.add_output(o)
    assert all(o.dtype is DataType.Bool for o in outs)
    xs = np.array([0.0, 2.0, np.nan, -0.0, 1.0])
    bs = np.array([True, False, True, True, False])
    land, lor, lnot = evaluate(fusion, [xs, bs])
    np.testing.assert_array_equal(land, [False, False, True, False, False])
    np.testing.assert_array_equal(lor, [True, True, True, True, True])
    np.testing.assert_array_equal(lnot, [True, False, False, True, False])


def test_where_promotes_its_values_and_broadcasts_all_three_operands() -> None:
    fusion = Fusion()
    with fusion:
        c = fusion.add_input(ndim=2, dtype=DataType.Bool)
        a = fusion.add_input(ndim=1, dtype=DataType.Half)
        b = fusion.add_input(ndim=1, dtype=DataType.Int32)
        out = ops.where(c, ops.broadcast(a, [True, False]), ops.broadcast(b, [False, True]))
        half = ops.where(c, 1, ops.broadcast(b, [False, True]))
        fusion.add_output(out)
    assert out.dtype is DataType.Half and half.dtype is DataType.Int32
    assert [i.extent for i in out.shape_ids] == [i.extent for i in c.shape_ids]
    assert ops.where.__doc__ and "where(" in str(fusion)


@pytest.mark.parametrize(("call", "match"), [
    (lambda x, y: ops.lt(1, 2), "at least one operand must be a TensorView"),
    (lambda x, y: ops.eq(x, y), "has rank 2 and T1 has rank 1"),
    (lambda x, y: ops.where(1.0, 2.0, 3.0), "at least one of cond, a and b must be a TensorView"),
    (lambda x, y: ops.where(0.5, x, y), "cond 0.5 must be a TensorView or a bool"),
    (lambda x, y: ops.where(x, x, "a"), "scalar operand 'a' must be an int or a float"),
    (lambda x, y: ops.logical_not(1.0), "logical_not: expected a TensorView"),
])
def test_bad_operands_are_refused(call, match: str) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        y = fusion.add_input(ndim=1)
        with pytest.raises(ScheduleError, match=match):
            call(x, y)
