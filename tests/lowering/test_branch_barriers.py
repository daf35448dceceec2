"""The branch_barriers pass: inside a warp-split branch every barrier is a named barrier over that branch."""

from __future__ import annotations

import pytest

from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering.errors import LoweringError
from lowering.passes.branch_barriers import named_barriers_in_branches

c = Val.const


def _split(then: list[k.Node], else_: list[k.Node], threads: tuple[int, int] = (128, 256)) -> k.IfThenElse:
    return k.IfThenElse(Val.symbol("threadIdx.y").ge(2), tuple(then), tuple(else_), branch_threads=(c(threads[0]),
                                                                                                      c(threads[1])))


def test_block_syncs_in_each_side_become_named_barriers_over_that_side() -> None:
    loop = k.ForLoop(Val.symbol("i1"), c(0), c(4), (k.BlockSync("RAW: T3 written, then read"),))
    body = (k.BlockSync("init"), _split([k.BlockSync("producer")], [loop]), k.BlockSync("end"))
    out = named_barriers_in_branches(body)
    assert out[0] == k.BlockSync("init") and out[2] == k.BlockSync("end")
    branch = out[1]
    assert branch.then_body == (k.NamedBarrier(1, c(128), "producer"),)
    assert branch.else_body[0].body == (k.NamedBarrier(2, c(256), "RAW: T3 written, then read"),)
    assert not [n for n in k.walk(branch.then_body + branch.else_body) if isinstance(n, k.BlockSync)]


def test_a_side_without_syncs_takes_no_barrier_id_and_ordinary_ifs_keep_block_syncs() -> None:
    guard = k.IfThenElse(Val.symbol("threadIdx.x").lt(100), (k.Comment("x"),))
    body = (_split([k.Comment("no sync")], [k.BlockSync("b")]), guard, k.BlockSync("after"))
    out = named_barriers_in_branches(body)
    assert out[0].else_body == (k.NamedBarrier(1, c(256), "b"),)
    assert out[1:] == body[1:]


def test_more_branches_than_named_barriers_is_an_error() -> None:
    body = tuple(_split([k.BlockSync("a")], [k.BlockSync("b")]) for _ in range(8))
    with pytest.raises(LoweringError, match=r"named barriers 1\.\.15"):
        named_barriers_in_branches(body)
