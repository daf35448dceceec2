"""A persistent matmul resets its accumulators for every tile it takes (its first k step writes them: wgmma's
scale-d 0, ``mma_init``): with blocks that walk an uneven number of tiles (3, 3 and 2), every tile of the result
equals numpy's, none holding a previous tile's partial sums. Cooperative (both compute warp groups on a tile) and
ping-pong (each group its own tiles). The inputs make every tile's product nonzero and different (row tile r and
column tile c scale it by (r + 1)(c + 1)), so sums carried over from any earlier tile show; the mutations (no
reset; a reset on a block's first tile only) show that the comparison catches them."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples import matmul_ws_persistent
from fusion_ir.reference import evaluate
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from tests.helpers import rel_error
from tests.runtime.kir_builders import mutate

TILE = (128, 128, 64)
BLOCKS = 3
M, N, K = 512, 256, 192           # 4 x 2 = 8 tiles over 3 blocks: 3, 3 and 2 tiles; 3 k tiles each
ARRANGEMENTS = {"cooperative": False, "ping_pong": True}


def _kernel(arrangement: str) -> tuple:
    fusion = matmul_ws_persistent.build(blocks=BLOCKS, tile=TILE, stages=3, group_m=1,
                                        ping_pong=ARRANGEMENTS[arrangement])
    return fusion, lower(fusion)


def _inputs(seed: int = 0) -> list[np.ndarray]:
    """Positive multiples of 1/8 (exact in bf16), A's row tile r scaled by r + 1 and B's column tile
    c by c + 1: the tiles of a @ b are positive and all different."""
    rng = np.random.default_rng(seed)
    a = rng.integers(1, 8, size=(M, K)) / 8 * (1 + np.arange(M) // TILE[0])[:, None]
    b = rng.integers(1, 8, size=(K, N)) / 8 * (1 + np.arange(N) // TILE[1])[None, :]
    return [a.astype(np.float32), b.astype(np.float32)]


def _tiles_per_block() -> list[int]:
    tiles = -(-M // TILE[0]) * -(-N // TILE[1])
    return [len(range(b, tiles, BLOCKS)) for b in range(BLOCKS)]


def _wrong_tiles(fusion, kern: k.Kernel, seed: int = 0) -> list[tuple[int, int]]:
    """The (row tile, column tile) blocks of the result that differ from numpy's (group_m = 1: tile t is
    row t // 2, column t % 2, walked by block t % 3)."""
    inputs = _inputs(seed)
    (out,) = simulate(kern, inputs, seed=seed)
    (expected,) = evaluate(fusion, inputs)
    tm, tn, _ = TILE
    wrong = []
    for r in range(M // tm):
        for c in range(N // tn):
            block = (slice(r * tm, (r + 1) * tm), slice(c * tn, (c + 1) * tn))
            if not rel_error(out[block], expected[block]) < 1e-2:     # a bf16 result
                wrong.append((r, c))
    return wrong


def _is_zeroing(node: k.Node) -> bool:
    return isinstance(node, k.Assign) and isinstance(node.value, k.Const) and node.value.value == 0 \
        and not node.buffer.is_param


def _resets(node: k.Node) -> bool:
    """A wgmma that writes its accumulators at a tile's first k step."""
    return isinstance(node, k.Mma) and node.accumulate is not None


def test_the_blocks_walk_uneven_tile_counts_and_the_tiles_differ() -> None:
    assert sorted(_tiles_per_block()) == [2, 3, 3]
    a, b = _inputs()
    product = a.astype(np.float64) @ b
    sums = {product[r * 128:(r + 1) * 128, c * 128:(c + 1) * 128].sum() for r in range(4) for c in range(2)}
    assert len(sums) == 8 and min(sums) > 0


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_every_tile_is_reset(arrangement: str) -> None:
    fusion, kern = _kernel(arrangement)
    assert any(_resets(n) for n in k.walk(kern.body))
    # a zeroing is left only for a K of no tiles (the sizes are symbolic), under a branch on that
    guards = [n for n in k.walk(kern.body) if isinstance(n, k.IfThenElse) and any(map(_is_zeroing, k.walk(n.then_body)))]
    assert len(guards) == 1 and "<= 0" in str(guards[0].cond)
    for seed in (0, 1):
        assert _wrong_tiles(fusion, kern, seed) == []


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_without_the_reset_the_comparison_fails(arrangement: str) -> None:
    fusion, kern = _kernel(arrangement)
    assert _wrong_tiles(fusion, mutate(kern, lambda n: replace(n, accumulate=None) if _resets(n) else None)) != []


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_a_reset_of_the_first_tile_only_leaves_partial_sums_in_the_later_ones(arrangement: str) -> None:
    """The reset limited to ``tile iteration == 0``: each block's (ping-pong: each warp group's) first
    tile is right, every later one holds the sums of the tile before it."""
    fusion, kern = _kernel(arrangement)
    (tile_loop,) = [n for n in k.walk(kern.body) if isinstance(n, k.ForLoop) and n.stage is k.Stage.ComputeWarp]
    later_tile = tile_loop.index.ne(0)

    def first_only(node: k.Node) -> k.Node | None:
        return replace(node, accumulate=node.accumulate.logical_or(later_tile)) if _resets(node) else None

    bad = mutate(kern, first_only)    # the kernel's wgmmas lie in the tile loop
    turns = 2 if ARRANGEMENTS[arrangement] else 1    # ping-pong: tile iteration j of a block is its j * 2 + w-th tile
    later = {(t // 2, t % 2) for t in range(8) if t // BLOCKS >= turns}
    assert set(_wrong_tiles(fusion, bad)) == later
