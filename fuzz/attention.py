"""Fuzzing attention fusions: the online-softmax rewrite and the attention scheduler against numpy.

``attention_cases()`` draws an ``AttentionCase``: batch and heads (1-2, or no batch axes at all), query and key
lengths (1-90, any, so the last key block is usually partial), a head dim (8, 16, 32), a scale, an optional
causal mask (torch's top-left ``iota``/``le``/``where``) and an optional additive bias input ``[Sq, Skv]`` broadcast
over batch and heads (an input the rewrite blocks as it blocks k), symbolic or constant extents, and
bf16 or fp16 operands, the softmax normalized by a division or a reciprocal, ``AttentionParams`` (``block_q`` 32 or 64, ``block_kv`` 1-64) or, one draw in five, a ``block_q`` or ``block_kv`` the
params refuse. ``check_attention_case`` states the property: the rewrite alone leaves the float64 reference
unchanged; refused params raise ``ScheduleError`` and leave the fusion as it was; the others lower and the kernel
matches the reference in the simulator within bf16's rounding of the probabilities.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.online_softmax import online_softmax
from fusion_ir.reference import evaluate, round_bf16
from fusion_ir.schedulers import AttentionParams, schedule_attention
from lowering import lower
from runtime import simulate as run

MAX_SEQ = 90
TOLERANCE = 2e-2      # p is rounded to bf16 before the second matmul


@dataclass(frozen=True)
class AttentionCase:
    batch: tuple[int, ...]      # leading axes: (), (B,) or (B, H)
    seq_q: int
    seq_kv: int
    head_dim: int
    scale: float
    causal: bool
    bias: bool
    symbolic: bool
    params: AttentionParams
    seed: int
    dtype: DataType = DataType.BFloat16
    reciprocal: bool = False      # p = e * (1 / sum(e)) instead of e / sum(e)

    def shapes(self) -> list[tuple[int, ...]]:
        q = (*self.batch, self.seq_q, self.head_dim)
        kv = (*self.batch, self.seq_kv, self.head_dim)
        return [q, kv, kv] + ([(self.seq_q, self.seq_kv)] if self.bias else [])

    def valid(self) -> bool:
        return 1 <= self.params.block_q <= 1024 and 1 <= self.params.block_kv <= 256

    def fusion(self) -> Fusion:
        rank = len(self.batch) + 2
        fusion = Fusion()
        with fusion:
            q, k, v = (fusion.add_input(shape=tuple(-1 if self.symbolic else n for n in s[:-1]) + (s[-1],),
                                        dtype=self.dtype) for s in self.shapes()[:3])
            s = ops.mul(ops.matmul(q, ops.transpose(k, -2, -1)), self.scale)
            lead = [True] * (rank - 2)
            if self.bias:
                b = fusion.add_input(shape=(-1, -1) if self.symbolic else (self.seq_q, self.seq_kv),
                                     dtype=DataType.Float)
                s = ops.add(s, ops.broadcast(b, lead + [False, False]))
            if self.causal:
                i = ops.broadcast(ops.iota(q.size(rank - 2)), lead + [False, True])
                j = ops.broadcast(ops.iota(k.size(rank - 2)), lead + [True, False])
                s = ops.where(ops.le(j, i), s, float("-inf"))
            last = [False] * (rank - 1) + [True]
            e = ops.exp(ops.sub(s, ops.broadcast(ops.max(s, -1), last)))
            if self.reciprocal:
                p = ops.mul(e, ops.broadcast(ops.div(1.0, ops.sum(e, -1)), last))
            else:
                p = ops.div(e, ops.broadcast(ops.sum(e, -1), last))
            fusion.add_output(ops.cast(ops.matmul(ops.cast(p, self.dtype), v), self.dtype))
        return fusion

    def inputs(self) -> list[np.ndarray]:
        rng = np.random.default_rng(self.seed)
        return [_operand(self.dtype, rng.standard_normal(s)) if k < 3 else rng.standard_normal(s).astype(np.float32)
                for k, s in enumerate(self.shapes())]


def _operand(dtype: DataType, x: np.ndarray) -> np.ndarray:
    """Values ``dtype`` holds exactly: bf16-rounded float32, or float16."""
    return round_bf16(x) if dtype is DataType.BFloat16 else x.astype(np.float16)


@st.composite
def attention_cases(draw: st.DrawFn) -> AttentionCase:
    batch = draw(st.sampled_from([(), (2,), (1, 2), (2, 1)]))
    head_dim = draw(st.sampled_from([8, 16, 32]))
    if draw(st.integers(0, 4)) == 0:
        params = draw(st.sampled_from([AttentionParams(block_q=0), AttentionParams(block_kv=0),
                                       AttentionParams(block_q=2048), AttentionParams(block_kv=512)]))
    else:
        params = AttentionParams(block_q=draw(st.sampled_from([32, 64])), block_kv=draw(st.integers(1, 64)))
    return AttentionCase(batch, draw(st.integers(1, MAX_SEQ)), draw(st.integers(1, MAX_SEQ)), head_dim,
                         draw(st.sampled_from([1 / math.sqrt(head_dim), 0.5, 1.0])), draw(st.booleans()),
                         draw(st.booleans()), draw(st.booleans()), params, draw(st.integers(0, 2**16)),
                         draw(st.sampled_from([DataType.BFloat16, DataType.Half])), draw(st.booleans()))


def check_attention_case(case: AttentionCase, simulate: bool = True) -> str:
    """``"refused"``, ``"lowered"`` (``simulate=False``) or ``"matched"``; an ``AssertionError`` otherwise."""
    x = case.inputs()
    fusion = case.fusion()
    (want,) = evaluate(fusion, x)
    rewritten = case.fusion()
    (record,) = online_softmax(rewritten, max(case.params.block_kv, 1))
    (again,) = evaluate(rewritten, x)
    scale = max(float(np.abs(want).max()), 1e-30)
    assert np.abs(again - want).max() <= 1e-9 * scale, "the online-softmax rewrite changed the result"
    before = str(fusion)
    if not case.valid():
        try:
            schedule_attention(fusion, case.params)
        except ScheduleError:
            assert str(fusion) == before, "a refused schedule changed the fusion"
            return "refused"
        raise AssertionError(f"{case.params} were accepted")
    schedule_attention(fusion, case.params)
    kernel = lower(fusion, sizes=case.shapes())
    if not simulate:
        return "lowered"
    (out,) = run(kernel, x)
    err = float(np.abs(np.asarray(out, dtype=np.float64) - want).max()) / scale
    assert err <= TOLERANCE, f"relative error {err:.3g} against the reference"
    return "matched"
