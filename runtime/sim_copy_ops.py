"""Async copy statements of the simulator: TMA loads and stores, cp.async, commit and wait groups
(the ``wgmma`` groups' wait is ``sim_wgmma``'s).

A statement computes every element's source and destination position and hands the copy to the
async proxy (``sim_async.AsyncEngine``), which lands it later. A TMA box is copied in row-major
order; in a swizzled shared buffer, box element ``p`` (its row-major position from the buffer
start) lives at ``lowering.layout.swizzle_index(p, buffer.swizzle, element bytes)``, as the TMA
unit lays it out. A TMA store's reads of its shared source, until the bulk wait that retires it, and
the ``fence.proxy.async`` its source needs are ``sim_proxy``'s checks.
"""

from __future__ import annotations

import numpy as np

from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering.layout import swizzle_index

from .errors import SimulationError
from .sim_async import AsyncCopy
from .sim_memory import Storage
from .sim_scheduler import Ctx


class CopyOps:
    """Async copy statements of a ``Simulator``."""

    def _init_copies(self) -> None:
        n = self.grid.num_lanes
        self.committed = {k.AsyncKind.CpAsync: np.zeros(n, dtype=np.int64), k.AsyncKind.Bulk: np.zeros(n, dtype=np.int64)}
        # cp.async copies each lane issued since its last cp.async.commit_group: a wait_group never waits
        # for them, so a wait (or the thread's exit) with some still uncommitted is a missing commit
        self.uncommitted = np.zeros(n, dtype=np.int64)

    def _box(self, tmap: k.TensorMapParam, coords: tuple[Val, ...], ctx: Ctx,
             what: str) -> tuple[Storage, np.ndarray, np.ndarray]:
        """Global positions and in-bounds mask [lanes, box elements] of a TMA box, row-major."""
        tensor = tmap.tensor
        glob = self._data_storage(tensor, what)
        # lowering.verify has checked the ranks, element strides, memories, swizzles and types
        extents = [int(s.evaluate(self.base_env)) for s in tensor.shape]
        strides = [int(s.evaluate(self.base_env)) for s in tensor.strides]
        n = ctx.lanes.size
        pos = np.zeros((n, 1), dtype=np.int64)
        valid = np.ones((n, 1), dtype=bool)
        for d, box in enumerate(reversed(tmap.box)):  # coords and the copied layout are outermost first
            p = self._per_lane(coords[d], ctx)[:, None] + np.arange(box)[None, :]
            pos = (pos[:, :, None] + (p * strides[d])[:, None, :]).reshape(n, -1)
            valid = (valid[:, :, None] & ((p >= 0) & (p < extents[d]))[:, None, :]).reshape(n, -1)
        pos = np.where(valid, pos, 0)
        if valid.any() and (pos.max() >= glob.size or pos.min() < 0):
            raise SimulationError(f"{what} of {tensor.name}: box reaches element {int(pos.max())} of {glob.size}")
        return glob, pos, valid

    def _shared_box(self, buf: k.Buffer, index: Val, tmap: k.TensorMapParam, width: int, ctx: Ctx,
                    what: str) -> tuple[Storage, np.ndarray]:
        """Flat positions [lanes, box elements] of a TMA box in shared memory, where the TMA unit puts them.

        Box element ``e`` of a copy to ``buf[index]`` has the row-major position ``index + e`` from the
        buffer start; a swizzled buffer holds it at ``swizzle_index(index + e, buf.swizzle, bytes)``.
        """
        st = self._data_storage(buf, what)
        idx = self._per_lane(index, ctx)
        if np.any((idx * st.dtype.size) % 16):
            j = int(np.flatnonzero((idx * st.dtype.size) % 16)[0])
            raise SimulationError(f"{what}: shared address {buf.name}[{int(idx[j])}] is not 16-byte aligned")
        st.positions(self.grid, ctx.lanes, idx, what, width)   # bounds of the row-major range
        element = swizzle_index(idx[:, None] + np.arange(width)[None, :], buf.swizzle, st.dtype.size)
        if element.size and element.max() >= st.size:
            raise SimulationError(f"{what}: the {buf.swizzle.name}-swizzled box reaches {buf.name}[{int(element.max())}] "
                                  f"(size {st.size})")
        return st, self.grid.block_of[ctx.lanes][:, None] * st.size + element

    def visit_TmaLoad(self, node: k.TmaLoad, ctx: Ctx, i: int) -> None:
        what = "TMA load"
        glob, src_pos, valid = self._box(node.tensor_map, node.coords, ctx, what)
        dst, dst_pos = self._shared_box(node.dst, node.dst_index, node.tensor_map, src_pos.shape[1], ctx, f"{what} into {node.dst.name}")
        mb = self._mbar(node.mbar, what)
        keys = self._mbar_keys(mb, node.mbar_index, ctx, what)
        mb.check_live(keys, what)
        copy = AsyncCopy(k.CopyKind.TmaLoad, dst, dst_pos, glob, src_pos, valid, ctx.lanes.copy(), ctx.task, mbar=mb, bar_keys=keys,
                         nbytes=src_pos.shape[1] * glob.dtype.size)
        self.async_.issue(copy)
        self._trace_event("tma.issue", ctx, mb, keys, dst=node.dst.name, bytes=copy.nbytes,
                          coords=[int(self._per_lane(c, ctx)[0]) for c in node.coords])

    def visit_TmaStore(self, node: k.TmaStore, ctx: Ctx, i: int) -> None:
        what = "TMA store"
        glob, dst_pos, valid = self._box(node.tensor_map, node.coords, ctx, what)
        src, src_pos = self._shared_box(node.src, node.src_index, node.tensor_map, dst_pos.shape[1], ctx, f"{what} from {node.src.name}")
        self._tma_store_issue(src, src_pos, ctx, f"{what} from {node.src.name}")
        copy = AsyncCopy(k.CopyKind.TmaStore, glob, dst_pos, src, src_pos, valid, ctx.lanes.copy(), ctx.task,
                         group=self.committed[k.AsyncKind.Bulk][ctx.lanes].copy())
        self.async_.issue(copy)
        self._trace_event("tma_store.issue", ctx, None, None, src=node.src.name)

    def visit_CpAsync(self, node: k.CpAsync, ctx: Ctx, i: int) -> None:
        what = f"cp.async {node.src.name} -> {node.dst.name}"
        lanes, v = ctx.lanes, node.vector
        dst = self._data_storage(node.dst, what)
        src = self._data_storage(node.src, what)
        pred = (np.ones(lanes.shape, dtype=bool) if node.pred is None
                else np.broadcast_to(np.asarray(self._ev(node.pred, ctx), dtype=bool), lanes.shape))
        ar = np.arange(v)[None, :]
        dst_pos = np.broadcast_to(dst.positions(self.grid, lanes, self._per_lane(node.dst_index, ctx), what, v),
                                  lanes.shape)[:, None] + ar
        sidx = self._per_lane(node.src_index, ctx)
        src_base = np.zeros(lanes.shape, dtype=np.int64)
        if pred.any():
            src_base[pred] = np.broadcast_to(src.positions(self.grid, lanes[pred], sidx[pred], what, v),
                                             (int(pred.sum()),))
        valid = np.broadcast_to(pred[:, None], (lanes.size, v))
        copy = AsyncCopy(k.CopyKind.CpAsync, dst, dst_pos, src, src_base[:, None] + ar, valid, lanes.copy(), ctx.task,
                         group=self.committed[k.AsyncKind.CpAsync][lanes].copy())
        self.async_.issue(copy)
        self.uncommitted[lanes] += 1
        if self.trace is not None and lanes.size:
            self._trace_event("cp_async.issue", ctx, None, None, dst=node.dst.name, src=node.src.name,
                              dst_index=int(self._per_lane(node.dst_index, ctx)[0]))

    def visit_AsyncCommit(self, node: k.AsyncCommit, ctx: Ctx, i: int) -> None:
        self._commit_counter(node.kind)[ctx.lanes] += 1
        if node.kind is k.AsyncKind.CpAsync:
            self.uncommitted[ctx.lanes] = 0
        self._trace_event("async.commit", ctx, None, None, group=node.kind.value)

    def visit_AsyncWait(self, node: k.AsyncWait, ctx: Ctx, i: int) -> None:
        counter = self._commit_counter(node.kind)
        if node.kind is k.AsyncKind.Wgmma:
            self._wgmma_wait(node, ctx)
            self._trace_event("async.wait", ctx, None, None, group=node.kind.value, pending=node.pending)
            return
        if node.kind is k.AsyncKind.CpAsync:
            self._check_committed(ctx.lanes, f"cp.async.wait_group {node.pending}")
        kinds = (k.CopyKind.CpAsync,) if node.kind is k.AsyncKind.CpAsync else (k.CopyKind.TmaStore,)
        self.async_.wait_groups(kinds, ctx.lanes, counter[ctx.lanes] - node.pending, self.grid.num_lanes)
        if node.kind is k.AsyncKind.Bulk:
            self._retire_store_reads(ctx.lanes, counter[ctx.lanes] - node.pending)
        self._trace_event("async.wait", ctx, None, None, group=node.kind.value, pending=node.pending)

    def _check_committed(self, lanes: np.ndarray, what: str) -> None:
        left = lanes[self.uncommitted[lanes] > 0]
        if left.size:
            lane = int(left[0])
            raise SimulationError(f"{what}: {self.grid.describe(lane)} has {int(self.uncommitted[lane])} cp.async "
                                  f"copies issued since its last cp.async.commit_group; no wait_group waits for "
                                  f"uncommitted copies (a missing commit)")

    def _commit_counter(self, kind: k.AsyncKind) -> np.ndarray:
        counter = self.committed.get(kind)
        if counter is None:
            raise SimulationError(f"unknown async group kind {kind!r} (expected 'cp.async', 'bulk' or 'wgmma')")
        return counter
