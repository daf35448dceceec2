"""The cluster pass (``lowering/passes/cluster.py``): a multicast operand's boxes split among the blocks of the
cluster, the empty barriers counted and released across it, cluster barriers after the init and before the
exit, the grid rounded up to whole clusters; and what it refuses."""

from __future__ import annotations

from dataclasses import replace

import pytest

from examples import matmul_wgmma
from fusion_ir import LoadStoreOpType, ParallelType
from fusion_ir.exprs import load_kind
from fusion_ir.scalar import Val
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from lowering.verify import VerifyError, verify


def _fusion(cluster=(2, 1), **params):
    fields = {"tile": (128, 128, 64), "stages": 3, "compute_warp_groups": 1, "warp_specialized": True}
    return matmul_wgmma.build(**{**fields, **params}, cluster=cluster)


def _nodes(kern: k.Kernel, kind: type) -> list:
    return [n for n in k.walk(kern.body) if isinstance(n, kind)]


@pytest.mark.parametrize("cluster,dims,shared,axis", [((2, 1), (1, 2, 1), "tmap_T1", "y"),
                                                      ((1, 2), (2, 1, 1), "tmap_T0", "x")])
def test_the_shared_operand_is_split_and_multicast(cluster, dims, shared: str, axis: str) -> None:
    plain = lower(_fusion((1, 1)))
    kern = lower(_fusion(cluster))
    assert kern.cluster_dims == dims
    maps = {m.name: m.box for m in kern.tensor_maps}
    before = {m.name: m.box for m in plain.tensor_maps}
    for name, box in before.items():   # boxes innermost first: the outermost extent halves
        assert maps[name] == (box[:-1] + (box[-1] // 2,) if name == shared else box)
    loads = _nodes(kern, k.TmaLoad)
    for load in loads:
        assert load.multicast == (0b11 if load.tensor_map.name == shared else None)
        if load.multicast is not None:
            rank = f"blockIdx.{axis}"
            assert rank in load.dst_index.symbols() and rank in load.coords[0].symbols()
    # each block's full barrier still expects the whole stage: its own operand and the whole shared tile
    assert [n.tx_bytes for n in _nodes(kern, k.MBarrierArriveExpectTx)] == \
        [n.tx_bytes for n in _nodes(plain, k.MBarrierArriveExpectTx)]


@pytest.mark.parametrize("groups", [1, 2])
def test_the_empty_barriers_count_and_hear_both_blocks(groups: int) -> None:
    """Each block's 128 x ``groups`` readers arrive on their own barrier, and lane 0 of each of their warps on the
    peer's too: an empty barrier counts 128 x groups local and 4 x groups remote arrivals."""
    fields = {"tile": (128 * groups, 128, 64), "compute_warp_groups": groups}
    plain, kern = lower(_fusion((1, 1), **fields)), lower(_fusion(**fields))
    counts = sorted(n.count.const_value() for n in _nodes(kern, k.MBarrierInit))
    readers = 128 * groups
    assert counts == sorted(c + c // 32 if c > 1 else c for c in (n.count.const_value()
                                                                    for n in _nodes(plain, k.MBarrierInit)))
    assert readers + readers // 32 in counts
    arrives, remote = _nodes(kern, k.MBarrierArrive), _nodes(kern, k.MBarrierRemoteArrive)
    assert len(arrives) == len(remote) == len(_nodes(plain, k.MBarrierArrive))
    assert all(r.index == a.index for a, r in zip(arrives, remote))
    assert remote[0].cta.evaluate({"blockIdx.y": 3}) == 0 and remote[0].cta.evaluate({"blockIdx.y": 4}) == 1
    lane0 = [n for n in k.walk(kern.body) if isinstance(n, k.IfThenElse)
             and all(isinstance(x, k.MBarrierRemoteArrive) for x in n.then_body)]
    assert len(lane0) == len(remote) and all(str(n.cond) == "(threadIdx.x % 32) == 0" for n in lane0)


def test_cluster_barriers_replace_the_init_and_exit_syncs() -> None:
    kern = lower(_fusion())
    syncs = [n for n in kern.body if isinstance(n, (k.BlockSync, k.ClusterSync))]
    assert [type(n) for n in syncs] == [k.ClusterSync, k.ClusterSync]
    assert [n.fence_init for n in syncs] == [True, False]
    text = str(kern)
    assert "cluster (1, 2, 1)" in text and "multicast 0b11" in text and "fence.mbarrier_init.release.cluster" in text


def test_the_grid_is_whole_clusters_and_the_extra_blocks_store_nothing() -> None:
    kern = lower(_fusion())
    grid = {"i0": 520, "i1": 264, "i2": 264, "i3": 1000}
    assert [int(g.evaluate(grid)) for g in kern.grid] == [8, 6, 1]      # 5 tile rows: a sixth block
    stores = [n for n in k.walk(kern.body) if isinstance(n, k.IfThenElse)
              and any(isinstance(x, k.Assign) and x.buffer.name == "T2" for x in n.then_body)]
    assert stores and all("blockIdx.y < ceilDiv(i0, 128)" in str(n.cond) for n in stores)


def test_a_constant_divisible_shape_still_predicates_the_extra_block() -> None:
    """3 tile rows of a 384-row A split evenly (no bounds predicate of their own): the fourth block of the rounded
    grid must still store nothing."""
    from fusion_ir import DataType, Fusion, ops
    from fusion_ir.schedulers import MatmulParams, schedule_matmul

    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(384, 128), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(128, 256), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    schedule_matmul(fusion, MatmulParams(tile=(128, 128, 64), stages=2, compute_warp_groups=1,
                                         warp_specialized=True, cluster=(2, 1)))
    kern = lower(fusion)
    assert [g.const_value() for g in kern.grid] == [2, 4, 1]
    assert "blockIdx.y < 3" in str(kern)


def test_a_multicast_without_a_cluster_is_refused() -> None:
    fusion = _fusion((1, 1))
    a_s = next(tv for tv in fusion.used_tensors() if load_kind(tv) is LoadStoreOpType.TMA)
    a_s.set_multicast(ParallelType.BIDx)
    with pytest.raises(LoweringError, match=r"multicast along BIDx, but the fusion is not launched in clusters"):
        lower(fusion)


def test_a_multicast_of_a_tile_that_differs_between_the_blocks_is_refused() -> None:
    """A's tile depends on the tile row (blockIdx.y): the blocks of a cluster along y do not share it."""
    fusion = _fusion()
    a_s = next(tv for tv in fusion.used_tensors() if load_kind(tv) is LoadStoreOpType.TMA)
    a_s.set_multicast(ParallelType.BIDy)
    with pytest.raises(LoweringError, match=r"T\d+: multicast along BIDy, but its box .* depends on blockIdx.y"):
        lower(fusion)


def test_a_multicast_along_an_axis_the_cluster_does_not_span_is_refused() -> None:
    fusion = _fusion()
    fusion.set_cluster_dims((2, 1, 1))
    with pytest.raises(LoweringError, match=r"multicast along BIDy needs a cluster that spans that block index"):
        lower(fusion)


def test_verify_refuses_cluster_nodes_outside_a_cluster_kernel() -> None:
    kern = lower(_fusion())
    with pytest.raises(VerifyError, match="rule cluster"):
        verify(replace(kern, cluster_dims=(1, 1, 1)))
    with pytest.raises(VerifyError, match="not a multiple of the cluster's 2"):
        verify(replace(kern, grid=(Val.const(1), Val.const(3), Val.const(1))))
    with pytest.raises(VerifyError, match="over the target's max_cluster_size"):
        verify(replace(kern, cluster_dims=(1, 16, 1)))
    bad = k.rewrite(kern.body, lambda n: replace(n, multicast=0b100) if isinstance(n, k.TmaLoad) and n.multicast
                    else None)
    with pytest.raises(VerifyError, match="multicasts to blocks 0b100"):
        verify(replace(kern, body=bad))


def _at(v, x: int, y: int) -> int:
    return v if isinstance(v, int) else int(v.evaluate({"blockIdx.x": x, "blockIdx.y": y, "blockIdx.z": 0}))


@pytest.mark.parametrize("cluster", [(2, 2), (4, 2), (2, 4)])
def test_a_2d_cluster_multicasts_a_along_its_rows_and_b_along_its_columns(cluster: tuple[int, int]) -> None:
    """Clusters of cm x cn blocks (cn along x, cm along y): a block's A piece goes to the cn blocks of its cluster
    row, its B piece to the cm blocks of its cluster column (masks shifted by its rank); its readers release each
    stage to every block of its row and column, and its empty barrier counts them all."""
    cm, cn = cluster
    kern = lower(_fusion(cluster))
    assert kern.cluster_dims == (cn, cm, 1)
    loads = {n.tensor_map.name: n for n in _nodes(kern, k.TmaLoad)}
    remote = _nodes(kern, k.MBarrierRemoteArrive)[:cm + cn - 2]     # one release's arrives on the peers
    for x in range(cn):
        for y in range(cm):
            rank = x + y * cn
            row = sum(1 << (j + y * cn) for j in range(cn))
            column = sum(1 << (x + j * cn) for j in range(cm))
            assert _at(loads["tmap_T0"].multicast, x, y) == row, (x, y)
            assert _at(loads["tmap_T1"].multicast, x, y) == column, (x, y)
            peers = {int(r.cta.evaluate({"blockIdx.x": x, "blockIdx.y": y})) for r in remote}
            assert peers == {b for b in range(cm * cn) if b != rank and (b % cn == x or b // cn == y)}, (x, y)
    counts = sorted(n.count.const_value() for n in _nodes(kern, k.MBarrierInit))
    assert 128 + 4 * (cm + cn - 2) in counts           # one warp group's readers, and 4 warps of each peer
    if cluster == (2, 2):
        assert "multicast 3 << ((blockIdx.y % 2) * 2))" in str(kern)


def test_verify_refuses_a_2d_mask_that_leaves_the_cluster() -> None:
    kern = lower(_fusion((2, 2)))
    wide = Val.const(0b111).shl((Val.symbol("blockIdx.y") % 2) * 2)       # 0b11100 at y = 1: rank 4 of 4 blocks

    def widen(n):
        return replace(n, multicast=wide) if isinstance(n, k.TmaLoad) and n.tensor_map.name == "tmap_T0" else None

    with pytest.raises(VerifyError, match="multicasts to blocks 0b11100"):
        verify(replace(kern, body=k.rewrite(kern.body, widen)))


def _persistent(cluster=(2, 1), blocks: int = 4) -> k.Kernel:
    return lower(_fusion(cluster, persistent=True, blocks=blocks, group_m=2))


def _lets(kern: k.Kernel) -> dict:
    return {n.name: n.value for n in k.walk(kern.body) if isinstance(n, k.Let)}


def _reads(v: Val, lets: dict) -> set[str]:
    out, stack = set(), [v]
    while stack:
        for name in stack.pop().symbols():
            if name not in out:
                out.add(name)
                if name in lets:
                    stack.append(lets[name])
    return out


@pytest.mark.parametrize("cluster,shared", [((2, 1), "tmap_T1"), ((1, 2), "tmap_T0")])
def test_a_persistent_cluster_walks_cluster_tiles_together(cluster, shared: str) -> None:
    """blockIdx.x is the cluster, blockIdx.y its rank: the grid is (blocks / 2, 2), the skip of cluster tiles past
    the end reads no rank (both blocks run the same iterations), the shared operand's tile is the cluster's (only
    its piece depends on the rank) and the other operand's tile is the rank's."""
    kern = _persistent(cluster)
    assert kern.cluster_dims == (1, 2, 1)
    assert [g.const_value() for g in kern.grid] == [2, 2, 1]
    lets = _lets(kern)
    skips = [n for n in k.walk(kern.body) if isinstance(n, k.IfThenElse) and n.then_body == (k.Continue(),)]
    assert len(skips) == 2 and all("blockIdx.y" not in _reads(s.cond, lets) and "blockIdx.x" in _reads(s.cond, lets)
                                   for s in skips)
    for load in _nodes(kern, k.TmaLoad):
        reads = set().union(*(_reads(c, lets) for c in load.coords))
        assert "blockIdx.x" in reads or load.tensor_map.name != shared
        if load.tensor_map.name == shared:       # the rank picks the piece: zero it and no coordinate reads it
            assert load.multicast == 0b11
            plain = [c.substitute({"blockIdx.y": Val.const(0)}) for c in load.coords]
            assert all("blockIdx.y" not in _reads(c, lets) for c in plain)
        else:
            assert load.multicast is None and "blockIdx.y" in reads


def test_a_persistent_cluster_releases_to_the_peer_from_the_start() -> None:
    """The compute warp groups' arrives that start each stage empty also reach the peer, whose producer counts
    both blocks' readers before its first multicast into a stage."""
    kern = _persistent()
    (pre,) = [n for n in k.walk(kern.body) if isinstance(n, k.ForLoop) and "every stage starts empty" in n.label]
    assert [type(x) for x in k.walk(pre.body)].count(k.MBarrierRemoteArrive) == 1
    counts = sorted({n.count.const_value() for n in _nodes(kern, k.MBarrierInit)})
    assert counts == [1, 128 + 4]
