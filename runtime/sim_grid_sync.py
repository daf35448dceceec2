"""Grid reductions in the simulator: ``GridFence``, ``SemaphoreArrive`` and the partials between blocks.

A block publishes its partials (its threads' writes to a grid reduction's work buffer) by the protocol
``lowering/grid_reduction.py`` emits: each thread writes, then fences (``GridFence``), then a barrier, then
thread 0 adds 1 to the block's semaphore (``SemaphoreArrive``, acquire-release at GPU scope). The model:

- every element of a work buffer remembers the thread that wrote it last and how many fences that thread
  had executed then; a thread's write is *fenced* once it executes a fence after it;
- an arrival publishes, for every thread of its block, the writes fenced so far; a write made by a thread
  of a block that has arrived already for the thread's round (the thread has not reached that arrival
  itself: a block may arrive once per stream-K tile it walks) is an error (no barrier kept it before the
  arrival), and so is an
  arrival while a thread of the block holds partials that no fence (the fence is missing) or no block-wide
  barrier after the fence (the barrier is missing) orders before thread 0's atomic;
- a load of a work buffer element that its writer's block has not published is an error: the reader
  could see the old value on a GPU (a partial read before the writing block's fence and arrival), and so is
  one whose publishing arrival comes after the reader's block's latest arrival (its acquire);
- the arrivals of one statement instance happen in a seeded random order of the blocks, so which block
  arrives last varies with the seed (and with ``interleave_blocks``), as on a GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_barriers import Barriers
from .sim_eval import Evaluator
from .sim_memory import Grid, Memory, Storage
from .sim_tasks import Ctx, Handler, Progress, TaskGen
from .sim_values import uniform


class GridSync:
    """Fences, semaphore arrivals and the publication state of the work buffers (``attach``)."""

    def __init__(self, grid: Grid, rng: np.random.Generator, progress: Progress, evaluator: Evaluator,
                 memory: Memory, barriers: Barriers) -> None:
        self.grid = grid
        self.rng = rng
        self.progress = progress
        self.eval = evaluator
        self.memory = memory
        self.barriers = barriers
        n = grid.num_lanes
        self.fences = np.zeros(n, dtype=np.int64)          # GridFences each lane executed
        self.published = np.zeros(n, dtype=np.int64)       # its fences counted at its block's arrival
        self.last_write = np.full(n, -1, dtype=np.int64)   # its fence count at its latest partial write
        self.synced = np.zeros(n, dtype=np.int64)          # its fence count at its latest block-wide barrier
        self.barrier_since_write = np.ones(n, dtype=bool)   # a block-wide barrier since its latest partial write
        barriers.on_block_arrival.append(self._barrier_arrival)
        self.rounds = np.zeros(n, dtype=np.int64)                     # arrival statements each lane has reached
        self.arrivals = np.zeros(grid.num_blocks, dtype=np.int64)     # each block's arrivals so far
        self.arrival = np.full(grid.num_blocks, -1, dtype=np.int64)   # its latest arrival's place in the order
        self.order = 0
        self.is_last = np.zeros(grid.num_blocks, dtype=np.int64)
        # per round r of a block's arrivals (a row each): each lane's fence count published then, and the
        # arrival's place in the order (a stream-K block arrives once per tile it walks)
        self.round_fences = np.full((0, n), -1, dtype=np.int64)
        self.round_order = np.full((0, n), -1, dtype=np.int64)

    def handles(self) -> dict[type, Handler]:
        return {k.GridFence: self.fence, k.SemaphoreArrive: self.arrive}

    def attach(self, st: Storage) -> None:
        """Track the publication of ``st``, a grid reduction's work buffer."""
        st.grid_sync = self
        st.grid_writer = np.full(st.size, -1, dtype=np.int64)
        st.grid_epoch = np.zeros(st.size, dtype=np.int64)

    # ---- statements -------------------------------------------------------------------
    def fence(self, node: k.GridFence, ctx: Ctx, i: int) -> None:
        self.fences[ctx.lanes] += 1

    def arrive(self, node: k.SemaphoreArrive, ctx: Ctx, i: int) -> TaskGen:
        what = f"semaphoreArrive({node.semaphore.name}[{node.index}])"
        lanes = ctx.lanes
        skip = np.zeros(lanes.shape, dtype=bool)
        if node.skip is not None:      # those blocks do not arrive: the last at once, no atomic, no barrier
            skip = np.broadcast_to(np.asarray(self.eval.ev(node.skip, ctx)), lanes.shape).astype(bool)
        self.rounds[lanes[~skip]] += 1
        first = (self.grid.thread_of[lanes] == 0) & ~skip
        if first.any():
            sem = self.memory.data_storage(node.semaphore, what)
            index = np.broadcast_to(np.asarray(self.eval.ev(node.index, ctx)), lanes.shape)
            # one count per block (a stream-K tile's segments); split-K's is the same for every block
            arrivals = np.broadcast_to(np.asarray(self.eval.ev(node.arrivals, ctx)), lanes.shape)
            for j in self.rng.permutation(np.flatnonzero(first)):
                self._arrive_block(int(self.grid.block_of[lanes[j]]), sem, int(index[j]), int(arrivals[j]), what)
        if not skip.all():
            arriving = ctx.narrow(~skip) if skip.any() else ctx
            if node.barrier is None:
                yield from self.barriers.block_barrier(arriving, f"{what}'s barrier", ctx.path + (i,))
            else:           # in a warp-split branch: bar.red.or over the branch's threads
                yield from self.barriers.named(node.barrier, arriving, f"{what}'s bar.red.or {node.barrier.id}, "
                                                                      f"{node.barrier.threads}")
        ctx.env[node.name] = uniform(np.where(skip, 1, self.is_last[self.grid.block_of[lanes]]))
        return ctx

    def _barrier_arrival(self, lanes: np.ndarray) -> None:
        self.synced[lanes] = self.fences[lanes]
        self.barrier_since_write[lanes] = True

    def _arrive_block(self, block: int, sem: Storage, index: int, arrivals: int, what: str) -> None:
        T = self.grid.threads_per_block
        rows = np.arange(block * T, (block + 1) * T)
        unfenced = rows[self.last_write[rows] >= self.fences[rows]]
        # a thread still behind its write (no barrier since it) has not reached its fence: the barrier is missing
        behind = unfenced[~self.barrier_since_write[unfenced] & (self.grid.thread_of[unfenced] != 0)]
        if behind.size:
            raise SimulationError(f"{what}: block {self.grid.block_name(block)} arrives while "
                                  f"{self.grid.describe(int(behind[0]))} (and {behind.size - 1} more threads) has "
                                  f"written partials but no barrier since: no barrier kept thread 0's atomic after "
                                  f"every thread's fenced partials (a __syncthreads before the arrival is missing)")
        if unfenced.size:
            raise SimulationError(f"{what}: block {self.grid.block_name(block)} arrives while "
                                  f"{self.grid.describe(int(unfenced[0]))} (and {unfenced.size - 1} more threads) "
                                  f"wrote partials that no __threadfence ordered before the arrival: the last "
                                  f"block could read them before they are visible")
        others = rows[1:]     # thread 0's own fenced writes come before its atomic in program order
        unsynced = others[self.last_write[others] >= self.synced[others]]
        if unsynced.size:
            raise SimulationError(f"{what}: block {self.grid.block_name(block)} arrives while "
                                  f"{self.grid.describe(int(unsynced[0]))} (and {unsynced.size - 1} more threads) "
                                  f"fenced partials that no barrier ordered before thread 0's atomic: a "
                                  f"__syncthreads between the fence and the arrival is missing")
        if not 0 <= index < sem.size:
            raise SimulationError(f"out-of-bounds semaphore {sem.name}[{index}] (size {sem.size}) in {what}")
        self.published[rows] = self.fences[rows]
        r = int(self.arrivals[block])
        if r >= self.round_fences.shape[0]:
            grow = np.full((r + 1 - self.round_fences.shape[0], self.grid.num_lanes), -1, dtype=np.int64)
            self.round_fences = np.vstack([self.round_fences, grow])
            self.round_order = np.vstack([self.round_order, grow])
        self.order += 1
        self.round_fences[r, rows] = self.fences[rows]
        self.round_order[r, rows] = self.order
        self.arrivals[block] = r + 1
        self.arrival[block] = self.order
        old = int(sem.data[index])
        sem.data[index] = old + 1
        self.is_last[block] = int(old == arrivals - 1)
        self.progress.advance()

    # ---- the work buffers' accesses (``MemoryOps.assign``, ``Evaluator.value``) ---------------------------------
    def partial_write(self, st: Storage, pos: Any, lanes: np.ndarray, what: Any) -> None:
        blocks = self.grid.block_of[lanes]
        # the block arrived for the round the writing thread is still in (a lane passes an arrival after its block's)
        late = np.flatnonzero(self.arrivals[blocks] > self.rounds[lanes])
        if late.size:
            lane = int(lanes[late[0]])
            raise SimulationError(f"{what() if callable(what) else what}: {self.grid.describe(lane)} writes partials "
                                  f"after its block arrived on the semaphore: no barrier kept the arrival after "
                                  f"every thread's partials (a __syncthreads before the atomic is missing)")
        pos = np.broadcast_to(np.asarray(pos), lanes.shape)
        st.grid_writer[pos] = lanes
        self.barrier_since_write[lanes] = False
        st.grid_epoch[pos] = self.fences[lanes]
        self.last_write[lanes] = self.fences[lanes]

    def partial_read(self, st: Storage, pos: Any, lanes: np.ndarray, what: Any) -> None:
        pos = np.broadcast_to(np.asarray(pos), lanes.shape)
        writer = st.grid_writer[pos]
        w_safe = np.maximum(writer, 0)
        # the arrival that published the write: the writer block's first after the writer's fence that followed it
        published_by = self.round_fences[:, w_safe] > st.grid_epoch[pos]
        unpublished = (writer < 0) | ~published_by.any(axis=0)
        if published_by.shape[0]:
            theirs = self.round_order[np.argmax(published_by, axis=0), w_safe]
        else:                                  # no block has arrived yet: nothing is published
            theirs = np.zeros_like(w_safe)
        # the reader's acquire (its block's latest arrival) sees only the releases of the arrivals before it
        mine = self.arrival[self.grid.block_of[lanes]]
        unseen = ~unpublished & ((mine < 0) | (theirs > mine))
        bad = np.flatnonzero(unpublished | unseen)
        if bad.size == 0:
            return
        j = int(bad[0])
        w = int(writer[j])
        if w < 0:
            by = "no block wrote it yet"
        elif unpublished[j]:
            by = (f"{self.grid.describe(w)} wrote it and its block has not published it (a __threadfence after the "
                  f"write, then the block's semaphore arrival)")
        else:
            by = (f"{self.grid.describe(w)} wrote it and its block's arrival on the semaphore does not come before "
                  f"the reader's block's (the reader acquires only what earlier arrivals released)")
        raise SimulationError(f"{what() if callable(what) else what} by {self.grid.describe(int(lanes[j]))} reads "
                              f"{st.name}[{int(pos[j])}], a partial of another block: {by}")
