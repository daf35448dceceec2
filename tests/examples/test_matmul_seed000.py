"""Seed 000's kernel in both arrangements of its compute warp groups, cooperative
(examples/matmul_ws_persistent) and ping-pong (examples/matmul_ping_pong), against numpy in the
simulator: the sizes the seed's issue names, several seeds each (seeds of the inputs and of when
async copies land)."""

from __future__ import annotations

import pytest

from examples import matmul_ping_pong, matmul_ws_persistent
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

SIZES = [(256, 512, 192), (200, 264, 200), (384, 256, 512)]      # M, N, K
EXAMPLES = {"cooperative": matmul_ws_persistent, "ping_pong": matmul_ping_pong}


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
@pytest.mark.parametrize("m,n,k", SIZES)
def test_seed_000_matches_numpy(arrangement: str, m: int, n: int, k: int) -> None:
    module = EXAMPLES[arrangement]
    fusion = module.build()
    kernel = lower(fusion)
    for seed in (0, 1, 2):
        inputs = random_inputs(fusion, [(m, k), (k, n)], seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=module.TOLERANCE)


def test_ping_pong_deals_tiles_to_the_warp_groups_in_turn() -> None:
    """Five tiles on two blocks: block 0 has tiles 0, 2, 4 (warp groups 0, 1, 0), block 1 tiles 1, 3;
    an uneven count leaves warp group 1 of block 0 a turn past the end, which it skips."""
    fusion = matmul_ping_pong.build(blocks=2, group_m=1)
    kernel = lower(fusion)
    inputs = random_inputs(fusion, [(128, 128), (128, 640)], seed=3)
    assert_matches(fusion, inputs, simulate(kernel, inputs, seed=3), tol=matmul_ping_pong.TOLERANCE)


@pytest.mark.parametrize("tma_store", [False, True], ids=["registers", "tma_store"])
def test_ping_pong_128_x_192_tiles_match_numpy(tma_store: bool) -> None:
    """A warp group's whole 128 x 192 tile: 192 fp32 accumulators per thread (three n64 boxes of B,
    two m64n192k16 wgmmas per k step), ragged in M and N, with register stores or the TMA store."""
    fusion = matmul_ping_pong.build(tile=(128, 192, 64), stages=4, blocks=2, tma_store=tma_store)
    kernel = lower(fusion)
    for seed in (0, 1):
        inputs = random_inputs(fusion, [(300, 192), (192, 400)], seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_ping_pong.TOLERANCE)
