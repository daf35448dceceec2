"""The loop-nest pass's per-block trip bound (``TensorView.bound_loop``, ``IterDomain.trip_bound``): the loop of a
bounded group stops at ``min(extent, ceilDiv(blockIdx * scale + offset, divisor))``, the simulator runs each block to
its own stop, and a bound the loop cannot take is a LoweringError naming the loop and the rule."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ParallelType, ops
from lowering import LoweringError, lower
from lowering.kernel_ir import ForLoop
from runtime import simulate


def _row_sums(offset: int = 0) -> tuple[Fusion, object]:
    """``sum(x, 1)`` of x [64, 40]: rows in tiles of 16 (BIDx) x 16 (TIDx), the 40 columns a serial loop bounded to
    the first ``16 (t + 1) + offset`` of them in tile t."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 40), dtype=DataType.Float)
        y = ops.sum(x, [1])
        fusion.add_output(y)
    y.split(0, 16)                                  # [Mo, 16, rN]
    y.axis(0).parallelize(ParallelType.BIDx)
    y.axis(1).parallelize(ParallelType.TIDx)
    y.bound_loop(2, outer=0, scale=16, offset=16 + offset, divisor=1, reason="the test's own truncated sum")
    return fusion, y


def _loops(nodes) -> list[ForLoop]:
    found = []
    for n in nodes:
        if isinstance(n, ForLoop):
            found.append(n)
            found += _loops(n.body)
        for attr in ("then_body", "else_body"):
            found += _loops(getattr(n, attr, ()))
    return found


def test_the_loop_stops_at_the_bound_of_its_block() -> None:
    fusion, _ = _row_sums()
    kernel = lower(fusion)
    (loop,) = [lp for lp in _loops(kernel.body) if lp.label.startswith("rS")]
    assert str(loop.stop) == "min(40, (blockIdx.x * 16) + 16)"
    x = np.random.default_rng(0).standard_normal((64, 40)).astype(np.float32)
    (out,) = simulate(kernel, [x])
    stops = np.minimum(40, 16 * (np.arange(64) // 16 + 1))
    want = np.array([x[r, :stops[r]].sum() for r in range(64)])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_a_negative_offset_is_clamped_at_zero_trips() -> None:
    fusion, _ = _row_sums(offset=-40)
    kernel = lower(fusion)
    (loop,) = [lp for lp in _loops(kernel.body) if lp.label.startswith("rS")]
    assert str(loop.stop) == "min(40, max(0, (blockIdx.x * 16) + -24))"
    x = np.ones((64, 40), dtype=np.float32)
    (out,) = simulate(kernel, [x])
    np.testing.assert_array_equal(out, np.repeat([0, 0, 8, 24], 16))   # tiles 0 and 1 run no iteration


def test_a_bounded_loop_unrolled_afterwards_is_refused() -> None:
    fusion, y = _row_sums()
    y.axis(2).parallelize(ParallelType.Unroll)
    with pytest.raises(LoweringError, match=r"loop rUR\d+\{40\} is bounded by .* it is Unroll; only a serial loop"):
        lower(fusion)


def _persistent_row_sums(blocks: int = 3) -> tuple[Fusion, object]:
    """``sum(x, 1)`` of x [64, 40] as a persistent kernel: the 4 row tiles of 16 (``Mo``) split by ``blocks`` blocks
    (``[Mo / blocks, blocks (BIDx), 16 (TIDx), rN]``), the columns bounded by the tile's ``Mo`` index (no loop axis,
    merged into nothing but split into the serial tile loop and BIDx)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 40), dtype=DataType.Float)
        y = ops.sum(x, [1])
        fusion.add_output(y)
    y.split(0, 16)                                  # [Mo, 16, rN]
    tile = y.axis(0).id
    y.split(0, blocks)                              # [Mo / B, B, 16, rN]
    y.axis(1).parallelize(ParallelType.BIDx)
    y.axis(2).parallelize(ParallelType.TIDx)
    y.bound_loop(3, outer=tile, scale=16, offset=16, divisor=1, reason="the test's own truncated sum")
    return fusion, y


def test_a_bound_read_from_a_persistent_tile_index() -> None:
    """The tile's index ``i * 3 + blockIdx.x`` (the serial tile loop and the block index): each tile, whichever block
    walks it, stops at its own bound."""
    fusion, _ = _persistent_row_sums()
    kernel = lower(fusion)
    (loop,) = [lp for lp in _loops(kernel.body) if lp.label.startswith("rS")]
    assert "blockIdx.x" in str(loop.stop) and "i" in str(loop.stop), loop.stop
    x = np.random.default_rng(1).standard_normal((64, 40)).astype(np.float32)
    (out,) = simulate(kernel, [x])
    stops = np.minimum(40, 16 * (np.arange(64) // 16 + 1))
    want = np.array([x[r, :stops[r]].sum() for r in range(64)])
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_a_bound_read_through_a_thread_index_is_refused() -> None:
    """Parallelized after the bound: the tile axis now goes into a thread index, so the trip count would differ
    between the threads of a block."""
    fusion, y = _persistent_row_sums()
    y.axis(0).parallelize(ParallelType.TIDy)
    with pytest.raises(LoweringError, match=r"not a function of its block indices and serial loops alone"):
        lower(fusion)
