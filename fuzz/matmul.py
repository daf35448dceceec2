"""Fuzzing the matmul scheduler: hypothesis strategies for ``MatmulParams`` and problem shapes, and
the property every draw must satisfy.

``matmul_cases()`` draws a ``MatmulCase``: parameters that satisfy every rule (tiles of 64-256 rows
over 1-3 warp groups, N from 16 to 256, K 16-64, 2-5 stages; Pipelined, warp-specialized, persistent,
ping-pong, with a TMA-store epilogue) or, one draw in three, break one rule
(a tile, the stages, the warp groups, the register budget, a flag not available yet), an operand dtype, an optional fused epilogue, and a
small problem (M, N, K up to 200; N and K multiples of 8 because TMA needs 16-byte row strides).
``check_matmul_case`` states the property: parameters that ``MatmulParams.validate`` refuses make
``schedule_matmul`` raise ``ScheduleError`` and leave the fusion unchanged; the others lower and
match numpy in the simulator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.reference import evaluate
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from runtime.inputs import random_inputs
from target import DEFAULT_TARGET

MAX_EXTENT = 200
SMEM_PER_BLOCK = DEFAULT_TARGET.smem_per_block


@dataclass(frozen=True)
class MatmulCase:
    params: MatmulParams
    dtype: DataType
    epilogue: bool
    m: int
    n: int
    k: int
    seed: int

    @property
    def valid(self) -> bool:
        try:
            self.params.validate(self.dtype)
        except ScheduleError:
            return False
        return True

    def fusion(self) -> Fusion:
        fusion = Fusion()
        with fusion:
            a = fusion.add_input(ndim=2, dtype=self.dtype)
            b = fusion.add_input(ndim=2, dtype=self.dtype)
            c = ops.matmul(a, b)
            if self.epilogue:
                bias = fusion.add_input(ndim=1, dtype=DataType.Float)
                c = ops.relu(ops.add(c, ops.broadcast(bias, [True, False])))
            if self.params.tma_store:
                c = ops.cast(c, self.dtype)          # stmatrix stores 16-bit elements
            fusion.add_output(c)
        return fusion

    def shapes(self) -> list[tuple[int, ...]]:
        shapes: list[tuple[int, ...]] = [(self.m, self.k), (self.k, self.n)]
        return shapes + [(self.n,)] if self.epilogue else shapes


VALID_N = (16, 32, 64, 128, 192, 256)
INVALID_TILES = ((96, 64, 64), (128, 264, 64), (128, 100, 64), (128, 136, 64), (128, 64, 24), (128, 64, 128),
                 (64, 8, 64))


@st.composite
def matmul_params(draw: st.DrawFn) -> MatmulParams:
    """Mostly valid parameters (built to satisfy every rule), else one rule broken."""
    groups = draw(st.sampled_from([1, 2, 3]))
    tm = 64 * groups * draw(st.sampled_from([1, 2]))
    tn = draw(st.sampled_from([n for n in VALID_N if tm * n // (128 * groups) <= 128]))
    tk = draw(st.sampled_from([16, 32, 64]))
    stages = draw(st.integers(min_value=2, max_value=5))
    mode = draw(st.sampled_from([{}, {}, {"warp_specialized": True},
                                 {"persistent": True, "blocks": draw(st.integers(1, 5)), "group_m": draw(st.integers(1, 3))},
                                 {"warp_specialized": True, "persistent": True, "blocks": draw(st.integers(1, 5))}]))
    if groups >= 2 and draw(st.integers(0, 3)) == 0:     # ping-pong: each warp group owns whole tiles
        tm = 64 * draw(st.sampled_from([1, 2]))
        tn = draw(st.sampled_from([n for n in VALID_N if tm * n // 128 <= 128]))
        mode = {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": draw(st.integers(1, 5)),
                "group_m": draw(st.integers(1, 3))}
    if draw(st.booleans()) and tn % 64 == 0:
        mode = {**mode, "tma_store": True,       # the case draws a bf16/fp16 output for it
                "store_wait": draw(st.sampled_from(["after_boxes", "deferred"]))}
    params = MatmulParams(tile=(tm, tn, tk), stages=stages, compute_warp_groups=groups, **mode)
    if params.smem_bytes(DataType.BFloat16) > SMEM_PER_BLOCK:
        params = MatmulParams(tile=(tm, tn, tk), stages=2, compute_warp_groups=groups, **mode)
    broken = draw(st.sampled_from([None] * 6 + ["tile", "stages", "groups", "regs", "flag", "wait"]))
    if broken == "tile":
        return MatmulParams(tile=draw(st.sampled_from(INVALID_TILES)), stages=2, compute_warp_groups=1)
    if broken == "stages":
        return MatmulParams(tile=(tm, tn, tk), stages=draw(st.sampled_from([0, 1, 9])), compute_warp_groups=groups)
    if broken == "groups":
        return MatmulParams(tile=(64, tn, tk), stages=2, compute_warp_groups=draw(st.sampled_from([0, 2])))
    if broken == "regs":
        return MatmulParams(tile=(256, 256, 64), stages=2, compute_warp_groups=1)
    if broken == "wait":                         # deferred without a TMA store, or no such wait
        return MatmulParams(tile=(tm, tn, tk), stages=2, compute_warp_groups=groups,
                            store_wait=draw(st.sampled_from(["deferred", "never"])))
    if broken == "flag":
        flag = draw(st.sampled_from(["warp_specialized", "persistent", "ping_pong"]))
        return MatmulParams(tile=(tm, tn, tk), stages=stages, compute_warp_groups=groups, **{flag: True})
    return params


@st.composite
def matmul_cases(draw: st.DrawFn) -> MatmulCase:
    params = draw(matmul_params())
    dtype = draw(st.sampled_from([DataType.BFloat16, DataType.BFloat16, DataType.Half]))
    m = draw(st.integers(min_value=1, max_value=MAX_EXTENT))
    n = 8 * draw(st.integers(min_value=1, max_value=MAX_EXTENT // 8))
    k = 8 * draw(st.integers(min_value=1, max_value=MAX_EXTENT // 8))
    return MatmulCase(params, dtype, draw(st.booleans()), m, n, k, draw(st.integers(0, 2**16)))


def check_matmul_case(case: MatmulCase, *, simulate: bool = True) -> str:
    """The property; returns "refused" or "matched" (raises AssertionError otherwise)."""
    from lowering import lower
    from runtime import simulate as run

    fusion = case.fusion()
    if not case.valid:
        before = str(fusion)
        try:
            schedule_matmul(fusion, case.params)
        except ScheduleError:
            assert str(fusion) == before, "schedule_matmul raised ScheduleError but changed the fusion"
            return "refused"
        raise AssertionError(f"{case.params} is invalid for {case.dtype.short_name} but schedule_matmul accepted it")
    schedule_matmul(fusion, case.params)
    kernel = lower(fusion)
    if not simulate:
        return "lowered"
    inputs = random_inputs(fusion, case.shapes(), seed=case.seed)
    (out,) = run(kernel, inputs, seed=case.seed)
    (expected,) = evaluate(fusion, inputs)
    err = np.linalg.norm(np.asarray(out, np.float64) - expected) / max(np.linalg.norm(expected), 1e-30)
    tol = 1e-2 if case.params.tma_store else 1e-5      # a 16-bit result
    assert not np.isnan(out).any() and err < tol, f"{case}: relative error {err:.3e}"
    return "matched"
