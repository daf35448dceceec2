"""Async copy statements of the simulator: TMA loads and stores, cp.async, commit and wait groups (the
counters are ``sim_groups``'s; the ``wgmma`` groups' wait retires ``sim_wgmma_state``'s wgmmas).

A statement computes every element's source and destination position and hands the copy to the
async proxy (``sim_async.AsyncEngine``), which lands it later. A TMA box is copied in row-major
order; in a swizzled shared buffer, box element ``p`` (its row-major position from the buffer
start) lives at ``lowering.layout.swizzle_index(p, buffer.swizzle, element bytes)``, as the TMA
unit lays it out. A TMA store's reads of its shared source, until the bulk wait that retires it, and
the ``fence.proxy.async`` its source needs are ``sim_proxy``'s checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering.layout import swizzle_index

from .errors import SimulationError
from .sim_async import AsyncCopy, AsyncEngine
from .sim_eval import Evaluator
from .sim_groups import CommitGroups
from .sim_mbarrier_ops import MBarrierOps
from .sim_memory import Grid, Memory, Storage
from .sim_proxy import AsyncProxy
from .sim_tasks import Ctx, Handler
from .sim_trace import Tracer
from .sim_wgmma_state import WgmmaState


class CopyOps:
    """Async copy statements and their commit groups (``groups``): copies go to ``async_``, a TMA load completes
    on an mbarrier of ``mbarriers``, a TMA store's source reads are ``proxy``'s, a wgmma wait is ``wgmma``'s.
    ``env`` holds the launch's sizes (the global tensors' extents and strides)."""

    def __init__(self, grid: Grid, env: dict[str, Any], evaluator: Evaluator, memory: Memory,
                 mbarriers: MBarrierOps, async_: AsyncEngine, groups: CommitGroups, proxy: AsyncProxy,
                 wgmma: WgmmaState, tracer: Tracer) -> None:
        self.grid = grid
        self.env = env
        self.eval = evaluator
        self.memory = memory
        self.mbarriers = mbarriers
        self.async_ = async_
        self.groups = groups
        self.proxy = proxy
        self.wgmma = wgmma
        self.tracer = tracer

    def handles(self) -> dict[type, Handler]:
        return {k.TmaLoad: self.tma_load, k.TmaStore: self.tma_store, k.CpAsync: self.cp_async,
                k.AsyncCommit: self.async_commit, k.AsyncWait: self.async_wait}

    def _box(self, tmap: k.TensorMapParam, coords: tuple[Val, ...], ctx: Ctx,
             what: str) -> tuple[Storage, np.ndarray, np.ndarray]:
        """Global positions and in-bounds mask [lanes, box elements] of a TMA box, row-major."""
        tensor = tmap.tensor
        glob = self.memory.data_storage(tensor, what)
        # lowering.verify has checked the ranks, element strides, memories, swizzles and types
        extents = [int(s.evaluate(self.env)) for s in tensor.shape]
        strides = [int(s.evaluate(self.env)) for s in tensor.strides]
        n = ctx.lanes.size
        pos = np.zeros((n, 1), dtype=np.int64)
        valid = np.ones((n, 1), dtype=bool)
        for d, box in enumerate(reversed(tmap.box)):  # coords and the copied layout are outermost first
            p = self.eval.per_lane(coords[d], ctx)[:, None] + np.arange(box)[None, :]
            pos = (pos[:, :, None] + (p * strides[d])[:, None, :]).reshape(n, -1)
            valid = (valid[:, :, None] & ((p >= 0) & (p < extents[d]))[:, None, :]).reshape(n, -1)
        pos = np.where(valid, pos, 0)
        if valid.any() and (pos.max() >= glob.size or pos.min() < 0):
            raise SimulationError(f"{what} of {tensor.name}: box reaches element {int(pos.max())} of {glob.size}")
        return glob, pos, valid

    def _shared_box(self, buf: k.Buffer, index: Val, tmap: k.TensorMapParam, width: int, ctx: Ctx,
                    what: str, blocks: np.ndarray | None = None) -> tuple[Storage, np.ndarray]:
        """Flat positions [lanes, box elements] of a TMA box in shared memory, where the TMA unit puts them.

        Box element ``e`` of a copy to ``buf[index]`` has the row-major position ``index + e`` from the
        buffer start; a swizzled buffer holds it at ``swizzle_index(index + e, buf.swizzle, bytes)``.
        ``blocks``: the block whose shared memory each lane's copy goes to (a multicast's peer); default its own.
        """
        st = self.memory.data_storage(buf, what)
        idx = self.eval.per_lane(index, ctx)
        if np.any((idx * st.dtype.size) % 16):
            j = int(np.flatnonzero((idx * st.dtype.size) % 16)[0])
            raise SimulationError(f"{what}: shared address {buf.name}[{int(idx[j])}] is not 16-byte aligned")
        st.positions(self.grid, ctx.lanes, idx, what, width)   # bounds of the row-major range
        element = swizzle_index(idx[:, None] + np.arange(width)[None, :], buf.swizzle, st.dtype.size)
        if element.size and element.max() >= st.size:
            raise SimulationError(f"{what}: the {buf.swizzle.name}-swizzled box reaches {buf.name}[{int(element.max())}] "
                                  f"(size {st.size})")
        rows = self.grid.block_of[ctx.lanes] if blocks is None else blocks
        return st, rows[:, None] * st.size + element

    def tma_load(self, node: k.TmaLoad, ctx: Ctx, i: int) -> None:
        if node.multicast is not None:
            self.tma_multicast(node, ctx)
            return
        what = "TMA load"
        glob, src_pos, valid = self._box(node.tensor_map, node.coords, ctx, what)
        dst, dst_pos = self._shared_box(node.dst, node.dst_index, node.tensor_map, src_pos.shape[1], ctx, f"{what} into {node.dst.name}")
        mb = self.memory.mbar(node.mbar, what)
        keys = self.mbarriers.keys(mb, node.mbar_index, ctx, what)
        mb.check_live(keys, what)
        copy = AsyncCopy(k.CopyKind.TmaLoad, dst, dst_pos, glob, src_pos, valid, ctx.lanes.copy(), ctx.task, mbar=mb, bar_keys=keys,
                         nbytes=src_pos.shape[1] * glob.dtype.size)
        self.async_.issue(copy)
        self.tracer.event("tma.issue", ctx, mb, keys, dst=node.dst.name, bytes=copy.nbytes,
                          coords=[int(self.eval.per_lane(c, ctx)[0]) for c in node.coords])

    def tma_multicast(self, node: k.TmaLoad, ctx: Ctx) -> None:
        """``.multicast::cluster``: the box lands in the shared memory of every block of the mask (at the same
        offset), each copy completing on that block's barrier; a block that has not initialized the barrier yet
        (no cluster sync after the init) or has exited is an error, and so is a mask naming no block or a rank
        outside the cluster. A mask may differ per block (a 2-D cluster's, shifted by the block's rank)."""
        what = "multicast TMA load"
        mb = self.memory.mbar(node.mbar, what)
        mb.check_live(self.mbarriers.keys(mb, node.mbar_index, ctx, what), what)
        masks = self._multicast_masks(node, ctx, what)
        for rank in range(self.grid.cluster_size):
            keep = (masks >> rank) & 1 == 1
            if not keep.any():
                continue
            sub = ctx if keep.all() else ctx.narrow(keep)
            glob, src_pos, valid = self._box(node.tensor_map, node.coords, sub, what)
            own = self.mbarriers.keys(mb, node.mbar_index, sub, what)
            issuers = self.grid.block_of[sub.lanes]
            blocks = self.grid.peer_blocks(issuers, np.full(issuers.shape, rank))
            keys = blocks * mb.size + own % mb.size
            self.mbarriers.check_peer(mb, keys, blocks, issuers, what)
            dst, dst_pos = self._shared_box(node.dst, node.dst_index, node.tensor_map, src_pos.shape[1], sub,
                                            f"{what} into {node.dst.name}", blocks)
            copy = AsyncCopy(k.CopyKind.TmaLoad, dst, dst_pos, glob, src_pos, valid, sub.lanes.copy(), sub.task,
                             mbar=mb, bar_keys=keys, nbytes=src_pos.shape[1] * glob.dtype.size)
            self.async_.issue(copy)
            self.tracer.event("tma.issue", sub, mb, keys, dst=node.dst.name, bytes=copy.nbytes,
                              coords=[int(self.eval.per_lane(c, sub)[0]) for c in node.coords])

    def _multicast_masks(self, node: k.TmaLoad, ctx: Ctx, what: str) -> np.ndarray:
        """Each lane's multicast mask, checked: at least one block, and only ranks of the cluster."""
        if isinstance(node.multicast, int):
            masks = np.full(ctx.lanes.shape, node.multicast, dtype=np.int64)
        else:
            masks = np.broadcast_to(np.asarray(self.eval.per_lane(node.multicast, ctx), dtype=np.int64),
                                    ctx.lanes.shape)
        bad = np.flatnonzero((masks <= 0) | (masks >> self.grid.cluster_size != 0))
        if bad.size:
            j = int(bad[0])
            raise SimulationError(f"{what} into {node.dst.name}: mask {int(masks[j]):#b} of "
                                  f"{self.grid.describe(int(ctx.lanes[j]))} names no block or a rank outside its "
                                  f"cluster of {self.grid.cluster_size} blocks")
        return masks

    def tma_store(self, node: k.TmaStore, ctx: Ctx, i: int) -> None:
        what = "TMA store"
        glob, dst_pos, valid = self._box(node.tensor_map, node.coords, ctx, what)
        src, src_pos = self._shared_box(node.src, node.src_index, node.tensor_map, dst_pos.shape[1], ctx, f"{what} from {node.src.name}")
        self.proxy.tma_store_issue(src, src_pos, ctx, f"{what} from {node.src.name}")
        copy = AsyncCopy(k.CopyKind.TmaStore, glob, dst_pos, src, src_pos, valid, ctx.lanes.copy(), ctx.task,
                         group=self.groups.counter(k.AsyncKind.Bulk)[ctx.lanes].copy())
        self.async_.issue(copy)
        self.tracer.event("tma_store.issue", ctx, None, None, src=node.src.name)

    def cp_async(self, node: k.CpAsync, ctx: Ctx, i: int) -> None:
        what = f"cp.async {node.src.name} -> {node.dst.name}"
        lanes, v = ctx.lanes, node.vector
        dst = self.memory.data_storage(node.dst, what)
        src = self.memory.data_storage(node.src, what)
        pred = (np.ones(lanes.shape, dtype=bool) if node.pred is None
                else np.broadcast_to(np.asarray(self.eval.ev(node.pred, ctx), dtype=bool), lanes.shape))
        ar = np.arange(v)[None, :]
        dst_pos = np.broadcast_to(dst.positions(self.grid, lanes, self.eval.per_lane(node.dst_index, ctx), what, v),
                                  lanes.shape)[:, None] + ar
        sidx = self.eval.per_lane(node.src_index, ctx)
        src_base = np.zeros(lanes.shape, dtype=np.int64)
        if pred.any():
            src_base[pred] = np.broadcast_to(src.positions(self.grid, lanes[pred], sidx[pred], what, v),
                                             (int(pred.sum()),))
        valid = np.broadcast_to(pred[:, None], (lanes.size, v))
        copy = AsyncCopy(k.CopyKind.CpAsync, dst, dst_pos, src, src_base[:, None] + ar, valid, lanes.copy(), ctx.task,
                         group=self.groups.counter(k.AsyncKind.CpAsync)[lanes].copy())
        self.async_.issue(copy)
        self.groups.uncommitted[lanes] += 1
        if self.tracer.enabled and lanes.size:
            self.tracer.event("cp_async.issue", ctx, None, None, dst=node.dst.name, src=node.src.name,
                              dst_index=int(self.eval.per_lane(node.dst_index, ctx)[0]))

    def async_commit(self, node: k.AsyncCommit, ctx: Ctx, i: int) -> None:
        self.groups.counter(node.kind)[ctx.lanes] += 1
        if node.kind is k.AsyncKind.CpAsync:
            self.groups.uncommitted[ctx.lanes] = 0
        self.tracer.event("async.commit", ctx, None, None, group=node.kind.value)

    def async_wait(self, node: k.AsyncWait, ctx: Ctx, i: int) -> None:
        counter = self.groups.counter(node.kind)
        if node.kind is k.AsyncKind.Wgmma:
            self.wgmma.wait(node.pending, ctx.lanes)
            self.tracer.event("async.wait", ctx, None, None, group=node.kind.value, pending=node.pending)
            return
        if node.kind is k.AsyncKind.CpAsync:
            self.groups.check_committed(ctx.lanes, f"cp.async.wait_group {node.pending}")
        kinds = (k.CopyKind.CpAsync,) if node.kind is k.AsyncKind.CpAsync else (k.CopyKind.TmaStore,)
        self.async_.wait_groups(kinds, ctx.lanes, counter[ctx.lanes] - node.pending, self.grid.num_lanes)
        if node.kind is k.AsyncKind.Bulk:
            self.proxy.retire_store_reads(ctx.lanes, counter[ctx.lanes] - node.pending)
        self.tracer.event("async.wait", ctx, None, None, group=node.kind.value, pending=node.pending)


__all__ = ["CopyOps"]
