"""A persistent kernel's sub-tile ring with its stores carried across the tile loop (``MatmulParams.store_wait=
"carried"``, ``TensorView.set_store_wait("carried")``): the last sub-tiles of a tile are stored under the next tile's
mainloop and waited for by the next tile's first writes, one read wait after the tile loop. It matches numpy, the wait
moves out of the tile loop only where the ring's order goes on across tiles, and each mutation of that is reported."""

from __future__ import annotations

import pytest

from examples import matmul_epilogue
from lowering import kernel_ir as k
from lowering import lower
from lowering.passes import store_waits
from runtime import SimulationError
from tests.runtime.epilogue_sim import EXITS, REWRITTEN, run_seeds
from tests.runtime.kir_builders import remove_nodes

ARRANGEMENTS = {
    "cooperative": {"epilogue_tile": (128, 32)},                 # 8 sub-tiles of 128 x 32 a tile
    "ping_pong": {"epilogue_tile": (128, 32), "ping_pong": True, "tile": (128, 128, 64), "stages": 4},
    "three_sub_tiles": {"epilogue_tile": (128, 32), "tile": (128, 96, 64)},   # 3 sub-tiles: not a multiple of 2
}


def _kernel(arrangement: str, kind: str = "bias_gelu", wait: str = "carried") -> tuple:
    fusion = matmul_epilogue.build(kind, blocks=2, store_wait=wait, **ARRANGEMENTS[arrangement])
    return fusion, lower(fusion)


def _final_wait(node: k.Node) -> bool:
    return isinstance(node, k.AsyncWait) and node.kind is k.AsyncKind.Bulk and node.read and node.pending == 0


def _loops_around_final_wait(kernel: k.Kernel) -> list[int]:
    """For each final read wait, the number of loops around it."""
    found: list[int] = []

    def walk(body: tuple[k.Node, ...], loops: int) -> None:
        for node in body:
            if _final_wait(node):
                found.append(loops)
            for _, sub in k.children(node):
                walk(sub, loops + isinstance(node, k.ForLoop))
    walk(kernel.body, 0)
    return found


@pytest.mark.parametrize("arrangement,kind", [("cooperative", "bias_gelu"), ("cooperative", "alpha_beta"),
                                              ("ping_pong", "bias_gelu"), ("three_sub_tiles", "bias_relu")])
def test_the_carried_ring_matches_numpy(arrangement: str, kind: str) -> None:
    run_seeds(*_kernel(arrangement, kind), kind=kind)


@pytest.mark.parametrize("arrangement", ["cooperative", "ping_pong"])
def test_the_last_wait_leaves_the_tile_loop(arrangement: str) -> None:
    """"after_boxes" waits for a tile's last sub-tiles inside the tile loop (after the sub-tile loop), "carried"
    once after it: no loop is left around the wait."""
    assert _loops_around_final_wait(_kernel(arrangement, wait="after_boxes")[1]) == [1]
    assert _loops_around_final_wait(_kernel(arrangement)[1]) == [0]


def test_three_sub_tiles_in_a_ring_of_two_keep_the_wait_in_the_tile_loop() -> None:
    """Sub-tiles 0, 1, 2 write tiles 0, 1, 0: the next tile's first sub-tile writes tile 0 again while the store of
    sub-tile 2 may still read it, so the tile loop does not carry the ring."""
    assert _loops_around_final_wait(_kernel("three_sub_tiles")[1]) == [1]


def test_a_ring_carried_out_of_order_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """The mutation: the wait carried out of the tile loop although 3 sub-tiles do not go on in the ring's order."""
    monkeypatch.setattr(store_waits, "_trip_count", lambda loop: 0)
    fusion, kernel = _kernel("three_sub_tiles")
    assert _loops_around_final_wait(kernel) == [0]
    with pytest.raises(SimulationError, match=REWRITTEN):
        run_seeds(fusion, kernel, seeds=range(8))


@pytest.mark.parametrize("arrangement", ["cooperative", "ping_pong"])
def test_the_carried_ring_without_its_final_wait_is_reported(arrangement: str) -> None:
    """Without the wait after the tile loop the block exits while its last stores still read their staging tiles."""
    fusion, kernel = _kernel(arrangement)
    bad = remove_nodes(kernel, k.ElectSync, lambda n: any(_final_wait(x) for x in n.body))
    with pytest.raises(SimulationError, match=EXITS):
        run_seeds(fusion, bad)
