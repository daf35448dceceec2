"""GPU tier: matmuls with transposed operands read in place (``examples/matmul_wgmma.build(transpose_a=...,
transpose_b=...)``): A given [M, K] (K-major) or [K, M] (M-major, the wgmma transpose bit of A), B given [K, N]
(N-major) or [N, K] (K-major, nn.Linear's weight), each against numpy's float64 product of the same inputs
(relative error) at 2048 x 1024 x 512 and 1000 x 776 x 264 (no tile divides it). Inputs are fresh random
numbers; the executor poisons the outputs (NaN) before the launch, so an element the kernel never writes fails.
compute-sanitizer memcheck, racecheck and synccheck on both operands transposed."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from examples import matmul_wgmma
from fusion_ir import DataType
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean

pytestmark = pytest.mark.gpu
LAYOUTS = list(itertools.product((False, True), repeat=2))          # (transpose_a, transpose_b)
SIZES = [(2048, 1024, 512), (1000, 776, 264)]                       # M, N, K
CONFIGS = {
    "pipelined": {},                                                # 128 x 256 x 64, 4 stages, 2 warp groups
    "fp16_128x128": {"tile": (128, 128, 64), "stages": 5, "compute_warp_groups": 1, "dtype": DataType.Half},
    "ws_persistent_tma_store": {"warp_specialized": True, "persistent": True, "blocks": 132, "stages": 3,
                                "tma_store": True, "out_dtype": DataType.BFloat16},
    "ping_pong": {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 132,
                  "tile": (128, 128, 64), "stages": 4},
    "bias_relu_epilogue": {"epilogue": True, "warp_specialized": True},
}


def _ids(layout: tuple[bool, bool]) -> str:
    return f"{'AT' if layout[0] else 'A'}_{'BT' if layout[1] else 'B'}"


@pytest.mark.parametrize("config", sorted(CONFIGS))
@pytest.mark.parametrize("layout", LAYOUTS, ids=_ids)
def test_each_layout_matches_numpy(layout: tuple[bool, bool], config: str) -> None:
    params = CONFIGS[config]
    fusion = matmul_wgmma.build(transpose_a=layout[0], transpose_b=layout[1], **params)
    kernel = lower(fusion)
    rounded = "out_dtype" in params or params.get("epilogue")        # a 16-bit result
    for n, (m, nn, k) in enumerate(SIZES):
        shapes = matmul_wgmma.input_shapes(m, nn, k, *layout, epilogue=bool(params.get("epilogue")))
        seed = int(np.random.default_rng().integers(2**31))          # fresh inputs every run
        inputs = random_inputs(fusion, shapes, seed=seed)
        (out,) = execute(kernel, inputs)
        assert out.shape == (m, nn)
        try:
            assert_matches(fusion, inputs, [out], tol=1e-2 if rounded else 1e-5)
        except AssertionError as e:
            raise AssertionError(f"{m} x {nn} x {k}, inputs of seed {seed}: {e}") from e


SANITIZED = {"a_t_b_t": {"transpose_a": True, "transpose_b": True, "tile": [128, 128, 64], "stages": 3,
                         "compute_warp_groups": 1},
             "b_t_ws_persistent_tma_store": {"transpose_b": True, "warp_specialized": True, "persistent": True,
                                             "blocks": 3, "stages": 3, "tma_store": True, "out_dtype": "bf16"}}


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("mode", sorted(SANITIZED))
def test_compute_sanitizer_is_clean(tool: str, mode: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(SANITIZED[mode]))
