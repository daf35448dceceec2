"""examples/matmul_wgmma in the simulator: every tile, stage count and size the issue names, the fused
epilogue, and the warp-specialized and persistent schedules, against numpy (float64 of the bf16 inputs)."""

from __future__ import annotations

import pytest

from examples import matmul_wgmma
from fusion_ir import DataType, ScheduleError
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

SIZES = [(128, 128, 128), (200, 264, 200), (256, 512, 192)]       # M, N, K
CASES = [((128, 128, 64), s) for s in (2, 3, 4, 5)] + [((128, 256, 64), s) for s in (2, 3, 4)]


def _check(fusion, seed: int, extra: list | None = None, tol: float = 1e-5) -> None:
    kernel = lower(fusion)
    for n, (m, nn, k) in enumerate(SIZES):
        shapes = [(m, k), (k, nn)] + ([(nn,)] if extra else [])
        inputs = random_inputs(fusion, shapes, seed=seed + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed + n), tol=tol)


@pytest.mark.parametrize("tile,stages", CASES)
def test_tiles_and_stages(tile: tuple[int, int, int], stages: int) -> None:
    _check(matmul_wgmma.build(tile=tile, stages=stages, compute_warp_groups=2 if tile[1] == 256 else 1), seed=10)


def test_five_stages_of_the_wide_tile_do_not_fit() -> None:
    with pytest.raises(ScheduleError, match="stages: 5 stages .* over the 232448-byte limit"):
        matmul_wgmma.build(tile=(128, 256, 64), stages=5)


def test_fused_bias_relu_cast_epilogue() -> None:
    _check(matmul_wgmma.build(epilogue=True), seed=20, extra=[True], tol=1e-2)   # a bf16 result


@pytest.mark.parametrize("params", [{"warp_specialized": True}, {"persistent": True, "blocks": 3, "group_m": 2},
                                    {"warp_specialized": True, "persistent": True, "blocks": 3, "group_m": 2}],
                         ids=["ws", "persistent", "ws_persistent"])
def test_warp_specialized_and_persistent(params: dict) -> None:
    _check(matmul_wgmma.build(**params), seed=30)


@pytest.mark.parametrize("params", [{"tma_store": True, "stages": 3},
                                    {"tma_store": True, "warp_specialized": True, "tile": (256, 128, 64), "stages": 3},
                                    {"tma_store": True, "warp_specialized": True, "persistent": True, "blocks": 3,
                                     "stages": 3}],
                         ids=["tma_store", "ws_256x128_tma_store", "ws_persistent_tma_store"])
def test_tma_store_epilogue(params: dict) -> None:
    _check(matmul_wgmma.build(out_dtype=DataType.BFloat16, **params), seed=50, tol=1e-2)   # a bf16 result


def test_half_operands() -> None:
    _check(matmul_wgmma.build(tile=(64, 64, 32), stages=3, compute_warp_groups=1, dtype=DataType.Half), seed=40)
