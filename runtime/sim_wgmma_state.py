"""wgmma state of the simulator: asynchronous accumulators, the wgmmas in flight and their hazard checks.

The ``Mma`` statements themselves are ``sim_wgmma``'s; this is what they leave behind, which ordinary loads and
stores, async copies, ``AsyncWait("wgmma", n)`` and thread exit consult.

Asynchrony. The true accumulator values live in a shadow; the registers an ``Mma`` writes hold poison
(NaN) until an ``AsyncWait("wgmma", n)`` retires the commit group the ``Mma`` belongs to. The ``Mma``s a
thread issued since its last ``AsyncCommit("wgmma")`` form its open group; a wait retires every
committed group but the ``n`` most recent. Chained ``Mma``s into the same registers accumulate in the
shadow in issue order; a register shows its value once the group of the last ``Mma`` writing it retires.

Hazards (``SimulationError``):

- missing wgmma.fence: an ``Mma`` before any ``WgmmaFence`` of its thread, or one whose accumulator
  registers an ordinary instruction (a store or a load) accessed since the thread's last fence;
- operand overwrite: a store, a TMA or cp.async copy (when issued and when landing) or a write to an
  aliased buffer touching shared memory that a wgmma not yet retired reads, or a store to the registers of a
  register A operand that a wgmma not yet retired reads;
- missing wgmma.fence before a wgmma whose register A operand an ordinary store wrote since the thread's last
  fence (``sim_wgmma`` checks it, from the fence count this records at each such store);
- a store to accumulator registers that a wgmma not yet retired writes (named a rescale when it stores a value
  computed from the register itself, as a rescaled sum accumulated in place does);
- a thread that exits (``return`` or kernel end) with wgmmas not committed or not waited.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fusion_ir.types import DataType, MemoryType
from lowering import kernel_ir as k
from lowering.kernel_ir import AsyncKind, CopyKind

from .errors import SimulationError
from .sim_async import AsyncCopy
from .sim_groups import CommitGroups
from .sim_memory import Grid, Storage


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


class WgmmaState:
    """Per-thread wgmma counters, the wgmmas in flight, and the checks other statements make against them."""

    def __init__(self, kernel: k.Kernel, grid: Grid, groups: CommitGroups) -> None:
        n = grid.num_lanes
        self.grid = grid
        self.committed = groups.counter(AsyncKind.Wgmma)                 # wgmma.commit_group executions per thread
        self.fences = np.zeros(n, dtype=np.int64)                # WgmmaFence executions per thread
        self.last = np.full(n, -1, dtype=np.int64)               # group of the thread's latest Mma
        self.retired = np.zeros(n, dtype=np.int64)               # groups below it are retired
        self.issues: list[WgmmaIssue] = []
        self.acc_names = {node.acc.name for node in k.walk(kernel.body) if isinstance(node, k.Mma)}
        self.register_operand_names = {node.a.buffer.name for node in k.walk(kernel.body)
                                       if isinstance(node, k.Mma) and isinstance(node.a, k.RegisterFragment)}

    # ---- issue and retirement -----------------------------------------------------------------
    def issue(self, issue: WgmmaIssue, lanes: np.ndarray, group: np.ndarray) -> None:
        """``lanes`` issued ``issue`` into their open ``group``."""
        self.last[lanes] = group
        self.issues.append(issue)

    def wait(self, pending: int, lanes: np.ndarray) -> None:
        """``wgmma.wait_group pending``: retire every committed group but the ``pending`` most recent."""
        keep_from = self.committed[lanes] - pending
        self.retired[lanes] = np.maximum(self.retired[lanes], keep_from)
        if not self.issues:
            return
        limit = np.full(self.grid.num_lanes, -1, dtype=np.int64)
        limit[lanes] = keep_from
        for issue in list(self.issues):
            sel = issue.open & (issue.group < limit[issue.lanes[:, 0]])
            if sel.any():
                self._retire(issue, sel)

    def _retire(self, issue: WgmmaIssue, sel: np.ndarray) -> None:
        issue.open &= ~sel
        if not issue.open.any():
            self.issues.remove(issue)
        acc = issue.acc
        pos = issue.acc_pos[sel]
        mine = pos[acc.pending[pos] == issue.group[sel][:, None]]   # no later wgmma writes them
        acc.storage.data[mine] = acc.shadow[mine]
        acc.pending[mine] = -1
        for st, p in issue.reads:
            st.wgmma_reads[p[sel]] -= 1

    # ---- accumulator registers ------------------------------------------------------------
    def accumulators(self, st: Storage) -> Accumulators:
        """The accumulator state of ``st`` (Local Float, ``lowering.verify``), created on first use."""
        if st.wgmma_acc is None:
            st.wgmma_acc = Accumulators.of(st)
        return st.wgmma_acc

    def attach_accumulators(self, st: Storage) -> None:
        """An allocation of a buffer some ``Mma`` accumulates into, or reads as its A operand in registers: track
        its ordinary accesses from now on."""
        if st.name in self.register_operand_names and st.memory is MemoryType.Local and st.wgmma_reads is None:
            st.wgmma_reads = np.zeros(st.data.size, dtype=np.int32)
            st.wgmma_written = np.full(st.data.size, -1, dtype=np.int64)
        if st.name not in self.acc_names:
            return
        if st.memory is MemoryType.Local and st.dtype is DataType.Float and st.wgmma_acc is None:
            st.wgmma_acc = Accumulators.of(st)

    def accumulator_store(self, acc: Accumulators, pos: Any, lanes: np.ndarray, what: str | Callable[[], str]) -> None:
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
                                  f"wgmma.wait_group accumulates into it; ordinary writes of accumulator registers "
                                  f"(a zeroing, a rescale) follow the wgmma.wait_group that retires the wgmmas "
                                  f"writing them")
        fences = self.fences[lanes]
        acc.written[pos] = fences if pos.ndim == 1 else fences[:, None]

    def accumulator_load(self, acc: Accumulators, pos: Any, lanes: np.ndarray) -> None:
        pos = np.asarray(pos)
        fences = self.fences[lanes]
        acc.read[pos] = fences if pos.ndim == 1 else fences[:, None]

    # ---- shared memory a wgmma still reads ---------------------------------------------------------
    def operand_overwrite(self, st: Storage, positions: Any, what: str | Callable[[], str]) -> None:
        """Raise if ``what`` writes positions of ``st`` that an unretired wgmma reads (a callable ``what`` is
        only called on error)."""
        pos = np.asarray(positions).reshape(-1)
        hit = pos[st.wgmma_reads[pos] > 0]
        if hit.size == 0:
            if st.wgmma_written is not None:     # registers (a row per thread): written since the thread's fence
                st.wgmma_written[pos] = self.fences[pos // st.size]
            return
        what = what() if callable(what) else what
        row, element = np.divmod(hit, st.size)
        first = int(hit[0])
        block = int(row[0])
        e = element[row == block]
        lo, hi, size = int(e.min()), int(e.max()), st.dtype.size
        reader = ""
        for issue in self.issues:
            for other, p in issue.reads:
                rows = np.flatnonzero(issue.open & (p == first).any(axis=1)) if other is st else ()
                if len(rows):
                    lane = int(issue.lanes[rows[0], 0])
                    group = int(issue.group[rows[0]])
                    state = ("an uncommitted wgmma (no wgmma.commit_group after it yet)"
                             if group >= self.committed[lane] else
                             "a committed wgmma that no wgmma.wait_group has retired yet")
                    reader = f"{state}: {issue.what} issued by warp {self.grid.warp_name(lane)}"
                    break
            if reader:
                break
        if st.memory is MemoryType.Local:
            raise SimulationError(f"{what} overwrites {st.name}[{lo}:{hi + 1}] of {self.grid.describe(block)}, "
                                  f"registers that {reader} still reads as its A operand; the registers of a wgmma's "
                                  f"A operand must not be written before the wgmma.wait_group that retires it")
        raise SimulationError(f"{what} overwrites {st.name}[{lo}:{hi + 1}] (bytes {lo * size}..{(hi + 1) * size - 1},"
                              f" block {self.grid.block_name(block)}) that {reader} still reads; shared memory a "
                              f"wgmma reads must not be written before the wgmma.wait_group that retires it")

    def copy_write(self, copy: AsyncCopy, positions: np.ndarray, landing: bool) -> None:
        """An ``AsyncEngine`` listener: the async proxy writes ``positions`` of ``copy.dst`` (poison when issued,
        data when landing)."""
        if copy.dst.wgmma_reads is not None:
            name = {CopyKind.TmaLoad: "TMA load", CopyKind.CpAsync: "cp.async"}.get(copy.kind, copy.kind.value)
            self.operand_overwrite(copy.dst, positions,
                                   f"{name} into {copy.dst.name} ({'landing' if landing else 'issued'})")

    # ---- thread exit ----------------------------------------------------------------------
    def check_exit(self, lanes: np.ndarray) -> None:
        """``lanes`` exit: each must have committed and waited for every wgmma it issued."""
        last = self.last[lanes]
        busy = last >= self.retired[lanes]
        if not busy.any():
            return
        j = int(np.flatnonzero(busy)[0])
        lane = int(lanes[j])
        if last[j] >= self.committed[lane]:
            state = "an uncommitted wgmma (no wgmma.commit_group after its last wgmma)"
        else:
            state = "a committed wgmma group that no wgmma.wait_group retired"
        raise SimulationError(f"{self.grid.describe(lane)} exits with {state}; every wgmma must be committed and "
                              f"waited for (wgmma.wait_group) before its thread exits")


__all__ = ["Accumulators", "WgmmaIssue", "WgmmaState"]
