"""Scheduling of the simulator's tasks: one task per warp index, run in a seeded random order.

By default a task holds warp ``w`` of every block, so blocks run in lockstep; in a kernel launched in
thread-block clusters, of every block of the same cluster rank, so the blocks of a cluster (which reach each
other's shared memory and barriers) drift apart as far as their cluster barriers and mbarriers allow. With
``interleave_blocks`` (a seed) the blocks are dealt at random into groups and each group's warps
are tasks of their own, so one block can run ahead of another as on a GPU, where blocks are
ordered by nothing: a kernel that reads what another block writes without a grid-level order
then reads it too early (poison) in some interleavings.

A task runs its lanes' statements (SIMT lockstep, ``sim_control``) until it blocks or for a random number
of statements, so warps drift apart as far as synchronization allows. A task that blocks yields a
``Blocked`` saying what it waits for (``sim_tasks``); when a round over the tasks changes nothing
(``Progress``) the kernel is deadlocked. An ``if`` whose branches block forks the task into sub-tasks that
rejoin after it (``sim_control``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lowering import kernel_ir as k

from .errors import DeadlockError
from .sim_control import ControlFlow
from .sim_memory import Grid
from .sim_tasks import Blocked, Ctx, Progress, Task, TaskGen
from .sim_threads import Threads

# with interleaved blocks, the blocks are dealt into at most this many independently scheduled groups
MAX_BLOCK_GROUPS = 4


class Scheduler:
    """Runs a task per warp index (per block group) to the end of the kernel body, in a seeded random order.

    ``rng`` is the simulator's one generator (shared with ``control`` and the async engine, so a seed
    fixes the whole interleaving); ``env`` the launch's symbols (sizes, ``blockDim``, ``gridDim``).
    """

    def __init__(self, kernel: k.Kernel, grid: Grid, env: dict[str, Any], rng: np.random.Generator,
                 progress: Progress, control: ControlFlow, threads: Threads,
                 interleave_blocks: int | None = None) -> None:
        self.kernel = kernel
        self.grid = grid
        self.env = env
        self.rng = rng
        self.progress = progress
        self.control = control
        self.threads = threads
        self.interleave_blocks = interleave_blocks

    def run(self) -> None:
        """Run every task until all ended; ``DeadlockError`` when a round leaves every task blocked."""
        tasks: list[tuple[Task, TaskGen]] = []
        T = self.grid.threads_per_block
        groups = self._block_groups()
        for g in range(int(groups.max(initial=0)) + 1):
            in_group = groups[self.grid.block_of] == g
            for w in range((T + 31) // 32):
                lanes = np.flatnonzero((self.grid.warp_of == w) & in_group)
                if lanes.size:
                    name = f"warp {w}" if groups.max(initial=0) == 0 else f"warp {w} of block group {g}"
                    if self.interleave_blocks is None and self.grid.cluster_size > 1:
                        name = f"warp {w} of cluster rank {g}"
                    task = Task(name, lanes, ("warp", w) if g == 0 else ("warp", w, "group", g))
                    tasks.append((task, self.root(task)))
        while tasks:
            before = self.progress.changes
            blocked: list[tuple[Task, TaskGen, Blocked]] = []
            for j in self.rng.permutation(len(tasks)):
                task, gen = tasks[j]
                try:
                    blocked.append((task, gen, next(gen)))
                except StopIteration:
                    self.progress.advance()
            tasks = [(t, g) for t, g, _ in blocked]
            if blocked and self.progress.changes == before:
                raise DeadlockError(self._deadlock_message(blocked))

    def root(self, task: Task) -> TaskGen:
        """``task``'s lanes run the kernel body, then exit."""
        env = {**self.env, **self.grid.lane_symbols(task.lanes)}
        ctx = yield from self.control.run_body(self.kernel.body, Ctx(task.lanes, env, task))
        self.threads.exit(task.lanes)
        return ctx

    def _block_groups(self) -> np.ndarray:
        """The group of each block: all 0 (lockstep; with clusters, the block's cluster rank) unless
        ``interleave_blocks`` gave a seed; then the
        blocks are dealt at random into up to ``MAX_BLOCK_GROUPS`` groups whose tasks run independently."""
        seed = self.interleave_blocks
        n = self.grid.num_blocks
        if seed is None and self.grid.cluster_size > 1:
            return self.grid.rank_of_block.astype(np.int64)
        if seed is None or n < 2:
            return np.zeros(n, dtype=np.int64)
        rng = np.random.default_rng(seed)
        count = min(n, MAX_BLOCK_GROUPS)
        groups = np.arange(n) % count      # every group gets a block
        rng.shuffle(groups)
        return groups

    def _deadlock_message(self, blocked: list[tuple[Task, TaskGen, Blocked]]) -> str:
        lines = []
        for task, _, b in sorted(blocked, key=lambda t: int(t[0].lanes[0])):
            described = b.describe()
            lines += [f"  {task.name} of every block: {line}" for line in described[:4]]
            if len(described) > 4:
                lines.append(f"    ... and {len(described) - 4} more")
        shown = lines[:40] + ([f"  ... and {len(lines) - 40} more"] if len(lines) > 40 else [])
        return (f"deadlock in kernel {self.kernel.name}: every thread is waiting and nothing in flight "
                f"can release it:\n" + "\n".join(shown))


__all__ = ["MAX_BLOCK_GROUPS", "Scheduler", "Task"]
