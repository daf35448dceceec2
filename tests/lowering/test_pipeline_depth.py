"""``stages="auto"`` (lowering/analysis/pipeline_depth.py): the deepest pipeline that fits shared memory,
the useful depth and the loop's trip count, what limited it, the errors when it cannot be picked, and the kernels it
makes checked against numpy in the simulator and compiled by nvcc."""

from __future__ import annotations

import pytest

import examples
from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from examples import matmul_wgmma, tma_add
from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops
from fusion_ir.circular_buffer import MAX_USEFUL_STAGES
from lowering import LoweringError, lower
from lowering.analysis.pipeline_depth import DepthLimit
from runtime import simulate
from target import H100
from tests.helpers import assert_matches, random_inputs

BOX_BYTES = 256 * 4      # one TMA box of tma_add: 256 floats


def choices(fusion: Fusion) -> list:
    return list(lower(fusion, trace=True).analyses.depths.chosen.values())


def two_pipelines(tiles_a: int = 8, tiles_b: int = 1000) -> Fusion:
    """Two outputs, each from its own TMA pipeline over its own tiles loop, both ``stages="auto"``."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Float)
        out_a, out_b = ops.add(a, 1.0), ops.mul(b, 2.0)
        fusion.add_output(out_a)
        fusion.add_output(out_b)
    for out, x, tiles in ((out_a, a, tiles_a), (out_b, b, tiles_b)):
        out.split(0, 256)
        out.split(0, tiles)                                   # [blocks, tiles, 256]
        out.axis(0).parallelize(ParallelType.BIDx)
        out.axis(2).parallelize(ParallelType.TIDx)
        tile = x.cache_after(LoadStoreOpType.TMA)
        tile.compute_at(out, 2)
        tile.axis(2).parallelize(ParallelType.Bulk)
        tile.circular_buffer("auto")
    return fusion


# ------------------------------------------------------------------ the rule
def test_shared_memory_limits_the_depth_of_a_long_loop() -> None:
    """1000 tiles of 2 x 16 boxes (32 KiB) and one mbarrier a stage: 7 stages fit, 8 do not."""
    traced = lower(tma_add.build("auto", boxes=16, tiles=1000), trace=True)
    (choice,) = traced.analyses.depths.chosen.values()
    assert (choice.tensors, choice.stages, choice.prefetch) == (("T3", "T4"), 7, 6)
    assert choice.limited_by is DepthLimit.SharedMemory and choice.stage_bytes == 32 * BOX_BYTES + 8
    assert choice.reason.startswith("shared memory: ") and "each stage needs 32,776 bytes" in choice.reason
    assert choice.stage_bytes * choice.stages <= choice.left_bytes < choice.stage_bytes * (choice.stages + 1)
    assert traced.kernel.smem_bytes.const_value() <= H100.smem_per_block
    loop = next(iter(traced.analyses.circular.loops.values()))
    assert (loop.stages, loop.prefetch) == (7, 6)             # what the later analyses and passes read
    with pytest.raises(LoweringError, match="over the limit of 232448 bytes"):
        lower(tma_add.build(8, boxes=16, tiles=1000))         # one stage deeper does not fit


def test_a_long_loop_gets_at_most_the_useful_depth() -> None:
    """1000 tiles of 8 KiB: 28 stages would fit, but past 8 a pipeline measured no faster."""
    (choice,) = choices(tma_add.build("auto", tiles=1000))
    assert (choice.stages, choice.prefetch, choice.limited_by) == (MAX_USEFUL_STAGES, MAX_USEFUL_STAGES - 1,
                                                                   DepthLimit.UsefulDepth)
    assert choice.reason == "at most 8 stages: deeper pipelines measured no faster"


def test_the_trip_count_limits_the_depth_of_a_short_loop() -> None:
    (choice,) = choices(tma_add.build("auto", tiles=8))
    assert (choice.stages, choice.prefetch, choice.limited_by, choice.trip_count) == (8, 7, DepthLimit.TripCount, 8)
    assert choice.reason == "the loop has only 8 iterations"


def test_a_symbolic_trip_count_gets_the_useful_depth_not_all_of_shared_memory() -> None:
    """225 stages of a 1 KiB box fit, but then every run of fewer than 225 tiles (all of them in
    practice) would leave most of them unfilled: the depth stops at ``MAX_USEFUL_STAGES``."""
    (choice,) = choices(examples.load("tma_tile_2d").build("auto"))   # ceilDiv(i1, 32) iterations
    assert choice.trip_count is None and choice.limited_by is DepthLimit.UsefulDepth
    assert choice.stages == MAX_USEFUL_STAGES == 8


def test_other_shared_buffers_leave_less_for_the_stages() -> None:
    """The TMA-store epilogue's 64 KiB output tile: 3 stages of 48 KiB, as docs/matmul.md says."""
    (choice,) = choices(matmul_wgmma.build(stages="auto", tma_store=True, out_dtype=DataType.BFloat16))
    assert choice.stages == 3 and choice.limited_by is DepthLimit.SharedMemory
    assert ("T6", 65536) in choice.others and "left after T6 (65,536 B)" in choice.reason


def test_alignment_is_counted_once_per_misaligned_neighbour() -> None:
    """Ping-pong with TMA store: 6 stages of 32 KiB fit beside the 32 KiB output tile the two groups
    take turns on (230,400 B); charging every 1024-aligned buffer its padding would have stopped at 5."""
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages="auto", warp_specialized=True, persistent=True,
                                ping_pong=True, tma_store=True, blocks=3, out_dtype=DataType.BFloat16)
    traced = lower(fusion, trace=True)
    (choice,) = traced.analyses.depths.chosen.values()
    assert choice.stages == 6 and traced.kernel.smem_bytes.const_value() <= H100.smem_per_block
    assert ("alignment", 2 * 1008) in choice.others


def test_prefetch_counts_back_from_the_depth_or_stays_absolute() -> None:
    (relative,) = choices(tma_add.build("auto", -3, tiles=8))
    (absolute,) = choices(tma_add.build("auto", 2, tiles=8))
    assert (relative.stages, relative.prefetch) == (8, 5)
    assert (absolute.stages, absolute.prefetch) == (8, 2)


def test_pipelines_of_one_kernel_deepen_together() -> None:
    """The short loop takes its 3 iterations; the long one the useful depth, beside the short one's stages."""
    short, long = choices(two_pipelines(tiles_a=3))
    assert (short.stages, short.limited_by) == (3, DepthLimit.TripCount)
    assert (long.stages, long.limited_by) == (MAX_USEFUL_STAGES, DepthLimit.UsefulDepth)
    assert ("T4", 3 * BOX_BYTES) in long.others


def test_fixed_stages_are_untouched_and_have_no_choice() -> None:
    traced = lower(tma_add.build(4), trace=True)
    assert traced.analyses.depths.chosen == {}
    assert all(traced.analyses.depths.stages(tv) == 4 for tv in traced.analyses.depths.resolved)


# ------------------------------------------------------------------ errors
def test_two_stages_that_do_not_fit_name_the_tensors_and_the_bytes() -> None:
    with pytest.raises(LoweringError) as e:
        lower(tma_add.build("auto", boxes=64, tiles=1000))    # a stage is 2 x 64 KiB
    msg = str(e.value)
    assert 'stages="auto": T3, T4 on iS8{1000} need 2 stages of 131,080 bytes' in msg
    assert "262,160 bytes" in msg and "232,336 bytes left after alignment" in msg
    assert "not even the shallowest pipeline fits" in msg
    assert e.value.lowering_step == "pipeline_depth"


def test_auto_and_a_number_on_one_loop_is_an_error() -> None:
    fusion = tma_add.build("auto", tiles=8)
    fusion.inputs[1].uses()[0].output.circular_buffer(3)
    with pytest.raises(LoweringError, match=r'T3 \(stages="auto"\) and T4 \(stages=3\) .* same loop iS8\{8\}'):
        lower(fusion)


def test_a_register_pipeline_cannot_be_auto() -> None:
    with pytest.raises(LoweringError, match=r'T3: stages="auto" .* pipelines only Local \(register\) buffers'):
        lower(examples.load("register_double_buffer").build("auto"))


# ------------------------------------------------------------------ kernels
AUTO_KERNELS = [
    ("tma_add_trip_count", lambda: tma_add.build("auto", tiles=8), [[(1,), (1,)], [(9000,), (9000,)]], 1e-5),
    ("tma_add_war_mbarrier", lambda: tma_add.build("auto", tiles=8, war_mbarrier=True), [[(5000,), (5000,)]], 1e-5),
    # 8 stages over a symbolic trip count: runs of 1, 2, 7, 8 and 9 tiles
    ("tma_tile_2d_useful_depth", lambda: examples.load("tma_tile_2d").build("auto"),
     [[(9, 32 * t - 4)] for t in (1, 2, 7, 8, 9)], 1e-5),
    ("cp_async", lambda: examples.load("cp_async_pipeline").build("auto"), [[(4,)], [(70000,)]], 1e-5),
    ("two_pipelines", lambda: two_pipelines(tiles_b=300), [[(3000,), (300 * 512 - 5,)]], 1e-5),
    ("matmul_128x128", lambda: matmul_wgmma.build(tile=(128, 128, 64), compute_warp_groups=1, stages="auto"),
     [[(128, 512), (512, 128)], [(200, 200), (200, 264)]], 1e-2),
]


@pytest.mark.parametrize("build,shapes_list,tol", [c[1:] for c in AUTO_KERNELS], ids=[c[0] for c in AUTO_KERNELS])
def test_auto_kernels_match_numpy_in_the_simulator(build, shapes_list, tol) -> None:
    for n, shapes in enumerate(shapes_list):
        for seed in (0, 1, 2):
            fusion = build()
            inputs = random_inputs(fusion, shapes, seed=100 * n + seed)
            assert_matches(fusion, inputs, simulate(lower(fusion), inputs, seed=seed), tol=tol)


@pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")
@pytest.mark.parametrize("params", [{}, {"warp_specialized": True, "persistent": True, "blocks": 5}],
                         ids=["pipelined", "ws_persistent"])
def test_an_auto_matmul_compiles_for_sm90a(params: dict) -> None:
    traced = lower(matmul_wgmma.build(stages="auto", **params), trace=True)
    (choice,) = traced.analyses.depths.chosen.values()
    assert choice.stages == 4 and choice.limited_by is DepthLimit.SharedMemory      # 4 stages of 48 KiB
    resources = compile_check(to_cuda(traced.kernel))
    assert resources.registers > 0
