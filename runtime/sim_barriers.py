"""Barriers of the simulator: ``__syncthreads`` and named barriers (``bar.sync id, threads``).

State is kept per (block, barrier id). Id 0 is the block-wide barrier: every thread of the block
that has not exited must reach the same statement instance, and it releases when they all have.
A named barrier ``id`` (1..15) releases when ``threads`` threads of the block have arrived, at
whatever statements they arrived; its waiters then continue and the next arrivals start a new
phase. The id may differ between threads (a barrier per warp group): each thread arrives at the
barrier of its own block and id. A barrier whose count never arrives leaves its waiters blocked,
and the scheduler reports the deadlock with the barrier id, the expected and the arrived count.
"""

from __future__ import annotations

from collections.abc import Callable, Generator

import numpy as np

from lowering import kernel_ir as k
from target import DEFAULT_TARGET

from .errors import DeadlockError, SimulationError
from .sim_eval import Evaluator
from .sim_memory import Grid
from .sim_proxy import AsyncProxy
from .sim_tasks import Blocked, Ctx, Handler, Progress, TaskGen
from .sim_threads import Threads
from .sim_values import uniform

NUM_BARRIERS = DEFAULT_TARGET.named_barriers      # hardware barriers per block; 0 is __syncthreads
BLOCK_BARRIER = 0
WARP_SIZE = DEFAULT_TARGET.warp_size


class Barriers:
    """Block-wide and named barriers, per (block, barrier id). ``__syncthreads`` waits for the threads still alive
    (``threads``); an arrival orders the arriving threads' proxy fences before what the barrier orders
    (``proxy``); a release is ``progress``."""

    def __init__(self, grid: Grid, progress: Progress, threads: Threads, evaluator: Evaluator,
                 proxy: AsyncProxy) -> None:
        self.grid = grid
        self.progress = progress
        self.threads = threads
        self.eval = evaluator
        self.proxy = proxy
        nb, n = grid.num_blocks, grid.num_lanes
        self.bar_arrived = np.zeros((nb, NUM_BARRIERS), dtype=np.int64)
        self.bar_gen = np.zeros((nb, NUM_BARRIERS), dtype=np.int64)
        self.bar_expected = np.zeros((nb, NUM_BARRIERS), dtype=np.int64)  # named: count of the open phase
        self.bar_waiting = np.zeros((nb, NUM_BARRIERS), dtype=np.int64)   # named: threads of the open phase that wait
        self.at_barrier = np.zeros(n, dtype=bool)        # lanes waiting at the block-wide barrier
        self.bar_where = np.zeros(nb, dtype=np.int64)    # which block-wide barrier instance each block waits at
        self._where_ids: dict[tuple, int] = {}
        self._where_text: list[str] = []
        # told of the lanes arriving at a block-wide barrier or a named bar.sync (``sim_grid_sync``: fenced partials
        # ordered by it)
        self.on_block_arrival: list[Callable[[np.ndarray], None]] = []
        clusters = int(grid.cluster_of_block.max(initial=-1)) + 1
        self.cluster_arrived = np.zeros(clusters, dtype=np.int64)
        self.cluster_gen = np.zeros(clusters, dtype=np.int64)

    def handles(self) -> dict[type, Handler]:
        return {k.BlockSync: self.block_sync, k.NamedBarrier: self.named_barrier, k.ClusterSync: self.cluster_sync}

    # ---- barrier.cluster -------------------------------------------------------------
    def cluster_sync(self, node: k.ClusterSync, ctx: Ctx, i: int) -> TaskGen:
        """``barrier.cluster.arrive`` + ``wait``: every thread of every block of the cluster that has not exited
        arrives, then all continue (the blocks of a cluster may sit at different statements of it)."""
        what = f"cluster barrier ({node.reason})" if node.reason else "cluster barrier"
        self._check_reach(ctx, what)
        clusters, counts = np.unique(self.grid.cluster_of_block[self.grid.block_of[ctx.lanes]], return_counts=True)
        self.proxy.publish_fences(ctx.lanes)
        target = self.cluster_gen[clusters] + 1
        self.cluster_arrived[clusters] += counts
        self._release_clusters(clusters)
        while np.any(self.cluster_gen[clusters] < target):
            yield Blocked(lambda: self._describe_cluster(what, clusters, target))
            self._release_clusters(clusters)
        return ctx

    def _release_clusters(self, clusters: np.ndarray) -> None:
        alive = np.bincount(self.grid.cluster_of_block, weights=self.threads.alive,
                            minlength=self.cluster_arrived.size).astype(np.int64)
        arrived = self.cluster_arrived[clusters]
        ready = clusters[(arrived > 0) & (arrived >= alive[clusters])]
        if ready.size:
            self.cluster_gen[ready] += 1
            self.cluster_arrived[ready] = 0
            self.progress.advance()

    def _describe_cluster(self, what: str, clusters: np.ndarray, target: np.ndarray) -> list[str]:
        waiting = clusters[self.cluster_gen[clusters] < target]
        if waiting.size == 0:
            return []
        c = int(waiting[0])
        blocks = np.flatnonzero(self.grid.cluster_of_block == c)
        names = ", ".join(self.grid.block_name(int(b)) for b in blocks)
        alive = int(self.threads.alive[blocks].sum())
        return [(f"waits at {what} in the cluster of blocks {names}: {int(self.cluster_arrived[c])} of {alive} "
                 f"threads arrived")]

    # ---- __syncthreads ---------------------------------------------------------------
    def block_sync(self, node: k.BlockSync, ctx: Ctx, i: int) -> TaskGen:
        what = f"__syncthreads() ({node.reason})" if node.reason else "__syncthreads()"
        yield from self.block_barrier(ctx, what, ctx.path + (i,))
        return ctx

    def block_barrier(self, ctx: Ctx, what: str, where: tuple) -> Generator[Blocked, None, None]:
        """Block-wide barrier: every thread of the block that has not exited must reach this same instance."""
        lanes = ctx.lanes
        self._check_reach(ctx, what)
        blocks, counts = np.unique(self.grid.block_of[lanes], return_counts=True)
        where_id = self._where_ids.get(where)
        if where_id is None:
            where_id = self._where_ids[where] = len(self._where_text)
            self._where_text.append(what)
        waiting = blocks[self.bar_arrived[blocks, BLOCK_BARRIER] > 0]
        clash = waiting[self.bar_where[waiting] != where_id]
        if clash.size:
            b = int(clash[0])
            raise DeadlockError(
                f"threads of block {self.grid.block_name(b)} wait at different barriers: "
                f"{self._where_text[int(self.bar_where[b])]} and {what} (a barrier in divergent code or in "
                f"different loop iterations); a __syncthreads must be reached by every thread of the block"
            )
        self.bar_where[blocks] = where_id
        self.proxy.publish_fences(lanes)
        for hook in self.on_block_arrival:
            hook(lanes)
        target = self.bar_gen[blocks, BLOCK_BARRIER] + 1
        self.bar_arrived[blocks, BLOCK_BARRIER] += counts
        self.at_barrier[lanes] = True
        self._release(blocks)
        while np.any(self.bar_gen[blocks, BLOCK_BARRIER] < target):
            yield Blocked(lambda: self._describe_sync(what, blocks, target))
            self._release(blocks)

    def _release(self, blocks: np.ndarray) -> None:
        arrived = self.bar_arrived[blocks, BLOCK_BARRIER]
        ready = blocks[(arrived > 0) & (arrived >= self.threads.alive[blocks])]
        if ready.size:
            self.bar_gen[ready, BLOCK_BARRIER] += 1
            self.bar_arrived[ready, BLOCK_BARRIER] = 0
            self.at_barrier.reshape(self.grid.num_blocks, -1)[ready] = False
            self.progress.advance()

    def _check_reach(self, ctx: Ctx, what: str) -> None:
        """Threads of this task that are alive but elsewhere (branch, loop mask, continue) never arrive."""
        task = ctx.task.lanes
        if task.size == ctx.lanes.size:
            return
        alive = task[~self.threads.exited[task]]
        if alive.size == ctx.lanes.size:
            return
        here = np.zeros(self.grid.num_lanes, dtype=bool)
        here[ctx.lanes] = True
        involved = np.zeros(self.grid.num_blocks, dtype=bool)
        involved[self.grid.block_of[ctx.lanes]] = True
        missing = alive[~here[alive] & involved[self.grid.block_of[alive]]]
        if missing.size:
            raise DeadlockError(
                f"{what} is not reached by every thread of the block: {self.grid.describe(int(missing[0]))} "
                f"and {missing.size - 1} more threads of the same task went elsewhere (a branch, a loop with "
                f"thread-dependent bounds, or a continue), so the barrier can never complete"
            )

    def _describe_sync(self, what: str, blocks: np.ndarray, target: np.ndarray) -> list[str]:
        T = self.grid.threads_per_block
        waiting = blocks[self.bar_gen[blocks, BLOCK_BARRIER] < target]
        if waiting.size == 0:
            return []
        b = int(waiting[0])
        rows = slice(b * T, (b + 1) * T)
        absent = np.flatnonzero(~self.at_barrier[rows] & ~self.threads.exited[rows])
        who = ", ".join(self.grid.describe(int(b * T + t)).split(" of ")[0] for t in absent[:3])
        more = f" (and {waiting.size - 1} more blocks)" if waiting.size > 1 else ""
        line = (f"waits at {what} in block {self.grid.block_name(b)}{more}: "
                f"{int(self.bar_arrived[b, BLOCK_BARRIER])} of {int(self.threads.alive[b])} threads arrived; "
                f"not arrived: {who}{' ...' if absent.size > 3 else ''}")
        return [line]

    # ---- named barriers --------------------------------------------------------------
    def named_barrier(self, node: k.NamedBarrier, ctx: Ctx, i: int) -> TaskGen:
        op = "bar.sync" if node.wait else "bar.arrive"
        what = f"{op} {node.id}, {node.threads}" + (f" ({node.reason})" if node.reason else "")
        yield from self.named(node, ctx, what)
        return ctx

    def named(self, node: k.NamedBarrier, ctx: Ctx, what: str) -> Generator[Blocked, None, None]:
        """Arrive at named barrier ``node.id`` of each block and wait until ``node.threads`` threads did
        (``bar.arrive``, ``node.wait`` False: arrive only).

        The id may differ between the lanes (``1 + threadIdx.y``: a barrier per warp group): each lane
        arrives at the barrier of its own (block, id) pair, and the task waits until every pair its
        lanes arrived at has released.
        """
        ids = self._barrier_ids(node, ctx, what)
        threads = self._barrier_threads(node, ctx, what)
        keys, counts = np.unique(self.grid.block_of[ctx.lanes] * NUM_BARRIERS + ids, return_counts=True)
        blocks, bids = keys // NUM_BARRIERS, keys % NUM_BARRIERS
        open_phase = self.bar_arrived[blocks, bids] > 0
        clash = np.flatnonzero(open_phase & (self.bar_expected[blocks, bids] != threads))
        if clash.size:
            b, bid = int(blocks[clash[0]]), int(bids[clash[0]])
            raise SimulationError(f"{what}: threads of block {self.grid.block_name(b)} arrive at named barrier {bid} "
                                  f"with a count of {threads} while {int(self.bar_arrived[b, bid])} threads wait "
                                  f"there with a count of {int(self.bar_expected[b, bid])}")
        self.bar_expected[blocks, bids] = threads
        self.proxy.publish_fences(ctx.lanes)
        if node.wait:       # a bar.sync orders its threads' fenced partials before what they do next, as a block barrier
            for hook in self.on_block_arrival:
                hook(ctx.lanes)
        target = self.bar_gen[blocks, bids] + 1
        self.bar_arrived[blocks, bids] += counts
        if node.wait:
            self.bar_waiting[blocks, bids] += counts
        over = np.flatnonzero(self.bar_arrived[blocks, bids] > threads)
        if over.size:
            b, bid = int(blocks[over[0]]), int(bids[over[0]])
            raise SimulationError(f"{what}: {int(self.bar_arrived[b, bid])} threads of block "
                                  f"{self.grid.block_name(b)} arrive at named barrier {bid}, more than its count "
                                  f"{threads}")
        ready = self.bar_arrived[blocks, bids] == threads
        if ready.any():
            unwaited = np.flatnonzero(ready & (self.bar_waiting[blocks, bids] == 0))
            if unwaited.size:
                b, bid = int(blocks[unwaited[0]]), int(bids[unwaited[0]])
                raise SimulationError(f"{what}: named barrier {bid} of block {self.grid.block_name(b)} completes a "
                                      f"phase of {threads} threads that all only arrived (bar.arrive): no thread "
                                      f"waits for it, so it orders nothing (a bar.sync missing?)")
            self.bar_gen[blocks[ready], bids[ready]] += 1
            self.bar_arrived[blocks[ready], bids[ready]] = 0
            self.bar_waiting[blocks[ready], bids[ready]] = 0
            self.progress.advance()
        if not node.wait:      # bar.arrive: counted, not waiting
            return
        while np.any(self.bar_gen[blocks, bids] < target):
            yield Blocked(lambda: self._describe_named(what, blocks, bids, target))

    def check_exit(self) -> None:
        """Kernel exit: no named barrier holds arrivals of a phase that never completed (a ``bar.arrive`` that
        no ``bar.sync`` took; a waiting thread would have been reported as a deadlock)."""
        pending = np.argwhere(self.bar_arrived[:, 1:] > 0)
        if pending.size == 0:
            return
        b, bid = int(pending[0][0]), int(pending[0][1]) + 1
        raise SimulationError(f"kernel exit: named barrier {bid} of block {self.grid.block_name(b)} holds "
                              f"{int(self.bar_arrived[b, bid])} arrivals (bar.arrive) of a phase of "
                              f"{int(self.bar_expected[b, bid])} threads that never completed: no bar.sync took "
                              f"them")

    def _barrier_ids(self, node: k.NamedBarrier, ctx: Ctx, what: str) -> np.ndarray:
        """The barrier id of each lane of the task: 1..15, and the same within a warp (``bar.sync`` counts
        whole warps)."""
        ids = self.eval.per_lane(node.id, ctx)
        bad = np.flatnonzero((ids < 1) | (ids >= NUM_BARRIERS))
        if bad.size:
            j = int(bad[0])
            lane = "" if node.id.is_const else (f"; the id {node.id} is {int(ids[j])} for "
                                                f"{self.grid.describe(int(ctx.lanes[j]))}")
            raise SimulationError(f"{what}: named barrier ids are 1..{NUM_BARRIERS - 1} (0 is __syncthreads){lane}")
        if not node.id.is_const and ids.size > 1:
            warp = self.grid.block_of[ctx.lanes] * self.grid.threads_per_block + self.grid.warp_of[ctx.lanes]
            split = np.flatnonzero((warp[1:] == warp[:-1]) & (ids[1:] != ids[:-1]))  # lanes are sorted
            if split.size:
                j = int(split[0])
                raise SimulationError(f"{what}: the id {node.id} differs within a warp: {int(ids[j])} for "
                                      f"{self.grid.describe(int(ctx.lanes[j]))}, {int(ids[j + 1])} for "
                                      f"{self.grid.describe(int(ctx.lanes[j + 1]))}; bar.sync counts whole warps")
        return ids

    def _barrier_threads(self, node: k.NamedBarrier, ctx: Ctx, what: str) -> int:
        threads = uniform(self.eval.ev(node.threads, ctx))
        if isinstance(threads, np.ndarray):
            raise SimulationError(f"{what}: the thread count {node.threads} differs between the threads of "
                                  f"{ctx.task.name}")
        threads = int(threads)
        if threads < 1 or threads % WARP_SIZE:
            raise SimulationError(f"{what}: the thread count is {threads}; it must be a positive multiple of "
                                  f"{WARP_SIZE}")
        if threads > self.grid.threads_per_block:
            raise SimulationError(f"{what}: the thread count {threads} exceeds the block's "
                                  f"{self.grid.threads_per_block} threads")
        return threads

    def _describe_named(self, what: str, blocks: np.ndarray, bids: np.ndarray, target: np.ndarray) -> list[str]:
        """A line per named barrier id that some of the task's (block, id) pairs still wait at."""
        waiting = self.bar_gen[blocks, bids] < target
        lines = []
        for bid in np.unique(bids[waiting]):
            at = blocks[waiting & (bids == bid)]
            b, bid = int(at[0]), int(bid)
            more = f" (and {at.size - 1} more blocks)" if at.size > 1 else ""
            expected, arrived = int(self.bar_expected[b, bid]), int(self.bar_arrived[b, bid])
            lines.append(f"waits at {what} in block {self.grid.block_name(b)}{more}: named barrier {bid} expects "
                         f"{expected} threads, {arrived} arrived")
        return lines
