"""GPU tier: matmuls whose blocks walk the tiles on a grouped 1-D grid (``MatmulParams.grouped_grid``): the rules'
kernel of a large problem, padded groups along M and along N, and a batch, against a float64 product."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import execute
from runtime.tuning import matmul_fusion

pytestmark = pytest.mark.gpu

WS = {"tile": (128, 256, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True, "tma_store": True}


@pytest.mark.parametrize("m,n,k,batch,params", [
    (512, 16384, 4096, None, None),                                            # the rules: a grouped grid
    (2000, 3000, 520, None, MatmulParams(**WS, grouped_grid=True, group_m=3)),   # 16 row tiles: a padded group
    (2000, 3000, 520, None, MatmulParams(**WS, grouped_grid=True, group_m=5, raster="n")),
    (700, 904, 256, 3, MatmulParams(**WS, grouped_grid=True, group_m=2)),
])
def test_grouped_grids_match_torch(m: int, n: int, k: int, batch: int | None, params: MatmulParams | None) -> None:
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k, batch=batch)
    chosen = params or suggest_matmul_params(fusion)
    assert chosen.grouped_grid
    kernel = lower(schedule_matmul(fusion, chosen))
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(2**31)))
    lead = (batch,) if batch else ()
    a = torch.randn(lead + (m, k), device="cuda", generator=g).bfloat16()
    b = torch.randn(lead + (k, n), device="cuda", generator=g).bfloat16()
    (out,) = execute(kernel, [a, b])
    expected = a.double() @ b.double()
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-2 and not torch.isnan(out).any(), f"relative error {err:.3e} against the float64 product"
