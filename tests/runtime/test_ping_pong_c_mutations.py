"""Mutations of the ping-pong matmul's C tile loads (``MatmulParams(ping_pong=True)`` with an ``[M, N]`` epilogue
input): each compute warp group TMA-loads the C tile of its own turn at the tile's start, into its own part of the
C buffer, on its own token mbarrier, waits on the token (its elected thread) and a named barrier of its own before
the epilogue reads it, and a barrier of its own at the tile's end before the next tile's load rewrites it. Each
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


def _is_token_wait(node: k.Node, mbar: k.Buffer) -> bool:
    return isinstance(node, k.ElectSync) and any(isinstance(x, k.MBarrierWait) and x.mbar == mbar for x in node.body)


def _is_raw_barrier(node: k.Node, tile: k.Buffer) -> bool:
    return isinstance(node, (k.BlockSync, k.NamedBarrier)) and node.reason.startswith(f"RAW: {tile.name} arrived")


@pytest.mark.parametrize("tma_store", [False, True], ids=["register_store", "tma_store"])
def test_the_kernel_matches(tma_store: bool) -> None:
    fusion, kernel, _ = _kernel(tma_store)
    _run_seeds(fusion, kernel)


@pytest.mark.parametrize("tma_store", [False, True], ids=["register_store", "tma_store"])
def test_c_read_before_its_barriers_wait_is_reported(tma_store: bool) -> None:
    """The token wait and the group's barrier moved after the epilogue: its reads see C's tile before it landed."""
    fusion, kernel, load = _kernel(tma_store)

    def late(node: k.Node):
        if not (isinstance(node, k.ForLoop) and node.stage is k.Stage.ComputeWarp):
            return None
        waits = [x for x in node.body if _is_token_wait(x, load.mbar) or _is_raw_barrier(x, load.dst)]
        assert len(waits) == 2
        rest = [x for x in node.body if x not in waits]
        return dataclasses.replace(node, body=(*rest[:-1], *waits, rest[-1]))   # before the epilogue-turn arrive

    _reported(fusion, mutate(kernel, late))


def test_a_load_without_its_token_wait_is_reported() -> None:
    """Without the wait the barrier's phase is never waited for: the next tile's arrive overflows the phase."""
    fusion, kernel, load = _kernel()
    bad = mutate(kernel, lambda n: () if isinstance(n, k.MBarrierWait) and n.mbar == load.mbar else None)
    with pytest.raises(SimulationError, match="more arrivals"):
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
        if isinstance(node, (k.MBarrierWait, k.MBarrierArriveExpectTx)) and node.mbar == load.mbar:
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
