"""wgmma in the simulator: warp-group MMAs on shared-memory operands, asynchronous accumulators, hazards.

Execution. A warp task executing ``Mma`` computes the 16 rows of the 64 x N tile its warp owns (warp
``w`` of the warp group owns rows ``16w .. 16w + 15``), for every block at once: it gathers its rows of
A and the whole of B from the simulated shared memory through the matrix descriptors (the byte offset
of operand element (mn, k) is ``lowering.layout.wgmma_operand_offset``; the hardware swizzles the
absolute address, so the element read is ``swizzle_index((start + offset) / bytes)`` in a buffer
aligned to the swizzle's repeat), multiplies in float32 and adds the products into its lanes'
accumulator registers as ``lowering.layout.wgmma_accumulator`` lays them out. Operand elements that
are still poison (a TMA copy that has not landed) make NaN accumulators.

The accumulators stay poison until the ``AsyncWait("wgmma", n)`` that retires the ``Mma``'s commit group,
and the hazards (a missing ``wgmma.fence``, shared memory or accumulators written under an unretired wgmma,
a thread exiting with wgmmas in flight) are ``sim_wgmma_state``'s, which ordinary loads and stores, async
copies, waits and thread exit consult.
"""

from __future__ import annotations

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
from .sim_eval import Evaluator
from .sim_memory import Grid, Memory, Storage
from .sim_proxy import AsyncProxy
from .sim_tasks import Ctx, Handler
from .sim_trace import Tracer
from .sim_wgmma_state import Accumulators, WgmmaIssue, WgmmaState

# The lane structure of sm_90's wgmma, which lowering.layout.wgmma_accumulator lays out; the rules
# (operand types, shapes, descriptor offsets, whole warp groups) are the current target's.
WARP = DEFAULT_TARGET.warp_size
WARP_GROUP = DEFAULT_TARGET.warp_group_size
WARPS_PER_GROUP = DEFAULT_TARGET.warps_per_group
ROWS_PER_WARP = DEFAULT_TARGET.wgmma.m // WARPS_PER_GROUP


class WgmmaOps:
    """``Mma`` and ``WgmmaFence`` statements: the products, from the operands in shared memory, into the
    accumulators of ``wgmma`` (the state the rest of the simulator checks against)."""

    def __init__(self, grid: Grid, evaluator: Evaluator, memory: Memory, wgmma: WgmmaState, tracer: Tracer,
                 proxy: AsyncProxy | None = None) -> None:
        self.grid = grid
        self.proxy = proxy
        self.eval = evaluator
        self.memory = memory
        self.wgmma = wgmma
        self.tracer = tracer
        self._operand_tables: dict[tuple, np.ndarray] = {}
        self._fragment_tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def handles(self) -> dict[type, Handler]:
        return {k.WgmmaFence: self.wgmma_fence, k.Mma: self.mma}

    # ---- statements ----------------------------------------------------------------------
    def wgmma_fence(self, node: k.WgmmaFence, ctx: Ctx, i: int) -> None:
        self.wgmma.fences[ctx.lanes] += 1

    def mma(self, node: k.Mma, ctx: Ctx, i: int) -> None:
        m, n, kk = node.shape
        what = f"wgmma m{m}n{n}k{kk} into {node.acc.name}"
        wgmma = current_target().wgmma   # lowering.verify has checked the shape and operand type
        lanes = ctx.lanes
        warps = self._wgmma_warps(lanes, what)
        first = warps[:, 0]
        blocks = self.grid.block_of[first]
        in_group = (self.grid.thread_of[first] % WARP_GROUP) // WARP    # warp of the warp group
        acc = self.wgmma.accumulators(self.memory.data_storage(node.acc, what))   # Local Float (lowering.verify)
        st = acc.storage
        regs = n // 2
        base = self.eval.per_lane(node.acc_index, ctx)
        if base.size and (base.min() < 0 or base.max() + regs > st.size):
            j = int(np.flatnonzero((base < 0) | (base + regs > st.size))[0])
            raise SimulationError(f"{what}: registers {node.acc.name}[{int(base[j])}:{int(base[j]) + regs}] are "
                                  f"out of bounds (size {st.size}) for {self.grid.describe(int(lanes[j]))}")
        pos = (lanes * st.size + base)[:, None] + np.arange(regs)          # [lanes, regs]
        self._check_fence(acc, pos, lanes, what)

        if isinstance(node.a, k.RegisterFragment):
            a_st, a_pos = self._register_operand(node.a, lanes, in_group, ctx, what)
        else:
            a_st, a_pos = self._operand(node.a, "A", node.dtype, wgmma.m, blocks, in_group, ctx, what)
        b_st, b_pos = self._operand(node.b, "B", node.dtype, n, blocks, None, ctx, what)
        if self.proxy is not None:    # the operands are read through the async proxy: ordinary writes fenced
            for operand, p, which in ((a_st, a_pos, "A"), (b_st, b_pos, "B")):
                if operand.memory is not MemoryType.Local:
                    self.proxy.async_read(operand, p.reshape(len(warps), -1), first, f"{what} (operand {which})")
        a = a_st.data[a_pos]                                   # [warps, 16 rows, k]
        b = b_st.data[b_pos]                                   # [warps, n, k]
        d = np.matmul(a, b.transpose(0, 2, 1))                 # [warps, 16 rows, n], float32
        rows, cols = self._fragment(n)                         # [4, 32, regs]: row within the warp's 16, column
        w = np.arange(len(warps))[:, None, None]
        values = d[w, rows[in_group], cols[in_group]].reshape(lanes.size, regs)

        pending = acc.pending[pos]
        before = np.where(pending >= 0, acc.shadow[pos], st.data[pos])
        if node.accumulate is not None:     # scale-d 0: the registers are written, their values not read
            adds = self.eval.per_lane(node.accumulate, ctx).astype(bool)
            before = np.where(adds[:, None], before, np.float32(0))
        acc.shadow[pos] = before + values
        st.data[pos] = np.float32(np.nan)
        group = self.wgmma.committed[lanes]
        acc.pending[pos] = group[:, None]
        reads = []
        for operand, p in ((a_st, a_pos), (b_st, b_pos)):
            if operand.wgmma_reads is None:
                operand.wgmma_reads = np.zeros(operand.data.size, dtype=np.int32)
            flat = p.reshape(len(warps), -1)
            operand.wgmma_reads[flat] += 1    # an issue reads each position once; retiring undoes the same
            reads.append((operand, flat))
        self.wgmma.issue(WgmmaIssue(warps, group.reshape(-1, WARP)[:, 0].copy(), acc, pos.reshape(len(warps), -1),
                                    reads, what), lanes, group)
        self.tracer.event("wgmma.issue", ctx, None, None, acc=node.acc.name, a=node.a.buffer.name,
                          b=node.b.buffer.name)

    # ---- operands and fragments ----------------------------------------------------------------
    def _register_operand(self, frag: k.RegisterFragment, lanes: np.ndarray, in_group: np.ndarray, ctx: Ctx,
                          what: str) -> tuple[Storage, np.ndarray]:
        """The storage and flat positions [warps, 16 rows, k] of the A elements each warp's lanes hold in
        registers: register ``r`` of lane ``l`` is the element an accumulator fragment of 16 columns puts there
        (``lowering.layout.wgmma_accumulator``), the k-step's A fragment."""
        buf = frag.buffer
        where = f"{what}: operand A ({buf.name}, in registers)"
        st = self.memory.data_storage(buf, where)   # Local, of the Mma's type (lowering.verify)
        k_step = current_target().wgmma.k_for(st.dtype.size)
        per_lane = current_target().wgmma.m * k_step // WARP_GROUP
        base = self.eval.per_lane(frag.index, ctx)
        if base.size and (base.min() < 0 or base.max() + per_lane > st.size):
            j = int(np.flatnonzero((base < 0) | (base + per_lane > st.size))[0])
            raise SimulationError(f"{where}: registers {buf.name}[{int(base[j])}:{int(base[j]) + per_lane}] are out "
                                  f"of bounds (size {st.size}) for {self.grid.describe(int(lanes[j]))}")
        pos = (lanes * st.size + base)[:, None] + np.arange(per_lane)          # [lanes, registers]
        fences = self.wgmma.fences[lanes]
        stale = st.wgmma_written[pos] == fences[:, None] if st.wgmma_written is not None else None
        if stale is not None and stale.any():
            j, r = (int(x[0]) for x in np.nonzero(stale))
            raise SimulationError(f"missing wgmma.fence: {buf.name}[{int(base[j]) + r}] of "
                                  f"{self.grid.describe(int(lanes[j]))} was written by an ordinary store after the "
                                  f"thread's last wgmma.fence, and {what} reads it as its A operand; a wgmma.fence "
                                  f"must separate register writes from the wgmma that reads the registers")
        rows, cols = self._fragment(k_step)                    # [4, 32, registers]: the A fragment's places
        warps = len(lanes) // WARP
        tile = np.empty((warps, ROWS_PER_WARP, k_step), dtype=np.int64)
        w = np.arange(warps)[:, None, None]
        tile[w, rows[in_group], cols[in_group]] = pos.reshape(warps, WARP, per_lane)
        return st, tile

    def _operand(self, desc: k.MatrixDescriptor, which: str, dtype: DataType, extent: int, blocks: np.ndarray,
                 in_group: np.ndarray | None, ctx: Ctx, what: str) -> tuple[Storage, np.ndarray]:
        """The storage and flat positions [warps, mn, k] of the operand elements each warp reads: A's 16
        rows of the warp (``in_group`` is its warp in the warp group), or B's ``extent`` columns."""
        buf = desc.buffer
        where = f"{what}: operand {which} ({buf.name})"
        # lowering.verify has checked the memory, type, swizzle and descriptor offsets
        st = self.memory.data_storage(buf, where)
        size = st.dtype.size
        start = self.eval.per_lane(desc.offset, ctx).reshape(-1, WARP)
        if (start != start[:, :1]).any():
            j = int(np.flatnonzero((start != start[:, :1]).any(axis=1))[0])
            raise SimulationError(f"{where}: the descriptor's start {desc.offset} differs between the threads of "
                                  f"warp {self.grid.warp_name(ctx.lanes[j * WARP])}; a matrix descriptor is "
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
                              f"{self.grid.warp_name(int(ids[j]) * WARP)} execute it; wgmma.mma_async.sync.aligned is "
                              f"executed by every thread of the warp group")

    def _check_fence(self, acc: Accumulators, pos: np.ndarray, lanes: np.ndarray, what: str) -> None:
        fences = self.wgmma.fences[lanes]
        if not fences.all():
            j = int(np.flatnonzero(fences == 0)[0])
            raise SimulationError(f"missing wgmma.fence: warp {self.grid.warp_name(int(lanes[j]))} issues {what} "
                                  f"without a wgmma.fence before it; a warp group executes wgmma.fence before its "
                                  f"first wgmma")
        for kind, epoch in (("written by an ordinary store", acc.written), ("read by an ordinary load", acc.read)):
            touched = epoch[pos] == fences[:, None]
            if touched.any():
                j, r = (int(x[0]) for x in np.nonzero(touched))
                index = int(pos[j, r]) - int(lanes[j]) * acc.storage.size
                raise SimulationError(f"missing wgmma.fence: {acc.storage.name}[{index}] of "
                                      f"{self.grid.describe(int(lanes[j]))} was {kind} after the thread's last "
                                      f"wgmma.fence, and {what} accumulates into it; a wgmma.fence must separate "
                                      f"register accesses from the wgmma that uses the registers")


__all__ = ["WgmmaOps"]
