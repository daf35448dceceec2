"""Tiles that span a skinny side on one compute warp group (``suggest.SPAN_ROWS``, ``SPAN_ROWS_WIDE``,
``SPAN_COLUMNS``: 192 x 64, 192 x 128 and 64 x 192, three 64-row wgmma tiles or one 192-column one per warp group),
simulated against numpy at sizes that are no multiple of the tile (rows and columns out of bounds), several seeds,
A and B in either major order, with the TMA store; and the rules' parameters for such a problem schedule and simulate."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fusion_ir import DataType
from fusion_ir.reference import evaluate
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import simulate
from runtime.tuning import matmul_fusion
from tests.helpers import check_simulated_matmul, random_inputs, rel_error

SPANS = {"192x64": (192, 64, 64), "192x128": (192, 128, 64), "64x192": (64, 192, 64)}
SIZES = {"192x64": [(184, 200, 136), (192, 72, 200)], "192x128": [(170, 264, 136), (192, 136, 72)],
         "64x192": [(200, 192, 136), (72, 184, 200)]}


def _check(tile: tuple[int, int, int], size: tuple[int, int, int], seeds: tuple[int, ...], **build) -> None:
    params = {"tile": tile, "stages": 3, "compute_warp_groups": 1, "warp_specialized": True, "tma_store": True,
              "out_dtype": DataType.BFloat16, "epilogue_tile": (tile[0], 32)}
    check_simulated_matmul(params, size, seeds, 1e-2, **build)


@pytest.mark.parametrize("span", sorted(SPANS))
def test_a_spanning_tile_on_one_warp_group_matches_numpy(span: str) -> None:
    for size in SIZES[span]:
        _check(SPANS[span], size, seeds=(0, 1))


@pytest.mark.parametrize("transpose", ["a", "b"])
@pytest.mark.parametrize("span", ["192x64", "64x192"])
def test_a_spanning_tile_reads_either_major_order(span: str, transpose: str) -> None:
    _check(SPANS[span], SIZES[span][0], seeds=(2,), **{f"transpose_{transpose}": True})


@pytest.mark.parametrize("source,shape,tile,swapped,split", [
    ((176, 12288, 8192), (176, 192, 256), (192, 128, 64), False, 1),     # over a wave of 64 columns: 192 x 128
    ((176, 12288, 8192), (192, 176, 256), (192, 128, 64), False, 1),
    ((176, 8192, 8192), (176, 192, 256), (176, 64, 64), True, 1),       # a wave of them: all of M, swapped
    ((83, 2536, 14536), (90, 200, 384), (96, 64, 64), True, 3),         # K in 3 splits
])
def test_the_suggested_span_schedules_and_simulates(source: tuple[int, int, int], shape: tuple[int, int, int],
                                                    tile: tuple[int, int, int], swapped: bool, split: int) -> None:
    """The rules' span and short-M parameters (taken from a problem they apply to) on a small problem of the same
    skinny side."""
    params = suggest_matmul_params(matmul_fusion(*source))
    assert (params.tile, params.compute_warp_groups, params.swap_ab, params.split_k) == (tile, 1, swapped, split)
    fusion = matmul_fusion(*shape)
    schedule_matmul(fusion, replace(params, stages=3))          # K of 4 tiles: no deeper than them
    m, n, k = shape
    inputs = random_inputs(fusion, [(m, k), (k, n)], seed=7)
    (out,) = simulate(lower(fusion), inputs, seed=0)
    assert rel_error(out, evaluate(fusion, inputs)[0]) < 1e-2
