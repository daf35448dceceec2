"""fusion_ir.op_reshape: reshapes as merges and splits of the input's axes, their extents, the reference,
and the reshapes refused (element counts that differ, and those that would move data)."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.exprs import ViewOp
from fusion_ir.iter_domain import Merge, Split
from fusion_ir.reference import evaluate
from fusion_ir.scalar import Val


def extents(tv) -> list[str]:
    return [str(i.extent) for i in tv.shape_ids]


def test_split_by_constants_keeps_the_root_and_reaches_the_logical_domain_by_splits() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(5, 12, 7))
        y = ops.reshape(x, [5, 3, 4, 7])
        fusion.add_output(y)
    assert isinstance(y.definition, ViewOp) and extents(y) == ["5", "3", "4", "7"]
    assert [str(i.extent) for i in y.root] == ["5", "12", "7"]
    assert [type(t) for t in y.transforms] == [Split] and y.logical == y.loop
    assert "reshape( T0_g_float[iS0{5}, iS1{12}, iS2{7}], new_shape = [5, 3, 4, 7] )" in str(fusion)
    a = np.arange(5 * 12 * 7, dtype=np.float32).reshape(5, 12, 7)
    (out,) = evaluate(fusion, [a])
    np.testing.assert_array_equal(out, a.reshape(5, 3, 4, 7))


def test_symbolic_axes_merge_and_minus_one_takes_the_rest() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3)
        y = ops.reshape(x, [x.size(0), -1])
        z = ops.reshape(x, [-1])
        fusion.add_output(y)
    assert [i.extent for i in y.shape_ids] == [x.size(0), x.size(1) * x.size(2)]
    assert [i.extent for i in z.shape_ids] == [x.size(0) * x.size(1) * x.size(2)]
    assert all(isinstance(t, Merge) for t in z.transforms) and len(z.transforms) == 2
    a = np.random.default_rng(0).standard_normal((2, 3, 5))
    (out,) = evaluate(fusion, [a])
    np.testing.assert_array_equal(out, a.reshape(2, 15))


@pytest.mark.parametrize(("shape", "new"), [((6, 4), (4, 6)), ((5, 12), (1, 5, -1, 3)), ((2, 3, 4), (6, 2, 2)),
                                            ((7,), (7, 1, 1)), ((1, 9, 1), (3, 3)), ((30,), (2, 3, 5))])
def test_constant_reshapes_give_numpys_result(shape: tuple[int, ...], new: tuple[int, ...]) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape)
        y = ops.reshape(x, list(new))
        fusion.add_output(y)
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    (out,) = evaluate(fusion, [a])
    np.testing.assert_array_equal(out, a.reshape(new))
    assert [i.extent.const_value() for i in y.shape_ids] == list(a.reshape(new).shape)


def test_a_given_symbolic_extent_is_the_result_extent_not_a_ceildiv() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        merged = ops.reshape(ops.full([x.size(0), 4], 1.0, DataType.Float), [-1])       # [i0 * 4]
        back = ops.reshape(merged, [x.size(0), 2, 2])
        fusion.add_output(back)
    assert [i.extent for i in back.shape_ids] == [x.size(0), Val.const(2), Val.const(2)]
    assert "ceilDiv" not in str(fusion)


@pytest.mark.parametrize(("build", "match"), [
    (lambda x, c: ops.reshape(c, [5, 5]),
     r"reshape: T1 of shape \[6, 4\] cannot become \[5, 5\]: the numbers of elements differ"),
    (lambda x, c: ops.reshape(x, [x.size(1), x.size(0)]),
     (r"reshape: T0 of shape \[i0, i1\] cannot become \[i1, i0\] by merging adjacent axes and splitting them by "
      r"constant factors: it would need a data movement")),
    (lambda x, c: ops.reshape(x, [x.size(0), 2, -1]),
     r"reshape: T0 of shape \[i0, i1\] has no shape"),
    (lambda x, c: ops.reshape(c, [-1, -1]), "has more than one -1"),
    (lambda x, c: ops.reshape(c, [0, 24]), r"reshape: new_shape\[0\] 0 for T1 must be a positive int, -1"),
    (lambda x, c: ops.reshape(c, 24), "reshape: new_shape 24 for T1 must be a sequence of extents"),
    (lambda x, c: ops.reshape(ops.broadcast(c, [True, False, False]), [24]),
     "reshape: T2 has broadcast axes .*; reshape the tensor before broadcasting it"),
    (lambda x, c: ops.reshape(1.0, [1]), "reshape: expected a TensorView"),
])
def test_bad_reshapes_name_the_shapes(build, match: str) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        c = fusion.add_input(shape=(6, 4))
        with pytest.raises(ScheduleError, match=match):
            build(x, c)


def test_unmerging_symbolic_axes_would_split_by_a_runtime_extent_and_is_refused() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3)
        ops.reshape(x, [x.size(0) * x.size(1), x.size(2)])
        merged = ops.reshape(x, [-1])
        with pytest.raises(ScheduleError, match=r"shape \[\(i0 \* i1\) \* i2\] cannot become \[i0, i1 \* i2\] .* "
                                                r"data movement"):
            ops.reshape(merged, [x.size(0), -1])
        with pytest.raises(ScheduleError, match="would need a data movement"):
            ops.reshape(x, [x.size(2), x.size(0) * x.size(1)])
