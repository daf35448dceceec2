"""GPU tier: the 256 x 160 tile (two warp groups of 128 x 160; an N-major B in 64-byte swizzle rows of 32 columns)
the rules pick where it fills the waves or N better, against a float64 product: the rules' kernel, B^T, and an odd
shape no tile divides."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import execute
from runtime.tuning import matmul_fusion

pytestmark = pytest.mark.gpu

TILE = {"tile": (256, 160, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True, "tma_store": True}


@pytest.mark.parametrize("m,n,k,tb,params", [
    (6400, 1600, 3200, False, None),                                   # the rules: 256 x 160
    (3000, 2000, 1000, True, MatmulParams(**TILE)),
    (1000, 1040, 520, False, MatmulParams(**TILE, epilogue_tile=(256, 32))),
])
def test_a_256_by_160_tile_matches_torch(m: int, n: int, k: int, tb: bool, params: MatmulParams | None) -> None:
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k, transpose_b=tb)
    chosen = params or suggest_matmul_params(fusion)
    assert chosen.tile == (256, 160, 64)
    kernel = lower(schedule_matmul(fusion, chosen))
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(2**31)))
    a = torch.randn((m, k), device="cuda", generator=g).bfloat16()
    b = torch.randn((n, k) if tb else (k, n), device="cuda", generator=g).bfloat16()
    (out,) = execute(kernel, [a, b])
    expected = a.double() @ (b.double().T if tb else b.double())
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-2 and not torch.isnan(out).any(), f"relative error {err:.3e} against the float64 product"
