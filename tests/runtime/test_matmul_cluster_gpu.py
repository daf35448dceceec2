"""Cluster matmuls (``MatmulParams.cluster``: 2 or 4 blocks along one axis, or 2-D clusters of 4 or 8, ``examples/matmul_cluster``; a tile per block or persistent) on the GPU: ``__cluster_dims__``, TMA
multicast of the shared operand, remote mbarrier arrives and cluster barriers, against numpy at sizes off the tile
(odd tile counts: the grid rounded up to whole clusters) and against torch at 4096^3 and an odd shape.

``pytest -m gpu tests/runtime/test_matmul_cluster_gpu.py`` on an H100."""

from __future__ import annotations

import json

import pytest

from examples import matmul_cluster, matmul_wgmma
from fusion_ir import DataType
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import assert_as_close_as_torch, torch_or_skip

pytestmark = pytest.mark.gpu
SIZES = [(200, 264, 136), (520, 1000, 264), (136, 392, 72), (128, 128, 64)]    # M, N, K
CLUSTERS = [(2, 1), (1, 2), (4, 1), (1, 4)]
CLUSTERS_2D = [(2, 2), (4, 2), (2, 4)]      # a block per tile only: A multicast along the cluster's rows, B its columns
MODES = {"128x128_w1": {"tile": (128, 128, 64), "stages": 3, "compute_warp_groups": 1},
         "128x256": {"tile": (128, 256, 64), "stages": 4},
         "256x128_tma_store": {"tile": (256, 128, 64), "stages": 3, "tma_store": True,
                               "out_dtype": DataType.BFloat16},
         "pipelined": {"tile": (128, 128, 64), "stages": 3, "compute_warp_groups": 1, "warp_specialized": False}}


@pytest.mark.parametrize("cluster", CLUSTERS + CLUSTERS_2D)
@pytest.mark.parametrize("mode", sorted(MODES))
def test_cluster_matmul_matches_numpy(mode: str, cluster: tuple[int, int]) -> None:
    params = {"warp_specialized": True, **MODES[mode]}
    fusion = matmul_wgmma.build(**params, cluster=cluster)
    kernel = lower(fusion)
    tol = 1e-2 if "out_dtype" in params else 1e-5
    for n, (m, nn, k) in enumerate(SIZES):
        inputs = random_inputs(fusion, [(m, k), (k, nn)], seed=6100 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=tol)


@pytest.mark.parametrize("shape", [(4096, 4096, 4096), (2900, 2872, 1000)])   # 23 tile rows or columns: one extra block
@pytest.mark.parametrize("tile", [(128, 256, 64), (256, 128, 64)])
@pytest.mark.parametrize("cluster", CLUSTERS + CLUSTERS_2D)
def test_large_matches_torch(cluster: tuple[int, int], tile: tuple[int, int, int], shape: tuple[int, int, int]) -> None:
    torch = torch_or_skip()
    m, n, k = shape
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    fusion = matmul_cluster.build(cluster=cluster, tile=tile, stages=3, tma_store=True)
    (out,) = execute(lower(fusion), [a, b])
    assert_as_close_as_torch(out, a, b)


@pytest.mark.parametrize("shape", [(1536, 1536, 6000), (450, 2888, 4104)])   # whole clusters; rows and columns padded
@pytest.mark.parametrize("tile", [(128, 160, 64), (128, 96, 64)])
def test_the_rules_2d_cluster_tiles_match_torch(tile: tuple[int, int, int], shape: tuple[int, int, int]) -> None:
    """The tiles the rules run in 2-D clusters under a wave (``CLUSTER_TILES``): an N-major B in 64-byte swizzle rows
    of 32 columns, each piece of it a quarter or half of a box."""
    torch = torch_or_skip()
    m, n, k = shape
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    fusion = matmul_cluster.build(cluster=(2, 2), tile=tile, stages=6, tma_store=True)
    (out,) = execute(lower(fusion), [a, b])
    assert_as_close_as_torch(out, a, b)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("cluster", CLUSTERS + CLUSTERS_2D)
def test_compute_sanitizer_is_clean(tool: str, cluster: tuple[int, int]) -> None:
    params = {"warp_specialized": True, "tile": [128, 128, 64], "stages": 3, "compute_warp_groups": 1,
              "cluster": list(cluster)}
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(params))


# Persistent in clusters (``MatmulParams(persistent=True, cluster=...)``): blockIdx.x the cluster walking cluster
# tiles (adjacent tiles that share the multicast operand's tile), blockIdx.y its rank. Few blocks at the small sizes
# so each cluster walks several cluster tiles; 200 / 520 / 136 rows: a cluster tile whose second tile is past the end.
PERSISTENT_MODES = {"128x128_w1": {"tile": (128, 128, 64), "stages": 3, "compute_warp_groups": 1},
                    "256x128_tma_store": {"tile": (256, 128, 64), "stages": 3, "tma_store": True,
                                          "out_dtype": DataType.BFloat16},
                    "ping_pong": {"tile": (128, 128, 64), "stages": 4, "compute_warp_groups": 2, "ping_pong": True}}


@pytest.mark.parametrize("cluster", CLUSTERS)
@pytest.mark.parametrize("mode", sorted(PERSISTENT_MODES))
def test_persistent_cluster_matmul_matches_numpy(mode: str, cluster: tuple[int, int]) -> None:
    params = {"warp_specialized": True, "persistent": True, "blocks": 8, "group_m": 4, **PERSISTENT_MODES[mode]}
    fusion = matmul_wgmma.build(**params, cluster=cluster)
    kernel = lower(fusion)
    tol = 1e-2 if "out_dtype" in params else 1e-5
    for n, (m, nn, k) in enumerate(SIZES):
        inputs = random_inputs(fusion, [(m, k), (k, nn)], seed=6200 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=tol)


# 4096 x 4096 x 1024: the mid-K shape cuBLAS runs persistent in clusters; 2900 x 2872 x 1000: 23 (12 x 2 - 1) tile
# rows or columns, a cluster tile with its second tile past the end in every column of them
@pytest.mark.parametrize("shape", [(4096, 4096, 1024), (2900, 2872, 1000)])
@pytest.mark.parametrize("tile", [(256, 128, 64), (128, 256, 64)])
@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
def test_persistent_large_matches_torch(cluster: tuple[int, int], tile: tuple[int, int, int],
                                        shape: tuple[int, int, int]) -> None:
    torch = torch_or_skip()
    from runtime.sm_count import sm_count

    m, n, k = shape
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    blocks = sm_count() // 2 * 2
    fusion = matmul_cluster.build(cluster=cluster, tile=tile, stages=3, tma_store=True, persistent=True,
                                  blocks=blocks)
    (out,) = execute(lower(fusion), [a, b])
    assert_as_close_as_torch(out, a, b)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
def test_persistent_compute_sanitizer_is_clean(tool: str, cluster: tuple[int, int]) -> None:
    params = {"warp_specialized": True, "tile": [128, 128, 64], "stages": 3, "compute_warp_groups": 1,
              "persistent": True, "blocks": 4, "group_m": 2, "cluster": list(cluster)}
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(params))
