"""Thread-block clusters: the multicast loads of a shared tile and the barriers that make them safe.

Reads: the fusion's ``cluster_dims`` and each TMA-loaded tensor's ``multicast`` (``TensorView.set_multicast``),
the ``buffers``, ``circular`` and ``mbarriers`` analyses, and the kernel after ``launch`` (its TMA loads,
mbarrier inits and arrives, the block syncs around them, its tensor maps).
Writes, for a kernel launched in clusters (``Kernel.cluster_dims``), where a tensor is multicast along a block
index the cluster spans ``n`` blocks of:

- each ``TmaLoad`` of a multicast tensor: the block whose coordinate in its cluster along that index is ``r``
  loads the ``r``-th of ``n`` pieces of the box (split along its outermost axis longer than 1; the tensor map's
  box is the piece) with ``.multicast::cluster`` to the ``n`` blocks of its cluster that differ from it along
  that index alone (``multicast_mask``: a constant where the cluster spans one index, shifted by the block's rank
  otherwise), at the piece's offset of the same buffer, so each block receives the whole tile and its "full"
  barrier (whose expected bytes are unchanged) counts it all. A 2-D cluster multicasts one tensor along x and
  another along y (a matmul's A along N, B along M);
- the "empty" barriers of a pipeline holding a multicast tensor: every arrive also reaches the same barrier
  of each peer (``cluster_peers``: the blocks that differ from it along exactly one of the pipeline's multicast
  indices, those whose multicasts write its shared memory and which its own write), and each counts the
  readers of itself and of every peer: a block's producer refills a stage of every peer's buffer, so it waits
  until all of them released it. Readers that arrive in whole warps (a count that is a multiple of 32) send one
  remote arrive per warp, from its lane 0 (after the warp's wgmma wait, which retires the whole warp's reads): a
  barrier counting ``c`` local readers then counts ``c + p c / 32`` for ``p`` peers, and a stage costs a peer
  ``c / 32`` remote arrives instead of ``c``;
- the block sync after those barriers' init becomes ``fence.mbarrier_init`` + a ``ClusterSync`` (no block
  multicasts into, or arrives on, a peer's barrier before the peer initialized it), and the block sync
  before their inval a ``ClusterSync`` (no block invalidates its barriers or exits, and with them its
  shared memory, while a peer may still arrive on them).
Guarantees: every multicast tile is whole in every block of the cluster before its full barrier's phase
completes; no stage of any block is refilled while a reader of any block that shares it may read it.

A persistent matmul in clusters (``schedule_matmul``) spans blockIdx.y alone, the block's rank, while blockIdx.x
walks the cluster tiles: the multicast tile depends on the cluster tile, never on the rank, which is what the
check of ``_piece`` asks of any multicast.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import ParallelType, TensorView
from fusion_ir.scalar import Val
from target import current as current_target

from ..analysis import Analyses
from ..errors import LoweringError
from ..kernel_ir import (
    BlockSync,
    Buffer,
    ClusterSync,
    ElectSync,
    IfThenElse,
    Kernel,
    Let,
    MBarrierArrive,
    MBarrierInit,
    MBarrierInval,
    MBarrierRemoteArrive,
    Node,
    TensorMapParam,
    TmaLoad,
    children,
    rewrite,
    walk,
)

BLOCK_INDICES = (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    dims = a.fusion.cluster_dims
    shared = {a.buffers.buffers[tv]: tv for tv in a.ids.tensors if tv.multicast is not None}
    if dims == (1, 1, 1):
        if shared:
            tv = next(iter(shared.values()))
            raise LoweringError(f"T{tv.name}: multicast along {tv.multicast.name}, but the fusion is not launched "
                                f"in clusters (Fusion.set_cluster_dims)")
        return replace(kernel, cluster_dims=dims)
    for tv in shared.values():
        _check_spans(tv, dims)
    lets = {n.name: n.value for n in walk(kernel.body) if isinstance(n, Let)}
    maps: dict[str, TensorMapParam] = {}
    axes: dict[str, set[int]] = {}           # per barrier array: the block indices its multicasts run along

    def multicast(node: Node) -> Node | None:
        if not isinstance(node, TmaLoad) or node.dst not in shared:
            return None
        tv = shared[node.dst]
        piece = _piece(tv, node, lets, dims)
        maps[piece.tensor_map.name] = piece.tensor_map
        axes.setdefault(node.mbar.name, set()).add(BLOCK_INDICES.index(tv.multicast))
        return piece

    body = rewrite(kernel.body, multicast)
    mbars = set(axes)
    empties = _empty_barriers(a, mbars, shared)
    peers = {name: cluster_peers(dims, along) for name, along in axes.items()}

    warp = current_target().warp_size
    per_warp = {name: _whole_warps(body, name, slots, warp) for name, slots in empties.items()}
    lane = _lane(kernel, warp)

    def release(node: Node) -> Node | tuple[Node, ...] | None:
        if isinstance(node, MBarrierInit) and node.mbar.name in mbars and node.index in empties[node.mbar.name]:
            remote = node.count // warp if per_warp[node.mbar.name] else node.count
            return replace(node, count=node.count + remote * len(peers[node.mbar.name]))
        if isinstance(node, MBarrierArrive) and node.mbar.name in mbars:
            remote: tuple[Node, ...] = tuple(MBarrierRemoteArrive(node.mbar, node.index, peer)
                                             for peer in peers[node.mbar.name])
            if per_warp[node.mbar.name]:
                remote = (IfThenElse(lane.eq(0), remote),)
            return (node, *remote)
        return None

    body = _cluster_syncs(rewrite(body, release), mbars)
    tensor_maps = tuple(maps.get(m.name, m) for m in kernel.tensor_maps)
    return replace(kernel, body=body, tensor_maps=tensor_maps, cluster_dims=dims)


def _whole_warps(body: tuple[Node, ...], mbar: str, slots: list[Val], warp: int) -> bool:
    """The empty barriers of ``mbar`` count readers in whole warps (a constant multiple of the warp size)."""
    counts = [n.count.const_value() for n in walk(body)
              if isinstance(n, MBarrierInit) and n.mbar.name == mbar and n.index in slots]
    return bool(counts) and all(c is not None and c % warp == 0 for c in counts)


def _lane(kernel: Kernel, warp: int) -> Val:
    """The thread's lane in its warp."""
    x, y, z = (Val.symbol(f"threadIdx.{a}") for a in "xyz")
    width = kernel.block[0].const_value()
    if width is not None and width % warp == 0:
        return x % warp
    return (x + kernel.block[0] * (y + kernel.block[1] * z)) % warp


def _coords(dims: tuple[int, int, int]) -> list[Val]:
    """The block's coordinates in its cluster, along x, y and z."""
    return [Val.symbol(pt.cuda_index) % d for pt, d in zip(BLOCK_INDICES, dims)]


def _rank_of(coords: list[Val], dims: tuple[int, int, int]) -> Val:
    """The rank (``%cluster_ctarank``) of the block at ``coords`` in its cluster: x fastest, then y, then z."""
    return coords[0] + coords[1] * dims[0] + coords[2] * (dims[0] * dims[1])


def cluster_peers(dims: tuple[int, int, int], along: set[int]) -> list[Val]:
    """The ranks of the other blocks of the cluster that differ from this one along exactly one of the block
    indices ``along`` (0: x, 1: y, 2: z): the blocks whose shared memory this block's multicasts along those
    indices write, and whose multicasts write this block's."""
    coords = _coords(dims)
    out: list[Val] = []
    for axis in sorted(along):
        for j in range(1, dims[axis]):
            moved = list(coords)
            moved[axis] = (coords[axis] + j) % dims[axis]
            out.append(_rank_of(moved, dims))
    return out


def multicast_mask(dims: tuple[int, int, int], axis: int) -> int | Val:
    """The ranks (bit r: rank r) of the blocks of this block's cluster that share its coordinates except along
    block index ``axis``: a constant where the cluster spans that index alone, else shifted by this block's
    rank with its coordinate along ``axis`` zeroed."""
    stride = 1
    for d in dims[:axis]:
        stride *= d
    pattern = sum(1 << (j * stride) for j in range(dims[axis]))
    coords = _coords(dims)
    coords[axis] = Val.const(0)
    base = _rank_of(coords, dims)
    return pattern if base.const_value() == 0 else Val.const(pattern).shl(base)


def _check_spans(tv: TensorView, dims: tuple[int, int, int]) -> None:
    """A multicast tile is shared along a block index the cluster spans."""
    axis = BLOCK_INDICES.index(tv.multicast)
    if dims[axis] == 1:
        raise LoweringError(f"T{tv.name}: multicast along {tv.multicast.name} needs a cluster that spans that block "
                            f"index; the cluster is {dims}")


def _piece(tv: TensorView, node: TmaLoad, lets: dict[str, Val], dims: tuple[int, int, int]) -> TmaLoad:
    """The block's piece of ``node``'s box, multicast to every block of the cluster."""
    axis = BLOCK_INDICES.index(tv.multicast)
    n = dims[axis]
    index = Val.symbol(tv.multicast.cuda_index)
    if any(index.name in _symbols(c, lets) for c in node.coords):
        raise LoweringError(f"T{tv.name}: multicast along {tv.multicast.name}, but its box at "
                            f"{{{', '.join(str(c) for c in node.coords)}}} depends on {index.name}; the blocks of a "
                            f"cluster along {tv.multicast.name} would need different tiles")
    tmap = node.tensor_map
    outer_first = tmap.box[::-1]
    split = next((k for k, e in enumerate(outer_first) if e > 1), None)
    if split is None or outer_first[split] % n:
        raise LoweringError(f"T{tv.name}: its TMA box {outer_first} (outermost first) has no axis that splits into "
                            f"{n} pieces for the blocks of the cluster to load one each")
    part = outer_first[split] // n
    inner = 1
    for e in outer_first[split + 1:]:
        inner *= e
    piece_bytes = part * inner * node.dst.dtype.size
    align = max(tmap.swizzle.alignment if tmap.swizzle.span else 0, 128)
    if piece_bytes % align:
        raise LoweringError(f"T{tv.name}: a 1/{n} piece of its TMA box {outer_first} is {piece_bytes} bytes, not a "
                            f"multiple of {align} (the swizzle repeat and TMA's shared-memory alignment)")
    rank = index % n
    box = list(outer_first)
    box[split] = part
    coords = list(node.coords)
    coords[split] = coords[split] + rank * part
    piece_map = replace(tmap, box=tuple(box[::-1]))
    return replace(node, tensor_map=piece_map, coords=tuple(coords), dst_index=node.dst_index + rank * (part * inner),
                   multicast=multicast_mask(dims, axis))


def _symbols(v: Val, lets: dict[str, Val]) -> set[str]:
    """The symbols ``v`` depends on, through the ``Let``s it reads."""
    out: set[str] = set()
    stack = [v]
    while stack:
        for name in stack.pop().symbols():
            if name in out:
                continue
            out.add(name)
            if name in lets:
                stack.append(lets[name])
    return out


def _empty_barriers(a: Analyses, mbars: set[str], shared: dict[Buffer, TensorView]) -> dict[str, list[Val]]:
    """The "empty" barrier slots (as the mbarrier pass indexes their init) of each array a multicast completes on."""
    out: dict[str, list[Val]] = {name: [] for name in mbars}
    for loop in a.circular.loops.values():
        if not loop.tma:
            continue
        mbar = a.mbarriers.array(loop)
        if mbar.name not in mbars:
            continue
        if not loop.war_mbarrier:
            names = ", ".join(f"T{tv.name}" for tv in shared.values())
            raise LoweringError(f"{names}: a multicast pipeline releases its stages through mbarriers that every "
                                f"block of the cluster arrives on; {loop.describe()} has none (warp-specialized or "
                                f"uses_mbarrier_for_war=True)")
        out[mbar.name].append(loop.empty(Val.symbol(f"s{loop.group.number}")))
    return out


def _cluster_syncs(body: tuple[Node, ...], mbars: set[str]) -> tuple[Node, ...]:
    """The block syncs after the init and before the inval of the multicast barriers become cluster syncs."""

    def holds(node: Node, kind: type) -> bool:
        return isinstance(node, ElectSync) and any(isinstance(x, kind) and x.mbar.name in mbars
                                                   for x in walk(node.body))

    def scope(nodes: tuple[Node, ...]) -> tuple[Node, ...]:
        out = list(nodes)
        for k, node in enumerate(nodes):
            if not isinstance(node, BlockSync):
                continue
            if k > 0 and holds(nodes[k - 1], MBarrierInit):
                out[k] = ClusterSync("init: the cluster's barriers visible to every block before any multicast",
                                     fence_init=True)
            elif k + 1 < len(nodes) and holds(nodes[k + 1], MBarrierInval):
                out[k] = ClusterSync("no block leaves while a peer may still arrive on its barriers")
        return tuple(out)

    def fix(node: Node) -> Node | None:
        kids = children(node)
        if not kids:
            return None
        return replace(node, **{name: scope(sub) for name, sub in kids})

    return scope(rewrite(body, fix))
