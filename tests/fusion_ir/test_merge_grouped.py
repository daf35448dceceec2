"""``TensorView.merge_grouped``: two axes merged into one walked in grouped order (``GroupedMerge``), ``group``
indices of the first for each index of the second, the last group holding what is left. Its index arithmetic is a
bijection onto the two axes (backward and forward inverse to each other, no index past either extent); the
simulator runs a schedule of it against numpy, and the transform replays onto the producers; bad arguments are
refused by name."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import Fusion, ParallelType, ScheduleError, ops
from fusion_ir.iter_domain import GroupedMerge, grouped_backward, grouped_forward
from fusion_ir.scalar import Val
from lowering import lower
from runtime import simulate


def _grouped(rows: int, cols: int, group: int) -> GroupedMerge:
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(rows, cols))
        t1 = ops.neg(t0)
        fusion.add_output(t1)
    t1.merge_grouped(0, 1, group)
    t = t1.transforms[-1]
    assert isinstance(t, GroupedMerge) and t.group == group
    assert t1.loop[0].extent.const_value() == rows * cols
    return t


@pytest.mark.parametrize("rows", [1, 2, 5, 8, 9, 13])
@pytest.mark.parametrize("cols", [1, 3, 7])
@pytest.mark.parametrize("group", [1, 2, 3, 4, 8, 20])
def test_the_walk_is_a_bijection_in_grouped_order(rows: int, cols: int, group: int) -> None:
    t = _grouped(rows, cols, group)
    r, c = Val.const(rows), Val.const(cols)
    walk = []
    for i in range(rows * cols):
        o, n = grouped_backward(t, Val.const(i), r, c)
        o, n = o.const_value(), n.const_value()
        assert 0 <= o < rows and 0 <= n < cols
        assert grouped_forward(t, Val.const(o), Val.const(n), r, c).const_value() == i
        walk.append((o, n))
    assert sorted(walk) == [(o, n) for o in range(rows) for n in range(cols)]
    # Triton's grouped order: group g's rows down each column in turn, the last group the rows left
    expected = [(first + o, n) for first in range(0, rows, group) for n in range(cols)
                for o in range(min(group, rows - first))]
    assert walk == expected


def _chain() -> tuple[Fusion, object, object]:
    """exp(-x) of a 300 x 200 x: (fusion, the negation, the output)."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(300, 200))
        t1 = ops.neg(t0)
        t2 = ops.exp(t1)
        fusion.add_output(t2)
    return fusion, t1, t2


def test_it_prints_and_replays_onto_a_producer() -> None:
    _, t1, t2 = _chain()
    t2.split(0, 32).split(2, 32).reorder({1: 2, 2: 1}).merge_grouped(0, 1, 4)
    assert "GroupedMerge" in t2.transforms_string() and "in groups of 4" in t2.transforms_string()
    t1.transform_like(t2)
    grouped = [t for t in t1.transforms if isinstance(t, GroupedMerge)]
    assert len(grouped) == 1 and grouped[0].group == 4


@pytest.mark.parametrize("group, raster", [(3, "m"), (4, "m"), (2, "n"), (5, "n")])
def test_a_grid_in_grouped_order_simulates_to_numpy(group: int, raster: str) -> None:
    """300 x 200 in 32 x 32 blocks: 10 x 7 tiles, walked in groups whose last is partial; each block one tile."""
    fusion, t1, t2 = _chain()
    t2.split(0, 32).split(2, 32).reorder({1: 2, 2: 1})               # [Mo, No, 32, 32]
    if raster == "m":
        t2.merge_grouped(0, 1, group)
    else:
        t2.merge_grouped(1, 0, group)
    t2.axis(0).parallelize(ParallelType.BIDx)
    t2.axis(1).parallelize(ParallelType.TIDy)
    t2.axis(2).parallelize(ParallelType.TIDx)
    t1.compute_at(t2, 1)
    kernel = lower(fusion)
    assert kernel.grid[0].const_value() == 10 * 7
    x = np.random.default_rng(group).standard_normal((300, 200)).astype(np.float32)
    (out,) = simulate(kernel, [x])
    np.testing.assert_allclose(out, np.exp(-x), rtol=1e-5)


@pytest.mark.parametrize("group, match", [(0, "group must be a positive int"), (-2, "group must be a positive int"),
                                          (True, "group must be a positive int"), ("4", "group must be a positive int")])
def test_a_bad_group_is_refused(group: object, match: str) -> None:
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(64, 64))
        t1 = ops.neg(t0)
        fusion.add_output(t1)
    with pytest.raises(ScheduleError, match=rf"T{t1.name}: merge_grouped: {match}"):
        t1.merge_grouped(0, 1, group)        # type: ignore[arg-type]
    with pytest.raises(ScheduleError, match="merge_grouped: cannot merge axis 0 .* with itself"):
        t1.merge_grouped(0, 0, 2)


def test_a_reduction_axis_is_refused() -> None:
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(64, 64))
        t1 = ops.sum(t0, [1])
        fusion.add_output(t1)
    with pytest.raises(ScheduleError, match=r"merge_grouped: axis 1 .* is a reduction axis; a grouped order walks "
                                            r"iteration \(or broadcast\) axes"):
        t1.merge_grouped(0, 1, 2)
