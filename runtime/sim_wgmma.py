"""wgmma in the simulator: warp-group MMAs on shared-memory operands, asynchronous accumulators, hazards.

Execution. A warp task executing ``Mma`` computes the 16 rows of the 64 x N tile its warp owns (warp
``w`` of the warp group owns rows ``16w .. 16w + 15``), for every block at once: it gathers its rows of
A and the whole of B from the simulated shared memory through the matrix descriptors (the byte offset
of operand element (mn, k) is ``lowering.layout.wgmma_operand_offset``; the hardware swizzles the
absolute address, so the element read is ``swizzle_index((start + offset) / bytes)`` in a buffer
aligned to the swizzle's repeat), multiplies in float32 and adds the products into its lanes'
accumulator registers as ``lowering.layout.wgmma_accumulator`` lays them out. Operand elements that
are still poison (a TMA copy that has not landed) make NaN accumulators.

Asynchrony. The true accumulator values live in a shadow; the registers an ``Mma`` writes hold poison
(NaN) until an ``AsyncWait("wgmma", n)`` retires the commit group the ``Mma`` belongs to. The ``Mma``s a
thread issued since its last ``AsyncCommit("wgmma")`` form its open group; a wait retires every
committed group but the ``n`` most recent. Chained ``Mma``s into the same registers accumulate in the
shadow in issue order; a register shows its value once the group of the last ``Mma`` writing it retires.

Hazards (``SimulationError``):

- missing wgmma.fence: an ``Mma`` before any ``WgmmaFence`` of its thread, or one whose accumulator
  registers an ordinary instruction (a store or a load) accessed since the thread's last fence;
- operand overwrite: a store, a TMA or cp.async copy (when issued and when landing) or a write to an
  aliased buffer touching shared memory that a wgmma not yet retired reads;
- a store to accumulator registers that a wgmma not yet retired writes;
- a thread that exits (``return`` or kernel end) with wgmmas not committed or not waited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fusion_ir.types import DataType, MemoryType
from lowering import kernel_ir as k
from lowering.layout import (
    CHUNK_BYTES,
    swizzle_index,
    wgmma_accumulator,
    wgmma_operand_offset,
)
from target import DEFAULT_TARGET
from target import current as current_target

from .errors import SimulationError
from .sim_async import AsyncCopy
from .sim_memory import Storage
from .sim_scheduler import Ctx

# The lane structure of sm_90's wgmma, which lowering.layout.wgmma_accumulator lays out; the rules
# (operand types, shapes, descriptor offsets, whole warp groups) are the current target's.
WARP = DEFAULT_TARGET.warp_size
WARP_GROUP = DEFAULT_TARGET.warp_group_size
WARPS_PER_GROUP = DEFAULT_TARGET.warps_per_group
ROWS_PER_WARP = DEFAULT_TARGET.wgmma.m // WARPS_PER_GROUP


@dataclass(eq=False)
class Accumulators:
    """wgmma state of one accumulator buffer (Local), position by position like ``Storage.data``."""

    storage: Storage
    shadow: np.ndarray    # float32: the value once every issued wgmma has completed
    pending: np.ndarray   # int64: commit group of the latest unretired wgmma writing it, -1 if none
    written: np.ndarray   # int64: the thread's fence count when an ordinary store last wrote it, -1 if never
    read: np.ndarray      # int64: the same for ordinary loads

    @classmethod
    def of(cls, storage: Storage) -> Accumulators:
        n = storage.data.size
        return cls(storage, storage.data.copy(), np.full(n, -1, np.int64), np.full(n, -1, np.int64),
                   np.full(n, -1, np.int64))


@dataclass(eq=False)
class WgmmaIssue:
    """One executed ``Mma``: a row per issuing warp."""

    lanes: np.ndarray       # [warps, 32]
    group: np.ndarray       # [warps] commit group (the open group when issued)
    acc: Accumulators
    acc_pos: np.ndarray     # [warps, 32 * registers] flat positions in the accumulator storage
    reads: list[tuple[Storage, np.ndarray]]   # shared storages and [warps, elements] flat positions read
    what: str
    open: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.open is None:
            self.open = np.ones(len(self.group), dtype=bool)


class WgmmaOps:
    """``Mma`` and ``WgmmaFence`` statements, the wgmma commit groups and their hazard checks."""

    def _init_wgmma(self) -> None:
        n = self.grid.num_lanes
        self.committed[k.AsyncKind.Wgmma] = np.zeros(n, dtype=np.int64)
        self.wgmma_fences = np.zeros(n, dtype=np.int64)         # WgmmaFence executions per thread
        self.wgmma_last = np.full(n, -1, dtype=np.int64)         # group of the thread's latest Mma
        self.wgmma_retired = np.zeros(n, dtype=np.int64)         # groups below it are retired
        self.wgmma_issues: list[WgmmaIssue] = []
        self.wgmma_acc_names = {node.acc.name for node in k.walk(self.kernel.body) if isinstance(node, k.Mma)}
        self._operand_tables: dict[tuple, np.ndarray] = {}
        self._fragment_tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    # ---- statements ----------------------------------------------------------------------
    def visit_WgmmaFence(self, node: k.WgmmaFence, ctx: Ctx, i: int) -> None:
        self.wgmma_fences[ctx.lanes] += 1

    def visit_Mma(self, node: k.Mma, ctx: Ctx, i: int) -> None:
        m, n, kk = node.shape
        what = f"wgmma m{m}n{n}k{kk} into {node.acc.name}"
        wgmma = current_target().wgmma   # lowering.verify has checked the shape and operand type
        lanes = ctx.lanes
        warps = self._wgmma_warps(lanes, what)
        first = warps[:, 0]
        blocks = self.grid.block_of[first]
        in_group = (self.grid.thread_of[first] % WARP_GROUP) // WARP    # warp of the warp group
        acc = self._accumulators(node.acc, what)
        st = acc.storage
        regs = n // 2
        base = self._per_lane(node.acc_index, ctx)
        if base.size and (base.min() < 0 or base.max() + regs > st.size):
            j = int(np.flatnonzero((base < 0) | (base + regs > st.size))[0])
            raise SimulationError(f"{what}: registers {node.acc.name}[{int(base[j])}:{int(base[j]) + regs}] are "
                                  f"out of bounds (size {st.size}) for {self.grid.describe(int(lanes[j]))}")
        pos = (lanes * st.size + base)[:, None] + np.arange(regs)          # [lanes, regs]
        self._check_fence(acc, pos, lanes, what)

        a_st, a_pos = self._operand(node.a, "A", node.dtype, wgmma.m, blocks, in_group, ctx, what)
        b_st, b_pos = self._operand(node.b, "B", node.dtype, n, blocks, None, ctx, what)
        a = a_st.data[a_pos]                                   # [warps, 16 rows, k]
        b = b_st.data[b_pos]                                   # [warps, n, k]
        d = np.matmul(a, b.transpose(0, 2, 1))                 # [warps, 16 rows, n], float32
        rows, cols = self._fragment(n)                         # [4, 32, regs]: row within the warp's 16, column
        w = np.arange(len(warps))[:, None, None]
        values = d[w, rows[in_group], cols[in_group]].reshape(lanes.size, regs)

        pending = acc.pending[pos]
        acc.shadow[pos] = np.where(pending >= 0, acc.shadow[pos], st.data[pos]) + values
        st.data[pos] = np.float32(np.nan)
        group = self.committed[k.AsyncKind.Wgmma][lanes]
        acc.pending[pos] = group[:, None]
        self.wgmma_last[lanes] = group
        reads = []
        for operand, p in ((a_st, a_pos), (b_st, b_pos)):
            if operand.wgmma_reads is None:
                operand.wgmma_reads = np.zeros(operand.data.size, dtype=np.int32)
            flat = p.reshape(len(warps), -1)
            operand.wgmma_reads[flat] += 1    # an issue reads each position once; retiring undoes the same
            reads.append((operand, flat))
        self.wgmma_issues.append(WgmmaIssue(warps, group.reshape(-1, WARP)[:, 0].copy(), acc,
                                            pos.reshape(len(warps), -1), reads, what))
        self._trace_event("wgmma.issue", ctx, None, None, acc=node.acc.name, a=node.a.buffer.name,
                          b=node.b.buffer.name)

    def _wgmma_wait(self, node: k.AsyncWait, ctx: Ctx) -> None:
        """``wgmma.wait_group pending``: retire every committed group but the ``pending`` most recent."""
        lanes = ctx.lanes
        keep_from = self.committed[k.AsyncKind.Wgmma][lanes] - node.pending
        self.wgmma_retired[lanes] = np.maximum(self.wgmma_retired[lanes], keep_from)
        if not self.wgmma_issues:
            return
        limit = np.full(self.grid.num_lanes, -1, dtype=np.int64)
        limit[lanes] = keep_from
        for issue in list(self.wgmma_issues):
            sel = issue.open & (issue.group < limit[issue.lanes[:, 0]])
            if sel.any():
                self._retire(issue, sel)

    def _retire(self, issue: WgmmaIssue, sel: np.ndarray) -> None:
        issue.open &= ~sel
        if not issue.open.any():
            self.wgmma_issues.remove(issue)
        acc = issue.acc
        pos = issue.acc_pos[sel]
        mine = pos[acc.pending[pos] == issue.group[sel][:, None]]   # no later wgmma writes them
        acc.storage.data[mine] = acc.shadow[mine]
        acc.pending[mine] = -1
        for st, p in issue.reads:
            st.wgmma_reads[p[sel]] -= 1

    # ---- operands and fragments ----------------------------------------------------------------
    def _operand(self, desc: k.MatrixDescriptor, which: str, dtype: DataType, extent: int, blocks: np.ndarray,
                 in_group: np.ndarray | None, ctx: Ctx, what: str) -> tuple[Storage, np.ndarray]:
        """The storage and flat positions [warps, mn, k] of the operand elements each warp reads: A's 16
        rows of the warp (``in_group`` is its warp in the warp group), or B's ``extent`` columns."""
        buf = desc.buffer
        where = f"{what}: operand {which} ({buf.name})"
        # lowering.verify has checked the memory, type, swizzle and descriptor offsets
        st = self._data_storage(buf, where)
        size = st.dtype.size
        start = self._per_lane(desc.offset, ctx).reshape(-1, WARP)
        if (start != start[:, :1]).any():
            j = int(np.flatnonzero((start != start[:, :1]).any(axis=1))[0])
            raise SimulationError(f"{where}: the descriptor's start {desc.offset} differs between the threads of "
                                  f"warp {self._warp_name(ctx.lanes[j * WARP])}; a matrix descriptor is "
                                  f"uniform across the warp group")
        start = start[:, 0]
        if (start * size % CHUNK_BYTES).any():
            j = int(np.flatnonzero(start * size % CHUNK_BYTES)[0])
            raise SimulationError(f"{where}: start address {buf.name}[{int(start[j])}] (byte {int(start[j]) * size})"
                                  f" is not 16-byte aligned; a matrix descriptor encodes it in 16-byte units")
        table = self._operand_table(desc, size, extent)                  # [extent, k] bytes
        if in_group is not None:
            table = table[(in_group * ROWS_PER_WARP)[:, None] + np.arange(ROWS_PER_WARP)]   # [warps, 16, k]
        else:
            table = table[None]
        element = swizzle_index(start[:, None, None] + table // size, buf.swizzle, size)
        bad = (element < 0) | (element >= st.size)
        if bad.any():
            w, mn, kk = (int(x[0]) for x in np.nonzero(bad))
            row = mn + (int(in_group[w]) * ROWS_PER_WARP if in_group is not None else 0)
            raise SimulationError(f"{where}: element ({row}, {kk}) of the operand lies at {buf.name}"
                                  f"[{int(element[w, mn, kk])}], outside the buffer (size {st.size}); descriptor "
                                  f"start {int(start[w])}, leading {desc.leading_bytes} B, stride "
                                  f"{desc.stride_bytes} B, {'MN' if desc.mn_major else 'K'}-major")
        return st, blocks[:, None, None] * st.size + element

    def _operand_table(self, desc: k.MatrixDescriptor, size: int, extent: int) -> np.ndarray:
        key = (size, desc.swizzle, desc.mn_major, desc.leading_bytes, desc.stride_bytes, extent)
        table = self._operand_tables.get(key)
        if table is None:
            mn = np.arange(extent, dtype=np.int64)[:, None]
            kk = np.arange(current_target().wgmma.k_for(size), dtype=np.int64)[None, :]
            table = wgmma_operand_offset(mn, kk, element_bytes=size, swizzle=desc.swizzle, mn_major=desc.mn_major,
                                         leading_bytes=desc.leading_bytes, stride_bytes=desc.stride_bytes)
            table = self._operand_tables[key] = np.broadcast_to(table, (extent, kk.size)).astype(np.int64)
        return table

    def _fragment(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Row (within the warp's 16) and column of each register of each lane, [warp in group, 32, n / 2]."""
        entry = self._fragment_tables.get(n)
        if entry is None:
            warp = np.arange(WARPS_PER_GROUP)[:, None, None]
            thread = warp * WARP + np.arange(WARP)[None, :, None]
            row, col = wgmma_accumulator(thread, np.arange(n // 2)[None, None, :])
            local = row - warp * ROWS_PER_WARP
            if local.min() < 0 or local.max() >= ROWS_PER_WARP or col.min() < 0 or col.max() >= n:
                raise SimulationError("lowering.layout.wgmma_accumulator puts a register outside its warp's 16 rows "
                                      "or the tile's columns")
            entry = self._fragment_tables[n] = (local, col)
        return entry

    def _wgmma_warps(self, lanes: np.ndarray, what: str) -> np.ndarray:
        """The lanes as [warps, 32]; wgmma is executed by whole warps of whole warp groups."""
        tpb = self.grid.threads_per_block
        group = current_target().warp_group_size
        if tpb % group:
            raise SimulationError(f"{what}: a block of {tpb} threads has a partial warp group; wgmma is issued by "
                                  f"warp groups of {group} threads")
        if lanes.size % WARP == 0:
            warps = lanes.reshape(-1, WARP)
            if (warps - warps[:, :1] == np.arange(WARP)).all() and not (warps[:, 0] % WARP).any():
                return warps
        ids, counts = np.unique(lanes // WARP, return_counts=True)
        j = int(np.flatnonzero(counts != WARP)[0])
        raise SimulationError(f"{what}: only {int(counts[j])} of the 32 threads of warp "
                              f"{self._warp_name(int(ids[j]) * WARP)} execute it; wgmma.mma_async.sync.aligned is "
                              f"executed by every thread of the warp group")

    def _warp_name(self, lane: int) -> str:
        return f"{int(self.grid.warp_of[lane])} of block {self.grid.block_name(int(self.grid.block_of[lane]))}"

    # ---- accumulator registers ------------------------------------------------------------
    def _accumulators(self, buf: k.Buffer, what: str) -> Accumulators:
        st = self._data_storage(buf, what)   # Local Float (lowering.verify)
        if st.wgmma_acc is None:
            st.wgmma_acc = Accumulators.of(st)
        return st.wgmma_acc

    def _attach_accumulators(self, st: Storage) -> None:
        """An allocation of a buffer some ``Mma`` accumulates into: track its ordinary accesses from now on."""
        if st.memory is MemoryType.Local and st.dtype is DataType.Float and st.wgmma_acc is None:
            st.wgmma_acc = Accumulators.of(st)

    def _check_fence(self, acc: Accumulators, pos: np.ndarray, lanes: np.ndarray, what: str) -> None:
        fences = self.wgmma_fences[lanes]
        if not fences.all():
            j = int(np.flatnonzero(fences == 0)[0])
            raise SimulationError(f"missing wgmma.fence: warp {self._warp_name(int(lanes[j]))} issues {what} without "
                                  f"a wgmma.fence before it; a warp group executes wgmma.fence before its first "
                                  f"wgmma")
        for kind, epoch in (("written by an ordinary store", acc.written), ("read by an ordinary load", acc.read)):
            touched = epoch[pos] == fences[:, None]
            if touched.any():
                j, r = (int(x[0]) for x in np.nonzero(touched))
                index = int(pos[j, r]) - int(lanes[j]) * acc.storage.size
                raise SimulationError(f"missing wgmma.fence: {acc.storage.name}[{index}] of "
                                      f"{self.grid.describe(int(lanes[j]))} was {kind} after the thread's last "
                                      f"wgmma.fence, and {what} accumulates into it; a wgmma.fence must separate "
                                      f"register accesses from the wgmma that uses the registers")

    def _accumulator_store(self, acc: Accumulators, pos: Any, lanes: np.ndarray, what: str | Callable[[], str]) -> None:
        """An ordinary store to accumulator registers (``pos`` [lanes] or [lanes, vector]); ``what`` names it
        (a callable is only called on error)."""
        pos = np.asarray(pos)
        busy = acc.pending[pos] >= 0
        if busy.any():
            j = int(np.flatnonzero(busy.reshape(lanes.size, -1).any(axis=1))[0])
            p = int(pos.reshape(lanes.size, -1)[j][busy.reshape(lanes.size, -1)[j]][0])
            what = what() if callable(what) else what
            raise SimulationError(f"{what} writes {acc.storage.name}[{p - int(lanes[j]) * acc.storage.size}] of "
                                  f"{self.grid.describe(int(lanes[j]))} while a wgmma not yet retired by "
                                  f"wgmma.wait_group accumulates into it")
        fences = self.wgmma_fences[lanes]
        acc.written[pos] = fences if pos.ndim == 1 else fences[:, None]

    def _accumulator_load(self, acc: Accumulators, pos: Any, lanes: np.ndarray) -> None:
        pos = np.asarray(pos)
        fences = self.wgmma_fences[lanes]
        acc.read[pos] = fences if pos.ndim == 1 else fences[:, None]

    # ---- shared memory a wgmma still reads ---------------------------------------------------------
    def _operand_overwrite(self, st: Storage, positions: Any, what: str | Callable[[], str]) -> None:
        """Raise if ``what`` writes positions of ``st`` that an unretired wgmma reads (a callable ``what`` is
        only called on error)."""
        pos = np.asarray(positions).reshape(-1)
        hit = pos[st.wgmma_reads[pos] > 0]
        if hit.size == 0:
            return
        what = what() if callable(what) else what
        row, element = np.divmod(hit, st.size)
        first = int(hit[0])
        block = int(row[0])
        e = element[row == block]
        lo, hi, size = int(e.min()), int(e.max()), st.dtype.size
        reader = ""
        for issue in self.wgmma_issues:
            for other, p in issue.reads:
                rows = np.flatnonzero(issue.open & (p == first).any(axis=1)) if other is st else ()
                if len(rows):
                    lane = int(issue.lanes[rows[0], 0])
                    group = int(issue.group[rows[0]])
                    state = ("an uncommitted wgmma (no wgmma.commit_group after it yet)"
                             if group >= self.committed[k.AsyncKind.Wgmma][lane] else
                             "a committed wgmma that no wgmma.wait_group has retired yet")
                    reader = f"{state}: {issue.what} issued by warp {self._warp_name(lane)}"
                    break
            if reader:
                break
        raise SimulationError(f"{what} overwrites {st.name}[{lo}:{hi + 1}] (bytes {lo * size}..{(hi + 1) * size - 1},"
                              f" block {self.grid.block_name(block)}) that {reader} still reads; shared memory a "
                              f"wgmma reads must not be written before the wgmma.wait_group that retires it")

    def _copy_write(self, copy: AsyncCopy, positions: np.ndarray, landing: bool) -> None:
        """The async proxy writes ``positions`` of ``copy.dst`` (poison when issued, data when landing)."""
        if copy.dst.wgmma_reads is not None:
            name = {k.CopyKind.TmaLoad: "TMA load", k.CopyKind.CpAsync: "cp.async"}.get(copy.kind, copy.kind.value)
            self._operand_overwrite(copy.dst, positions,
                                    f"{name} into {copy.dst.name} ({'landing' if landing else 'issued'})")

    # ---- thread exit ----------------------------------------------------------------------
    def _wgmma_exit(self, lanes: np.ndarray) -> None:
        last = self.wgmma_last[lanes]
        busy = last >= self.wgmma_retired[lanes]
        if not busy.any():
            return
        j = int(np.flatnonzero(busy)[0])
        lane = int(lanes[j])
        if last[j] >= self.committed[k.AsyncKind.Wgmma][lane]:
            state = "an uncommitted wgmma (no wgmma.commit_group after its last wgmma)"
        else:
            state = "a committed wgmma group that no wgmma.wait_group retired"
        raise SimulationError(f"{self.grid.describe(lane)} exits with {state}; every wgmma must be committed and "
                              f"waited for (wgmma.wait_group) before its thread exits")


__all__ = ["Accumulators", "WgmmaIssue", "WgmmaOps"]
