"""lowering/passes/loop_versions.py: a serial loop whose where is known true in its first iterations runs in two
ranges, the first with the where's value branch and without what only its condition reads; the simulator against
numpy; the refusals (TensorView.version_loop, the pass)."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ScheduleError, inline_most, ops
from lowering import LoweringError, lower
from lowering.kernel_ir import ForLoop, walk
from runtime import simulate


def _masked_row_sums(keep: int = 30):
    """``sum(where(j < keep, x, 0), 1)`` of x [16, 40]: a thread per row, the 40 columns a serial loop."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(16, 40), dtype=DataType.Float)
        j = ops.broadcast(ops.iota(40), [True, False])
        w = ops.where(ops.lt(j, keep), x, 0.0)
        y = ops.sum(w, [1])
        fusion.add_output(y)
    y.axis(0).parallelize(ParallelType.TIDx)
    inline_most(fusion)
    return fusion, w, y


def _column_loops(kernel) -> list[ForLoop]:
    return [n for n in walk(kernel.body) if isinstance(n, ForLoop) and n.label.startswith("rS")]


def _value_kinds(loop: ForLoop) -> set[str]:
    return {type(v).__name__ for n in walk(loop.body) for v in vars(n).values()}


def test_the_first_range_has_no_mask_and_both_match_numpy() -> None:
    fusion, w, y = _masked_row_sums()
    y.version_loop(1, [(w, None, 0, 30, 1)], reason="j < 30 below column 30")
    kernel = lower(fusion)
    first, rest = _column_loops(kernel)
    assert (str(first.start), str(first.stop), str(rest.start), str(rest.stop)) == ("0", "30", "30", "40")
    assert not {"CompareValue", "SelectValue"} & _value_kinds(first)
    assert {"CompareValue", "SelectValue"} <= _value_kinds(rest)
    x = np.random.default_rng(1).standard_normal((16, 40)).astype(np.float32)
    (out,) = simulate(kernel, [x])
    np.testing.assert_allclose(out, x[:, :30].sum(axis=1), rtol=1e-5, atol=1e-5)


def test_version_loop_takes_only_a_where() -> None:
    _, w, y = _masked_row_sums()
    with pytest.raises(ScheduleError, match=r"version_loop: .* is not a where"):
        y.version_loop(1, [(y, None, 0, 30, 1)], reason="")
    with pytest.raises(ScheduleError, match=r"has scale 2 and no outer axis"):
        y.version_loop(1, [(w, None, 2, 30, 1)], reason="")
    with pytest.raises(ScheduleError, match=r"reads axis 0 .* bound to a block index"):
        y.version_loop(1, [(w, 0, 1, 30, 1)], reason="")


def test_a_where_not_computed_in_the_loop_is_refused() -> None:
    """The where computed in a column loop of its own (a Shared buffer at the row's position), the sum's loop
    bounded: the known-true where is not in the loop that is split."""
    fusion, w, y = _masked_row_sums()
    w.set_memory_type(MemoryType.Shared)
    w.compute_at(y, 1)
    y.version_loop(1, [(w, None, 0, 30, 1)], reason="")
    with pytest.raises(LoweringError, match=rf"T{w.name} \(a where known true in its first iterations\) is not "
                                            rf"computed in it"):
        lower(fusion)


@pytest.mark.parametrize("stages", [2, 3])
def test_a_circular_buffered_loop_is_split_clone_by_clone(stages: int) -> None:
    """The columns in blocks of 8 whose tile of x is circular-buffered in shared memory over the block loop: the
    pipeline's main and epilogue loops each run in two ranges (the prologue, which computes nothing, stays whole),
    and the kernel still matches numpy."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(16, 40), dtype=DataType.Float)
        j = ops.broadcast(ops.iota(40), [True, False])
        w = ops.where(ops.lt(j, 30), x, 0.0)
        y = ops.sum(w, [1])
        fusion.add_output(y)
        tile = x.cache_after()
    y.split(1, 8)                                   # [16 (TIDx), 5, 8]
    y.axis(0).parallelize(ParallelType.TIDx)
    tile.set_memory_type(MemoryType.Shared)
    tile.compute_at(y, 2)
    inline_most(fusion, [tv for tv in fusion.used_tensors() if tv is not tile and not tv.is_input])
    tile.circular_buffer(stages)
    y.version_loop(1, [(w, None, 0, 30, 8)], reason="j < 30 in the blocks below 30 / 8")
    kernel = lower(fusion)
    blocks = [n for n in walk(kernel.body) if isinstance(n, ForLoop) and n.label == y.loop[1].label()]
    ranges = [(str(lp.start), str(lp.stop), "SelectValue" in _value_kinds(lp)) for lp in blocks]
    p = stages - 1                                  # prologue [0, p), main [0, 5 - p), epilogue [5 - p, 5)
    split = min(3, 5 - p)
    assert ranges == [("0", str(p), False),                                  # the prologue: loads only, whole
                      ("0", str(split), False), (str(split), str(5 - p), True),   # main: unmasked, masked
                      (str(5 - p), str(max(3, 5 - p)), False), (str(max(3, 5 - p)), "5", True)], ranges
    for n in (1, 7):
        x_in = np.random.default_rng(n).standard_normal((16, 40)).astype(np.float32)
        (out,) = simulate(kernel, [x_in], seed=n)
        np.testing.assert_allclose(out, x_in[:, :30].sum(axis=1), rtol=1e-5, atol=1e-5)
