"""The async proxy's view of shared memory in the simulator: TMA store sources, wgmma operands and
``fence.proxy.async``.

A TMA store (``cp.async.bulk.tensor`` shared -> global) reads its shared-memory source asynchronously:
the copy engine may read it at any moment from the issue until an ``AsyncWait("bulk", n)`` of the
issuing thread retires the store's commit group (``cp.async.bulk.wait_group.read``). The simulator
lands the copy (reads the source) at a seeded random moment in that window; the rules below make the
hazards deterministic (``SimulationError``):

- rewritten source ("staging tile rewritten before the store's read finished"): any write into a
  source range of a TMA store not yet retired (a store, a vector store, ``stmatrix``, a TMA load or
  cp.async into it, issued or landing, or a write to a buffer sharing its bytes) is an error, whether
  the store was issued in this iteration of a loop or, its wait deferred, in an earlier one;
- exit: a thread that exits with a TMA store it issued not retired (not committed, or committed and
  not waited for) is an error; the block's shared memory is released at exit while the copy may
  still read it;
- missing ``fence.proxy.async``: ordinary (generic-proxy) writes are visible to the TMA unit (the async
  proxy) only after a ``fence.proxy.async`` of the writing thread. For every element of a TMA store
  source the simulator records the thread that last wrote it with an ordinary store (``Assign``,
  ``StMatrix``, a landed ``cp.async``) and that thread's ``FenceAsyncProxy`` count then; a TMA load
  landing there clears the record. At the store's issue, an element is an error unless its writer
  executed a ``FenceAsyncProxy`` after the write and then arrived at a barrier (``__syncthreads``, a
  named barrier, an mbarrier arrive) - the barrier that orders the write before the store. A writer in
  the issuing thread's own warp needs only the fence. A wgmma reads its shared operands through the
  async proxy too: an operand tile written by cp.async or plain stores (a matmul operand whose rows TMA
  cannot copy) is checked the same way at each ``Mma``'s issue (``async_read``).

Only buffers some ``TmaStore`` or ``Mma`` reads (by name) are tracked, so other shared stores cost nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fusion_ir.types import MemoryType
from lowering import kernel_ir as k
from target import DEFAULT_TARGET

from .errors import SimulationError
from .sim_async import AsyncCopy
from .sim_groups import CommitGroups
from .sim_memory import Grid, Storage, poison_value
from .sim_tasks import Ctx, Handler

WARP = DEFAULT_TARGET.warp_size


@dataclass(eq=False)
class ProxyState:
    """Async-proxy state of one TMA store source, position by position like ``Storage.data``."""

    reads: np.ndarray     # int32: unretired TMA stores reading the position
    writer: np.ndarray    # int64: lane of the latest ordinary write, -1 if none (or overwritten by TMA)
    epoch: np.ndarray     # int64: the writer's FenceAsyncProxy count at that write

    @classmethod
    def of(cls, storage: Storage) -> ProxyState:
        n = storage.data.size
        return cls(np.zeros(n, np.int32), np.full(n, -1, np.int64), np.zeros(n, np.int64))


@dataclass(eq=False)
class StoreRead:
    """The shared-memory reads of one executed ``TmaStore``: a row per issuing lane."""

    storage: Storage
    positions: np.ndarray   # [rows, box elements] flat positions of the source
    lanes: np.ndarray       # [rows]
    group: np.ndarray       # [rows] bulk commit group (the open group when issued)
    what: str               # "TMA store from <source>"
    open: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.open is None:
            self.open = np.ones(len(self.lanes), dtype=bool)


class AsyncProxy:
    """TMA store source hazards and ``FenceAsyncProxy``: per thread its fences, and the TMA store reads in
    flight (their commit groups are ``groups``' bulk groups)."""

    def __init__(self, kernel: k.Kernel, grid: Grid, groups: CommitGroups) -> None:
        n = grid.num_lanes
        self.grid = grid
        self.bulk_committed = groups.counter(k.AsyncKind.Bulk)
        self.fences = np.zeros(n, dtype=np.int64)      # FenceAsyncProxy executions per thread
        self.published = np.zeros(n, dtype=np.int64)   # the count at the thread's latest barrier arrival
        self.store_reads: list[StoreRead] = []
        self.tma_store_sources = {node.src.name for node in k.walk(kernel.body) if isinstance(node, k.TmaStore)}
        # shared operands of wgmma, which reads them through the async proxy as a TMA store reads its source
        self.wgmma_operands = {d.buffer.name for node in k.walk(kernel.body) if isinstance(node, k.Mma)
                               for d in (node.a, node.b)}
        self.tracked = self.tma_store_sources | self.wgmma_operands

    def handles(self) -> dict[type, Handler]:
        return {k.FenceAsyncProxy: self.fence_async_proxy}

    # ---- statements and hooks ----------------------------------------------------------------
    def fence_async_proxy(self, node: k.FenceAsyncProxy, ctx: Ctx, i: int) -> None:
        self.fences[ctx.lanes] += 1

    def publish_fences(self, lanes: np.ndarray) -> None:
        """``lanes`` arrive at a barrier: their fences so far order their writes before what the barrier orders."""
        self.published[lanes] = self.fences[lanes]

    def attach(self, st: Any) -> None:
        """A shared allocation: track it when some ``TmaStore`` reads it."""
        if st.name in self.tracked and isinstance(st, Storage) and st.proxy is None:
            st.proxy = ProxyState.of(st)

    def reallocate_store_source(self, st: Storage, rows: np.ndarray) -> None:
        """An ``Allocate`` executed again (in a loop) poisons the buffer's rows, but not the elements a TMA store
        not yet retired reads: the allocation writes nothing on the GPU, and the copy may still read them."""
        if not self.store_reads:
            st.poison_rows(rows)
            return
        data = st.data.reshape(st.rows, st.size)
        busy = st.proxy.reads.reshape(st.rows, st.size)[rows] > 0
        data[rows] = np.where(busy, data[rows], poison_value(st.dtype))

    def generic_write(self, st: Storage, positions: Any, writers: Any, what: str | Callable[[], str]) -> None:
        """An ordinary store by ``writers`` (lanes, broadcastable to ``positions``) into a tracked buffer."""
        p = st.proxy
        pos = np.asarray(positions)
        pos, lanes = pos.reshape(-1), np.broadcast_to(writers, pos.shape).reshape(-1)
        if self.store_reads:
            self._source_overwrite(st, pos, what)
        p.writer[pos] = lanes
        p.epoch[pos] = self.fences[lanes]

    def copy_write(self, copy: AsyncCopy, positions: np.ndarray, landing: bool) -> None:
        """An ``AsyncEngine`` listener: the async proxy writes ``positions`` of ``copy.dst`` (poison when issued,
        data when landing)."""
        p = copy.dst.proxy
        if p is None:
            return
        if self.store_reads:
            name = {k.CopyKind.TmaLoad: "TMA load", k.CopyKind.CpAsync: "cp.async"}.get(copy.kind, copy.kind.value)
            self._source_overwrite(copy.dst, positions,
                                   f"{name} into {copy.dst.name} ({'landing' if landing else 'issued'})")
        if copy.kind is k.CopyKind.TmaLoad:
            p.writer[positions.reshape(-1)] = -1   # written by the async proxy itself: no fence needed

    def copy_landed(self, copy: AsyncCopy, sel: np.ndarray, completed: np.ndarray) -> None:
        """An ``AsyncEngine`` listener: a copy landed rows ``sel``; a cp.async is a generic-proxy write of its
        issuing thread."""
        p = copy.dst.proxy
        if p is not None and copy.kind is k.CopyKind.CpAsync:
            pos = copy.dst_pos[sel]
            lanes = np.broadcast_to(copy.lanes[sel][:, None], pos.shape).reshape(-1)
            p.writer[pos.reshape(-1)] = lanes
            p.epoch[pos.reshape(-1)] = self.fences[lanes]

    # ---- TMA stores -------------------------------------------------------------------------
    def tma_store_issue(self, st: Storage, positions: np.ndarray, ctx: Ctx, what: str) -> None:
        """A ``TmaStore`` issued by ``ctx.lanes`` reads ``positions`` [lanes, box elements] of ``st``."""
        if st.memory is not MemoryType.Shared or ctx.lanes.size == 0:
            return
        if st.proxy is None:   # allocated under another name than the statement's (should not happen)
            st.proxy = ProxyState.of(st)
        p = st.proxy
        lanes = ctx.lanes
        self._check_proxy_fence(st, positions, lanes, what)
        np.add.at(p.reads, positions.reshape(-1), 1)
        self.store_reads.append(StoreRead(st, positions, lanes.copy(), self.bulk_committed[lanes].copy(), what))

    def async_read(self, st: Storage, positions: np.ndarray, lanes: np.ndarray, what: str) -> None:
        """An async-proxy read (a wgmma's operand) of ``positions`` [issuers, elements] of ``st`` by ``lanes``: every
        element an ordinary store (a plain store, a landed cp.async) wrote must have been fenced and published."""
        if st.proxy is None or lanes.size == 0:
            return
        self._check_proxy_fence(st, positions, lanes, what)

    def _check_proxy_fence(self, st: Storage, positions: np.ndarray, lanes: np.ndarray, what: str) -> None:
        p = st.proxy
        writer = p.writer[positions]                                   # [lanes, elements]
        written = writer >= 0
        if not written.any():
            return
        w = np.where(written, writer, 0)
        same_warp = ((self.grid.block_of[w] == self.grid.block_of[lanes][:, None])
                     & (self.grid.warp_of[w] == self.grid.warp_of[lanes][:, None]))
        fenced = np.where(same_warp, self.fences[w], self.published[w]) > p.epoch[positions]
        bad = written & ~fenced
        if not bad.any():
            return
        j, e = (int(x[0]) for x in np.nonzero(bad))
        block = int(self.grid.block_of[lanes[j]])
        elements = positions[j][bad[j]] % st.size
        writer_lane = int(writer[j, e])
        if self.fences[writer_lane] > p.epoch[positions[j, e]]:
            how = ("executed its fence.proxy.async after the write but arrived at no barrier after the fence "
                   "(the fence must come before the barrier that orders the write before the store)")
        else:
            how = "executed no fence.proxy.async after the write"
        raise SimulationError(
            f"missing fence.proxy.async: {what} (block {self.grid.block_name(block)}) reads {st.name}"
            f"[{int(elements.min())}:{int(elements.max()) + 1}], written by ordinary stores; the writer of "
            f"{st.name}[{int(positions[j, e]) % st.size}], {self.grid.describe(writer_lane)}, {how}. Generic-proxy "
            f"writes reach the TMA unit and wgmma (the async proxy) only through a fence.proxy.async of the writing "
            f"thread, then a barrier before the async-proxy read")

    def retire_store_reads(self, lanes: np.ndarray, keep_from: np.ndarray) -> None:
        """``cp.async.bulk.wait_group.read``: ``lanes``' TMA stores in groups below ``keep_from`` are done reading."""
        if not self.store_reads:
            return
        limit = np.full(self.grid.num_lanes, -1, dtype=np.int64)
        limit[lanes] = keep_from
        for read in list(self.store_reads):
            sel = read.open & (read.group < limit[read.lanes])
            if sel.any():
                read.open &= ~sel
                np.subtract.at(read.storage.proxy.reads, read.positions[sel].reshape(-1), 1)
                if not read.open.any():
                    self.store_reads.remove(read)

    def _source_overwrite(self, st: Storage, positions: Any, what: str | Callable[[], str]) -> None:
        """Raise if ``what`` writes positions of ``st`` that a TMA store not yet retired may still read."""
        pos = np.asarray(positions).reshape(-1)
        busy = st.proxy.reads[pos] > 0
        if not busy.any():
            return
        what = what() if callable(what) else what
        hit = pos[busy]
        row, element = np.divmod(hit, st.size)
        block = int(row[0])
        e = element[row == block]
        reader = "a TMA store"
        for read in self.store_reads:
            if read.storage is st:
                rows = np.flatnonzero(read.open & (read.positions == hit[0]).any(axis=1))
                if rows.size:
                    lane = int(read.lanes[rows[0]])
                    state = ("not committed (no AsyncCommit('bulk') after it yet)"
                             if read.group[rows[0]] >= self.bulk_committed[lane] else
                             "committed but not retired by an AsyncWait('bulk') of its thread")
                    reader = f"the {read.what} issued by {self.grid.describe(lane)}, {state},"
                    break
        raise SimulationError(
            f"{what} writes {st.name}[{int(e.min())}:{int(e.max()) + 1}] (block {self.grid.block_name(block)}): "
            f"staging tile rewritten before the store's read finished, the source of a TMA store rewritten while "
            f"a TMA store may still read it; {reader} reads it until "
            f"cp.async.bulk.wait_group.read (AsyncWait('bulk', n)) of the issuing thread retires its group, and "
            f"a barrier after that wait must order it before writes of other threads")

    def check_exit(self, lanes: np.ndarray) -> None:
        """Exiting threads must have retired their TMA stores: the block's shared memory goes away."""
        if not self.store_reads:
            return
        exiting = np.zeros(self.grid.num_lanes, dtype=bool)
        exiting[lanes] = True
        for read in self.store_reads:
            rows = np.flatnonzero(read.open & exiting[read.lanes])
            if rows.size:
                lane = int(read.lanes[rows[0]])
                state = ("was never committed (no AsyncCommit('bulk') after it)"
                         if read.group[rows[0]] >= self.bulk_committed[lane] else
                         "was committed but no AsyncWait('bulk', n) retired its group")
                raise SimulationError(
                    f"{self.grid.describe(lane)} exits while the {read.what} issued by {self.grid.describe(lane)} may "
                    f"still read {read.storage.name}: the "
                    f"store {state}; a thread waits for its TMA stores to finish reading shared memory "
                    f"(cp.async.bulk.wait_group.read, AsyncWait('bulk', 0)) before it exits")


__all__ = ["AsyncProxy", "ProxyState", "StoreRead"]
