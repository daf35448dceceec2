"""The sub-tiled epilogue (``MatmulParams.epilogue_tile``) in the simulator: its ring of staging tiles matches numpy,
cooperative and ping-pong, and each mutation of the waits and barriers that keep a staging tile safe is reported.

Per sub-tile s the elected thread waits until at most ``stages - 1`` bulk groups are left reading (the stores of the
sub-tiles before s), a barrier lets every warp write tile ``s % stages``, stmatrix writes it, a fence and a
barrier hand it to the TMA store; after the sub-tile loop one read wait retires the rest."""

from __future__ import annotations

import dataclasses

import pytest

from examples import matmul_epilogue
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError
from tests.runtime.epilogue_sim import EXITS, REWRITTEN, run_seeds
from tests.runtime.kir_builders import mutate, remove_nodes

ARRANGEMENTS = {
    "cooperative": {"epilogue_tile": (128, 32)},
    "ping_pong": {"epilogue_tile": (128, 32), "ping_pong": True, "tile": (128, 128, 64), "stages": 4},
    # swapped operands: 4 sub-tiles of 16 of the tile's rows (the fragment's columns) and all its columns, each a box
    # per 64-column chunk, staged by stmatrix.trans
    "swapped": {"epilogue_tile": (16, 128), "swap_ab": True, "tile": (64, 128, 64), "stages": 3},
}


def _kernel(arrangement: str, kind: str = "bias_gelu") -> tuple:
    fusion = matmul_epilogue.build(kind, blocks=2, **ARRANGEMENTS[arrangement])
    return fusion, lower(fusion)


def _ring_wait(node: k.Node) -> bool:
    return isinstance(node, k.AsyncWait) and node.kind is k.AsyncKind.Bulk and node.read and node.pending > 0


def _final_wait(node: k.Node) -> bool:
    return isinstance(node, k.AsyncWait) and node.kind is k.AsyncKind.Bulk and node.read and node.pending == 0


def _guard(node: k.Node) -> bool:
    return isinstance(node, (k.BlockSync, k.NamedBarrier)) and "after its TMA stores' wait" in node.reason


@pytest.mark.parametrize("arrangement,kind", [("cooperative", "bias_gelu"), ("cooperative", "alpha_beta"),
                                              ("ping_pong", "bias_gelu"), ("ping_pong", "alpha_beta"),
                                              ("swapped", "bias_gelu"), ("swapped", "alpha_beta")])
def test_the_ring_matches_numpy(arrangement: str, kind: str) -> None:
    run_seeds(*_kernel(arrangement, kind), kind=kind)


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_the_ring_waits_for_all_but_the_stores_of_the_tiles_before(arrangement: str) -> None:
    _, kernel = _kernel(arrangement)
    waits = []
    k.rewrite(kernel.body, lambda n: waits.append(n) if isinstance(n, k.AsyncWait) else None)
    pending = sorted({w.pending for w in waits if w.kind is k.AsyncKind.Bulk})
    # 2 staging tiles, one box each (swapped: two, a 64-column chunk each): the other's groups may still read
    assert pending == [0, 2 if arrangement == "swapped" else 1]


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_a_ring_wait_that_leaves_one_more_group_reading_is_reported(arrangement: str) -> None:
    fusion, kernel = _kernel(arrangement)
    bad = mutate(kernel, lambda n: (dataclasses.replace(n, pending=n.pending + 1),) if _ring_wait(n) else None)
    with pytest.raises(SimulationError, match=REWRITTEN):
        run_seeds(fusion, bad)


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_the_ring_without_its_wait_is_reported(arrangement: str) -> None:
    fusion, kernel = _kernel(arrangement)
    bad = remove_nodes(kernel, k.ElectSync, lambda n: any(_ring_wait(x) for x in n.body))
    with pytest.raises(SimulationError, match=REWRITTEN):
        run_seeds(fusion, bad)


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_the_ring_without_its_guard_barrier_is_reported(arrangement: str) -> None:
    """The wait alone orders nothing for the other warps: without the barrier after it, a warp's stmatrix may
    write a staging tile before the elected thread has waited for the store still reading it."""
    fusion, kernel = _kernel(arrangement)
    bad = remove_nodes(kernel, k.NamedBarrier, _guard)       # the compute warp groups' barrier
    with pytest.raises(SimulationError, match=REWRITTEN):
        run_seeds(fusion, bad)


@pytest.mark.parametrize("arrangement", sorted(ARRANGEMENTS))
def test_the_ring_without_its_final_wait_is_reported(arrangement: str) -> None:
    """Without the wait after the sub-tile loop, the next tile's first sub-tiles (or the block's exit) come while
    the last stores still read their staging tiles."""
    fusion, kernel = _kernel(arrangement)
    bad = remove_nodes(kernel, k.ElectSync, lambda n: any(_final_wait(x) for x in n.body))
    with pytest.raises(SimulationError, match=REWRITTEN + "|" + EXITS):
        run_seeds(fusion, bad)
