"""The warp_group_turns pass: the rules that keep warp groups taking turns from deadlocking (every group runs every
iteration and every tensor-core section), and the turns' ids clear of the kernel's other named barriers."""

from __future__ import annotations

import pytest

from examples import attention_wgmma
from fusion_ir import ParallelType
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from lowering.errors import LoweringError
from lowering.passes.warp_group_turns import Turns, _check, _sections, _used_ids

Y = Val.symbol("threadIdx.y")


def _turns() -> Turns:
    fusion = attention_wgmma.build(1, 2, 200, 200, 64, stages=2, compute_warp_groups=2, ping_pong=True)
    return Turns(fusion.outputs[0], 0, ParallelType.TIDy, 2, Val.const(128), 15)


def _issue() -> tuple[k.Node, ...]:
    return (k.WgmmaFence(), k.AsyncCommit(k.AsyncKind.Wgmma))


def test_a_loop_whose_bounds_read_the_warp_group_is_refused() -> None:
    loop = k.ForLoop(Val.symbol("i2"), Val.const(0), Y + 3, _issue(), label="nb")
    with pytest.raises(LoweringError, match=r"bounds \[0, threadIdx.y \+ 3\) that read threadIdx.y"):
        _check(loop, _sections(loop.body), _turns())


def test_a_section_under_a_branch_on_the_warp_group_is_refused() -> None:
    loop = k.ForLoop(Val.symbol("i2"), Val.const(0), Val.const(4), (k.IfThenElse(Y.eq(0), _issue()),), label="nb")
    with pytest.raises(LoweringError, match="under a branch on threadIdx.y"):
        _check(loop, _sections(loop.body), _turns())


def test_sections_are_runs_of_wgmma_issue_statements() -> None:
    body = (k.Comment("a"), *_issue(), k.AsyncWait(k.AsyncKind.Wgmma, 0), k.Comment("b"), *_issue())
    assert _sections(body) == [(1, 2), (5, 6)]


def test_the_ids_of_per_warp_group_barriers_are_counted() -> None:
    body = (k.NamedBarrier(Val.const(1) + Y, Val.const(128)), k.NamedBarrier(5, Val.const(64)))
    launch = {ParallelType.TIDx: Val.const(128), ParallelType.TIDy: Val.const(3), ParallelType.TIDz: Val.const(1)}
    assert _used_ids(body, launch) == {1, 2, 3, 5}


def test_the_turns_take_ids_clear_of_the_branch_barriers() -> None:
    """Warp-specialized with two groups: the turns' ids 12..15; every other named barrier below."""
    traced = lower(attention_wgmma.build(1, 2, 100, 333, 64, causal=True, stages=2, warp_specialized=True,
                                         compute_warp_groups=2, ping_pong=True), trace=True)
    kernel = traced.after("warp_group_turns")      # the ids before later passes hoist them into Lets
    turns = [n for n in k.walk(kernel.body) if isinstance(n, k.NamedBarrier) and "turn" in n.reason]
    others = [n for n in k.walk(kernel.body) if isinstance(n, k.NamedBarrier) and "turn" not in n.reason]
    launch = {ParallelType.TIDx: Val.const(128), ParallelType.TIDy: Val.const(3), ParallelType.TIDz: Val.const(1)}
    compute = {**launch, ParallelType.TIDy: Val.const(2)}      # the compute warp groups run the turns
    assert _used_ids(tuple(turns), compute) == {12, 13, 14, 15}
    assert all(i < 12 for i in _used_ids(tuple(others), launch))
