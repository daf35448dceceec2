"""The online-softmax rewrite (``fusion_ir.online_softmax``): which matmuls it takes, the blocked fusion it
leaves, and that the rewritten fusion computes the same attention (numpy reference, float64)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, PadOp, RescaledSumOp, ScanOp, ScheduleError, ops
from fusion_ir.exprs import MmaOp, ReductionOp
from fusion_ir.online_softmax import find_softmax_matmuls, online_softmax
from fusion_ir.reference import evaluate, round_bf16


def attention(shape: tuple[int, int, int, int, int], causal: bool = False, symbolic: bool | str = False,
              scores_out: bool = False) -> Fusion:
    """``cast(softmax(q k^T / sqrt(D)) @ v)`` as a user writes it; causal is top-left aligned (j <= i).
    ``symbolic``: every extent but the head dim symbolic; ``"all"``: the head dim too."""
    b, h, sq, skv, d = shape
    fusion = Fusion()
    with fusion:
        if symbolic:
            q, k, v = (fusion.add_input(ndim=4, dtype=DataType.BFloat16) if symbolic == "all" else
                       fusion.add_input(shape=(-1, -1, -1, d), dtype=DataType.BFloat16) for _ in range(3))
        else:
            q = fusion.add_input(shape=(b, h, sq, d), dtype=DataType.BFloat16)
            k = fusion.add_input(shape=(b, h, skv, d), dtype=DataType.BFloat16)
            v = fusion.add_input(shape=(b, h, skv, d), dtype=DataType.BFloat16)
        s = ops.mul(ops.matmul(q, ops.transpose(k, -2, -1)), 1 / math.sqrt(d))
        if causal:
            i = ops.broadcast(ops.iota(q.size(2)), [True, True, False, True])
            j = ops.broadcast(ops.iota(k.size(2)), [True, True, True, False])
            s = ops.where(ops.le(j, i), s, float("-inf"))
        last = [False, False, False, True]
        e = ops.exp(ops.sub(s, ops.broadcast(ops.max(s, -1), last)))
        p = ops.div(e, ops.broadcast(ops.sum(e, -1), last))
        fusion.add_output(ops.cast(ops.matmul(ops.cast(p, DataType.BFloat16), v), DataType.BFloat16))
        if scores_out:
            fusion.add_output(s)
    return fusion


def numpy_attention(q, k, v, causal):
    s = q.astype(np.float64) @ np.swapaxes(k, -1, -2) / math.sqrt(q.shape[-1])
    if causal:
        sq, skv = s.shape[-2:]
        s = np.where(np.arange(skv)[None, :] <= np.arange(sq)[:, None], s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    return (p / p.sum(-1, keepdims=True)) @ v


def inputs(shape, seed):
    b, h, sq, skv, d = shape
    rng = np.random.default_rng(seed)
    return [round_bf16(rng.standard_normal(s)) for s in ((b, h, sq, d), (b, h, skv, d), (b, h, skv, d))]


CASES = [((1, 2, 20, 24, 16), 8), ((2, 1, 17, 37, 8), 16), ((1, 1, 9, 40, 8), 64), ((1, 2, 64, 128, 16), 32)]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("symbolic", [False, True, "all"])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape, block", CASES)
def test_rewritten_fusion_computes_the_same_attention(shape, block, causal, symbolic, seed) -> None:
    fusion = attention(shape, causal, symbolic)
    x = inputs(shape, seed)
    (before,) = evaluate(fusion, x)
    (record,) = online_softmax(fusion, block)
    (after,) = evaluate(fusion, x)
    want = numpy_attention(*x, causal)
    assert np.abs(before - want).max() <= 1e-12 * np.abs(want).max()
    assert np.abs(after - want).max() <= 1e-12 * np.abs(want).max()
    assert record.block == block


def test_the_rewrite_leaves_blocked_softmax_state_and_the_division_after_the_matmul() -> None:
    fusion = attention((1, 2, 20, 24, 16))
    (r,) = online_softmax(fusion, 8)
    kinds = [type(e).__name__ for e in fusion.exprs]
    assert kinds.count("MmaOp") == 2 and kinds.count("ScanOp") == 1 and kinds.count("RescaledSumOp") == 2
    assert [i.extent.const_value() for i in r.scores.shape_ids] == [3, 1, 2, 20, 8]   # [nb, B, H, Sq, block]
    assert [i.extent.const_value() for i in r.values.shape_ids] == [3, 1, 2, 8, 16]   # [nb, B, H, block, D]
    scan = r.prev_max.definition
    assert isinstance(scan, ScanOp) and scan.op == "max" and scan.exclusive and scan.axis == 0
    assert isinstance(r.row_sum.definition, RescaledSumOp) and r.row_sum.definition.inputs == [r.block_sum, r.alpha]
    assert isinstance(r.out_sum.definition, RescaledSumOp) and r.out_sum.definition.inputs[0] is r.block_out
    assert isinstance(r.block_out.definition, MmaOp) and r.block_out.definition.inputs == [r.probs, r.values]
    assert isinstance(r.score_matmul.definition, MmaOp)
    (out,) = fusion.outputs
    assert out.definition.inputs[0] is r.out                          # cast(o / l): the division comes last
    assert r.out.definition.op == "div" and r.out.definition.inputs[0] is r.out_sum
    # no reduction over the whole key axis is left: the row max and sum are per block
    rows = [e for e in fusion.exprs if isinstance(e, ReductionOp)]
    assert {e.output for e in rows} == {r.block_max, r.block_sum}
    assert not any(isinstance(e, PadOp) for e in fusion.exprs)       # 24 keys are 3 whole blocks
    assert r.scores.definition.op == "mul"                            # ... so no mask past the last key


def test_keys_past_the_last_block_are_padded_and_masked() -> None:
    fusion = attention((1, 1, 9, 40, 8))
    (r,) = online_softmax(fusion, 16)
    pads = [e for e in fusion.exprs if isinstance(e, PadOp)]
    assert len(pads) == 2                                              # k and v, to 48 keys
    assert r.scores.definition.op_string() == "where"
    assert [i.extent.const_value() for i in r.scores.shape_ids] == [3, 1, 1, 9, 16]


def test_a_matmul_that_reads_no_softmax_is_left_alone_with_a_reason() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(8, 16), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(16, 8), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    found, reasons = find_softmax_matmuls(fusion)
    assert not found and "is not a softmax's e / sum(e)" in reasons[0]
    assert online_softmax(fusion, 8) == [] and sum(isinstance(e, MmaOp) for e in fusion.exprs) == 1


def test_scores_that_are_also_an_output_are_not_rewritten() -> None:
    fusion = attention((1, 1, 8, 16, 8), scores_out=True)
    found, reasons = find_softmax_matmuls(fusion)
    assert not found and any("are read by more than the softmax (or are an output)" in r for r in reasons)


def test_a_softmax_over_the_query_axis_is_not_an_online_softmax() -> None:
    fusion = Fusion()
    with fusion:
        s = fusion.add_input(shape=(8, 16), dtype=DataType.Float)
        v = fusion.add_input(shape=(16, 4), dtype=DataType.BFloat16)
        first = [True, False]
        e = ops.exp(ops.sub(s, ops.broadcast(ops.max(s, 0), first)))
        p = ops.div(e, ops.broadcast(ops.sum(e, 0), first))
        fusion.add_output(ops.matmul(ops.cast(p, DataType.BFloat16), v))
    found, reasons = find_softmax_matmuls(fusion)
    assert not found and "does not normalize" in reasons[0]


@pytest.mark.parametrize("block", [0, -8, 2.5, True])
def test_a_bad_block_is_refused(block) -> None:
    with pytest.raises(ScheduleError, match=r"online_softmax: block .* must be a positive int"):
        online_softmax(attention((1, 1, 8, 16, 8)), block)


@pytest.mark.parametrize("dtype", [DataType.BFloat16, DataType.Half])
def test_a_softmax_by_a_reciprocal_in_half_or_bf16_is_rewritten(dtype: DataType) -> None:
    """``p = e * (1 / sum(e))`` is the same softmax; fp16 operands as bf16."""
    fusion = Fusion()
    with fusion:
        q = fusion.add_input(shape=(2, 20, 16), dtype=dtype)
        k = fusion.add_input(shape=(2, 37, 16), dtype=dtype)
        v = fusion.add_input(shape=(2, 37, 16), dtype=dtype)
        s = ops.mul(ops.matmul(q, ops.transpose(k, -2, -1)), 0.25)
        last = [False, False, True]
        e = ops.exp(ops.sub(s, ops.broadcast(ops.max(s, -1), last)))
        p = ops.mul(e, ops.broadcast(ops.div(1.0, ops.sum(e, -1)), last))
        fusion.add_output(ops.cast(ops.matmul(ops.cast(p, dtype), v), dtype))
    rng = np.random.default_rng(7)
    x = [rng.standard_normal(s).astype(np.float32) for s in ((2, 20, 16), (2, 37, 16), (2, 37, 16))]
    (before,) = evaluate(fusion, x)
    (record,) = online_softmax(fusion, 16)
    (after,) = evaluate(fusion, x)
    assert np.abs(after - before).max() <= 1e-12 * np.abs(before).max()
    assert record.probs.dtype is dtype and record.values.dtype is dtype
