"""GPU tier: the wgmma matmul (examples/matmul_wgmma.py, schedule_matmul) on the H100.

Every tile, stage count and size of the CPU tier, the fused bias + relu + cast epilogue, the
cooperative and ping-pong persistent kernels (with the TMA store's wait after the boxes and deferred), and
4096^3 and 8192^3 against torch.matmul of the same inputs; compute-sanitizer memcheck, racecheck and synccheck on small cases. Outputs are poisoned by the executor; inputs are fresh random numbers.
"""

from __future__ import annotations

import json

import pytest

from examples import matmul_wgmma
from fusion_ir import DataType
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu
TILES = [(128, 128, 64), (128, 256, 64)]
SIZES = [(128, 128, 128), (200, 264, 200), (256, 512, 192)]


# 5 stages of 128 x 256 x 64 bf16 tiles need 240 KiB of shared memory: a ScheduleError (tests/fusion_ir)
CASES = [(TILES[0], s) for s in (2, 3, 4, 5)] + [(TILES[1], s) for s in (2, 3, 4)]


@pytest.mark.parametrize("tile,stages", CASES)
def test_matmul_matches_numpy(tile: tuple[int, int, int], stages: int) -> None:
    fusion = matmul_wgmma.build(tile=tile, stages=stages)
    kernel = lower(fusion)
    for n, (m, nn, k) in enumerate(SIZES):
        inputs = random_inputs(fusion, [(m, k), (k, nn)], seed=4000 + 10 * stages + n)
        assert_matches(fusion, inputs, execute(kernel, inputs))


MODES = {"ws": {"warp_specialized": True}, "persistent": {"persistent": True, "blocks": 5, "group_m": 2},
         "ws_persistent": {"warp_specialized": True, "persistent": True, "blocks": 5, "group_m": 2},
         "ws_persistent_128x128": {"warp_specialized": True, "persistent": True, "blocks": 7, "group_m": 1,
                                   "tile": (128, 128, 64), "compute_warp_groups": 1, "stages": 5},
         "tma_store": {"tma_store": True, "stages": 3, "out_dtype": DataType.BFloat16},
         "ws_tma_store_256x128": {"tma_store": True, "warp_specialized": True, "tile": (256, 128, 64), "stages": 3,
                                  "out_dtype": DataType.BFloat16},
         "ws_persistent_tma_store": {"tma_store": True, "warp_specialized": True, "persistent": True, "blocks": 5,
                                     "stages": 3, "out_dtype": DataType.BFloat16},
         "ping_pong": {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 5, "group_m": 2,
                       "tile": (128, 128, 64), "stages": 4},
         "ping_pong_tma_store": {"tma_store": True, "warp_specialized": True, "persistent": True, "ping_pong": True,
                                 "blocks": 3, "tile": (128, 128, 64), "stages": 4, "out_dtype": DataType.BFloat16}}
# the TMA store's wait deferred to the next tile (MatmulParams.store_wait)
MODES.update({f"{name}_deferred": {**MODES[name], "store_wait": "deferred"}
              for name in ("ws_persistent_tma_store", "ping_pong_tma_store")})


@pytest.mark.parametrize("mode", sorted(MODES))
def test_warp_specialized_and_persistent_match_numpy(mode: str) -> None:
    fusion = matmul_wgmma.build(**MODES[mode])
    kernel = lower(fusion)
    tol = 1e-2 if "out_dtype" in MODES[mode] else 1e-5     # a bf16 result
    for n, (m, nn, k) in enumerate(SIZES + [(384, 256, 512)]):
        inputs = random_inputs(fusion, [(m, k), (k, nn)], seed=4300 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=tol)


def test_fused_epilogue_matches_numpy() -> None:
    fusion = matmul_wgmma.build(epilogue=True)
    kernel = lower(fusion)
    for n, (m, nn, k) in enumerate(SIZES):
        inputs = random_inputs(fusion, [(m, k), (k, nn), (nn,)], seed=4100 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=1e-2)   # a bf16 result


LARGE = [((128, 256, 64), 2, {}), ((128, 128, 64), 1, {}), ((128, 256, 64), 2, {"warp_specialized": True}),
         ((128, 256, 64), 2, {"warp_specialized": True, "persistent": True, "blocks": 132}),
         ((128, 256, 64), 2, {"warp_specialized": True, "tma_store": True, "stages": 3,
                              "out_dtype": DataType.BFloat16}),
         ((128, 256, 64), 2, {"warp_specialized": True, "persistent": True, "blocks": 132, "tma_store": True,
                              "stages": 3, "out_dtype": DataType.BFloat16}),
         ((128, 128, 64), 2, {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 132,
                              "stages": 4}),
         ((128, 128, 64), 2, {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 132,
                              "tma_store": True, "stages": 4, "out_dtype": DataType.BFloat16}),
         ((128, 192, 64), 2, {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 132,
                              "stages": 4}),
         ((128, 192, 64), 2, {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 132,
                              "tma_store": True, "stages": 4, "out_dtype": DataType.BFloat16})]
# a deferred wait keeps a staging tile per ping-pong group: two 128 x 192 tiles leave no room for 4 stages
LARGE += [(tile, groups, {**params, "store_wait": "deferred"}) for tile, groups, params in LARGE
          if params.get("persistent") and params.get("tma_store") and tile != (128, 192, 64)]


@pytest.mark.parametrize("size", [4096, 8192])
@pytest.mark.parametrize("tile,groups,params", LARGE)
def test_large_matches_torch(size: int, tile: tuple[int, int, int], groups: int, params: dict) -> None:
    torch = torch_or_skip()   # imported at collection: after cuda-python kernels, importing torch failed
    a = torch.randn(size, size, device="cuda").bfloat16()
    b = torch.randn(size, size, device="cuda").bfloat16()
    (out,) = execute(lower(matmul_wgmma.build(tile=tile, compute_warp_groups=groups, **params)), [a, b])
    expected = a.double() @ b.double()
    err = ((out.double() - expected).norm() / expected.norm()).item()
    torch_err = ((torch.matmul(a, b).double() - expected).norm() / expected.norm()).item()
    if "out_dtype" in params:
        assert err < 1.5 * torch_err    # a bf16 result: as close as torch's bf16 result
    else:
        assert err < 1e-5, err
        assert err <= torch_err   # fp32 out is at least as close as torch's bf16 out


SANITIZED = {"pipelined": {}, "ws_persistent": {"warp_specialized": True, "persistent": True, "blocks": 3},
             "ws_tma_store": {"warp_specialized": True, "tma_store": True, "stages": 3, "out_dtype": "bf16"},
             "ping_pong_tma_store": {"warp_specialized": True, "persistent": True, "ping_pong": True, "blocks": 3,
                                     "tile": [128, 128, 64], "stages": 4, "tma_store": True, "out_dtype": "bf16"},
             "ping_pong_tma_store_deferred": {"warp_specialized": True, "persistent": True, "ping_pong": True,
                                              "blocks": 3, "tile": [128, 128, 64], "stages": 4, "tma_store": True,
                                              "out_dtype": "bf16", "store_wait": "deferred"},
             "ws_persistent_tma_store_deferred": {"warp_specialized": True, "persistent": True, "blocks": 3,
                                                  "stages": 3, "tma_store": True, "out_dtype": "bf16",
                                                  "store_wait": "deferred"}}


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("mode", sorted(SANITIZED))
def test_compute_sanitizer_is_clean(tool: str, mode: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(SANITIZED[mode]))


def test_bfloat16_output_matches_numpy() -> None:
    fusion = matmul_wgmma.build(out_dtype=DataType.BFloat16)
    inputs = random_inputs(fusion, [(200, 200), (200, 264)], seed=4200)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=1e-2)
