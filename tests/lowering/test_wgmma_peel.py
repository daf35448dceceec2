"""The wgmma_peel pass: a loop whose body issues wgmmas under ``if (i >= c)`` is split at ``c`` so that no wgmma
sits under a branch on the loop index (ptxas serializes every wgmma of a kernel otherwise)."""

from __future__ import annotations

from examples import attention_wgmma
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from lowering.passes.wgmma_peel import _peeled


def _an_mma() -> k.Mma:
    kernel = lower(attention_wgmma.build(1, 2, 200, 200, 64))
    return next(x for x in k.walk(kernel.body) if isinstance(x, k.Mma))


def _loop(start, stop, cond_start) -> k.ForLoop:
    i = Val.symbol("i9")
    mma = _an_mma()
    body = (k.Comment("before"), k.IfThenElse(i.ge(cond_start), (mma,)), k.Comment("after"))
    return k.ForLoop(i, Val.const(start) if isinstance(start, int) else start,
                     Val.const(stop) if isinstance(stop, int) else stop, body, label="iS9", group=7)


def test_a_constant_loop_is_split_after_its_first_iteration() -> None:
    first, rest = _peeled(_loop(0, 8, Val.const(1)))
    assert (str(first.start), str(first.stop), str(rest.start), str(rest.stop)) == ("0", "1", "1", "8")
    assert [type(x).__name__ for x in first.body] == ["Comment", "Comment"]
    assert [type(x).__name__ for x in rest.body] == ["Comment", "Mma", "Comment"]
    assert first.group == rest.group == 7


def test_a_part_known_empty_is_left_out() -> None:
    (rest,) = _peeled(_loop(5, 8, Val.const(1)))         # an epilogue clone: the guard holds in every iteration
    assert (str(rest.start), str(rest.stop)) == ("5", "8")
    assert any(isinstance(x, k.Mma) for x in rest.body)
    (first,) = _peeled(_loop(0, 1, Val.const(1)))        # one iteration: the guard never holds
    assert not any(isinstance(x, k.Mma) for x in k.walk(first.body))


def test_a_run_time_bound_splits_at_the_clamped_start() -> None:
    n = Val.symbol("n0")
    first, rest = _peeled(_loop(0, n, Val.const(1)))
    assert str(first.stop) == str(rest.start) == "min(1, n0)"
    assert str(rest.stop) == "n0"


def test_other_branches_are_left_alone() -> None:
    i = Val.symbol("i9")
    mma = _an_mma()
    for cond in (i.gt(Val.const(0)), Val.symbol("threadIdx.y").ge(Val.const(1)), i.ge(i)):
        loop = k.ForLoop(i, Val.const(0), Val.const(8), (k.IfThenElse(cond, (mma,)),), label="iS9")
        assert _peeled(loop) == (loop,)
    plain = k.ForLoop(i, Val.const(0), Val.const(8), (k.IfThenElse(i.ge(Val.const(1)), (k.Comment("x"),)),))
    assert _peeled(plain) == (plain,)                     # no wgmma in the branch
