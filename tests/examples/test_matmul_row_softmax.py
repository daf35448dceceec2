"""examples/matmul_row_softmax: ``softmax(a @ b, -1)`` in one wgmma kernel, the row max and the row sum of the
accumulator fragment reduced in registers and across each quad by warp shuffles. The simulator against numpy in
float64 at sizes that are not tile multiples (fresh inputs per seed); the kernel the lowering makes of it; the sizes
the schedule refuses."""

from __future__ import annotations

import numpy as np
import pytest

from examples import matmul_row_softmax as ex
from fusion_ir import ScheduleError
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate

M, K = 200, 136          # a ragged last row tile, and a ragged last K tile (136 = 2 x 64 + 8)


def _rel_error(out: np.ndarray, want: np.ndarray) -> float:
    return float(np.abs(np.asarray(out, dtype=np.float64) - want).max() / np.abs(want).max())


@pytest.mark.parametrize("n", ex.N_TILES)
def test_matches_numpy(n: int) -> None:
    kernel = lower(ex.build(M, K, n))
    for seed in (0, 1):
        inputs = ex.make_inputs(M, K, n, seed=10 * n + seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        assert _rel_error(out, ex.reference(*inputs)) <= ex.TOLERANCE


@pytest.mark.parametrize("m,k,n", [(1, 8, 64), (77, 13, 128), (130, 100, 256)])
def test_edge_sizes_match_numpy(m: int, k: int, n: int) -> None:
    """One row, one 8-element K; K = 13 and 100, whose rows TMA cannot copy (a's tiles copied by the threads)."""
    inputs = ex.make_inputs(m, k, n, seed=3)
    (out,) = simulate(lower(ex.build(m, k, n)), inputs, seed=3)
    assert _rel_error(out, ex.reference(*inputs)) <= ex.TOLERANCE


def test_rows_of_large_scores_stay_finite() -> None:
    """Scores of several hundred: exp(s) overflows fp32, exp(s - max) does not; a row's max must be its own."""
    a, b = ex.make_inputs(M, K, 128, seed=9)
    a = (a * 8).astype(np.float32)                 # still bf16 values: a power-of-two scale
    (out,) = simulate(lower(ex.build(M, K, 128)), [a, b], seed=4)
    want = ex.reference(a, b)
    assert np.isfinite(out).all()
    assert _rel_error(out, want) <= ex.TOLERANCE


def test_the_row_reductions_are_quad_shuffles() -> None:
    """Each reduction: its thread's registers, then shfl.xor 1 and 2 across the quad; no block reduction, no shared
    workspace, no barrier beyond the operand tiles'."""
    kernel = lower(ex.build(M, K, 128))
    shuffles = [n for n in k.walk(kernel.body) if isinstance(n, k.WarpShuffleXor)]
    assert [(n.op, n.lane_mask) for n in shuffles] == [("max", 1), ("max", 2), ("add", 1), ("add", 2)]
    assert not [n for n in k.walk(kernel.body) if isinstance(n, k.BlockReduce)]
    shared = {n.buffer.name for n in k.walk(kernel.body) if isinstance(n, k.Allocate)
              and n.buffer.memory.name == "Shared"}
    assert "block_workspace" not in shared


@pytest.mark.parametrize("n", [32, 512])
def test_n_beyond_one_tile_is_refused(n: int) -> None:
    with pytest.raises(ScheduleError, match=rf"axis 1 \(N = {n}\) of T\d+ must be one wgmma tile of 64, 128, 256 "
                                            r"columns: the row max and sum reduce one accumulator fragment"):
        ex.build(64, 64, n)
