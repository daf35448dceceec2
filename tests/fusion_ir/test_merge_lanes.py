"""``TensorView.merge_lanes``: an iteration axis merged with an inner reduction axis into one reduction axis whose
inner part is a lane group (``iter_domain.lane_group``), and the schedules it refuses; ``merge`` still refuses any
merge of an iteration with a reduction axis; ``schedule_mma_fragment`` of a reduction over the fragment's columns
makes its column pairs such a lane group."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.iter_domain import lane_group
from fusion_ir.schedulers import schedule_mma_fragment


def _row_max(rows: int = 64, cols: int = 32):
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(rows, cols), dtype=DataType.Float)
        y = ops.max(x, 1)
        fusion.add_output(y)
    return y


def test_merge_lanes_makes_a_reduction_axis_with_a_lane_group() -> None:
    y = _row_max()
    y.split(1, 4)                                   # [64, r8, r4]
    y.reorder({2: 1})                               # [64, r4, r8]
    y.merge_lanes(0, 1)                             # [r(64 x 4), r8]
    axis = y.loop[0]
    assert axis.is_reduction and axis.extent.const_value() == 256
    assert lane_group(axis) == 4
    assert lane_group(y.loop[1]) is None


def test_merge_still_refuses_an_iteration_with_a_reduction_axis() -> None:
    y = _row_max()
    with pytest.raises(ScheduleError, match=r"merge: cannot merge reduction axis with iteration axis"):
        y.merge(0, 1)


@pytest.mark.parametrize("cols,message", [
    (3, (r"merge_lanes: the inner axis axis 1 \(rS\d+\{3\}\) must have a constant extent that is a power of two "
         r"from 2 to the warp size \(32\)")),
    (64, r"must have a constant extent that is a power of two from 2 to the warp size \(32\)"),
])
def test_merge_lanes_refuses_lanes_shuffles_cannot_reach(cols: int, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        _row_max(cols=cols).merge_lanes(0, 1)


def test_merge_lanes_refuses_a_reduction_outside() -> None:
    y = _row_max()
    y.split(1, 4)                                   # [64, r8, r4]
    with pytest.raises(ScheduleError, match=r"merge_lanes: the outer axis axis 1 \(rS\d+\{8\}\) must be an "
                                            r"iteration axis \(the lane groups\), made from no reduction axis"):
        y.merge_lanes(1, 2)


def test_merge_lanes_refuses_an_iteration_inside() -> None:
    y = _row_max()
    y.split(0, 8)                                   # [8, 8, r32]
    with pytest.raises(ScheduleError, match=r"merge_lanes: the inner axis axis 1 \(iS\d+\{8\}\) must be a reduction "
                                            r"axis \(the lanes of a group\), made from reduction axes only"):
        y.merge_lanes(0, 1)


def test_merge_lanes_refuses_the_last_axis_alone() -> None:
    with pytest.raises(ScheduleError, match=r"merge_lanes: axis 1 \(rS\d+\{32\}\) is the last loop axis"):
        _row_max().merge_lanes(1)


def test_schedule_mma_fragment_of_a_row_reduction() -> None:
    """``max(s, -1)`` over a 64 x 128 tile: ``[TIDx(w r | q), i, j, c]`` with q, i, c reduction axes and the
    column pairs q the 4 lanes of a quad."""
    y = _row_max(64, 128)
    schedule_mma_fragment(y, 0)
    tid, i, j, c = y.loop
    assert [a.extent.const_value() for a in y.loop] == [128, 16, 2, 2]
    assert tid.parallel_type.name == "TIDx" and lane_group(tid) == 4
    assert i.is_reduction and c.is_reduction and not j.is_reduction


def test_a_lane_merge_replays_onto_another_reduction() -> None:
    """``transform_like`` of a row reduction laid out with ``merge_lanes`` remakes the lane group on another one."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 128), dtype=DataType.Float)
        y = ops.max(x, 1)
        z = ops.sum(x, 1)
        fusion.add_output(y)
        fusion.add_output(z)
    schedule_mma_fragment(y, 0)
    z.transform_like(y)
    assert lane_group(z.loop[0]) == 4 and [a.extent.const_value() for a in z.loop] == [128, 16, 2, 2]


def test_rfactor_of_a_lane_group_reduction_is_refused() -> None:
    y = _row_max(64, 128)
    schedule_mma_fragment(y, 0)
    with pytest.raises(ScheduleError, match=r"rfactor: axis 0 \(rTIDx\d+\{128\}\) merges rows with reduction lanes "
                                            r"\(merge_lanes\); a lane-group reduction is not rfactored"):
        y.rfactor([1, 3])


def test_a_broadcast_merged_with_a_reduction_is_no_lane_group() -> None:
    """``merge`` of a broadcast with a reduction axis (allowed) is a plain reduction axis, reduced as a whole."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(32,), dtype=DataType.Float)
        y = ops.sum(ops.broadcast(x, [True, False]), 1)
        fusion.add_output(y)
    y.merge(0, 1)
    assert y.loop[0].is_reduction and lane_group(y.loop[0]) is None
