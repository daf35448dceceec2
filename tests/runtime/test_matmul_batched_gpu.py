"""GPU tier: batched matmuls (``examples/matmul_wgmma.build(batch=True)``: ``[B, M, K] @ [B, K, N]``, or
``[B, M, K] @ [B, N, K]^T``, the batch on blockIdx.z or merged into the persistent tile index, each operand a 3-D
TMA box of batch extent 1), and a 2-D B broadcast over the batch (loaded with its 2-D box), each against numpy's
float64 product of the same inputs (relative error) at an attention-like shape, 8 x 2048 x 128 x 2048 (Q K^T of
one layer's heads, and P V at 8 x 2048 x 2048 x 128), and an odd one no tile divides, 3 x 1000 x 776 x 264. Inputs
are fresh random numbers; the executor poisons the outputs (NaN) before the launch, so an element the kernel never
writes fails. compute-sanitizer memcheck, racecheck and synccheck on a persistent batched kernel."""

from __future__ import annotations

import json

import numpy as np
import pytest

from examples import matmul_wgmma
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean

pytestmark = pytest.mark.gpu
SIZES = [(8, 2048, 128, 2048), (8, 2048, 2048, 128), (3, 1000, 776, 264)]     # B, M, N, K
CONFIGS = {
    "pipelined": {},                                                # 128 x 256 x 64, 4 stages, 2 warp groups
    "b_transposed_128x128": {"tile": (128, 128, 64), "stages": 5, "compute_warp_groups": 1, "transpose_b": True},
    "ws_persistent_tma_store": {"warp_specialized": True, "persistent": True, "blocks": 132, "stages": 3,
                                "tma_store": True, "out_dtype": DataType.BFloat16, "transpose_b": True},
    "ping_pong": {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 132,
                  "tile": (128, 128, 64), "stages": 4},
    "bias_relu_epilogue": {"epilogue": True, "warp_specialized": True},
}


def _check(fusion: Fusion, shapes: list[tuple[int, ...]], out_shape: tuple[int, ...], rounded: bool) -> None:
    kernel = lower(fusion)
    seed = int(np.random.default_rng().integers(2**31))              # fresh inputs every run
    inputs = random_inputs(fusion, shapes, seed=seed)
    (out,) = execute(kernel, inputs)
    assert out.shape == out_shape
    try:
        assert_matches(fusion, inputs, [out], tol=1e-2 if rounded else 1e-5)
    except AssertionError as e:
        raise AssertionError(f"{' x '.join(map(str, shapes))}, inputs of seed {seed}: {e}") from e


@pytest.mark.parametrize("size", SIZES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_each_batched_config_matches_numpy(config: str, size: tuple[int, int, int, int]) -> None:
    params = CONFIGS[config]
    fusion = matmul_wgmma.build(batch=True, **params)
    b, m, n, k = size
    shapes = matmul_wgmma.input_shapes(m, n, k, False, bool(params.get("transpose_b")),
                                       epilogue=bool(params.get("epilogue")), batch=b)
    _check(fusion, shapes, (b, m, n), "out_dtype" in params or bool(params.get("epilogue")))


@pytest.mark.parametrize("persistent", [False, True], ids=["grid_z", "persistent"])
@pytest.mark.parametrize("size", SIZES, ids=lambda s: "x".join(map(str, s)))
def test_a_2d_b_broadcast_over_the_batch_matches_numpy(size: tuple[int, int, int, int], persistent: bool) -> None:
    """x [B, M, K] @ w^T, w [N, K] (nn.Linear over a batch of sequences): w is read once per tile, 2-D."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3, dtype=DataType.BFloat16)
        w = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(x, ops.transpose(w, 0, 1)), DataType.BFloat16))
    extra = {"warp_specialized": True, "persistent": True, "blocks": 132, "stages": 3, "tma_store": True} \
        if persistent else {"stages": 4}
    schedule_matmul(fusion, MatmulParams(tile=(128, 256, 64), **extra))
    b, m, n, k = size
    _check(fusion, [(b, m, k), (n, k)], (b, m, n), True)


SANITIZED = {"batched_b_t_ws_persistent_tma_store": {"batch": True, "transpose_b": True, "warp_specialized": True,
                                                     "persistent": True, "blocks": 3, "stages": 3, "tma_store": True,
                                                     "out_dtype": "bf16"}}


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("mode", sorted(SANITIZED))
def test_compute_sanitizer_is_clean(tool: str, mode: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(SANITIZED[mode]))


@pytest.mark.parametrize(("size", "shared_b"), [((16, 1024, 1024, 1024), True), ((4, 2048, 2048, 1024), False),
                                                 ((5, 1800, 1024, 1280), False)], ids=str)
def test_the_suggested_persistent_tile_of_a_batch_matches_numpy(size: tuple[int, int, int, int],
                                                                 shared_b: bool) -> None:
    """The rules' persistent 256 x 128 tile over the tiles of every batch (its group of row tiles fitted to one
    batch's rows), with B batched or broadcast, at shapes a tile divides and one it does not."""
    from fusion_ir.schedulers import suggest_matmul_params
    from runtime.tuning import matmul_fusion

    b, m, n, k = size
    fusion = matmul_fusion(m, n, k, batch=b, shared_b=shared_b)
    params = suggest_matmul_params(fusion)
    assert params.persistent and params.tile == (256, 128, 64) and params.store_wait == "carried", params
    schedule_matmul(fusion, params)
    _check(fusion, [(b, m, k), (k, n) if shared_b else (b, k, n)], (b, m, n), True)
