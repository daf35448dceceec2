"""Cluster matmuls (``MatmulParams.cluster``) simulated against numpy: two blocks of a cluster share one operand's
tile by multicast, at sizes that are no multiple of the tile and with an odd number of tile rows or columns (the
grid rounded up to whole clusters: the extra block's tiles are out of bounds), several seeds."""

from __future__ import annotations

import pytest

from examples import matmul_wgmma
from fusion_ir import DataType
from fusion_ir.reference import evaluate
from lowering import lower
from runtime import simulate
from tests.helpers import check_simulated_matmul, random_inputs, rel_error

SIZES = [(200, 264, 136), (520, 1000, 264), (136, 392, 72)]    # M, N, K: 520 / 128 and 392 / 128: odd counts
BASE = {"tile": (128, 128, 64), "stages": 3, "compute_warp_groups": 1, "warp_specialized": True}


def _check(params: dict, size: tuple[int, int, int], seeds: tuple[int, ...], tol: float = 1e-5, **build) -> None:
    check_simulated_matmul(params, size, seeds, tol, **build)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("cluster", [(2, 1), (1, 2), (4, 1), (1, 4)])
def test_cluster_matmul_matches_numpy(cluster: tuple[int, int], size: tuple[int, int, int]) -> None:
    _check({**BASE, "cluster": cluster}, size, seeds=(0, 1, 2))


VARIANTS = {
    "256x128_w2": {**BASE, "tile": (256, 128, 64), "compute_warp_groups": 2},
    "128x256_w2": {**BASE, "tile": (128, 256, 64), "compute_warp_groups": 2, "stages": 2},
    "tma_store": {**BASE, "tma_store": True},
    "pipelined": {**BASE, "warp_specialized": False},
}


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_cluster_variants_match_numpy(variant: str, cluster: tuple[int, int]) -> None:
    params = {**VARIANTS[variant], "cluster": cluster}
    bf16 = params.get("tma_store", False)
    _check(params, (392, 520, 200), seeds=(1,), tol=1e-2 if bf16 else 1e-5,
           **({"out_dtype": DataType.BFloat16} if bf16 else {}))


# 2-D clusters: A multicast to the blocks of a cluster row (blockIdx.x), B to those of a cluster column (blockIdx.y)
CLUSTERS_2D = [(2, 2), (4, 2), (2, 4)]


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("cluster", CLUSTERS_2D)
def test_2d_cluster_matmul_matches_numpy(cluster: tuple[int, int], size: tuple[int, int, int]) -> None:
    """Odd tile counts along both axes: the grid is rounded up to whole clusters in x and in y."""
    _check({**BASE, "cluster": cluster}, size, seeds=(0, 1))


@pytest.mark.parametrize("cluster", CLUSTERS_2D)
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_2d_cluster_variants_match_numpy(variant: str, cluster: tuple[int, int]) -> None:
    params = {**VARIANTS[variant], "cluster": cluster}
    bf16 = params.get("tma_store", False)
    _check(params, (392, 520, 200), seeds=(1,), tol=1e-2 if bf16 else 1e-5,
           **({"out_dtype": DataType.BFloat16} if bf16 else {}))


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2), (4, 1), (1, 4), (2, 2)])
def test_transposed_operands_multicast_their_k_major_tiles(cluster: tuple[int, int]) -> None:
    """A given [K, M] (its tile M-major) and B given [N, K] (K-major): the shared tile's boxes split along their
    own outermost axis."""
    _check({**BASE, "cluster": cluster}, (200, 264, 136), seeds=(2,), transpose_a=True, transpose_b=True)


def test_interleaved_blocks_match_numpy() -> None:
    """Blocks dealt into independently scheduled groups (``interleave_blocks``) drift apart as far as the
    cluster's barriers allow."""
    fusion = matmul_wgmma.build(**BASE, cluster=(2, 1))
    kern = lower(fusion)
    inputs = random_inputs(fusion, [(520, 136), (136, 264)], seed=3)
    expected = evaluate(fusion, inputs)[0]
    for seed in (0, 1):
        (out,) = simulate(kern, inputs, seed=seed, interleave_blocks=seed + 5)
        assert rel_error(out, expected) < 1e-5


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
def test_batched_cluster_matmul_matches_numpy(cluster: tuple[int, int]) -> None:
    """The batch on blockIdx.z: a cluster's blocks are of the same matrix, the shared box has batch extent 1."""
    fusion = matmul_wgmma.build(**BASE, cluster=cluster, batch=True)
    inputs = random_inputs(fusion, matmul_wgmma.input_shapes(200, 264, 136, batch=2), seed=3)
    (out,) = simulate(lower(fusion), inputs, seed=1)
    assert rel_error(out, evaluate(fusion, inputs)[0]) < 1e-5


# Persistent in clusters: ``blocks`` blocks (``blocks / 2`` clusters) walk cluster tiles, pairs of adjacent tiles.
# 300 / 128 and 264 / 128: 3 tile rows or columns, so the last pair's second tile is past the end; 136 x 392 with
# 6 blocks: fewer cluster tiles (4 or 3) than clusters take some, the rest skip every iteration.
PERSISTENT = {**BASE, "persistent": True, "blocks": 4, "group_m": 2}
PERSISTENT_SIZES = [(300, 264, 136), (520, 1000, 264), (136, 392, 72), (200, 136, 200)]


@pytest.mark.parametrize("size", PERSISTENT_SIZES)
@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
def test_persistent_cluster_matmul_matches_numpy(cluster: tuple[int, int], size: tuple[int, int, int]) -> None:
    _check({**PERSISTENT, "cluster": cluster}, size, seeds=(0, 1))


PERSISTENT_VARIANTS = {
    "256x128_w2_tma_store": {**PERSISTENT, "tile": (256, 128, 64), "compute_warp_groups": 2, "tma_store": True},
    "ping_pong": {**PERSISTENT, "compute_warp_groups": 2, "ping_pong": True},
    "six_blocks_group_4": {**PERSISTENT, "blocks": 6, "group_m": 4},
    "raster_n": {**PERSISTENT, "raster": "n", "group_m": 2},
    "sub_tiled_tma_store": {**PERSISTENT, "tma_store": True, "epilogue_tile": (128, 32)},
    "pipelined": {**PERSISTENT, "warp_specialized": False},
    # 4 stages of 256 x 128 beside a ring of two 256 x 32 staging tiles: 230400 bytes of shared memory
    "256x128_w2_4_stages_sub_tiled": {**PERSISTENT, "tile": (256, 128, 64), "compute_warp_groups": 2, "stages": 4,
                                      "tma_store": True, "epilogue_tile": (256, 32)},
}


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
@pytest.mark.parametrize("variant", sorted(PERSISTENT_VARIANTS))
def test_persistent_cluster_variants_match_numpy(variant: str, cluster: tuple[int, int]) -> None:
    params = {**PERSISTENT_VARIANTS[variant], "cluster": cluster}
    bf16 = params.get("tma_store", False)
    _check(params, (300, 520, 200), seeds=(1,), tol=1e-2 if bf16 else 1e-5,
           **({"out_dtype": DataType.BFloat16} if bf16 else {}))


@pytest.mark.parametrize("cluster", [(4, 1), (1, 4)])
def test_persistent_clusters_of_four_match_numpy(cluster: tuple[int, int]) -> None:
    """Two clusters of four blocks; 5 tile rows or 9 tile columns: a cluster tile with three tiles past the end."""
    _check({**PERSISTENT, "blocks": 8, "group_m": 4, "cluster": cluster}, (520, 1160, 136), seeds=(0,))


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
def test_persistent_cluster_transposed_and_batched_match_numpy(cluster: tuple[int, int]) -> None:
    """A given [K, M] and B [N, K] (M = 296: rows of 16-byte multiples for A's TMA, still 3 tile rows); and a batch
    that joins the cluster-tile index (each cluster tile of one matrix)."""
    _check({**PERSISTENT, "cluster": cluster}, (296, 264, 136), seeds=(2,), transpose_a=True, transpose_b=True)
    fusion = matmul_wgmma.build(**PERSISTENT, cluster=cluster, batch=True)
    inputs = random_inputs(fusion, matmul_wgmma.input_shapes(300, 264, 136, batch=2), seed=3)
    (out,) = simulate(lower(fusion), inputs, seed=1)
    assert rel_error(out, evaluate(fusion, inputs)[0]) < 1e-5


def test_persistent_cluster_interleaved_blocks_match_numpy() -> None:
    """The two blocks of a cluster drift apart as far as the barriers allow, over many tiles of their walk."""
    fusion = matmul_wgmma.build(**PERSISTENT, cluster=(2, 1))
    kern = lower(fusion)
    inputs = random_inputs(fusion, [(520, 136), (136, 264)], seed=3)
    expected = evaluate(fusion, inputs)[0]
    for seed in (0, 1):
        (out,) = simulate(kern, inputs, seed=seed, interleave_blocks=seed + 5)
        assert rel_error(out, expected) < 1e-5


@pytest.mark.parametrize("tile", [(128, 160, 64), (128, 96, 64)])
@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, True)])
def test_the_rules_2d_cluster_tiles_match_numpy(tile, transpose_a: bool, transpose_b: bool) -> None:
    """The tiles the rules run in 2 x 2 clusters (``CLUSTER_TILES``): an N-major B in 64-byte swizzle rows of 32
    columns, or B^T and A^T, their boxes split between the blocks of a row and of a column; both grid dimensions
    padded to whole clusters."""
    params = {"tile": tile, "stages": 3, "compute_warp_groups": 2, "warp_specialized": True, "tma_store": True,
              "cluster": (2, 2)}
    _check(params, (296, 344, 136), seeds=(3,), tol=1e-2, out_dtype=DataType.BFloat16, transpose_a=transpose_a,
           transpose_b=transpose_b)
