"""GPU tier: the rules' persistent 128 x 256 and 256 x 128 tiles (64-bit indices, 4 stages beside a ring of TM x 32
staging tiles, ``suggest.PERSISTENT_TILES``) against a float64 product: at mid K with many waves, with B^T, at an M
no tile divides and from four waves with K under 16 tiles. (An M-major A keeps a tile
per block: ``suggest._persistent_tile_problem``.)"""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import execute
from runtime.tuning import matmul_fusion

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("m,n,k,ta,tb", [
    (8192, 8192, 1024, False, False),
    (4096, 4096, 4096, False, True),
    (5000, 4096, 2048, False, True),        # B^T at an M no tile divides: 20 rows of tiles, the last group 4
    (3000, 8192, 1024, False, False),       # 12 rows of tiles: groups of 8 and 4, the last row partly out of M
    (6144, 6144, 6144, False, False),       # 96 K tiles: past PERSISTENT_K_TILES, predicted no slower
    (784, 9472, 2944, False, False),        # 128 x 256: 7 rows of 128 are 2 waves, 4 rows of 256 would be 3
])
def test_the_persistent_tile_matches_torch(m: int, n: int, k: int, ta: bool, tb: bool) -> None:
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k, transpose_a=ta, transpose_b=tb)
    params = suggest_matmul_params(fusion)
    assert params.persistent and not params.ping_pong and params.tile in ((256, 128, 64), (128, 256, 64))
    assert params.index_type is DataType.Int64 and params.epilogue_tile == (params.tile[0], 32)
    assert params.stages == 4 and (params.tile == (128, 256, 64)) == (m == 784)
    assert (params.store_wait == "carried") == (params.tile == (256, 128, 64))     # CARRIED_STORE_ROWS
    kernel = lower(schedule_matmul(fusion, params))
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(2**31)))
    a = torch.randn((k, m) if ta else (m, k), device="cuda", generator=g).bfloat16()
    b = torch.randn((n, k) if tb else (k, n), device="cuda", generator=g).bfloat16()
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    execute(kernel, [a, b], outputs=[out])
    expected = (a.double().T if ta else a.double()) @ (b.double().T if tb else b.double())
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-2 and not torch.isnan(out).any(), f"relative error {err:.3e} against the float64 product"


@pytest.mark.parametrize("m,n,k", [
    (8192, 8192, 2048), (5000, 4096, 2048),
    (4096, 4096, 640),                      # 10 K tiles (PERSISTENT_SHORT_K_MARGIN; a plain product runs ping-pong)
])
def test_the_persistent_tile_with_a_bias_matches_torch(m: int, n: int, k: int) -> None:
    """relu(a @ b + bias): an epilogue of 2 ops keeps the persistent tile, its bias TMA-loaded per tile."""
    torch = pytest.importorskip("torch")
    from examples import matmul_epilogue

    fusion = matmul_epilogue.fusion_of("bias_relu", (m, n, k))
    params = suggest_matmul_params(fusion)
    assert params.persistent and params.tile == (256, 128, 64) and params.epilogue_tile == (256, 32)
    assert params.store_wait == "carried"
    kernel = lower(schedule_matmul(fusion, params))
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(2**31)))
    a = torch.randn((m, k), device="cuda", generator=g).bfloat16()
    b = torch.randn((k, n), device="cuda", generator=g).bfloat16()
    bias = torch.randn((n,), device="cuda", generator=g)
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    execute(kernel, [a, b, bias], outputs=[out])
    expected = torch.relu(a.double() @ b.double() + bias.double())
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-2 and not torch.isnan(out).any(), f"relative error {err:.3e} against the float64 result"


@pytest.mark.parametrize("m,n,k", [(8192, 8192, 768), (4096, 4096, 640), (2000, 6144, 576)])
def test_ping_pong_at_a_short_plain_k_matches_torch(m: int, n: int, k: int) -> None:
    """A plain product of 9 to 12 K tiles with rows of 128-byte multiples runs ping-pong with 6 stages
    (``suggest.PING_PONG_PLAIN_K_TILES``); 2000 rows: the last tile row partly out of M."""
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion)
    assert params.ping_pong and params.tile == (128, 128, 64) and params.stages == 6
    _matches_the_float64_product(torch, fusion, params, m, n, k)


@pytest.mark.parametrize("m,n,k", [(3584, 1792, 4096), (2304, 2816, 1024), (3500, 1792, 1024)])
def test_ping_pong_on_waves_matches_torch(m: int, n: int, k: int) -> None:
    """K of 13 to 64 tiles where 128 x 128 tiles fill the waves (``suggest.PING_PONG_WAVE_TILE``): ping-pong with 6
    stages. 2304 x 2816: 396 tiles, 3 per block of 132, so each block's second warp group skips its second turn;
    3500 rows: the last row of tiles 44 rows deep."""
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion, sms=132)
    assert params.ping_pong and params.tile == (128, 128, 64) and params.stages == 6
    _matches_the_float64_product(torch, fusion, params, m, n, k)


@pytest.mark.parametrize("m,n,k", [(784, 9472, 2944), (4224, 3072, 2048)])
def test_the_persistent_tile_across_m_matches_torch(m: int, n: int, k: int) -> None:
    """Where 256-row tiles pad M (784 rows: 4 rows of 256, the last 16 deep; 4224: 17 rows padded to a group of 18),
    the rules take the persistent tile the other way round, 128 x 256 (``suggest.PERSISTENT_TILES``)."""
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion, sms=132)
    assert params.persistent and not params.ping_pong and params.tile == (128, 256, 64)
    assert params.epilogue_tile == (128, 32) and params.index_type is DataType.Int64
    _matches_the_float64_product(torch, fusion, params, m, n, k)


@pytest.mark.parametrize("m,n,k", [(11184, 1880, 640), (9808, 1704, 896), (8200, 4104, 1032), (5000, 7000, 3000)])
def test_persistent_clusters_for_misaligned_rows_match_torch(m: int, n: int, k: int) -> None:
    """Four waves or more and rows that are not 128-byte multiples (N of 1880, 1704 or 7000; K of 1032): the
    persistent 128 x 256 in clusters of two along M (``suggest.PERSISTENT_MISALIGNED_CLUSTER``), at any K; 9808 rows:
    77 rows of tiles, the cluster tiles padded to 78; 8200 rows: an M no tile divides."""
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion, sms=132)
    assert params.persistent and params.cluster == (2, 1) and params.tile == (128, 256, 64)
    _matches_the_float64_product(torch, fusion, params, m, n, k)


@pytest.mark.parametrize("m,n,k", [(8984, 2872, 5480), (3984, 4136, 4336), (4000, 2056, 1032)])
def test_a_tile_per_block_for_misaligned_rows_where_the_persistent_waves_leave_sms_idle_matches_torch(
        m: int, n: int, k: int) -> None:
    """Misaligned rows from four waves where the persistent 128 x 256's last wave is part idle and K has at most
    ``suggest.MISALIGNED_BLOCK_K_TILES`` tiles: 256 x 160 (8984 rows: 36 rows of tiles, padded to whole clusters),
    256 x 128 and 192 x 192 (K of 1032) a tile per block in clusters of two along M (``suggest._misaligned_block``)."""
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion, sms=132)
    assert not params.persistent and params.cluster == (2, 1) and params.tile != (128, 256, 64)
    _matches_the_float64_product(torch, fusion, params, m, n, k)


@pytest.mark.parametrize("cluster", [(4, 1), (1, 4)])
def test_a_persistent_kernel_in_clusters_of_four_with_the_resident_blocks_matches_torch(
        cluster: tuple[int, int]) -> None:
    """A pinned persistent kernel in clusters of four gets the blocks the GPU keeps resident in such clusters (120 on
    an H100, ``Target.cluster_blocks``), each walking its cluster tiles; 2900 x 2872: a cluster tile part past the
    end."""
    torch = pytest.importorskip("torch")
    m, n, k = 2900, 2872, 1000
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion, persistent=True, cluster=cluster, tile=(128, 256, 64))
    assert params.blocks % 4 == 0
    _matches_the_float64_product(torch, fusion, params, m, n, k)


def _matches_the_float64_product(torch, fusion, params, m: int, n: int, k: int) -> None:
    """``fusion`` (a plain ``[M, K] @ [K, N]``) scheduled with ``params`` against torch's float64 product on fresh
    random inputs, the output poisoned with NaN first."""
    kernel = lower(schedule_matmul(fusion, params))
    g = torch.Generator(device="cuda").manual_seed(int(np.random.default_rng().integers(2**31)))
    a = torch.randn((m, k), device="cuda", generator=g).bfloat16()
    b = torch.randn((k, n), device="cuda", generator=g).bfloat16()
    out = torch.full((m, n), float("nan"), device="cuda", dtype=torch.bfloat16)
    execute(kernel, [a, b], outputs=[out])
    expected = a.double() @ b.double()
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert err < 1e-2 and not torch.isnan(out).any(), f"relative error {err:.3e} against the float64 product"


@pytest.mark.parametrize("m,n,k", [
    (3072, 7680, 3200),                     # 16 x 40 tiles of 192 x 192 (WAVE_PERSISTENT_TILES)
    (1100, 12288, 1408),                    # 6 rows of tiles, the last partly out of M: one group of 6
    (4832, 5760, 5504),                     # 86 K tiles: past PERSISTENT_K_TILES, predicted no slower
])
def test_the_persistent_192_x_192_tile_matches_torch(m: int, n: int, k: int) -> None:
    """The persistent tile on three compute warp groups of 64 x 192 (setmaxnreg 152, 192 x 32 staging tiles)."""
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion)
    assert params.persistent and params.tile == (192, 192, 64) and params.compute_warp_groups == 3
    _matches_the_float64_product(torch, fusion, params, m, n, k)


@pytest.mark.parametrize("m,n,k", [
    (9400, 3792, 3528),                     # 74 rows of tiles, 37 cluster rows: groups of 4, the last of 1
    (2096, 11824, 576),                     # 17 rows of tiles, 9 cluster rows: groups of 4, the last of 1
])
def test_persistent_clusters_with_a_partial_last_group_match_torch(m: int, n: int, k: int) -> None:
    """Misaligned rows from four waves: persistent 128 x 256 in clusters of two, walked in groups of 8 rows of tiles
    (4 cluster rows) whose last holds the one cluster row left (``persistent_group_m``, ``merge_grouped``)."""
    torch = pytest.importorskip("torch")
    fusion = matmul_fusion(m, n, k)
    params = suggest_matmul_params(fusion)
    assert params.persistent and params.cluster == (2, 1) and params.group_m == 8
    _matches_the_float64_product(torch, fusion, params, m, n, k)
