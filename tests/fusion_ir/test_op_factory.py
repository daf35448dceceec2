"""fusion_ir.op_factory: ``iota`` and ``full``, tensors of no input: types, extents (given or another
tensor's), the reference values, broadcasting against inputs, and the errors."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.exprs import FullOp, IotaOp
from fusion_ir.reference import evaluate
from fusion_ir.scalar import Val


def test_iota_is_1d_of_its_length_and_type_and_reads_no_tensor() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        a = ops.iota(x.size(1))
        b = ops.iota(5, start=1.5, step=0.5, dtype=DataType.Float)
        for t in (a, b):
            fusion.add_output(t)
    assert a.dtype is DataType.Int32 and b.dtype is DataType.Float
    assert [i.extent for i in a.shape_ids] == [x.size(1)] and [i.extent for i in b.shape_ids] == [Val.const(5)]
    assert isinstance(a.definition, IotaOp) and a.definition.tensor_inputs() == [] and a.producers() == []
    assert "iota( start = int64_t(0), step = int64_t(1) )" in str(fusion)
    ia, ib = evaluate(fusion, [np.zeros((2, 4), np.float32)])
    np.testing.assert_array_equal(ia, [0, 1, 2, 3])
    assert ia.dtype == np.int32
    np.testing.assert_array_equal(ib, [1.5, 2.0, 2.5, 3.0, 3.5])


def test_full_has_the_given_extents_and_value() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Half)
        f = ops.full([x.size(0), 3], -2, DataType.Int32)
        b = ops.full([4], True, DataType.Bool)
        fusion.add_output(f)
        fusion.add_output(b)
    assert f.dtype is DataType.Int32 and [i.extent for i in f.shape_ids] == [x.size(0), Val.const(3)]
    assert isinstance(f.definition, FullOp) and f.definition.tensor_inputs() == []
    fv, bv = evaluate(fusion, [np.zeros((2, 5), np.float16)])
    np.testing.assert_array_equal(fv, np.full((2, 3), -2, np.int32))
    np.testing.assert_array_equal(bv, np.ones(4, bool))


def test_a_causal_mask_from_two_broadcast_iotas() -> None:
    fusion = Fusion()
    with fusion:
        s = fusion.add_input(ndim=2)
        rows = ops.broadcast(ops.iota(s.size(0)), [False, True])
        cols = ops.broadcast(ops.iota(s.size(1)), [True, False])
        out = ops.where(ops.ge(rows, cols), s, float("-inf"))
        fusion.add_output(out)
    assert [i.extent for i in out.shape_ids] == [s.size(0), s.size(1)]
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    (masked,) = evaluate(fusion, [x])
    np.testing.assert_array_equal(masked, np.where(np.tril(np.ones((3, 4), bool)), x, -np.inf))


@pytest.mark.parametrize(("call", "match"), [
    (lambda: ops.iota(0), "iota: length 0 must be a positive int or an extent Val"),
    (lambda: ops.iota(4, dtype=DataType.Half), "iota: dtype .* must be one of Int32, Int64, Float"),
    (lambda: ops.iota(4, start=0.5), "iota: start 0.5 is a float but dtype is Int32; use DataType.Float"),
    (lambda: ops.iota(4, step="1"), "iota: step '1' must be an int or a float"),
    (lambda: ops.full([2, -1], 0, DataType.Float), r"full: shape\[1\] -1 must be a positive int or an extent Val"),
    (lambda: ops.full(3, 0, DataType.Float), "full: shape 3 must be a sequence of extents"),
    (lambda: ops.full([2], 0.5, DataType.Int32), "full: value 0.5 is a float but dtype is Int32"),
    (lambda: ops.full([2], None, DataType.Int32), "full: value None must be a bool, an int or a float"),
    (lambda: ops.full([2], 1, "float"), "full: dtype 'float' is not a DataType"),
])
def test_bad_arguments_are_refused(call, match: str) -> None:
    with Fusion(), pytest.raises(ScheduleError, match=match):
        call()
