"""The persistent tile order's direction (``MatmulParams.raster``): "m" walks ``group_m`` row tiles down a column of
B, "n" ``group_m`` column tiles along a row of A. Both simulate to numpy at sizes no tile or group divides, with
the cooperative and the ping-pong kernels and a batch; a bad value is refused by name."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _fusion(batch: bool = False) -> Fusion:
    fusion = Fusion()
    with fusion:
        nd = 3 if batch else 2
        a = fusion.add_input(ndim=nd, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=nd, dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    return fusion


PERSISTENT = {"warp_specialized": True, "persistent": True, "blocks": 3, "group_m": 2, "tma_store": True}


@pytest.mark.parametrize("raster", ["m", "n"])
@pytest.mark.parametrize("kind", ["cooperative", "ping-pong", "batched"])
def test_both_rasters_match_numpy(raster: str, kind: str) -> None:
    batch = kind == "batched"
    fusion = _fusion(batch)
    if kind == "ping-pong":
        params = MatmulParams(tile=(128, 128, 64), stages=4, compute_warp_groups=2, ping_pong=True, raster=raster,
                              **PERSISTENT)
    else:
        params = MatmulParams(tile=(128, 128, 64), stages=3, compute_warp_groups=2, raster=raster, **PERSISTENT)
    schedule_matmul(fusion, params)
    kernel = lower(fusion)
    lead = (2,) if batch else ()
    m, n, k = 300, 392, 136                     # 3 x 4 tiles of 128 x 128: groups of 2 leave a partial group
    for seed in (0, 1):
        inputs = random_inputs(fusion, [(*lead, m, k), (*lead, k, n)], seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=1e-2)


def test_the_raster_orders_the_tiles_differently() -> None:
    """The two orders make different kernels (the tile index decomposes the other way)."""
    kernels = []
    for raster in ("m", "n"):
        fusion = _fusion()
        schedule_matmul(fusion, MatmulParams(tile=(128, 128, 64), stages=3, compute_warp_groups=2, raster=raster,
                                             **PERSISTENT))
        kernels.append(str(lower(fusion)))
    assert kernels[0] != kernels[1]


@pytest.mark.parametrize("raster", ["x", "M", None])
def test_a_bad_raster_is_refused_by_name(raster: object) -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.raster: .* must be \"m\" .* or \"n\""):
        MatmulParams(raster=raster).validate(DataType.BFloat16)   # type: ignore[arg-type]


def test_a_group_of_every_row_of_tiles_skips_no_tile() -> None:
    """group_m equal to the rows of tiles (384 rows: 3 of 128, in one group): the tiles divide among the blocks
    (6 tiles, 2 blocks), and A's copy of the tile axis, broadcast along the columns, has only 3: its count must not
    stand in for the loop's (it skipped the second column of tiles, which stayed unwritten)."""
    import numpy as np

    from runtime.tuning import matmul_fusion

    fusion = matmul_fusion(384, 264, 200)
    schedule_matmul(fusion, MatmulParams(tile=(128, 256, 64), stages=3, compute_warp_groups=2, warp_specialized=True,
                                  persistent=True, tma_store=True, blocks=2, group_m=3))
    inputs = random_inputs(fusion, [(384, 200), (200, 264)], 0)
    (out,) = simulate(lower(fusion), inputs)
    expected = inputs[0].astype(np.float64) @ inputs[1].astype(np.float64)
    assert np.all(np.isfinite(out.astype(np.float64)))
    np.testing.assert_allclose(out.astype(np.float64), expected, rtol=2e-2, atol=2e-2 * np.abs(expected).max())
