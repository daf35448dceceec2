"""A matmul epilogue with two outputs (examples/matmul_epilogue "bias_gelu_pre": the pre-activation and the
activation): every arrangement simulates to numpy, the TMA store stages each output through a tile (ring) of its
own, the shared-memory estimate counts both, and the suggestion keeps the TMA store."""

from __future__ import annotations

import pytest

from examples import matmul_epilogue
from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.matmul_problem import matmul_problem
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

KIND = "bias_gelu_pre"


@pytest.mark.parametrize("params", [
    {"tma_store": False},
    {"stages": 2},
    {"epilogue_tile": (128, 64), "persistent": False, "stages": 3},
    {"epilogue_tile": (128, 32), "ping_pong": True, "tile": (128, 128, 64), "stages": 3},
], ids=["register_stores", "tma_store", "sub_tiled", "ping_pong_sub_tiled"])
def test_both_outputs_match_numpy(params: dict) -> None:
    fusion = matmul_epilogue.build(KIND, **params)
    kernel = lower(fusion)
    for seed, (m, n, kk) in enumerate([(200, 264, 136), (520, 1000, 264)]):
        inputs = random_inputs(fusion, [(m, kk), (kk, n), (n,)], seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_epilogue.TOLERANCE)


def _walk(nodes):
    for node in nodes:
        yield node
        for _, sub in k.children(node):
            yield from _walk(sub)


def test_each_output_has_its_staging_ring() -> None:
    kernel = lower(matmul_epilogue.build(KIND, epilogue_tile=(128, 64), persistent=False, stages=3))
    stores = [n for n in _walk(kernel.body) if isinstance(n, k.TmaStore)]
    assert len({s.src.name for s in stores}) == 2 and len({s.tensor_map.name for s in stores}) == 2


@pytest.mark.parametrize("params,beside", [
    # a tile per block: both rings in the operands' dead memory
    (MatmulParams(tile=(128, 256, 64), stages=3, warp_specialized=True, tma_store=True, epilogue_tile=(128, 64)), 0),
    # persistent: the rings beside the stages, together
    (MatmulParams(tile=(128, 256, 64), stages=3, warp_specialized=True, persistent=True, tma_store=True,
                  epilogue_tile=(128, 32)), 128 * 32 * 2 * 2),   # a ring of two 128 x 32 bf16 tiles
    # persistent, whole tiles: one after the other in the same memory (where the bias vector was: the shared
    # epilogue registers are computed before the first stmatrix)
    (MatmulParams(tile=(128, 256, 64), stages=2, warp_specialized=True, persistent=True, tma_store=True), -1024),
], ids=["one_tile_rings", "persistent_rings", "persistent_whole_tiles"])
def test_the_estimate_counts_both_staging_tiles(params: MatmulParams, beside: int) -> None:
    fusion = matmul_epilogue.fusion_of(KIND, (1024, 1024, 1024))
    problem = matmul_problem(fusion)
    assert problem.outputs == 2 and problem.tma_store_possible
    schedule_matmul(fusion, params)
    kernel = lower(fusion)
    estimate = params.smem_bytes(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads, outputs=2)
    assert estimate == kernel.smem_bytes.const_value()
    one = params.smem_bytes(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads)
    assert estimate - one == beside


def test_the_suggestion_keeps_the_tma_store_and_its_sub_tiles() -> None:
    params = suggest_matmul_params(matmul_epilogue.fusion_of(KIND, (8192, 8192, 8192)))
    assert params.tma_store and params.epilogue_tile == (params.tile[0], 64)


def test_a_float_output_beside_a_bf16_one_is_refused_by_the_tma_store() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        c = ops.matmul(a, b)
        fusion.add_output(ops.cast(c, DataType.BFloat16))
        fusion.add_output(ops.relu(c))                       # float
    with pytest.raises(ScheduleError, match=r"tma_store: the output T\d+ is float; stmatrix stores 16-bit"):
        schedule_matmul(fusion, MatmulParams(tile=(128, 256, 64), stages=3, warp_specialized=True, tma_store=True))
    assert not matmul_problem(fusion).tma_store_possible    # the suggestion stores such outputs from registers


@pytest.mark.parametrize("shape", [(8192, 8192, 8192), (8192, 8192, 512)], ids=str)
def test_the_suggested_two_output_kernels_do_not_spill(shape: tuple[int, int, int]) -> None:
    """The shared pre-activation is computed one sub-tile at a time, persistent too (a whole tile's spilled 1.8 KB
    a thread at 8192 x 8192 x 512)."""
    from codegen import compile_check, nvcc_available, to_cuda

    if not nvcc_available():
        pytest.skip("nvcc is not installed")
    fusion = matmul_epilogue.fusion_of(KIND, shape)
    schedule_matmul(fusion)
    assert fusion.scheduler_choice.params.epilogue_tile is not None
    resources = compile_check(to_cuda(lower(fusion)))
    assert not resources.spills, resources.log
