"""The attention scheduler: what it takes, its parameters and rules, and the loop structure it gives the
rewritten fusion (one serial loop over key blocks shared by the running max, the row sum and the output)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.reference import evaluate, round_bf16
from fusion_ir.schedulers import AttentionParams, schedule, schedule_attention, suggest_attention_params
from fusion_ir.schedulers.registry import decline_reasons
from runtime import simulate

from .test_online_softmax import attention


def test_schedule_dispatches_attention_to_its_scheduler() -> None:
    fusion = attention((1, 2, 20, 24, 16))
    reasons = decline_reasons(fusion)
    assert reasons["attention"] is None and "2 matmuls" in reasons["matmul"]
    params = schedule(fusion)
    assert isinstance(params, AttentionParams) and fusion.scheduler_choice is params
    assert params.why["block_q"] and params.why["block_kv"]


def test_a_plain_matmul_is_declined_with_the_reason() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(64, 64), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(64, 64), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    reason = decline_reasons(fusion)["attention"]
    assert "one matmul of a row softmax over its contraction axis; the fusion has 0" in reason


def test_a_symbolic_head_dim_is_declined() -> None:
    reason = decline_reasons(attention((1, 1, 8, 16, 8), symbolic="all"))["attention"]
    assert "is symbolic; a thread holds a row of the output in registers" in reason


def test_two_outputs_are_declined() -> None:
    fusion = attention((1, 1, 8, 16, 8))
    with fusion:
        fusion.add_output(ops.mul(fusion.inputs[0], 2.0))
    assert "it takes one output" in decline_reasons(fusion)["attention"]


@pytest.mark.parametrize("rows, block_q", [(200, 64), (20, 32), (40, 64), (1, 32)])
def test_block_q_follows_the_query_rows(rows: int, block_q: int) -> None:
    assert suggest_attention_params(attention((1, 1, rows, 16, 8))).block_q == block_q


def test_symbolic_sizes_take_the_rows_from_sizes() -> None:
    fusion = attention((1, 1, 8, 16, 8), symbolic=True)
    shapes = [(2, 3, 20, 8), (2, 3, 16, 8), (2, 3, 16, 8)]
    assert suggest_attention_params(fusion, shapes).block_q == 32
    assert suggest_attention_params(fusion).block_q == 64


@pytest.mark.parametrize("field, value, message", [
    ("block_q", 0, "AttentionParams.block_q: 0 must be a positive int"),
    ("block_kv", 2.0, "AttentionParams.block_kv: 2.0 must be a positive int"),
    ("block_q", 2048, "2048 query rows are 2048 threads of one block, more than the target's 1024"),
    ("block_kv", 512, "AttentionParams.block_kv: 512 keys per block; .* at most 256 of them"),
])
def test_bad_params_are_refused(field: str, value: object, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        schedule_attention(attention((1, 1, 8, 16, 8)), AttentionParams(**{field: value}))


def test_an_already_scheduled_fusion_is_refused() -> None:
    fusion = attention((1, 1, 8, 16, 8))
    fusion.outputs[0].split(2, 4)
    with pytest.raises(ScheduleError, match="already scheduled"):
        schedule_attention(fusion)


def test_the_key_blocks_are_one_serial_loop_inside_the_query_rows() -> None:
    fusion = attention((2, 2, 40, 72, 16), causal=True)
    schedule_attention(fusion, AttentionParams(block_q=32, block_kv=16))
    (out,) = fusion.outputs
    assert [i.parallel_type for i in out.loop[:3]] == [ParallelType.BIDy, ParallelType.BIDx, ParallelType.TIDx]
    sums = [e.output for e in fusion.exprs if type(e).__name__ == "RescaledSumOp"]
    scans = [e.output for e in fusion.exprs if type(e).__name__ == "ScanOp"]
    assert len(sums) == 2 and len(scans) == 1
    for tv in sums:                           # [batch, Sq blocks, rows, r key blocks, ...] at the rows
        assert tv.loop[3].is_reduction and tv.loop[3].extent.const_value() == 5 and tv.compute_at_pos == 3
    (scan,) = scans
    assert scan.loop[3].extent.const_value() == 5 and scan.compute_at_pos == 4   # inside the key-block loop



def test_a_computed_operand_of_the_scores_is_blocked_and_computed_where_it_is_read() -> None:
    """A bias computed by a reduction (``sum(b, -1)``) is a leaf of the blocking: padded, reshaped and permuted after
    it; the views are computed inside their reader and the kernel matches numpy."""
    sq, skv, d = 20, 37, 8
    fusion = Fusion()
    with fusion:
        q = fusion.add_input(shape=(sq, d), dtype=DataType.BFloat16)
        k = fusion.add_input(shape=(skv, d), dtype=DataType.BFloat16)
        v = fusion.add_input(shape=(skv, d), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(sq, skv, 2), dtype=DataType.Float)
        s = ops.add(ops.mul(ops.matmul(q, ops.transpose(k, 0, 1)), 1 / math.sqrt(d)), ops.sum(b, -1))
        e = ops.exp(ops.sub(s, ops.broadcast(ops.max(s, -1), [False, True])))
        p = ops.div(e, ops.broadcast(ops.sum(e, -1), [False, True]))
        fusion.add_output(ops.cast(ops.matmul(ops.cast(p, DataType.BFloat16), v), DataType.BFloat16))
    rng = np.random.default_rng(4)
    x = [round_bf16(rng.standard_normal(s)) for s in ((sq, d), (skv, d), (skv, d))]
    x.append(rng.standard_normal((sq, skv, 2)).astype(np.float32))
    (want,) = evaluate(fusion, x)
    schedule_attention(fusion, AttentionParams(block_q=32, block_kv=16))
    pads = [e.output for e in fusion.exprs if type(e).__name__ == "PadOp"]
    assert any(p.definition.inputs[0].definition is not None for p in pads)      # the pad of sum(b, -1)
    assert all(p.compute_at_pos > 0 for p in pads)
    (out,) = simulate(fusion, x)
    assert np.abs(out - want).max() <= 2e-2 * np.abs(want).max()
