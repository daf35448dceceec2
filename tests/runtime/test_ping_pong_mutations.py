"""Mutations of the ping-pong matmul's barriers (``MatmulParams(ping_pong=True)``): two compute warp
groups take turns on tiles, ordered by mbarriers. Each mutation breaks one rule of that order or of
the per-group pipeline, and the simulator must report it (a hazard or a ``DeadlockError``)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from examples import matmul_wgmma
from fusion_ir import DataType
from fusion_ir.reference import evaluate
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from lowering.passes.hoist_indices import inline_lets
from runtime import SimulationError, simulate
from runtime.errors import DeadlockError
from tests.helpers import random_inputs, rel_error
from tests.runtime.kir_builders import mutate

# 4 x 3 = 12 tiles of 64 x 128 over 2 blocks: 3 turns each for both warp groups; 8 k tiles, ragged edges
SHAPES = [(250, 512), (512, 328)]


def _kernel(tma_store: bool = False) -> tuple:
    """``tma_store``: the epilogue stages each tile in shared memory for a TMA store (bf16 output)."""
    extra = {"tma_store": True, "out_dtype": DataType.BFloat16} if tma_store else {}
    fusion = matmul_wgmma.build(tile=(64, 128, 64), stages=3, compute_warp_groups=2, warp_specialized=True,
                                persistent=True, ping_pong=True, blocks=2, group_m=2, **extra)
    return fusion, inline_lets(lower(fusion))   # the order barriers' slots as expressions of threadIdx.y


def _error(fusion, kern: k.Kernel, seed: int = 1, shapes: list = SHAPES) -> float:
    inputs = random_inputs(fusion, shapes, seed=5)
    (out,) = simulate(kern, inputs, seed=seed)
    return rel_error(out, evaluate(fusion, inputs)[0])


def _is_order(node, kind, slot: int | None = None) -> bool:
    """An ordering-barrier operation; ``slot`` 0: a mainloop slot, 1: an epilogue slot."""
    if not isinstance(node, kind) or not node.mbar.name.endswith("_order"):
        return False
    if slot is None:
        return True
    epilogue = node.index.evaluate({"threadIdx.y": 0}) >= 2     # slots 2 + w: the epilogue turns
    return epilogue == (slot == 1)


def _in_compute_loop(kern: k.Kernel, fn) -> k.Kernel:
    """Apply ``fn`` to the statements of the compute warp groups' tile loop only."""
    def loop(node):
        if isinstance(node, k.ForLoop) and node.stage is k.Stage.ComputeWarp:
            return replace(node, body=k.rewrite(node.body, fn))
        return None
    return mutate(kern, loop)


def test_the_kernel_alternates_and_matches() -> None:
    fusion, kern = _kernel()
    waits = [n for n in k.walk(kern.body) if _is_order(n, k.MBarrierWaitParity)]
    arrives = [n for n in k.walk(kern.body) if _is_order(n, k.MBarrierArrive)]
    assert len(waits) == 2 and len(arrives) == 4      # per tile: 2 waits, 2 arrives; 2 first-turn arrives
    for seed in (0, 1, 2):
        assert _error(fusion, kern, seed) < 1e-5


def test_without_the_mainloop_order_a_group_reads_a_stage_two_phases_early() -> None:
    """The second group would wait on a "full" barrier whose phase of the same parity two phases back
    (the first group's data) already completed: it reads a stage the producer is refilling."""
    fusion, kern = _kernel()
    bad = _in_compute_loop(kern, lambda n: () if _is_order(n, k.MBarrierWaitParity, 0) else None)
    with pytest.raises(SimulationError):
        for seed in (0, 1, 2):
            assert _error(fusion, bad, seed) < 1e-5


def test_a_mainloop_order_wait_off_by_one_phase_deadlocks() -> None:
    """(The same mutation of the epilogue order only swaps the two groups' epilogues: a wait for the
    parity of the phase before the first passes at once. This kernel stores from registers, so
    nothing is shared there and the result stays right.)"""
    fusion, kern = _kernel()
    bad = _in_compute_loop(kern, lambda n: replace(n, parity=(n.parity + 1) % 2)
                           if _is_order(n, k.MBarrierWaitParity, 0) else None)
    with pytest.raises(DeadlockError, match="_order"):
        _error(fusion, bad)


@pytest.mark.parametrize("slot", [0, 1], ids=["mainloop", "epilogue"])
def test_a_turn_handed_to_the_wrong_group_deadlocks(slot: int) -> None:
    """A group that arrives on its own slot instead of the next group's keeps the next one waiting."""
    fusion, kern = _kernel()
    w = Val.symbol("threadIdx.y")
    own = w if slot == 0 else w + 2
    bad = _in_compute_loop(kern, lambda n: replace(n, index=own) if _is_order(n, k.MBarrierArrive, slot) else None)
    with pytest.raises(DeadlockError, match="_order"):
        _error(fusion, bad)


def test_without_the_first_turn_no_group_starts() -> None:
    fusion, kern = _kernel()
    first = [n for n in k.walk(kern.body) if isinstance(n, k.IfThenElse)
             and any(_is_order(x, k.MBarrierArrive) for x in n.then_body)]
    assert len(first) == 1
    bad = mutate(kern, lambda n: () if n == first[0] else None)
    with pytest.raises(DeadlockError, match="_order"):
        _error(fusion, bad)


def test_empty_stages_counting_both_groups_deadlock() -> None:
    """A stage is read by one warp group: its "empty" barrier counts 128 threads, not the branch's 256."""
    fusion, kern = _kernel()
    bad = mutate(kern, lambda n: replace(n, count=Val.const(256)) if isinstance(n, k.MBarrierInit)
                   and n.count == Val.const(128) and not n.mbar.name.endswith("_order") else None)
    with pytest.raises(DeadlockError):
        _error(fusion, bad)


def test_both_groups_pre_arriving_on_empty_stages_lets_the_producer_overwrite() -> None:
    """Only the first warp group marks the stages empty; with both, every stage's first phase completes
    twice over and the producer refills a stage a wgmma still reads."""
    fusion, kern = _kernel()
    guarded = [n for n in k.walk(kern.body) if isinstance(n, k.IfThenElse) and len(n.then_body) == 1
               and isinstance(n.then_body[0], k.ForLoop) and n.then_body[0].stage is k.Stage.PrePrologue
               and str(n.cond).endswith("== 0")]
    assert len(guarded) == 1
    bad = mutate(kern, lambda n: n.then_body if n == guarded[0] else None)
    with pytest.raises(SimulationError):
        for seed in (0, 1, 2):
            assert _error(fusion, bad, seed) < 1e-5


def test_the_groups_take_turns_on_one_staging_tile() -> None:
    """With a TMA store, the two groups' epilogues stage their tiles in one shared buffer (one 64 x 128
    tile, not one per group): the epilogue order keeps them one at a time."""
    fusion, kern = _kernel(tma_store=True)
    (staging,) = [n.buffer for n in k.walk(kern.body) if isinstance(n, k.Allocate) and n.buffer.name == "T6"]
    assert staging.size == Val.const(64 * 128)
    for seed in (0, 1, 2):
        assert _error(fusion, kern, seed) < 1e-2     # bf16 output


def test_without_the_epilogue_order_a_group_rewrites_the_staging_tile_under_a_store() -> None:
    """Without its epilogue-turn wait, a group writes the shared staging tile while the other group's
    TMA store may still read it (or before that group's fence and barrier): a hazard. Two k tiles, so a
    group's mainloop is over while the other group's epilogue still runs (with 8, the simulator's
    interleavings seldom overlap them)."""
    fusion, kern = _kernel(tma_store=True)
    short_k = [(250, 128), (128, 328)]
    assert _error(fusion, kern, 0, short_k) < 1e-2
    bad = _in_compute_loop(kern, lambda n: () if _is_order(n, k.MBarrierWaitParity, 1) else None)
    with pytest.raises(SimulationError):
        for seed in (0, 1, 2):
            assert _error(fusion, bad, seed, short_k) < 1e-2
