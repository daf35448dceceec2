"""Fuzzing the matmul scheduler: hypothesis strategies for ``MatmulParams`` and problem shapes, and
the property every draw must satisfy.

``matmul_cases()`` draws a ``MatmulCase``: parameters that satisfy every rule (tiles of 64-256 rows
over 1-3 warp groups, 192 rows on one of them too, N from 16 to 256, K 16-64, 2-5 or "auto" stages, 32- or 64-bit
indices;
Pipelined, warp-specialized, persistent, ping-pong, with a TMA-store epilogue and either store
wait; one block-per-tile draw in four on a grouped grid of 1-4 rows or columns of tiles; one draw in five with swapped
operands, ``swap_ab``, M any multiple of 16), the parameters ``suggest_matmul_params`` picks (some fields pinned), or, one draw in three,
parameters that break one rule (a tile, the stages, the warp groups, the register budget, a flag
not available yet); an operand dtype, a fused epilogue (none, bias + relu, bias + gelu,
alpha * acc + beta * C with C TMA-loaded), the operands' layouts (a given ``[M, K]`` or ``[K, M]``,
b ``[K, N]`` or ``[N, K]``, multiplied through ``ops.transpose``: A K- or M-major, B N- or K-major),
a small problem (M, N, K up to 200; the innermost extent of each input, and N, a multiple of 8 so that
TMA's 16-byte row strides hold for symbolic extents; one draw in four has constant shapes of any K, N and
M of a transposed A instead, whose rows TMA may not copy: the compute warp groups load those operands, half
of those draws with parameters of the arrangement that needs, Pipelined with 3 or more stages), and, one
draw in four, a batch of 1 to 3 leading both operands (or
A only: a 2-D B broadcast over the batch) and the C of the epilogue. ``check_matmul_case`` states the property:
parameters that ``MatmulParams.validate`` refuses make ``schedule_matmul`` raise ``ScheduleError``
and leave the fusion unchanged; the others lower and match numpy in the simulator.
``check_matmul`` is the same property in the fuzzer's terms (``Stats``, ``PropertyFailure``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from hypothesis import strategies as st

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.reference import evaluate
from fusion_ir.schedulers import MatmulLayout, MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.matmul_params import CLUSTER_SHAPES
from runtime.inputs import random_inputs
from target import DEFAULT_TARGET

MAX_EXTENT = 200
SMEM_PER_BLOCK = DEFAULT_TARGET.smem_per_block


EPILOGUES = ("none", "bias_relu", "bias_gelu", "alpha_beta")


@dataclass(frozen=True)
class MatmulCase:
    params: MatmulParams
    dtype: DataType
    epilogue: bool | str          # one of EPILOGUES (True: "bias_relu", False: "none")
    m: int
    n: int
    k: int
    seed: int
    suggested: tuple[tuple[str, object], ...] | None = None   # suggest_matmul_params with these pinned
    transpose_a: bool = False     # a is given [K, M]: the matmul reads ops.transpose(a, 0, 1), A M-major
    transpose_b: bool = False     # b is given [N, K] (nn.Linear's weight): B K-major
    batch: int | None = None      # a batch axis of this extent leads a (and b and C unless b_2d)
    b_2d: bool = False            # with a batch: b stays 2-D, broadcast over the batch
    # the inputs have these constant shapes (any row length: rows TMA cannot copy are loaded by the compute warp
    # groups) instead of symbolic extents
    fixed_shapes: bool = False

    @property
    def lead(self) -> tuple[int, ...]:
        """The batch axes leading a (and C)."""
        return () if self.batch is None else (self.batch,)

    @property
    def layout(self) -> MatmulLayout:
        return MatmulLayout(a_mn_major=self.transpose_a, b_mn_major=not self.transpose_b)

    @property
    def epilogue_kind(self) -> str:
        if isinstance(self.epilogue, bool):
            return "bias_relu" if self.epilogue else "none"
        return self.epilogue

    @property
    def valid(self) -> bool:
        if self.suggested is not None:
            return True
        from fusion_ir.schedulers.matmul_problem import matmul_problem

        problem = matmul_problem(self.fusion())
        loads = problem.loads
        # C is TMA-loaded per output tile (unless its rows TMA cannot copy: then read from global memory), a bias
        # into a shared vector
        if self.fixed_shapes and self.params.tma_store and not problem.output_rows_aligned:
            return False    # the TMA store needs 16-byte rows too (schedule_matmul refuses it)
        try:
            self.params.validate(self.dtype, problem.loaded_tiles, self.layout, loads)
            self.params.validate_split_k(problem.k_tiles(self.params.tile[2]))   # a known K: a tile for every split
        except ScheduleError:
            return False
        if self.params.cluster != (1, 1) and not problem.tma_operands:
            return False    # a cluster shares tiles through the TMA pipeline (schedule_matmul refuses it)
        return self.batch is None or self.params.split_k == 1     # a batch holds blockIdx.z: split-K refused

    def fusion(self) -> Fusion:
        from examples.matmul_epilogue import epilogue

        kind = self.epilogue_kind
        fusion = Fusion()
        rank = 2 + len(self.lead)
        b_rank = 2 if self.b_2d else rank
        shapes = iter(self.shapes()) if self.fixed_shapes else None
        with fusion:
            a = _input(fusion, rank, self.dtype, shapes)
            b = _input(fusion, b_rank, self.dtype, shapes)
            c = ops.matmul(ops.transpose(a, rank - 2, rank - 1) if self.transpose_a else a,
                           ops.transpose(b, b_rank - 2, b_rank - 1) if self.transpose_b else b)
            if kind != "none" and self.batch is not None:
                c = _batched_epilogue(kind, c, fusion, self.dtype, shapes)
            elif kind != "none":
                extra = _input(fusion, 2, self.dtype, shapes) if kind == "alpha_beta" else \
                    _input(fusion, 1, DataType.Float, shapes)
                c = epilogue(kind, c, extra)
            if self.suggested is not None or self.params.tma_store:
                c = ops.cast(c, self.dtype)          # stmatrix stores 16-bit elements
            fusion.add_output(c)
        return fusion

    def shapes(self) -> list[tuple[int, ...]]:
        lead, b_lead = self.lead, (() if self.b_2d else self.lead)
        shapes: list[tuple[int, ...]] = [lead + ((self.k, self.m) if self.transpose_a else (self.m, self.k)),
                                         b_lead + ((self.n, self.k) if self.transpose_b else (self.k, self.n))]
        kind = self.epilogue_kind
        if kind == "alpha_beta":
            return shapes + [lead + (self.m, self.n)]
        return shapes + [(self.n,)] if kind != "none" else shapes

    def schedule(self, fusion: Fusion) -> MatmulParams:
        """Schedule ``fusion`` with the case's parameters (or the suggested ones); returns them."""
        params = self.params
        if self.suggested is not None:
            params = suggest_matmul_params(fusion, **dict(self.suggested))
        schedule_matmul(fusion, params)
        return params

    def to_script(self, title: str) -> str:
        """A runnable script that rebuilds, schedules, lowers and simulates this case."""
        return (f'"""{title}\n\nRun from the repository root: python3 THIS_FILE.py\n"""\n'
                "from fusion_ir import DataType\n"
                "from fusion_ir.schedulers import MatmulParams\n"
                "from fuzz.matmul import MatmulCase, check_matmul_case\n\n"
                f"case = {_code(self)}\n"
                "print(check_matmul_case(case))\n")


def _input(fusion: Fusion, rank: int, dtype: DataType, shapes: Any) -> Any:
    """The next input: of the next of ``shapes`` (constant extents), or of symbolic extents when None."""
    if shapes is None:
        return fusion.add_input(ndim=rank, dtype=dtype)
    return fusion.add_input(shape=next(shapes), dtype=dtype)


def _batched_epilogue(kind: str, acc: Any, fusion: Fusion, dtype: DataType, shapes: Any = None) -> Any:
    """``examples.matmul_epilogue.epilogue`` over a ``[B, M, N]`` accumulator: C is ``[B, M, N]``, the bias
    ``[N]`` broadcast over the batch and the rows."""
    if kind == "alpha_beta":
        c = _input(fusion, 3, dtype, shapes)
        return ops.add(ops.mul(acc, 2.0), ops.mul(ops.cast(c, DataType.Float), 0.5))
    bias = ops.broadcast(_input(fusion, 1, DataType.Float, shapes), [True, True, False])
    biased = ops.add(acc, bias)
    return ops.relu(biased) if kind == "bias_relu" else ops.gelu(biased)


def _code(value: object) -> str:
    """Python source for a case, its parameters and their values."""
    from dataclasses import fields, is_dataclass

    from fuzz.case import code

    if is_dataclass(value) and not isinstance(value, type):
        args = ", ".join(f"{f.name}={_code(getattr(value, f.name))}" for f in fields(value))
        return f"{type(value).__name__}({args})"
    if isinstance(value, tuple):
        inner = ", ".join(_code(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    return code(value)


VALID_N = (16, 32, 64, 128, 192, 256)
INVALID_TILES = ((96, 64, 64), (128, 264, 64), (128, 100, 64), (128, 136, 64), (128, 64, 24), (128, 64, 128),
                 (64, 8, 64))


@st.composite
def matmul_params(draw: st.DrawFn) -> MatmulParams:
    """Mostly valid parameters (built to satisfy every rule), else one rule broken."""
    groups = draw(st.sampled_from([1, 2, 3]))
    # one warp group may also take three 64-row wgmma tiles (192 rows: the rules' tile spanning a skinny M)
    tm = 64 * groups * draw(st.sampled_from([1, 2, 3] if groups == 1 else [1, 2]))
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
        if draw(st.booleans()):                  # a sub-tiled epilogue: a ring of staging tiles
            en = draw(st.sampled_from([16, 32, 64]))
            mode = {**mode, "store_wait": "after_boxes", "epilogue_tile": (tm, en),
                    "epilogue_stages": draw(st.integers(1, min(3, tn // en)))}
    if draw(st.booleans()):
        mode = {**mode, "index_type": DataType.Int32}
    params = MatmulParams(tile=(tm, tn, tk), stages=stages, compute_warp_groups=groups, **mode)
    if params.smem_bytes(DataType.BFloat16) > SMEM_PER_BLOCK:
        params = MatmulParams(tile=(tm, tn, tk), stages=2, compute_warp_groups=groups, **mode)
    if draw(st.integers(0, 4)) == 0:     # the deepest pipeline that fits, picked at lowering
        params = MatmulParams(tile=(tm, tn, tk), stages="auto", compute_warp_groups=groups, **mode)
    broken = draw(st.sampled_from([None] * 6 + ["tile", "stages", "groups", "regs", "flag", "wait", "sub_tile"]))
    if broken == "sub_tile":                     # rows other than the tile's, columns not 16/32/64 or not dividing N,
        # without a TMA store, or a ring deeper than the sub-tiles
        bad = draw(st.sampled_from([((tm // 2 or 1, 32), True, 1), ((tm, 48), True, 1), ((tm, 32), False, 1),
                                    ((tm, 64), True, 9)]))
        return MatmulParams(tile=(tm, 128, tk), stages=2, compute_warp_groups=groups, tma_store=bad[1],
                            epilogue_tile=bad[0], epilogue_stages=bad[2])
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
    if draw(st.integers(0, 4)) == 0:             # swapped operands: the wgmma's rows along N, its N along M
        params = _swapped(draw, params)
    if not params.persistent and draw(st.integers(0, 3)) == 0:   # split-K: the sizes are symbolic, so a split may get
        # no K tile at all (TMA reads zeros past K: its partial is 0)
        params = replace(params, split_k=draw(st.integers(2, 4)))
    if not params.persistent and draw(st.integers(0, 3)) == 0:   # a grouped grid, its last group padded or not
        params = replace(params, grouped_grid=True, group_m=draw(st.integers(1, 4)),
                         raster=draw(st.sampled_from(["m", "n"])))
    if (not params.persistent and params.split_k == 1 and not params.grouped_grid
            and draw(st.integers(0, 2)) == 0):   # a cluster along one axis or both: the grid padded to whole clusters
        params = replace(params, cluster=draw(st.sampled_from(CLUSTER_SHAPES)))
    return params


def _swapped(draw: st.DrawFn, params: MatmulParams) -> MatmulParams:
    """``params`` with ``swap_ab``: 64 or 128 rows of N per sharing warp group, M a multiple of 16 up to 256 (at most
    128 accumulators a thread), a sub-tiled epilogue's sub-tile some of M's rows and all of N."""
    sharers = params.tile_sharers()
    rows = 64 * sharers * draw(st.sampled_from([1, 2]))
    tm = 16 * draw(st.integers(1, 16))
    while tm > 16 and tm * rows // (128 * sharers) > 128:
        tm -= 16
    fields: dict[str, Any] = {"tile": (tm, rows, params.tile[2]), "swap_ab": True}
    if params.epilogue_tile is not None:
        em = draw(st.sampled_from([e for e in range(16, tm + 1, 16) if tm % e == 0]))
        fields.update(epilogue_tile=(em, rows), epilogue_stages=min(params.epilogue_stages, tm // em),
                      store_wait=draw(st.sampled_from(["after_boxes", "carried"])))
    swapped = replace(params, **fields)
    if swapped.smem_bytes(DataType.BFloat16) > SMEM_PER_BLOCK and isinstance(swapped.stages, int):
        swapped = replace(swapped, stages=2)
    return swapped


@st.composite
def matmul_cases(draw: st.DrawFn) -> MatmulCase:
    params = draw(matmul_params())
    dtype = draw(st.sampled_from([DataType.BFloat16, DataType.BFloat16, DataType.Half]))
    m = draw(st.integers(min_value=1, max_value=MAX_EXTENT))
    n = 8 * draw(st.integers(min_value=1, max_value=MAX_EXTENT // 8))
    k = 8 * draw(st.integers(min_value=1, max_value=MAX_EXTENT // 8))
    epilogue = draw(st.sampled_from(EPILOGUES))
    transpose_a, transpose_b = draw(st.booleans()), draw(st.booleans())
    if transpose_a:                        # a [K, M]: its rows hold M
        m = 8 * draw(st.integers(min_value=1, max_value=MAX_EXTENT // 8))
    suggested = None
    if draw(st.integers(0, 4)) == 0:       # the suggested parameters, some fields pinned small for the simulator
        pinned: dict[str, object] = {"blocks": draw(st.integers(1, 3))}
        if draw(st.booleans()):
            pinned["index_type"] = DataType.Int32
        if draw(st.booleans()):
            pinned["tile"] = draw(st.sampled_from([(64, 64, 64), (128, 64, 64), (64, 128, 64)]))
        suggested = tuple(sorted(pinned.items()))
    seed = draw(st.integers(0, 2**16))
    batch, b_2d = None, False
    if draw(st.integers(0, 3)) == 0:       # batched: [B, M, K] @ [B, K, N] or @ [K, N]
        batch, b_2d = draw(st.integers(1, 3)), draw(st.booleans())
    fixed = draw(st.integers(0, 3)) == 0   # constant shapes of any row length: K, N (and M of a [K, M]) odd or not
    if fixed:
        k = draw(st.integers(min_value=1, max_value=MAX_EXTENT))
        n = draw(st.integers(min_value=1, max_value=MAX_EXTENT))
        if transpose_a:
            m = draw(st.integers(min_value=1, max_value=MAX_EXTENT))
        if draw(st.booleans()) and suggested is None:
            # the arrangement compute-loaded operands need: Pipelined, one tile per block, 3 or more stages
            tm, tn, tk = params.tile
            params = MatmulParams(tile=params.tile, stages=max(3, params.stages) if isinstance(params.stages, int)
                                  else 3, compute_warp_groups=params.compute_warp_groups,
                                  tma_store=params.tma_store, index_type=params.index_type)
            if params.smem_bytes(DataType.BFloat16) > SMEM_PER_BLOCK:
                params = MatmulParams(tile=(tm, tn, tk), stages=3, compute_warp_groups=params.compute_warp_groups)
    return MatmulCase(params, dtype, epilogue, m, n, k, seed, suggested, transpose_a, transpose_b, batch, b_2d,
                      fixed)


def check_matmul_case(case: MatmulCase, *, simulate: bool = True) -> str:
    """The property; returns "refused" or "matched" (raises AssertionError otherwise)."""
    from lowering import lower
    from runtime import simulate as run

    fusion = case.fusion()
    if not case.valid:
        before = str(fusion)
        try:
            case.schedule(fusion)
        except ScheduleError:
            assert str(fusion) == before, "schedule_matmul raised ScheduleError but changed the fusion"
            return "refused"
        raise AssertionError(f"{case.params} is invalid for {case.dtype.short_name} but schedule_matmul accepted it")
    params = case.schedule(fusion)
    kernel = lower(fusion)
    if not simulate:
        return "lowered"
    inputs = random_inputs(fusion, case.shapes(), seed=case.seed)
    (out,) = run(kernel, inputs, seed=case.seed)
    (expected,) = evaluate(fusion, inputs)
    err = np.linalg.norm(np.asarray(out, np.float64) - expected) / max(np.linalg.norm(expected), 1e-30)
    tol = 1e-2 if case.suggested is not None or params.tma_store else 1e-5      # a 16-bit result
    assert not np.isnan(out).any() and err < tol, f"{case}: relative error {err:.3e}"
    return "matched"


def check_matmul(case: MatmulCase, stats: Any = None, *, simulate: bool = True) -> None:
    """``check_matmul_case`` for the fuzzer: counts into ``stats``, raises ``PropertyFailure``."""
    from fuzz.properties import PropertyFailure, Stats
    from runtime import InputError

    stats = stats if stats is not None else Stats()
    stats.examples += 1
    stats.templates["matmul"] += 1
    params = "suggested" if case.suggested is not None else ("ping-pong" if case.params.ping_pong else
                                                            "warp-specialized" if case.params.warp_specialized
                                                            else "pipelined")
    stats.variants[(f"matmul {params}, epilogue {case.epilogue_kind}", "valid" if case.valid else "invalid")] += 1
    stats.variants[(f"matmul {case.layout.describe()}", "valid" if case.valid else "invalid")] += 1
    if case.batch is not None:
        stats.variants[(f"matmul batched{', b 2-D' if case.b_2d else ''}", "valid" if case.valid else "invalid")] += 1
    if case.fixed_shapes:
        stats.variants[("matmul " + _row_loads(case), "valid" if case.valid else "invalid")] += 1
    try:
        outcome = check_matmul_case(case, simulate=simulate)
    except ScheduleError as e:
        if case.suggested is None:
            raise PropertyFailure("5 matmul", f"valid parameters, but schedule_matmul raised ScheduleError: {e}",
                                  case) from e
        outcome = "refused"      # the suggestion refuses a pinned field that cannot work for the problem
    except InputError as e:
        if not e.rule.is_size_rule or e.subject is None:
            raise PropertyFailure("5 matmul", f"InputError that is no size refusal ({e.rule.value}): {e}",
                                  case) from e
        outcome = f"refused: {e.rule.value}"
    except AssertionError as e:
        raise PropertyFailure("5 matmul", str(e), case) from e
    except Exception as e:  # the property
        raise PropertyFailure("5 matmul", f"{type(e).__name__}: {e}", case) from e
    stats.schedules["all calls ok" if outcome != "refused" else "some call rejected"] += 1
    if outcome in ("matched", "lowered"):
        stats.lowering["lowered"] += 1
    if outcome == "matched":
        stats.kernels_simulated += 1
        stats.runs["matched numpy (matmul)"] += 1
    elif outcome.startswith("refused:"):
        stats.runs[outcome] += 1


def _row_loads(case: MatmulCase) -> str:
    """How a fixed-shape case's operands are loaded: "loads A TMA, B Set" (docs/matmul.md, "Any K and any row
    stride")."""
    from fusion_ir.schedulers.matmul_problem import matmul_problem

    a, b = matmul_problem(case.fusion()).loads
    return f"loads A {a.kind.name}, B {b.kind.name}"
