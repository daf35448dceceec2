"""``MatmulParams.cluster``: which clusters the matmul scheduler takes, and the schedule they make (the fusion's
cluster dimensions, the multicast operand); ``Fusion.set_cluster_dims`` and ``TensorView.set_multicast``."""

from __future__ import annotations

import dataclasses
import json

import pytest

import target
from examples import matmul_wgmma
from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ScheduleError, ops
from fusion_ir.exprs import load_kind
from fusion_ir.schedulers import MatmulParams
from target import current as current_target


def _tma_tiles(fusion: Fusion) -> list:
    return [tv for tv in fusion.used_tensors() if load_kind(tv) is LoadStoreOpType.TMA]


@pytest.mark.parametrize("cluster,dims,shared,along", [((2, 1), (1, 2, 1), 1, ParallelType.BIDy),
                                                       ((1, 2), (2, 1, 1), 0, ParallelType.BIDx)])
def test_a_cluster_multicasts_the_operand_its_blocks_share(cluster, dims, shared: int, along) -> None:
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, warp_specialized=True,
                                cluster=cluster)
    assert fusion.cluster_dims == dims
    a_s, b_s = _tma_tiles(fusion)
    assert [a_s.multicast, b_s.multicast] == [along if k == shared else None for k in (0, 1)]
    assert f"multicast: {along.name}" in (a_s, b_s)[shared].transforms_string()


def test_no_cluster_by_default() -> None:
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, warp_specialized=True)
    assert fusion.cluster_dims == (1, 1, 1)
    assert all(tv.multicast is None for tv in _tma_tiles(fusion))


@pytest.mark.parametrize("cluster,rule", [((3, 2), "is not supported"), ((8, 1), "is not supported"),
                                          ((4, 4), "is not supported"),
                                          ((1, 0), "is not supported"), ((2,), "a pair of ints"),
                                          ([2, 1], "a pair of ints"), ((True, 1), "a pair of ints")])
def test_unsupported_clusters_are_refused(cluster, rule: str) -> None:
    with pytest.raises(ScheduleError, match=rf"MatmulParams\.cluster: .*{rule}"):
        MatmulParams(tile=(128, 128, 64), warp_specialized=True, cluster=cluster).validate()


@pytest.mark.parametrize("cluster,shared", [((2, 1), 1), ((1, 2), 0), ((4, 1), 1)])
def test_a_persistent_cluster_walks_cluster_tiles(cluster: tuple[int, int], shared: int) -> None:
    """The cluster is along blockIdx.y, the block's rank; blockIdx.x (the cluster) walks the cluster tiles, so the
    operand the rank's tiles share is multicast along BIDy whichever way the cluster lies."""
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, warp_specialized=True,
                                persistent=True, blocks=8, group_m=4, cluster=cluster)
    size = cluster[0] * cluster[1]
    assert fusion.cluster_dims == (1, size, 1)
    a_s, b_s = _tma_tiles(fusion)
    assert [a_s.multicast, b_s.multicast] == [ParallelType.BIDy if k == shared else None for k in (0, 1)]
    out = fusion.outputs[0]
    assert [(i.parallel_type, i.extent.const_value()) for i in out.loop[1:3]] == \
        [(ParallelType.BIDx, 8 // size), (ParallelType.BIDy, size)]


def test_a_persistent_cluster_needs_whole_clusters_of_blocks() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams\.blocks: 131 with cluster=\(2, 1\) and persistent=True; "
                                            r"the persistent grid is whole clusters of 2 blocks"):
        MatmulParams(tile=(128, 128, 64), warp_specialized=True, persistent=True, blocks=131,
                     cluster=(2, 1)).validate()


@pytest.mark.parametrize("cluster,raster", [((2, 1), "m"), ((1, 2), "n"), ((4, 1), "m")])
def test_a_persistent_cluster_groups_whole_cluster_tiles(cluster: tuple[int, int], raster: str) -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams\.group_m: 3 with cluster=.* whole cluster tiles"):
        MatmulParams(tile=(128, 128, 64), warp_specialized=True, persistent=True, group_m=3, raster=raster,
                     cluster=cluster).validate()
    # across the raster's direction a group is any number of cluster tiles
    other = "n" if raster == "m" else "m"
    MatmulParams(tile=(128, 128, 64), warp_specialized=True, persistent=True, group_m=3, raster=other,
                 cluster=cluster).validate()


def test_a_cluster_over_the_targets_limit_is_refused() -> None:
    small = dataclasses.replace(current_target(), max_cluster_size=1)
    with target.use(small), pytest.raises(ScheduleError, match=r"MatmulParams\.cluster: .*max_cluster_size 1"):
        MatmulParams(tile=(128, 128, 64), warp_specialized=True, cluster=(2, 1)).validate()


def test_set_cluster_dims_checks_its_argument() -> None:
    fusion = Fusion()
    fusion.set_cluster_dims((2, 1, 1))
    assert fusion.cluster_dims == (2, 1, 1)
    with pytest.raises(ScheduleError, match="three positive ints"):
        fusion.set_cluster_dims((2, 0, 1))
    limit = current_target().max_cluster_size
    with pytest.raises(ScheduleError, match=f"portable limit of {limit}"):
        fusion.set_cluster_dims((limit, 2, 1))


def test_set_multicast_needs_a_tma_load_and_a_block_index() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.Float)
        b = ops.exp(a)
        fusion.add_output(b)
    c = a.cache_after(LoadStoreOpType.TMA)
    with pytest.raises(ScheduleError, match="is not a block index"):
        c.set_multicast(ParallelType.TIDx)
    with pytest.raises(ScheduleError, match="is not loaded by TMA"):
        b.set_multicast(ParallelType.BIDx)
    assert c.set_multicast(ParallelType.BIDy).multicast is ParallelType.BIDy


@pytest.mark.parametrize("cluster", [(2, 1), (1, 2)])
def test_a_cluster_with_a_compute_loaded_operand_is_refused(cluster: tuple[int, int]) -> None:
    """K = 100: A's rows are 200 bytes, which TMA cannot copy, so the compute warp groups load A."""
    with pytest.raises(ScheduleError, match=r"MatmulParams\.cluster: .* operand A loaded by the compute warp groups"):
        matmul_wgmma.build(shape=(300, 264, 100), tile=(128, 128, 64), stages=3, compute_warp_groups=1,
                           cluster=cluster)


def test_a_cluster_round_trips_through_the_tuning_cache_json() -> None:
    from fusion_ir.schedulers.tuning_cache import params_from_json, params_to_json

    params = MatmulParams(tile=(128, 256, 64), warp_specialized=True, tma_store=True, cluster=(2, 1))
    assert params_from_json(json.loads(json.dumps(params_to_json(params)))) == params


def test_a_cluster_is_named() -> None:
    from fusion_ir.schedulers.matmul_why import params_name

    assert params_name(MatmulParams(warp_specialized=True, cluster=(1, 2))).endswith(" cluster1x2")
    assert "cluster" not in params_name(MatmulParams(warp_specialized=True))


@pytest.mark.parametrize("cluster,dims", [((2, 2), (2, 2, 1)), ((4, 2), (2, 4, 1)), ((2, 4), (4, 2, 1))])
def test_a_2d_cluster_multicasts_both_operands(cluster: tuple[int, int], dims: tuple[int, int, int]) -> None:
    """``(cm, cn)``: the cluster spans cn tile columns (BIDx) and cm tile rows (BIDy); A, the same along a row, is
    multicast along BIDx, B along BIDy."""
    fusion = matmul_wgmma.build(tile=(128, 128, 64), stages=3, compute_warp_groups=1, warp_specialized=True,
                                cluster=cluster)
    assert fusion.cluster_dims == dims
    a_s, b_s = _tma_tiles(fusion)
    assert (a_s.multicast, b_s.multicast) == (ParallelType.BIDx, ParallelType.BIDy)


def test_a_persistent_2d_cluster_is_refused() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams\.cluster: \(2, 2\) with persistent=True; a persistent "
                                            r"kernel walks cluster tiles along M or N, not both"):
        MatmulParams(tile=(128, 128, 64), warp_specialized=True, persistent=True, blocks=8, cluster=(2, 2)).validate()
