"""GPU tier: the tiles that span a skinny side on one compute warp group (``suggest._span_tile``: 192 x 128 for M of
168 to 192 rows over a wave of 64-column tiles, 64 x 192 for N of 192; for N of at most 64, 64 x 64, or 128 x 64 on two
warp groups over a wave of 64-row tiles; for M of at most 192, all of M by 64 swapped, K split where the rules split
it), as the rules suggest them, against torch in float64 (relative error,
as close as torch's own bf16 result) at the shapes they were measured on and at odd ones; inputs fresh each run;
compute-sanitizer on each spanning tile at the example's small sizes (rows and columns past the tile's).

``pytest -m gpu tests/runtime/test_matmul_span_gpu.py`` on an H100."""

from __future__ import annotations

import json

import pytest

from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import execute
from runtime.tuning import matmul_fusion
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import assert_as_close_as_torch, torch_or_skip

pytestmark = pytest.mark.gpu
CASES = [((192, 8192, 8192), False, (192, 64, 64)), ((176, 5000, 8192), True, (176, 64, 64)),
         ((184, 12288, 6144), False, (192, 128, 64)), ((168, 7168, 8192), False, (176, 64, 64)),
         ((8192, 192, 8192), False, (64, 192, 64)), ((8192, 192, 2048), True, (64, 192, 64)),
         ((8192, 48, 8192), False, (64, 64, 64)), ((3001, 56, 3000), True, (64, 64, 64)),
         ((1000, 8, 1000), False, (64, 64, 64)), ((10496, 64, 2816), False, (128, 64, 64)),
         ((16, 8192, 8192), False, (16, 64, 64)), ((1, 4096, 4096), False, (16, 64, 64)),
         ((42, 1240, 1464), True, (48, 64, 64)), ((136, 5000, 6000), False, (144, 64, 64)),
         ((83, 2536, 14536), False, (96, 64, 64)), ((96, 4096, 16384), True, (96, 64, 64)),
         ((183, 10552, 13824), False, (192, 128, 64))]
# the short tile's splits of K
SHORT_SPLITS = {(83, 2536, 14536): 3, (96, 4096, 16384): 2, (1, 4096, 4096): 2}


@pytest.mark.parametrize("shape,transpose_b,tile", CASES, ids=lambda c: "x".join(map(str, c)) if isinstance(c, tuple)
                         else str(c))
def test_the_suggested_spanning_tile_matches_torch(shape: tuple[int, int, int], transpose_b: bool,
                                                    tile: tuple[int, int, int]) -> None:
    torch = torch_or_skip()
    m, n, k = shape
    fusion = matmul_fusion(m, n, k, transpose_b=transpose_b)
    params = suggest_matmul_params(fusion)
    assert params.tile == tile and params.compute_warp_groups == (2 if tile == (128, 64, 64) else 1)
    assert params.swap_ab == (m <= 192 and tile[1] == 64) and params.split_k == SHORT_SPLITS.get(shape, 1)
    schedule_matmul(fusion, params)
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(*((n, k) if transpose_b else (k, n)), device="cuda").bfloat16()
    (out,) = execute(lower(fusion), [a, b])
    assert_as_close_as_torch(out, a, b.t() if transpose_b else b)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("tile", [(192, 64, 64), (64, 192, 64), (64, 64, 64)], ids=["192x64", "64x192", "64x64"])
def test_compute_sanitizer_is_clean(tool: str, tile: tuple[int, int, int]) -> None:
    params = {"warp_specialized": True, "tile": list(tile), "stages": 4, "compute_warp_groups": 1, "tma_store": True,
              "out_dtype": "bf16", "epilogue_tile": [tile[0], 32]}
    if tile == (64, 64, 64):
        params["shape"] = [300, 56, 200]          # N of 56: one column of tiles, its last 8 columns past N
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(params))


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean_on_the_short_tile_split(tool: str) -> None:
    """All of M = 40 rows by 64 (a 48-row tile), swapped, K of 304 in 2 splits: rows and columns past the tile's, a
    partial K tile."""
    params = {"warp_specialized": True, "tile": [48, 64, 64], "stages": 4, "compute_warp_groups": 1, "tma_store": True,
              "out_dtype": "bf16", "swap_ab": True, "split_k": 2, "shape": [40, 200, 304]}
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(params))
