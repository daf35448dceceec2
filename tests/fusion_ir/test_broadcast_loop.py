"""``TensorView.broadcast_loop``: a loop-only broadcast axis of constant extent inserted into the loop domain
(nvFuser's ``TensorView::broadcast(axis, extent)``), merged into a thread axis; ``replay.loop_map`` maps two such
merges of mapped axes; the positions, extents and tensors it refuses."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.replay import loop_map
from fusion_ir.types import IterType


def _per_row():
    """``y = max(x, 1) * 2``, ``z = y + 1``: two per-row tensors of 64 rows."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 16), dtype=DataType.Float)
        y = ops.mul(ops.max(x, 1), 2.0)
        z = ops.add(y, 1.0)
        fusion.add_output(z)
    return fusion, x, y, z


def test_inserts_a_loop_only_broadcast_of_the_extent() -> None:
    _, _, y, _ = _per_row()
    y.split(0, 8)                                   # [8, 8]
    y.broadcast_loop(2, 4)                          # [8, 8, b4]
    b = y.loop[2]
    assert b.iter_type is IterType.Broadcast and b.extent.const_value() == 4
    assert y.broadcast_loop_axes == [b]
    assert b not in y.root and b not in y.logical
    y.merge(1, 2)                                   # [8, 8 x b4]: an iteration axis of 32
    assert y.loop[1].iter_type is IterType.Iteration and y.loop[1].extent.const_value() == 32
    y.axis(1).parallelize(ParallelType.TIDx)


@pytest.mark.parametrize("axis,at", [(0, 0), (1, 1), (-1, 1), (-2, 0)])
def test_position_counts_like_an_insertion(axis: int, at: int) -> None:
    """``0..ndim``, a negative position from the end: -1 appends."""
    _, _, y, _ = _per_row()
    y.broadcast_loop(axis, 4)
    assert y.ndim == 2 and y.loop[at] is y.broadcast_loop_axes[0]


def test_loop_map_maps_merges_with_broadcasts_of_one_extent() -> None:
    _, _, y, z = _per_row()
    for tv in (y, z):
        tv.split(0, 8).broadcast_loop(2, 4).merge(1, 2)
    mapping = loop_map(y, z)
    assert mapping[y.loop[1]] is z.loop[1]
    assert mapping[y.broadcast_loop_axes[0]] is z.broadcast_loop_axes[0]


def test_loop_map_keeps_apart_broadcasts_of_other_extents_or_sides() -> None:
    _, _, y, z = _per_row()
    y.split(0, 8).broadcast_loop(2, 4).merge(1, 2)
    z.split(0, 8).broadcast_loop(2, 2).merge(1, 2)
    assert y.loop[1] not in loop_map(y, z)
    _, _, y, z = _per_row()
    y.split(0, 8).broadcast_loop(2, 4).merge(1, 2)          # rows outside the lanes
    z.split(0, 8).broadcast_loop(1, 4).merge(1, 2)          # lanes outside the rows
    assert y.loop[1] not in loop_map(y, z)


def test_transform_like_drops_it() -> None:
    """The loop domain is replayed from the logical domain: no loop-only axis is left."""
    _, _, y, z = _per_row()
    y.split(0, 8).broadcast_loop(2, 4)
    z.split(0, 16)
    y.transform_like(z)
    assert y.broadcast_loop_axes == [] and all(not i.is_broadcast for i in y.loop)


@pytest.mark.parametrize("axis", [3, -4, 1.0, True, None])
def test_refuses_a_position_out_of_range(axis: object) -> None:
    _, _, y, _ = _per_row()
    y.split(0, 8)
    with pytest.raises(ScheduleError, match=rf"T{y.name}: broadcast_loop: position {axis!r} must be an integer in "
                                            r"\[-3, 2\]"):
        y.broadcast_loop(axis, 4)           # type: ignore[arg-type]


@pytest.mark.parametrize("extent", [0, -4, 2.0, True, "4"])
def test_refuses_an_extent_that_is_no_positive_integer(extent: object) -> None:
    _, _, y, _ = _per_row()
    with pytest.raises(ScheduleError, match=rf"T{y.name}: broadcast_loop: extent {extent!r} must be a positive "
                                            r"integer"):
        y.broadcast_loop(0, extent)         # type: ignore[arg-type]


def test_refuses_an_input() -> None:
    _, x, _, _ = _per_row()
    with pytest.raises(ScheduleError, match=rf"T{x.name}: broadcast_loop: T{x.name} is a fusion input"):
        x.broadcast_loop(0, 4)


def test_refuses_a_position_inside_shared_loops() -> None:
    _, _, y, z = _per_row()
    for tv in (y, z):
        tv.split(0, 8)
    y.inline_at(1)
    with pytest.raises(ScheduleError, match=rf"T{y.name}: broadcast_loop: position 0 is inside the loops "
                                            rf"T{y.name} shares \(compute-at position 1"):
        y.broadcast_loop(0, 4)
    with pytest.raises(ScheduleError, match=rf"T{z.name}: broadcast_loop: position 0 is inside the loops "
                                            rf"T{z.name} shares \(compute-at position 0, produce position 1\)"):
        z.broadcast_loop(0, 4)
    y.broadcast_loop(1, 4)                  # past them: fine


def test_a_refused_call_changes_nothing() -> None:
    fusion, _, y, _ = _per_row()
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError):
        y.broadcast_loop(0, 0)
    assert fusion.state_fingerprint() == before
