"""schedule_matmul with ``MatmulParams.swap_ab``: the wgmma's rows run along N and its N along M (the kernel computes
``C^T = B^T A^T``: b's tile is the instruction's A operand, a's its B), so the tile's M is any multiple of 8 (16 with a
TMA store) up to 256. The epilogue reads the fragment with its rows along N; a TMA-store epilogue stages the tile in C's
own layout by ``stmatrix.trans``, whole or in sub-tiles of some of its rows and all its columns. Each form matches
numpy in the simulator at sizes the tile does not divide."""

from __future__ import annotations

import dataclasses

import pytest

from codegen import to_cuda
from fusion_ir import DataType, ScheduleError
from fusion_ir.exprs import MmaOp
from fusion_ir.iter_domain import innermost_root
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from tests.fusion_ir.test_matmul_batched import _fusion as _batched_fusion
from tests.fusion_ir.test_matmul_batched import _shapes as _batched_shapes
from tests.fusion_ir.test_matmul_layouts import LAYOUTS, _fusion, _ids, _shapes
from tests.helpers import assert_matches, random_inputs

SIZES = [(200, 336, 136), (72, 200, 40)]     # M, N, K: no tile below divides them
WS = {"stages": 3, "compute_warp_groups": 2, "warp_specialized": True, "swap_ab": True}


def _acc(fusion):
    return next(tv for tv in fusion.used_tensors() if isinstance(tv.definition, MmaOp))


def _stmatrices(kernel: k.Kernel) -> list[k.StMatrix]:
    found: list[k.StMatrix] = []
    k.rewrite(kernel.body, lambda n: found.append(n) if isinstance(n, k.StMatrix) else None)
    return found


def _check(fusion, kernel, tol: float = 1e-5, layout: tuple[bool, bool] = (False, False), seed: int = 900,
           epilogue: str = "none") -> None:
    for n, (m, nn, kk) in enumerate(SIZES):
        inputs = random_inputs(fusion, _shapes(*layout, m, nn, kk, epilogue), seed=seed + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=n), tol=tol)


# ------------------------------------------------------------------ the schedule
def test_the_instruction_rows_run_along_n_and_its_n_along_m() -> None:
    fusion = _fusion(False, False)
    schedule_matmul(fusion, MatmulParams(tile=(208, 128, 64), **WS))
    acc = _acc(fusion)
    rows, columns, _ = acc.loop[-3:]
    assert rows.extent.const_value() == 64 and columns.extent.const_value() == 208
    assert innermost_root(rows) is acc.root[-2] and innermost_root(columns) is acc.root[-3]    # N, M


def test_a_swapped_tma_store_stages_the_tile_by_stmatrix_trans() -> None:
    fusion = _fusion(False, False, out_dtype=DataType.BFloat16)
    schedule_matmul(fusion, MatmulParams(tile=(208, 128, 64), tma_store=True, **WS))
    kernel = lower(fusion)
    assert [s.trans for s in _stmatrices(kernel)] == [True]
    cuda = to_cuda(kernel)
    assert "stmatrixX4Trans(" in cuda and "stmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in cuda
    plain = _fusion(False, False, out_dtype=DataType.BFloat16)
    schedule_matmul(plain, MatmulParams(tile=(128, 208, 64), tma_store=True,
                                        **{**WS, "swap_ab": False}))
    assert [s.trans for s in _stmatrices(lower(plain))] == [False]


@pytest.mark.parametrize(("params", "match"), [
    ({"tile": (208, 96, 64)}, r"MatmulParams.tile: N 96 is not a multiple of 64 per warp group \(2 compute warp "
                              r"groups share a tile: a multiple of 128\).*swap_ab"),
    ({"tile": (264, 128, 64)}, r"MatmulParams.tile: M 264 must be a multiple of 8 and at most 256 .*swap_ab"),
    ({"tile": (200, 128, 64), "tma_store": True}, r"M 200 with tma_store=True; the output tile is staged by "
                                                  r"stmatrix.x4, .* so M must be a multiple of 16"),
    ({"tile": (208, 128, 64), "tma_store": True, "epilogue_tile": (208, 32)},
     r"MatmulParams.epilogue_tile: \(208, 32\) has 32 columns; with swap_ab=True .* use \(208, 128\)"),
    ({"tile": (208, 128, 64), "tma_store": True, "epilogue_tile": (24, 128)},
     r"\(24, 128\) has 24 rows; with swap_ab=True they are columns of the fragment, .* a multiple of 16 that "
     r"divides the tile's M 208"),
    ({"tile": (192, 128, 64), "tma_store": True, "epilogue_tile": (64, 128), "epilogue_stages": 4},
     r"MatmulParams.epilogue_stages: 4 staging tiles for 3 sub-tiles of 64 x 128"),
    ({"tile": (192, 128, 64), "tma_store": True, "epilogue_tile": (64, 128), "epilogue_loads": "producer"},
     r"MatmulParams.epilogue_loads: 'producer' with swap_ab=True"),
    ({"tile": (64, 128, 64), "swap_ab": 1}, r"MatmulParams.swap_ab: 1 must be a bool"),
    ({"tile": (200, 128, 64), "cluster": (1, 2)}, r"MatmulParams.cluster: \(1, 2\) with swap_ab=True multicasts A's "
                                                  r"200 x 64 tile in 2 pieces of 100 rows"),
])
def test_swapped_tiles_follow_the_instruction_rules(params: dict, match: str) -> None:
    with pytest.raises(ScheduleError, match=match):
        MatmulParams(**{**WS, **params}).validate(DataType.BFloat16)


def test_an_m_major_a_of_swapped_m_not_a_multiple_of_16_is_refused() -> None:
    fusion = _fusion(True, False)
    with pytest.raises(ScheduleError, match=r"M 200 with swap_ab=True makes a row of A's M-major tile 400 bytes"):
        schedule_matmul(fusion, MatmulParams(tile=(200, 128, 64), **WS))


def test_the_register_count_checks_the_instruction_n_along_m() -> None:
    """wgmma.m64n256k16 on three compute warp groups and a producer needs more registers at entry than 512 threads
    may have: with swap_ab the instruction's N is the tile's M."""
    params = MatmulParams(tile=(256, 192, 64), stages=2, compute_warp_groups=3, warp_specialized=True, swap_ab=True,
                          register_split=None)
    with pytest.raises(ScheduleError, match=r"N 256 on 3 compute warp groups and a producer"):
        params.validate(DataType.BFloat16)
    with pytest.raises(ScheduleError, match=r"N 256 on 3 compute warp groups and a producer"):   # the same unswapped
        dataclasses.replace(params, swap_ab=False, tile=(192, 256, 64)).validate(DataType.BFloat16)


# ------------------------------------------------------------------ in the simulator
@pytest.mark.parametrize("layout", LAYOUTS, ids=_ids)
def test_each_layout_swapped_matches_numpy(layout: tuple[bool, bool]) -> None:
    fusion = _fusion(*layout, out_dtype=DataType.BFloat16)
    schedule_matmul(fusion, MatmulParams(tile=(208, 128, 64), tma_store=True, **WS))
    _check(fusion, lower(fusion), tol=1e-2, layout=layout)


@pytest.mark.parametrize("layout", LAYOUTS, ids=_ids)
def test_the_short_tile_of_each_layout_matches_numpy(layout: tuple[bool, bool]) -> None:
    """The rules' short-M tile (``suggest._short_tile``): all of M = 40 (and 24) rows in a 48-row instruction N by 64,
    K in 2 splits, the TMA store, each operand in either major order."""
    fusion = _fusion(*layout, out_dtype=DataType.BFloat16)
    schedule_matmul(fusion, MatmulParams(tile=(48, 64, 64), stages=3, compute_warp_groups=1, warp_specialized=True,
                                         swap_ab=True, tma_store=True, split_k=2, register_split=(40, 232)))
    kernel = lower(fusion)
    for n, (m, nn, kk) in enumerate([(40, 136, 200), (24, 72, 136)]):
        inputs = random_inputs(fusion, _shapes(*layout, m, nn, kk, "none"), seed=920 + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=n), tol=1e-2)


MODES = {
    "pipelined_register_stores": {"tile": (72, 64, 64), "stages": 2, "compute_warp_groups": 1, "swap_ab": True},
    "ws_persistent_tma_store": {"tile": (208, 128, 64), **WS, "persistent": True, "blocks": 3, "tma_store": True},
    "ping_pong_carried": {"tile": (48, 128, 64), **WS, "persistent": True, "ping_pong": True, "blocks": 2,
                          "tma_store": True, "store_wait": "carried"},
    "persistent_cluster_along_n": {"tile": (208, 128, 64), **WS, "persistent": True, "blocks": 4,
                                   "cluster": (1, 2)},
    "tile_per_block_2x2_cluster": {"tile": (208, 128, 64), **WS, "tma_store": True, "cluster": (2, 2)},
    "split_k": {"tile": (160, 128, 64), **WS, "split_k": 2},
    "sub_tiles_of_16_rows": {"tile": (208, 128, 64), **WS, "persistent": True, "blocks": 3, "tma_store": True,
                             "epilogue_tile": (16, 128)},
    "sub_tiles_carried": {"tile": (192, 128, 64), **WS, "persistent": True, "blocks": 3, "tma_store": True,
                          "epilogue_tile": (64, 128), "epilogue_stages": 3, "store_wait": "carried"},
    "ping_pong_sub_tiles": {"tile": (48, 128, 64), **WS, "persistent": True, "ping_pong": True, "blocks": 2,
                            "tma_store": True, "epilogue_tile": (16, 128)},
    "stream_k": {"tile": (160, 128, 64), **WS, "stream_k": True, "blocks": 3},
}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_each_kernel_swapped_matches_numpy(mode: str) -> None:
    params = MatmulParams(**MODES[mode])
    fusion = _fusion(False, False, out_dtype=DataType.BFloat16 if params.tma_store else None)
    schedule_matmul(fusion, params)
    _check(fusion, lower(fusion), tol=1e-2 if params.tma_store else 1e-5, seed=910)


@pytest.mark.parametrize("epilogue", ["bias_relu", "bias_gelu", "alpha_beta"])
def test_each_epilogue_swapped_matches_numpy(epilogue: str) -> None:
    """A bias per column is per fragment row when swapped; C is read element by element at the fragment's
    elements (its rows run along the fragment's columns, so no ldmatrix)."""
    fusion = _fusion(False, False, epilogue=epilogue, out_dtype=DataType.BFloat16)
    schedule_matmul(fusion, MatmulParams(tile=(208, 128, 64), tma_store=True, persistent=True, blocks=3,
                                         **{**WS, "stages": 2}))
    _check(fusion, lower(fusion), tol=1e-2, seed=920, epilogue=epilogue)


def test_a_batched_swapped_matmul_matches_numpy() -> None:
    fusion = _batched_fusion(b_batched=False, out_dtype=DataType.BFloat16)
    schedule_matmul(fusion, MatmulParams(tile=(80, 128, 32), stages=2, compute_warp_groups=2,
                                         warp_specialized=True, persistent=True, blocks=3, tma_store=True,
                                         swap_ab=True))
    kernel = lower(fusion)
    for n, (bb, m, nn, kk) in enumerate([(2, 96, 80, 40), (3, 72, 136, 88)]):
        inputs = random_inputs(fusion, _batched_shapes((bb,), m, nn, kk, b_batched=False), seed=930 + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=n), tol=1e-2)


# ------------------------------------------------------------------ nvcc
def test_the_swapped_candidates_compile_without_spills() -> None:
    """Each swapped tuning candidate (candidates.SWAPPED_TILES, at the rules' depth and staging) compiles for sm_90a
    with stmatrix.trans and spills no register (ptxas)."""
    from codegen.nvcc import compile_check, nvcc_available
    from fusion_ir.schedulers.candidates import matmul_candidates
    from runtime.tuning import matmul_fusion

    if not nvcc_available():
        pytest.skip("nvcc is not installed")
    swapped = [c for c in matmul_candidates(matmul_fusion(6632, 2944, 5048), sms=132) if c.swap_ab]
    assert len(swapped) == 4
    for params in swapped:
        fusion = matmul_fusion(6632, 2944, 5048)
        schedule_matmul(fusion, params)
        cuda = to_cuda(lower(fusion))
        assert "stmatrixX4Trans(" in cuda
        resources = compile_check(cuda)
        assert resources.spill_store_bytes == 0 and resources.spill_load_bytes == 0, (params.tile, resources.log)
