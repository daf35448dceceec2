"""Mutation tests of the statements that open and close something: a cp.async commit, an mbarrier inval,
a setmaxnreg, an ``ElectSync``. Each deletion must be reported by the simulator on every seed (seeds 0
and 3 land copies lazily, 1 eagerly): a wait for uncommitted copies, a barrier alive at exit, a register
budget that never fits (or released registers nobody claims), a TMA issued by every thread."""

from __future__ import annotations

from dataclasses import replace

import pytest

import examples
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from runtime.errors import DeadlockError, SimulationError
from tests.helpers import assert_matches, random_inputs
from tests.lowering.pipeline_cases import cross_thread_cp_async
from tests.runtime.kir_builders import mutate, remove_nodes

SEEDS = (0, 1, 3)


def _simulate_all_seeds(fusion, kern: k.Kernel, shapes) -> list[str]:
    """For each seed: "ok" or the simulator's error."""
    outcomes = []
    for seed in SEEDS:
        inputs = random_inputs(fusion, shapes, seed=seed)
        try:
            outputs = simulate(kern, inputs, seed=seed)
        except (DeadlockError, SimulationError) as e:
            outcomes.append(f"{type(e).__name__}: {e}")
            continue
        assert_matches(fusion, inputs, outputs)
        outcomes.append("ok")
    return outcomes


def _tma_add():
    fusion = examples.load("tma_add").build(stages=3, boxes=1, tiles=8)
    return fusion, lower(fusion), [(5000,), (5000,)]


def _cp_async():
    fusion = cross_thread_cp_async()
    return fusion, lower(fusion), [(5000,)]


def _register_sharing():
    fusion = examples.load("ws_tma_pointwise").build()
    return fusion, lower(fusion), [(64, 512), (64, 512)]


@pytest.mark.parametrize("build", [_tma_add, _cp_async, _register_sharing])
def test_the_unmutated_kernels_are_clean(build) -> None:
    fusion, kern, shapes = build()
    assert _simulate_all_seeds(fusion, kern, shapes) == ["ok"] * len(SEEDS)


def test_a_deleted_cp_async_commit_is_a_wait_for_uncommitted_copies() -> None:
    fusion, kern, shapes = _cp_async()
    mutated = remove_nodes(kern, k.AsyncCommit, lambda n: n.kind is k.AsyncKind.CpAsync)
    for outcome in _simulate_all_seeds(fusion, mutated, shapes):   # the verifier sees it before any thread runs
        assert "waits for cp.async groups, but no AsyncCommit('cp.async') commits any (rule async-groups)" in outcome, \
            outcome


def test_a_deleted_mbarrier_inval_leaves_a_barrier_alive_at_exit() -> None:
    fusion, kern, shapes = _tma_add()
    mutated = remove_nodes(kern, k.MBarrierInval)
    for outcome in _simulate_all_seeds(fusion, mutated, shapes):
        assert "never invalidated (mbarrier::inval) before its block exited" in outcome, outcome


def test_a_deleted_setmaxnreg_dec_over_commits_the_register_file() -> None:
    fusion, kern, shapes = _register_sharing()
    mutated = remove_nodes(kern, k.SetMaxNReg, lambda n: not n.increase)
    for outcome in _simulate_all_seeds(fusion, mutated, shapes):
        assert "more than the 65536 of the register file" in outcome, outcome


def test_a_deleted_setmaxnreg_inc_leaves_released_registers_unclaimed() -> None:
    fusion, kern, shapes = _register_sharing()
    mutated = remove_nodes(kern, k.SetMaxNReg, lambda n: n.increase)
    for outcome in _simulate_all_seeds(fusion, mutated, shapes):
        assert "no warp claimed them with setmaxnreg.inc" in outcome, outcome


def _without_elect(kern: k.Kernel, j: int) -> k.Kernel | None:
    """The kernel with its ``j``-th ``ElectSync`` (in rewrite order) replaced by its body; None if none is."""
    seen = [0]

    def unwrap(n: k.Node):
        if not isinstance(n, k.ElectSync):
            return None
        seen[0] += 1
        return n.body if seen[0] == j + 1 else None

    out = k.rewrite(kern.body, unwrap)
    return None if seen[0] <= j else replace(kern, body=out)


@pytest.mark.parametrize("build", [_tma_add, _register_sharing])
def test_every_deleted_elect_sync_is_reported(build) -> None:
    """Each ``ElectSync`` in turn replaced by its body, run by every thread: inits, arrivals, TMA issues
    and invals multiply; the simulator reports an over-count, a double init or a wrong use."""
    fusion, kern, shapes = build()
    j = 0
    while (mutated := _without_elect(kern, j)) is not None:
        assert mutated != kern
        for outcome in _simulate_all_seeds(fusion, mutated, shapes):
            assert outcome != "ok", f"removing ElectSync number {j} went unnoticed"
        j += 1
    assert j > 0


def test_a_tma_load_issued_by_every_thread_over_counts_its_barrier() -> None:
    fusion, kern, shapes = _tma_add()

    def unelect_the_issue(n: k.Node):
        if isinstance(n, k.ElectSync) and any(isinstance(m, k.TmaLoad) for m in k.walk(n.body)):
            return n.body
        return None

    mutated = mutate(kern, unelect_the_issue)
    for outcome in _simulate_all_seeds(fusion, mutated, shapes):
        assert "more arrivals on" in outcome or "more bytes landed" in outcome or "tx" in outcome, outcome
