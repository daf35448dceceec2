"""GPU tier: swapped operands (``MatmulParams.swap_ab``: the wgmma's rows along N, its N along M, the tile staged in
C's layout by ``stmatrix.trans``) against a float64 product, at a large and at odd shapes, in all four layouts, with a
cluster along N and with a fused bias epilogue."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import lower
from runtime import execute
from runtime.tuning import matmul_fusion

pytestmark = pytest.mark.gpu

PERSISTENT = {"stages": "auto", "warp_specialized": True, "persistent": True, "tma_store": True, "swap_ab": True}


def _operands(torch, m: int, n: int, k: int, ta: bool, tb: bool):
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(2**31)))
    a = torch.randn((k, m) if ta else (m, k), device="cuda", generator=g).bfloat16()
    b = torch.randn((n, k) if tb else (k, n), device="cuda", generator=g).bfloat16()
    return a, b, (a.double().T if ta else a.double()) @ (b.double().T if tb else b.double())


@pytest.mark.parametrize("m,n,k,ta,tb,params", [
    (8192, 8192, 2048, False, False, {"tile": (192, 128, 64), **PERSISTENT}),
    (8984, 2872, 5480, False, False, {"tile": (208, 128, 64), **PERSISTENT, "cluster": (1, 2)}),
    (1000, 1112, 600, True, False, {"tile": (208, 128, 64), **PERSISTENT}),
    (1000, 1112, 600, False, True, {"tile": (208, 128, 64), **PERSISTENT, "cluster": (2, 1)}),
    (1000, 1112, 600, True, True, {"tile": (160, 256, 64), "stages": 3, "warp_specialized": True, "swap_ab": True}),
    (1000, 1112, 600, False, False, {"tile": (72, 64, 64), "stages": 3, "compute_warp_groups": 1, "swap_ab": True}),
])
def test_a_swapped_matmul_matches_torch(m: int, n: int, k: int, ta: bool, tb: bool, params: dict) -> None:
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k, transpose_a=ta, transpose_b=tb)
    kernel = lower(schedule_matmul(fusion, MatmulParams(**params)))
    a, b, expected = _operands(torch, m, n, k, ta, tb)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    execute(kernel, [a, b], outputs=[out])
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-2 and not torch.isnan(out).any(), f"relative error {err:.3e} against the float64 product"


@pytest.mark.parametrize("m,n,k", [(4096, 4096, 4096), (1000, 1112, 600)])
def test_a_swapped_bias_gelu_matches_torch(m: int, n: int, k: int) -> None:
    """The bias per column is per fragment row when swapped."""
    torch = pytest.importorskip("torch")
    from examples import matmul_epilogue

    fusion = matmul_epilogue.fusion_of("bias_gelu", (m, n, k))
    kernel = lower(schedule_matmul(fusion, MatmulParams(tile=(208, 128, 64), **{**PERSISTENT, "stages": 3})))
    a, b, product = _operands(torch, m, n, k, False, False)
    bias = torch.randn(n, device="cuda", dtype=torch.float32)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    execute(kernel, [a, b, bias], outputs=[out])
    expected = torch.nn.functional.gelu(product + bias.double(), approximate="tanh")
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-2 and not torch.isnan(out).any(), f"relative error {err:.3e} against the float64 result"


SANITIZED = {"swapped_sub_tiles_cluster": {"tile": [192, 128, 64], "stages": 3, "warp_specialized": True,
                                           "persistent": True, "blocks": 4, "tma_store": True, "out_dtype": "bf16",
                                           "swap_ab": True, "epilogue_tile": [32, 128], "cluster": [1, 2],
                                           "store_wait": "carried"}}


@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("mode", sorted(SANITIZED))
def test_compute_sanitizer_is_clean_on_a_swapped_kernel(tool: str, mode: str) -> None:
    """stmatrix.trans into the ring of staging sub-tiles, carried across tiles, A multicast in clusters along N."""
    import json

    from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean

    if SANITIZER is None:
        pytest.skip("compute-sanitizer is not installed")
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(SANITIZED[mode]))
