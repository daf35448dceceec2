"""Mutation tests: delete one wait, one WAR sync or one arriveExpectTx from a correct pipeline's
kernel IR and the simulator must report it (a wrong result, a protocol error or a deadlock).

Seeds divisible by 3 land async copies at the latest legal moment, so a read that skipped its
wait always sees poison; those seeds must report every mutation.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import examples
from fusion_ir import Fusion
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from runtime.errors import DeadlockError, SimulationError
from tests.helpers import assert_matches, random_inputs
from tests.lowering.pipeline_cases import cross_thread_cp_async

LAZY_SEEDS = (0, 3)


def drop(kernel: k.Kernel, stage: k.Stage, doomed) -> k.Kernel:
    """``kernel`` without the statements ``doomed`` picks inside loops of ``stage``; asserts one went."""
    removed = [0]

    def in_stage(node: k.Node):
        if isinstance(node, k.ForLoop) and node.stage is stage:
            def cut(n: k.Node):
                if doomed(n):
                    removed[0] += 1
                    return ()
                return None

            return replace(node, body=k.rewrite(node.body, cut))
        return None

    mutated = replace(kernel, body=k.rewrite(kernel.body, in_stage))
    assert removed[0] > 0, "the mutation removed nothing"
    return mutated


def reported(fusion: Fusion, kernel: k.Kernel, shapes, seed: int) -> str | None:
    """How the simulator reported the mutation, or None when the result was right."""
    inputs = random_inputs(fusion, shapes, seed=seed)
    try:
        outputs = simulate(kernel, inputs, seed=seed)
    except DeadlockError:
        return "deadlock"
    except SimulationError:
        return "protocol error"
    try:
        assert_matches(fusion, inputs, outputs)
    except AssertionError:
        return "wrong result"
    return None


def is_full_wait(n: k.Node) -> bool:
    return isinstance(n, k.MBarrierWaitParity) and "+" not in str(n.index).split("%")[-1]


def is_empty_wait(n: k.Node) -> bool:
    return isinstance(n, k.MBarrierWaitParity) and not is_full_wait(n)


def tma_add(war_mbarrier: bool = False) -> Fusion:
    return examples.load("tma_add").build(stages=3, boxes=1, tiles=8, war_mbarrier=war_mbarrier)


MUTATIONS = [
    # (name, build, shapes, what to delete in the main loop)
    ("TMA full wait", tma_add, [(5000,), (5000,)], is_full_wait),
    ("TMA arriveExpectTx", tma_add, [(5000,), (5000,)], lambda n: isinstance(n, k.MBarrierArriveExpectTx)),
    ("TMA WAR sync", tma_add, [(5000,), (5000,)],
     lambda n: isinstance(n, k.BlockSync) and "WAR" in n.reason),
    ("seed full wait", lambda: examples.load("seed_circular_buffer").build(), [(1000,)], is_full_wait),
    ("seed arriveExpectTx", lambda: examples.load("seed_circular_buffer").build(), [(1000,)],
     lambda n: isinstance(n, k.MBarrierArriveExpectTx)),
    ("empty-mbarrier arrive", lambda: tma_add(True), [(5000,), (5000,)], lambda n: isinstance(n, k.MBarrierArrive)),
    ("empty-mbarrier wait", lambda: tma_add(True), [(5000,), (5000,)], is_empty_wait),
    ("cp.async wait_group", cross_thread_cp_async, [(5000,)], lambda n: isinstance(n, k.AsyncWait)),
    ("cp.async RAW sync", cross_thread_cp_async, [(5000,)],
     lambda n: isinstance(n, k.BlockSync) and "RAW" in n.reason),
    ("cp.async WAR sync", cross_thread_cp_async, [(5000,)],
     lambda n: isinstance(n, k.BlockSync) and "WAR" in n.reason),
]


@pytest.mark.parametrize("build,shapes,doomed", [m[1:] for m in MUTATIONS], ids=[m[0] for m in MUTATIONS])
def test_the_simulator_reports_a_deleted_synchronization(build, shapes, doomed) -> None:
    fusion = build()
    kernel = lower(fusion)
    for seed in LAZY_SEEDS:
        assert reported(fusion, kernel, shapes, seed) is None   # the unmutated kernel is right
    mutated = drop(kernel, k.Stage.Main, doomed)
    for seed in LAZY_SEEDS:
        assert reported(fusion, mutated, shapes, seed) is not None, f"seed {seed} missed the mutation"


def test_the_parity_form_without_its_wait_is_reported() -> None:
    fusion = examples.load("tma_token").build()
    kernel = lower(fusion)

    def cut(n: k.Node):
        return () if isinstance(n, k.MBarrierWaitParity) else None

    mutated = replace(kernel, body=k.rewrite(kernel.body, cut))
    assert mutated != kernel
    for seed in LAZY_SEEDS:
        assert reported(fusion, mutated, [(37, 212)], seed) is not None


@pytest.mark.parametrize("off", [1, -1], ids=["plus_one", "minus_one"])
def test_the_parity_form_off_by_one_is_reported(off: int) -> None:
    """A wait for the other parity returns before the copy lands (the phase before counts as complete): the read
    sees poison, or the next iteration's arrive comes while the copy is in flight."""
    fusion = examples.load("tma_token").build()
    kernel = lower(fusion)

    def shift(n: k.Node):
        return replace(n, parity=(n.parity + off) % 2) if isinstance(n, k.MBarrierWaitParity) else None

    mutated = replace(kernel, body=k.rewrite(kernel.body, shift))
    assert mutated != kernel
    for seed in LAZY_SEEDS:
        assert reported(fusion, mutated, [(37, 212)], seed) is not None, f"seed {seed} missed the mutation"


def test_the_token_form_without_its_wait_reads_poison(monkeypatch: pytest.MonkeyPatch) -> None:
    from lowering.analysis import mbarriers

    monkeypatch.setattr(mbarriers, "issue_parity", lambda loops: None)   # the token form
    fusion = examples.load("tma_token").build()
    kernel = lower(fusion)

    def cut(n: k.Node):
        return () if isinstance(n, k.MBarrierWait) else None

    mutated = replace(kernel, body=k.rewrite(kernel.body, cut))
    for seed in LAZY_SEEDS:
        assert reported(fusion, mutated, [(37, 212)], seed) is not None
