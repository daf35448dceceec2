"""fusion_ir.key_limit: the causal limit read off masked attention scores (row i sees no key j >= i + limit), and
why not where the mask is not one it reads; TensorView.bound_loop's checks; online_softmax.bound_key_blocks's
refusals."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from examples import attention
from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, TensorView, ops
from fusion_ir.key_limit import key_limit
from fusion_ir.online_softmax import bound_key_blocks, online_softmax

SQ, SKV = 24, 40
NEG_INF = float("-inf")


def _indices() -> tuple[TensorView, TensorView]:
    """(key j [1, Skv], query i [Sq, 1]) as iotas broadcast."""
    j = ops.broadcast(ops.iota(SKV), [True, False])
    i = ops.broadcast(ops.iota(SQ), [False, True])
    return j, i


def _scores(mask: Callable[[TensorView, TensorView], TensorView | None], other: float = NEG_INF) -> TensorView:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(SQ, SKV), dtype=DataType.Float)
        j, i = _indices()
        cond = mask(j, i)
        s = ops.mul(x, 2.0) if cond is None else ops.where(cond, x, other)
        fusion.add_output(s)
    return s


@pytest.mark.parametrize("mask,limit", [
    (lambda j, i: ops.le(j, i), 1),                                   # torch's is_causal
    (lambda j, i: ops.ge(i, j), 1),
    (lambda j, i: ops.lt(j, i), 0),
    (lambda j, i: ops.gt(i, j), 0),
    (lambda j, i: ops.le(j, ops.add(i, 16)), 17),                    # bottom-right when Skv - Sq = 16
    (lambda j, i: ops.le(ops.add(j, 2), ops.sub(i, 3)), -4),         # j + 2 <= i - 3: j < i - 4
    (lambda j, i: ops.le(ops.cast(j, DataType.Int64), i), 1),         # an int cast keeps the index
    (lambda j, i: ops.logical_and(ops.lt(j, SKV - 1), ops.le(j, i)), 1),  # one causal conjunct is enough
], ids=["le", "ge", "lt", "gt", "le_plus", "both_shifted", "cast", "and"])
def test_reads_the_limit(mask: Callable, limit: int) -> None:
    assert key_limit(_scores(mask)) == limit


def test_nested_wheres_each_count() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(SQ, SKV), dtype=DataType.Float)
        j, i = _indices()
        inner = ops.where(ops.le(j, i), x, NEG_INF)
        s = ops.where(ops.lt(j, 30), inner, NEG_INF)
        fusion.add_output(s)
    assert key_limit(s) == 1


@pytest.mark.parametrize("mask,other,needle", [
    (lambda j, i: None, NEG_INF, "not where(mask, x, -inf)"),
    (lambda j, i: ops.le(j, i), 0.0, "not where(mask, x, -inf)"),       # masked to 0, not -inf: no-ops not proved
    (lambda j, i: ops.le(i, j), NEG_INF, "does not compare the key index"),   # anti-causal: later keys visible
    (lambda j, i: ops.eq(j, i), NEG_INF, "is not a comparison"),
    (lambda j, i: ops.le(ops.mul(j, 2), i), NEG_INF, "does not compare the key index"),
    (lambda j, i: ops.logical_or(ops.le(j, i), ops.lt(j, 3)), NEG_INF, "is not a comparison"),
], ids=["no_mask", "zero_fill", "anti_causal", "eq", "scaled_key", "or"])
def test_refuses_what_it_cannot_prove(mask: Callable, other: float, needle: str) -> None:
    why = key_limit(_scores(mask, other))
    assert isinstance(why, str) and needle in why, why


def test_refuses_an_iota_of_step_two() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(SQ, SKV), dtype=DataType.Float)
        j = ops.broadcast(ops.iota(SKV, step=2), [True, False])
        i = ops.broadcast(ops.iota(SQ), [False, True])
        s = ops.where(ops.le(j, i), x, NEG_INF)
        fusion.add_output(s)
    assert "does not compare the key index" in key_limit(s)


def test_the_rewrite_records_the_limit() -> None:
    causal = attention.fusion_of(1, 1, 40, 72, 32, causal=True)
    (r,) = online_softmax(causal, 32)
    assert r.key_limit == 1 and r.no_key_limit == ""
    plain = attention.fusion_of(1, 1, 40, 72, 32)
    (r,) = online_softmax(plain, 32)
    assert r.key_limit is None and "not where(mask, x, -inf)" in r.no_key_limit


def test_bound_key_blocks_refuses_scores_with_no_causal_mask() -> None:
    fusion = attention.fusion_of(1, 1, 128, 128, 64)
    (r,) = online_softmax(fusion, 64)
    s = r.scores                                      # [nb, B, H, Sq, 64]
    s.split(3, 64)                                    # [nb, B, H, Sqo, 64, 64]
    s.reorder({3: 0, 0: 3})                           # [Sqo, B, H, nb, 64, 64]
    s.axis(0).parallelize(ParallelType.BIDx)
    with pytest.raises(ScheduleError, match=rf"T{s.name} axis 3: cannot bound the key blocks of the scores "
                                            rf"T{s.name}: .*not where\(mask, x, -inf\)"):
        bound_key_blocks(r, s, 3, 0)


def _causal_scores() -> tuple:
    fusion = attention.fusion_of(1, 1, 128, 128, 64, causal=True)
    (r,) = online_softmax(fusion, 64)
    s = r.scores
    s.split(3, 64)                                    # [nb, B, H, Sqo, 64, 64]
    s.reorder({3: 0, 0: 3})                           # [Sqo, B, H, nb, 64, 64]
    return r, s


def test_bound_key_blocks_refuses_an_axis_that_is_not_the_key_blocks() -> None:
    r, s = _causal_scores()
    s.axis(0).parallelize(ParallelType.BIDx)
    with pytest.raises(ScheduleError, match=r"axis 1 \(.*\) is not the key-block axis nb"):
        bound_key_blocks(r, s, 1, 0)


def test_bound_key_blocks_refuses_rows_that_are_not_a_query_tile() -> None:
    r, s = _causal_scores()
    s.axis(1).parallelize(ParallelType.BIDx)
    with pytest.raises(ScheduleError, match=r"reads axis 1 .* must be the outer part of an inner split of the query"):
        bound_key_blocks(r, s, 3, 1)


def test_bound_loop_needs_a_block_index_outside_a_serial_loop() -> None:
    r, s = _causal_scores()
    with pytest.raises(ScheduleError, match=r"bound_loop: the bound of axis 3 .* reads axis 0 .* bound to a block "
                                            r"index"):
        bound_key_blocks(r, s, 3, 0)                  # Sqo not bound to BIDx yet
    s.axis(0).parallelize(ParallelType.BIDx)
    s.axis(3).parallelize(ParallelType.Unroll)
    with pytest.raises(ScheduleError, match=r"bound_loop: axis 3 .* is bound to Unroll; only a serial loop"):
        bound_key_blocks(r, s, 3, 0)
    s.axis(3).parallelize(ParallelType.Serial)
    bound_key_blocks(r, s, 3, 0)
    bound = s.axis(3).id.trip_bound
    assert bound.outer is s.axis(0).id and (bound.scale, bound.offset, bound.divisor) == (64, 64, 64)
    assert str(bound) == f"ceilDiv({s.axis(0).id.label()} * 64 + 64, 64)"


def test_the_rewrite_records_the_wheres_a_block_may_need() -> None:
    fusion = attention.fusion_of(1, 1, 40, 72, 32, causal=True)        # 72 keys: the last block of 32 partial
    (r,) = online_softmax(fusion, 32)
    assert r.valid_where is r.scores and r.causal_where is not None
    assert r.causal_where in r.scores.ancestors()
    fusion = attention.fusion_of(1, 1, 40, 64, 32)                      # no mask at all
    (r,) = online_softmax(fusion, 32)
    assert r.valid_where is None and r.causal_where is None


def test_mask_only_where_needed_refuses_scores_with_no_mask() -> None:
    from fusion_ir.online_softmax import mask_only_where_needed

    fusion = attention.fusion_of(1, 1, 128, 128, 64)
    (r,) = online_softmax(fusion, 64)
    s = r.scores
    s.split(3, 64)
    s.reorder({3: 0, 0: 3})
    s.axis(0).parallelize(ParallelType.BIDx)
    with pytest.raises(ScheduleError, match=rf"mask_only_where_needed: T{s.name} axis 3: the scores T{s.name} have "
                                            rf"no mask to leave out"):
        mask_only_where_needed(r, s, 3, 0)
    with pytest.raises(ScheduleError, match=r"axis 1 \(.*\) is not the key-block axis nb"):
        mask_only_where_needed(r, s, 1, 0)
