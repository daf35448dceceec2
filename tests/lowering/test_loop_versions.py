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
