"""Mutations of the ping-pong matmul's C tile loads (``MatmulParams(ping_pong=True)`` with an ``[M, N]`` epilogue
input): each compute warp group TMA-loads the C tile of its own turn at the tile's start, into its own part of the
C buffer, on its own mbarrier; every thread of the group waits on that barrier's phase (the parity of the group's
turn count) before the epilogue reads it, and a barrier of its own at the tile's end comes before the next tile's
load rewrites it. Each
mutation breaks one of those rules, and the simulator must report it: a ``SimulationError``, or a wrong result (a
read of a copy not landed yet sees poison, NaN)."""

from __future__ import annotations

import dataclasses

import pytest

from examples import matmul_epilogue
from fusion_ir.reference import evaluate
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from lowering.passes.hoist_indices import inline_lets
from runtime import SimulationError, simulate
from tests.helpers import rel_error
from tests.runtime.kir_builders import mutate

KIND = "alpha_beta"
SIZE = (200, 264, 136)      # M, N, K: 6 tiles of 128 x 128 over 2 blocks, so each warp group loads C more than once
SEEDS = range(4)            # seeds 0 and 3 land copies only when a wait forces them


def _kernel(tma_store: bool = False) -> tuple:
    fusion = matmul_epilogue.build(KIND, ping_pong=True, tile=(128, 128, 64), stages=2, blocks=2,
                                   tma_store=tma_store)
    kernel = inline_lets(lower(fusion))         # indices as expressions of threadIdx.y
    c = fusion.inputs[2]
    (load,) = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaLoad) and n.tensor_map.name == f"tmap_T{c.name}"]
    return fusion, kernel, load


def _run_seeds(fusion, kernel: k.Kernel) -> None:
    m, n, kk = SIZE
    for seed in SEEDS:
        inputs = matmul_epilogue.make_inputs(fusion, KIND, m, n, kk, seed=seed)
        (out,) = simulate(kernel, inputs, seed=seed)
        err = rel_error(out, evaluate(fusion, inputs)[0])
        assert err < matmul_epilogue.TOLERANCE, f"wrong result: relative error {err:.3g} (seed {seed})"


def _reported(fusion, kernel: k.Kernel) -> None:
    with pytest.raises((SimulationError, AssertionError), match=r"more arrivals|wrong result|rewritten|hazard"):
        _run_seeds(fusion, kernel)


def _is_phase_wait(node: k.Node, mbar: k.Buffer) -> bool:
    return isinstance(node, k.MBarrierWaitParity) and node.mbar == mbar


@pytest.mark.parametrize("tma_store", [False, True], ids=["register_store", "tma_store"])
def test_the_kernel_matches(tma_store: bool) -> None:
    fusion, kernel, _ = _kernel(tma_store)
    _run_seeds(fusion, kernel)


@pytest.mark.parametrize("tma_store", [False, True], ids=["register_store", "tma_store"])
def test_c_read_before_its_barriers_wait_is_reported(tma_store: bool) -> None:
    """The group's phase wait moved after the epilogue: its reads see C's tile before it landed."""
    fusion, kernel, load = _kernel(tma_store)

    def late(node: k.Node):
        if not (isinstance(node, k.ForLoop) and node.stage is k.Stage.ComputeWarp):
            return None
        waits = [x for x in node.body if _is_phase_wait(x, load.mbar)]
        assert len(waits) == 1
        rest = [x for x in node.body if x not in waits]
        return dataclasses.replace(node, body=(*rest[:-1], *waits, rest[-1]))   # before the epilogue-turn arrive

    _reported(fusion, mutate(kernel, late))


def test_the_c_loads_wait_on_their_phase_without_a_barrier() -> None:
    """Every thread of a group waits on its own barrier's phase, the parity of the group's turn: no token, and no
    barrier after the wait."""
    _, kernel, load = _kernel()
    waits = [n for n in k.walk(kernel.body) if _is_phase_wait(n, load.mbar)]
    assert len(waits) == 1 and "threadIdx.y" in str(waits[0].index) and str(waits[0].parity).endswith("% 2")
    assert not any(isinstance(n, k.MBarrierWait) for n in k.walk(kernel.body))
    assert not any(isinstance(n, (k.BlockSync, k.NamedBarrier)) and "arrived" in n.reason for n in k.walk(kernel.body))


def test_a_load_without_its_phase_wait_is_reported() -> None:
    """Without the wait the epilogue reads C's tile whenever it runs: before the copy landed, or the next tile's
    arrive comes while the copy is in flight."""
    fusion, kernel, load = _kernel()
    bad = mutate(kernel, lambda n: () if _is_phase_wait(n, load.mbar) else None)
    with pytest.raises((SimulationError, AssertionError), match=r"more arrivals|wrong result|in flight"):
        _run_seeds(fusion, bad)


def test_a_phase_wait_off_by_one_is_reported() -> None:
    """The parity off by one: the first wait returns at once (the phase before, never run, counts as complete) and
    the epilogue reads the tile before it landed, or the next turn's arrive comes while the copy is in flight."""
    fusion, kernel, load = _kernel()
    bad = mutate(kernel, lambda n: dataclasses.replace(n, parity=(n.parity + 1) % 2)
                 if _is_phase_wait(n, load.mbar) else None)
    with pytest.raises((SimulationError, AssertionError), match=r"wrong result|more arrivals|[Dd]eadlock"):
        _run_seeds(fusion, bad)


def test_c_reloaded_while_the_previous_tile_still_reads_it_is_reported() -> None:
    """Without the group's barrier at the tile's end, its elected thread issues the next tile's C load (which
    overwrites the group's part) while the group's other warps still read the tile before."""
    fusion, kernel, load = _kernel()
    bad = mutate(kernel, lambda n: () if isinstance(n, (k.BlockSync, k.NamedBarrier))
                 and n.reason.startswith(f"WAR: {load.dst.name}") else None)
    _reported(fusion, bad)


def test_c_loaded_into_the_other_groups_part_is_reported() -> None:
    """Both groups loading into one part: a group's load rewrites the tile the other group still reads."""
    fusion, kernel, load = _kernel()
    one = {"threadIdx.y": Val.const(0)}
    bad = mutate(kernel, lambda n: dataclasses.replace(n, dst_index=n.dst_index.substitute(one))
                 if isinstance(n, k.TmaLoad) and n.mbar == load.mbar else None)
    _reported(fusion, bad)


def test_one_token_barrier_for_both_groups_is_reported() -> None:
    """The groups' loads completing on one barrier: one group's arrive lands in the other's phase."""
    fusion, kernel, load = _kernel()
    zero = Val.const(0)

    def shared(node: k.Node):
        if isinstance(node, k.TmaLoad) and node.mbar == load.mbar:
            return dataclasses.replace(node, mbar_index=zero)
        if isinstance(node, (k.MBarrierWaitParity, k.MBarrierArriveExpectTx)) and node.mbar == load.mbar:
            return dataclasses.replace(node, index=zero)
        return None

    with pytest.raises(SimulationError, match="more arrivals"):
        _run_seeds(fusion, mutate(kernel, shared))


def test_c_allocated_inside_the_tile_loop_is_reported() -> None:
    """C's buffer allocated at each turn: a group's allocation comes while the other group's part still holds a
    tile it has not read (the simulator poisons a shared buffer where it is allocated)."""
    fusion, kernel, load = _kernel()
    (alloc,) = [n for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer == load.dst]

    def inside(node: k.Node):
        if node == alloc:
            return ()
        if isinstance(node, k.ForLoop) and node.stage is k.Stage.ComputeWarp:
            return dataclasses.replace(node, body=(node.body[0], alloc, *node.body[1:]))
        return None

    _reported(fusion, mutate(kernel, inside))
