"""The TMA store's wait (``MatmulParams.store_wait``) in the seed-000 kernels, cooperative
(examples/matmul_ws_persistent) and ping-pong (examples/matmul_ping_pong), in the simulator: both choices
match numpy, and each mutation of the waits and barriers that keep the staging tile safe is reported.

"after_boxes": the elected thread waits once after all the boxes of a tile; the barrier at the end of the
tile loop body lets the next tile's stmatrix write the staging tile. "deferred": the thread waits in the next
iteration, right before the barrier (the guard) that precedes that stmatrix, and once more after the tile
loop, before the threads exit."""

from __future__ import annotations

import pytest

from examples import matmul_ping_pong, matmul_ws_persistent
from fusion_ir.reference import evaluate
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.helpers import assert_matches, random_inputs, rel_error
from tests.runtime.kir_builders import remove_nodes

EXAMPLES = {"cooperative": matmul_ws_persistent, "ping_pong": matmul_ping_pong}
MODES = ("after_boxes", "deferred")
SIZES = [(256, 512, 192), (200, 264, 200)]      # M, N, K
# two blocks: every block (cooperative) or warp group (ping-pong) stages two or more tiles, so the staging
# tile is rewritten while an earlier tile's stores may still read it
MUTATION_BLOCKS = 2
MUTATION_SIZE = (256, 512, 192)
REWRITTEN = r"staging tile rewritten before the store's read finished"
# the same race seen from the store's side: a warp's next stmatrix lands before the store has read its tile
UNFENCED = r"missing fence.proxy.async: TMA store from T\d+ .* reads T\d+\[\d+:\d+\], written by ordinary stores"
EXITS = r"exits while the TMA store from T\d+ issued by .* may still read T\d+: the store was committed but no AsyncWait"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
@pytest.mark.parametrize("m,n,k", SIZES)
def test_both_store_waits_match_numpy(arrangement: str, mode: str, m: int, n: int, k: int) -> None:
    module = EXAMPLES[arrangement]
    fusion = module.build(store_wait=mode)
    kernel = lower(fusion)
    for seed in (0, 1, 2):
        inputs = random_inputs(fusion, [(m, k), (k, n)], seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=module.TOLERANCE)


def _kernel(arrangement: str, mode: str) -> tuple:
    fusion = EXAMPLES[arrangement].build(blocks=MUTATION_BLOCKS, store_wait=mode)
    return fusion, lower(fusion)


def _run_seeds(fusion, kernel: k.Kernel, seeds=range(4)) -> None:
    """Simulate with several seeds (of the inputs, of the warps' interleaving and of when copies land)."""
    m, n, kk = MUTATION_SIZE
    for seed in seeds:
        inputs = random_inputs(fusion, [(m, kk), (kk, n)], seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = rel_error(out, evaluate(fusion, inputs)[0])
        assert err < EXAMPLES["cooperative"].TOLERANCE, f"wrong result: relative error {err:.3g} (seed {seed})"


def _is_bulk_wait(read: bool):
    return lambda n: n.kind is k.AsyncKind.Bulk and n.read == read


def _guard(node: k.NamedBarrier) -> bool:
    return "after its TMA stores' wait" in node.reason


def _war_at_the_end(node: k.NamedBarrier) -> bool:
    return "rewritten next iteration" in node.reason


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_the_mutation_kernels_match_unmutated(arrangement: str, mode: str) -> None:
    _run_seeds(*_kernel(arrangement, mode))


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_deferred_without_its_wait_rewrites_the_staging_tile_under_the_store(arrangement: str) -> None:
    fusion, kernel = _kernel(arrangement, "deferred")
    bad = remove_nodes(kernel, k.AsyncWait, _is_bulk_wait(read=True))
    with pytest.raises(SimulationError, match=REWRITTEN):
        _run_seeds(fusion, bad)


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_deferred_without_the_guard_barrier_rewrites_the_staging_tile_under_the_store(arrangement: str) -> None:
    """The wait alone orders nothing for the other warps: without the barrier after it, a warp's stmatrix may
    write the tile before the elected thread of another warp has waited (reported as the tile rewritten under the
    store, or, where the write lands first, as the store reading an unfenced write)."""
    fusion, kernel = _kernel(arrangement, "deferred")
    bad = remove_nodes(kernel, k.NamedBarrier, _guard)
    with pytest.raises(SimulationError, match=REWRITTEN + "|" + UNFENCED):
        _run_seeds(fusion, bad)


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_deferred_without_the_final_wait_exits_with_stores_in_flight(arrangement: str) -> None:
    fusion, kernel = _kernel(arrangement, "deferred")
    bad = remove_nodes(kernel, k.AsyncWait, _is_bulk_wait(read=False))
    with pytest.raises(SimulationError, match=EXITS):
        _run_seeds(fusion, bad, seeds=[0])


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_after_boxes_without_its_wait_is_reported(arrangement: str) -> None:
    fusion, kernel = _kernel(arrangement, "after_boxes")
    bad = remove_nodes(kernel, k.AsyncWait, _is_bulk_wait(read=True))
    with pytest.raises(SimulationError, match=REWRITTEN + "|" + EXITS):
        _run_seeds(fusion, bad)


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_after_boxes_without_the_war_barrier_is_reported(arrangement: str) -> None:
    """A warp runs on into the next tile while the elected thread has yet to issue, or to wait for, the stores:
    its stmatrix rewrites the tile under a store (reported, from either side: ``UNFENCED``), or the tile's Allocate in the next iteration
    (after_boxes allocates it inside the tile loop) leaves a store not yet issued to read garbage (wrong
    numbers)."""
    fusion, kernel = _kernel(arrangement, "after_boxes")
    bad = remove_nodes(kernel, k.NamedBarrier, _war_at_the_end)
    with pytest.raises((SimulationError, AssertionError), match=REWRITTEN + "|" + UNFENCED + "|wrong result"):
        _run_seeds(fusion, bad)


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_deferred_with_only_the_final_wait_is_reported(arrangement: str) -> None:
    """Neither the in-loop wait nor the guard: only the wait after the loop is left."""
    fusion, kernel = _kernel(arrangement, "deferred")
    bad = remove_nodes(remove_nodes(kernel, k.AsyncWait, _is_bulk_wait(read=True)), k.NamedBarrier, _guard)
    with pytest.raises(SimulationError, match=REWRITTEN):
        _run_seeds(fusion, bad)
