"""``MatmulParams.smem_bytes`` (the scheduler's estimate, ``fusion_ir/schedulers/matmul_smem.py``) equals
the shared memory of the kernel the lowering makes (``kernel.smem_bytes``, the ``smem`` analysis's plan):
for the configurations the matmul fuzzer draws, the examples' matmuls and the suggested parameters."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, assume, given, settings

import examples.matmul_epilogue as matmul_epilogue
import examples.matmul_ping_pong as matmul_ping_pong
import examples.matmul_wgmma as matmul_wgmma
import examples.matmul_ws_persistent as matmul_ws_persistent
from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.schedulers import MatmulLayout, MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers import matmul as matmul_scheduler
from fusion_ir.schedulers.matmul_problem import MatmulProblem, matmul_problem
from fusion_ir.schedulers.matmul_smem import matmul_smem_requests
from fuzz.matmul import MatmulCase, matmul_cases
from lowering import lower
from target import current as current_target


def _plan(fusion: Fusion) -> tuple[int, dict[int, int]]:
    """The kernel's shared-memory bytes and the depths ``stages="auto"`` resolved to."""
    lowered = lower(fusion, trace=True)
    total = lowered.kernel.smem_bytes.const_value()
    assert total is not None
    return total, {n: c.stages for n, c in lowered.analyses.depths.chosen.items()}


def _estimate(params: MatmulParams, problem: MatmulProblem, depths: dict[int, int]) -> int:
    if params.stages == "auto":
        (depth,) = set(depths.values())
        params = replace(params, stages=depth)
    return params.smem_bytes(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads)


def _check(fusion: Fusion, params: MatmulParams) -> None:
    problem = matmul_problem(fusion)
    schedule_matmul(fusion, params)
    plan, depths = _plan(fusion)
    assert _estimate(params, problem, depths) == plan, f"{params}: the kernel takes {plan} bytes"


@settings(max_examples=100, derandomize=True, database=None, deadline=None,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(case=matmul_cases())
def test_the_estimate_is_the_kernels_for_drawn_params(case: MatmulCase) -> None:
    assume(case.valid)
    fusion = case.fusion()
    params = case.params
    if case.suggested is not None:       # the case's own params are unused: the suggestion's are scheduled
        try:
            params = suggest_matmul_params(fusion, **dict(case.suggested))
        except ScheduleError:
            assume(False)                # a pinned field that cannot work for the problem: refused
    _check(fusion, params)


class _Recorder:
    """Stands in for ``schedule_matmul`` in an example's module: schedules and keeps what it was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[MatmulParams, MatmulProblem]] = []

    def __call__(self, fusion: Fusion, params: MatmulParams | None = None) -> Fusion:
        assert params is not None
        self.calls.append((params, matmul_problem(fusion)))
        return matmul_scheduler.schedule_matmul(fusion, params)


EXAMPLES = [(matmul_wgmma, {}), (matmul_wgmma, {"warp_specialized": True, "stages": 3}),
            (matmul_wgmma, {"tile": (128, 128, 64), "epilogue": True, "persistent": True}),
            (matmul_ws_persistent, {}), (matmul_ws_persistent, {"tma_store": False}),
            (matmul_ping_pong, {}), (matmul_ping_pong, {"store_wait": "deferred", "stages": 2})]
EXAMPLES += [(matmul_epilogue, {"kind": kind}) for kind in matmul_epilogue.KINDS]
EXAMPLES += [(matmul_epilogue, {"kind": kind, "ping_pong": True, "tile": (128, 128, 64), "stages": 4, "tma_store": store})
             for kind in matmul_epilogue.KINDS for store in (True, False)]
EXAMPLES += [(matmul_epilogue, {"kind": "bias_relu", "ping_pong": True, "tile": (128, 192, 64), "stages": 3,
                                "store_wait": "deferred"}),     # a 768-byte bias part per warp group
             (matmul_epilogue, {"kind": "alpha_beta", "ping_pong": True, "tile": (128, 128, 64), "stages": 2,
                                "store_wait": "deferred"}),
             (matmul_epilogue, {"kind": "alpha_beta", "ping_pong": True, "tile": (128, 128, 64), "stages": 4,
                                "epilogue_tile": (128, 32)})]
# the producer warp group loads the epilogue's inputs: a circular buffer of sub-tiles beside the operands' stages
EXAMPLES += [(matmul_epilogue, {"kind": kind, "epilogue_loads": "producer", **arrangement})
             for kind in ("alpha_beta", "bias_relu")
             for arrangement in ({"tile": (128, 128, 64), "epilogue_tile": (128, 32), "stages": 3},
                                 {"ping_pong": True, "tile": (128, 128, 64), "epilogue_tile": (128, 64), "stages": 3},
                                 {"persistent": False, "epilogue_tile": (128, 64)})]
EXAMPLES += [(matmul_epilogue, {"kind": "alpha_beta", "tma_store": False}),
             (matmul_epilogue, {"kind": "alpha_beta", "warp_specialized": False, "persistent": False, "stages": 2})]


@pytest.mark.parametrize("example,kwargs", EXAMPLES, ids=lambda x: getattr(x, "__name__", None) or str(x))
def test_the_estimate_is_the_kernels_for_the_examples(example, kwargs: dict, monkeypatch) -> None:
    recorder = _Recorder()
    monkeypatch.setattr(example, "schedule_matmul", recorder, raising=False)
    monkeypatch.setattr(matmul_ws_persistent, "schedule_matmul", recorder)   # matmul_ping_pong builds through it
    fusion = example.build(**kwargs)
    ((params, problem),) = recorder.calls
    plan, depths = _plan(fusion)
    assert _estimate(params, problem, depths) == plan, f"{params}: the kernel takes {plan} bytes"


def _fusion(m: int | None, n: int | None, k: int | None, epilogue: str = "", transpose_a: bool = False,
            transpose_b: bool = False, batch: tuple[int | None, ...] = (), b_2d: bool = False) -> Fusion:
    """``batch``: batch axes leading A (and B and C, unless ``b_2d``: B broadcast over the batch)."""
    fusion = Fusion()
    nd = len(batch) + 2
    with fusion:
        def tensor(shape: tuple[int | None, ...], dtype: DataType = DataType.BFloat16):
            if None in shape:
                return fusion.add_input(ndim=len(shape), dtype=dtype)
            return fusion.add_input(shape=shape, dtype=dtype)
        b_batch = () if b_2d else batch
        a = ops.transpose(tensor(batch + (k, m)), nd - 2, nd - 1) if transpose_a else tensor(batch + (m, k))
        b = ops.transpose(tensor(b_batch + (n, k)), len(b_batch), len(b_batch) + 1) if transpose_b else \
            tensor(b_batch + (k, n))
        c = ops.matmul(a, b)
        if epilogue == "C":          # alpha * acc + beta * C, C in bf16
            extra = tensor(batch + (m, n))
            c = ops.add(ops.mul(c, 2.0), ops.mul(ops.cast(extra, DataType.Float), 0.5))
        if epilogue == "C_direct":   # acc + C: the output reads C's tile directly
            c = ops.add(c, tensor((m, n), DataType.Float))
        if epilogue == "C_fp32_out":  # alpha * acc + beta * C, the fp32 sum the output: C under its second producer
            extra = tensor((m, n))
            c = ops.add(ops.mul(c, 2.0), ops.mul(ops.cast(extra, DataType.Float), 0.5))
            fusion.add_output(c)
            return fusion
        if epilogue == "C_first_fp32_out":   # beta * C + alpha * acc: C's term written first, still reached last
            extra = tensor((m, n))
            fusion.add_output(ops.add(ops.mul(ops.cast(extra, DataType.Float), 0.5), ops.mul(c, 2.0)))
            return fusion
        if epilogue == "bias":
            bias = tensor((n,), DataType.Float)
            c = ops.relu(ops.add(c, ops.broadcast(bias, [True] * (nd - 1) + [False])))
        fusion.add_output(ops.cast(c, DataType.BFloat16) if epilogue != "C_direct" else c)
    return fusion


SHAPES = [(128, 128, 128), (1024, 1024, 4096), (4096, 4096, 256), (8192, 8192, 8192), (None, None, None)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("epilogue", ["", "bias", "C", "C_direct"])
def test_the_estimate_is_the_kernels_for_suggested_params(shape: tuple, epilogue: str) -> None:
    fusion = _fusion(*shape, epilogue=epilogue)
    params = suggest_matmul_params(fusion, sms=4)     # few blocks: a small persistent loop to lower
    _check(fusion, params)


@pytest.mark.parametrize("params", [
    MatmulParams(tile=(128, 256, 64), stages=4, tma_store=True),
    MatmulParams(tile=(128, 256, 64), stages=4, tma_store=True, warp_specialized=True),
    MatmulParams(tile=(256, 192, 64), stages=4, compute_warp_groups=4, tma_store=True, register_split=None),
])
def test_an_output_tile_that_reuses_the_operands_memory_is_not_counted_beside_them(params: MatmulParams) -> None:
    """Not persistent, the output tile is written after the mainloop, in A's and B's dead memory: these
    fit, though the operands' stages and the output tile together would not."""
    tm, tn, tk = params.tile
    assert (tm * tk + tk * tn) * 2 * params.stages + tm * tn * 2 > current_target().smem_per_block
    _check(_fusion(512, 512, 512), params)


@pytest.mark.parametrize("epilogue", ["C_fp32_out", "C_first_fp32_out"])
@pytest.mark.parametrize("params", [
    MatmulParams(tile=(64, 16, 16), stages=8, compute_warp_groups=1),
    MatmulParams(tile=(128, 128, 64), stages=4),
    MatmulParams(tile=(128, 128, 64), stages=4, warp_specialized=True),
])
def test_a_c_tile_an_epilogue_tensor_reads_is_loaded_before_the_mainloop(params: MatmulParams,
                                                                        epilogue: str) -> None:
    """``alpha * acc + beta * C`` stored from registers as fp32, in either term order: C's tile is a
    shallower dependency of ``beta * C``, and the emission order issues async loads first among the
    output's shallower dependencies, so the kernel loads it before the mainloop (its latency hidden)
    and the estimate counts it beside the operand stages."""
    fusion = _fusion(512, 512, 512, epilogue=epilogue)
    (tile,) = matmul_problem(fusion).loaded_tiles
    assert not tile.after_mainloop
    assert params.smem_bytes(DataType.BFloat16, [tile]) > params.smem_bytes(DataType.BFloat16, [replace(
        tile, after_mainloop=True)])
    _check(fusion, params)


def test_mbarriers_sit_in_the_alignment_gap_before_the_first_tile() -> None:
    """Warp-specialized and persistent: the barriers are set up first, A's stages start at the next
    1024 bytes (its swizzle's repeat), and nothing else is counted."""
    params = MatmulParams(tile=(128, 128, 64), stages=2, warp_specialized=True, persistent=True, tma_store=True)
    stage = (128 * 64 + 64 * 128) * 2
    assert params.smem_bytes(DataType.BFloat16) == 1024 + 2 * stage + 128 * 128 * 2
    _check(_fusion(256, 256, 256), params)


def test_a_refused_depth_is_over_the_limit_in_the_kernel_too() -> None:
    params = MatmulParams(tile=(128, 256, 64), stages=4, tma_store=True, warp_specialized=True, persistent=True)
    with pytest.raises(ScheduleError, match="4 stages"):
        params.validate(DataType.BFloat16)
    assert params.smem_bytes(DataType.BFloat16) > current_target().smem_per_block


LAYOUTS = {"A^T": (True, False), "B^T": (False, True), "A^T B^T": (True, True)}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("shape", [(1024, 1024, 4096), (4096, 4096, 256), (None, None, None)], ids=str)
@pytest.mark.parametrize("epilogue", ["", "C"])
def test_the_estimate_is_the_kernels_for_transposed_operands(layout: str, shape: tuple, epilogue: str) -> None:
    """Suggested parameters for transposed operands: their tiles take the input's own major order."""
    fusion = _fusion(*shape, epilogue=epilogue, transpose_a=LAYOUTS[layout][0], transpose_b=LAYOUTS[layout][1])
    _check(fusion, suggest_matmul_params(fusion, sms=4))


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("params", [
    MatmulParams(tile=(64, 16, 16), stages=8, compute_warp_groups=1),       # 32-byte K rows, a 16-column B
    MatmulParams(tile=(64, 64, 32), stages=5, compute_warp_groups=1, warp_specialized=True),
    MatmulParams(tile=(128, 136, 64), stages=3),                            # N 136: only a K-major B takes it
    MatmulParams(tile=(128, 256, 64), stages=3, tma_store=True, warp_specialized=True, persistent=True, blocks=3),
], ids=str)
def test_the_estimate_is_the_kernels_for_each_layout(layout: str, params: MatmulParams) -> None:
    transpose_a, transpose_b = LAYOUTS[layout]
    fusion = _fusion(512, 512, 512, transpose_a=transpose_a, transpose_b=transpose_b)
    if params.tile[1] == 136 and not transpose_b:
        with pytest.raises(ScheduleError, match="N 136 makes a row of B's N-major tile"):
            schedule_matmul(fusion, params)
        return
    _check(fusion, params)


def test_an_m_major_a_tile_is_aligned_to_its_128_byte_rows() -> None:
    """A [K, M] input gives A's tile rows of 64 M (128 bytes, a 1024-byte swizzle repeat) whatever TK is: with
    TK = 16 the K-major tile's stages are 32-byte rows aligned to 256 bytes, the M-major ones to 1024."""
    params = MatmulParams(tile=(64, 16, 16), stages=3, compute_warp_groups=1)

    def a_tile(layout: MatmulLayout) -> tuple[int, int]:
        (a,) = [r for r in matmul_smem_requests(params, DataType.BFloat16, layout=layout) if r.name == "A"]
        return a.nbytes, a.align

    assert a_tile(MatmulLayout()) == (64 * 16 * 2, 256)
    assert a_tile(MatmulLayout(a_mn_major=True)) == (64 * 16 * 2, 1024)
    _check(_fusion(256, 256, 256, transpose_a=True), params)


BATCHED = {"B": ((4,), False), "B_2d": ((4,), True), "B_sym": ((None,), False), "B1_B2": ((2, 3), False)}


@pytest.mark.parametrize("batched", sorted(BATCHED))
@pytest.mark.parametrize("params", [
    MatmulParams(tile=(64, 64, 32), stages=4, compute_warp_groups=1),
    MatmulParams(tile=(128, 128, 64), stages=3, warp_specialized=True, persistent=True, blocks=3, tma_store=True),
    MatmulParams(tile=(128, 128, 64), stages=2, warp_specialized=True, persistent=True, blocks=2, tma_store=True,
                 compute_warp_groups=2, ping_pong=True),
], ids=str)
@pytest.mark.parametrize("epilogue", ["", "bias", "C"])
def test_the_estimate_is_the_kernels_for_batched_operands(batched: str, params: MatmulParams, epilogue: str) -> None:
    """A batch takes no shared memory of its own: each operand's box has batch extent 1 (a 2-D B is loaded with
    its 2-D box), and C's tile is one [TM, TN] tile of its batch; suggested parameters count the batch's tiles."""
    batch, b_2d = BATCHED[batched]
    fusion = _fusion(256, 256, 256, epilogue=epilogue, transpose_b=True, batch=batch, b_2d=b_2d)
    _check(fusion, params)


@pytest.mark.parametrize("batched", sorted(BATCHED))
def test_the_estimate_is_the_kernels_for_suggested_batched_params(batched: str) -> None:
    batch, b_2d = BATCHED[batched]
    fusion = _fusion(512, 512, 512, epilogue="C", batch=batch, b_2d=b_2d)
    _check(fusion, suggest_matmul_params(fusion, sms=4))


@pytest.mark.parametrize("k,transpose_b,tma_store", [(100, False, False), (263, True, False), (263, False, True)])
def test_the_estimate_of_compute_loaded_operands_is_the_kernels(k: int, transpose_b: bool, tma_store: bool) -> None:
    """Rows TMA cannot copy (docs/matmul.md, "Any K and any row stride"): one TMA operand leaves a "full" barrier
    per stage and no "empty" one (K = 100, 263 with the TMA store), none leaves no barriers (A @ B^T, K = 263)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(200, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(264, k) if transpose_b else (k, 264), dtype=DataType.BFloat16)
        c = ops.matmul(a, ops.transpose(b, 0, 1) if transpose_b else b)
        fusion.add_output(ops.cast(c, DataType.BFloat16) if tma_store else c)
    assert not matmul_problem(fusion).tma_operands
    _check(fusion, MatmulParams(tile=(128, 128, 64), stages=4, compute_warp_groups=2, tma_store=tma_store))
