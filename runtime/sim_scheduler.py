"""Scheduling of the simulator's tasks: one task per warp index, run in a seeded random order.

By default a task holds warp ``w`` of every block, so blocks run in lockstep. With
``interleave_blocks`` (a seed) the blocks are dealt at random into groups and each group's warps
are tasks of their own, so one block can run ahead of another as on a GPU, where blocks are
ordered by nothing: a kernel that reads what another block writes without a grid-level order
then reads it too early (poison) in some interleavings.

A task runs its lanes' statements (SIMT lockstep) until it blocks or for a random number of
statements, so warps drift apart as far as synchronization allows. A task that blocks yields a
``Blocked`` saying what it waits for; when no task makes progress the kernel is deadlocked. An
``if`` whose branches block forks the task into sub-tasks that rejoin after it (``fork``).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Generator
from dataclasses import dataclass
from typing import Any

import numpy as np

from lowering import kernel_ir as k

from .errors import DeadlockError, SimulationError

# a running task yields to the others after a geometric number of statements with this mean
MEAN_STATEMENTS_BETWEEN_SWITCHES = 32
# statement executions (summed over tasks) after which a simulation is taken to be runaway
MAX_STATEMENTS = 20_000_000
# with interleaved blocks, the blocks are dealt into at most this many independently scheduled groups
MAX_BLOCK_GROUPS = 4
# statements that may block their task: a compound statement containing one forks on divergence
BLOCKING = (k.BlockSync, k.NamedBarrier, k.BlockReduce, k.MBarrierWait, k.MBarrierWaitParity)


class Blocked:
    """Yielded by a task that cannot make progress; ``describe`` says what it waits for."""

    __slots__ = ("describe",)

    def __init__(self, describe: Callable[[], list[str]]) -> None:
        self.describe = describe


SWITCH = Blocked(lambda: ["(yielded to other tasks)"])


@dataclass
class Task:
    name: str
    lanes: np.ndarray
    key: tuple = ()   # ("warp", w) for a root task, extended by (if site, branch) for each fork


@dataclass
class Ctx:
    """The lanes executing a statement list and their symbol values (arrays are per lane)."""

    lanes: np.ndarray
    env: dict[str, Any]
    task: Task
    path: tuple = ()              # dynamic position: statement indices, branch and iteration numbers
    site: tuple = ()              # static position: statement indices and branch numbers
    loops: tuple[str, ...] = ()   # enclosing loop index symbols (for traces)

    def narrow(self, keep: np.ndarray) -> Ctx:
        env = {name: (v[keep] if isinstance(v, np.ndarray) else v) for name, v in self.env.items()}
        return Ctx(self.lanes[keep], env, self.task, self.path, self.site, self.loops)

    def enter(self, path: tuple, site: tuple) -> Ctx:
        return Ctx(self.lanes, self.env, self.task, self.path + path, self.site + site, self.loops)

    def empty(self) -> Ctx:
        return self.narrow(np.zeros(self.lanes.size, dtype=bool))


TaskGen = Generator[Blocked, None, Ctx]


class Scheduling:
    """Runs the tasks of a ``Simulator``; statement handlers are its ``visit_<Node>(node, ctx, i)`` methods.

    A handler that is a generator may block (``yield from`` it; it returns the context that
    continues); any other handler returns the continuing context or None for "unchanged".
    """

    def _init_scheduling(self) -> None:
        self.progress = 0
        self.steps = 0
        self._budget = self._switch_budget()
        self._handlers: dict[type, tuple[Callable[..., Any], bool]] = {}
        self._static: dict[int, tuple[k.Node, bool, bool]] = {}

    def run(self) -> None:
        tasks: list[tuple[Task, TaskGen]] = []
        T = self.grid.threads_per_block
        groups = self._block_groups()
        for g in range(int(groups.max(initial=0)) + 1):
            in_group = groups[self.grid.block_of] == g
            for w in range((T + 31) // 32):
                lanes = np.flatnonzero((self.grid.warp_of == w) & in_group)
                if lanes.size:
                    name = f"warp {w}" if groups.max(initial=0) == 0 else f"warp {w} of block group {g}"
                    task = Task(name, lanes, ("warp", w) if g == 0 else ("warp", w, "group", g))
                    tasks.append((task, self._root(task)))
        while tasks:
            before = self.progress
            blocked: list[tuple[Task, TaskGen, Blocked]] = []
            for j in self.rng.permutation(len(tasks)):
                task, gen = tasks[j]
                try:
                    blocked.append((task, gen, next(gen)))
                except StopIteration:
                    self.progress += 1
            tasks = [(t, g) for t, g, _ in blocked]
            if blocked and self.progress == before:
                raise DeadlockError(self._deadlock_message(blocked))
        self._check_kernel_exit()
        self.async_.finish()

    def _block_groups(self) -> np.ndarray:
        """The group of each block: all 0 (lockstep) unless ``interleave_blocks`` gave a seed; then the
        blocks are dealt at random into up to ``MAX_BLOCK_GROUPS`` groups whose tasks run independently."""
        seed = getattr(self, "interleave_blocks", None)
        n = self.grid.num_blocks
        if seed is None or n < 2:
            return np.zeros(n, dtype=np.int64)
        rng = np.random.default_rng(seed)
        count = min(n, MAX_BLOCK_GROUPS)
        groups = np.arange(n) % count      # every group gets a block
        rng.shuffle(groups)
        return groups

    def _check_kernel_exit(self) -> None:
        """State every thread must have cleaned up by the time its block exits (overridden by the simulator)."""

    def _root(self, task: Task) -> TaskGen:
        env = {**self.base_env, **self.grid.lane_symbols(task.lanes)}
        ctx = yield from self._exec_body(self.kernel.body, Ctx(task.lanes, env, task))
        self._exit(task.lanes)
        return ctx

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

    def _tick(self, task: Task) -> None:
        self.steps += 1
        self.progress += 1
        if self.steps > MAX_STATEMENTS:
            raise SimulationError(f"kernel {self.kernel.name}: more than {MAX_STATEMENTS} statements executed; "
                                  f"a loop bound is probably wrong")
        if self.async_.copies:
            self.async_.tick(task)

    def _exec_body(self, body: tuple[k.Node, ...], ctx: Ctx) -> TaskGen:
        for i, node in enumerate(body):
            if ctx.lanes.size == 0:
                break
            fn, blocking = self._statement_handler(type(node))
            if blocking:
                ctx = yield from fn(node, ctx, i)
            else:
                out = fn(node, ctx, i)
                if out is not None:
                    ctx = out
            self._tick(ctx.task)
            self._budget -= 1
            if self._budget <= 0:
                self._budget = self._switch_budget()
                yield SWITCH
        return ctx

    def _statement_handler(self, cls: type) -> tuple[Callable[..., Any], bool]:
        """The ``visit_`` method for ``cls`` and whether it is a generator (a statement that may block)."""
        entry = self._handlers.get(cls)
        if entry is None:
            fn = self.handler(cls)
            entry = self._handlers[cls] = (fn, inspect.isgeneratorfunction(fn))
        return entry

    def _switch_budget(self) -> int:
        return int(self.rng.geometric(1.0 / MEAN_STATEMENTS_BETWEEN_SWITCHES))

    def _static_info(self, node: k.Node) -> tuple[bool, bool]:
        """(contains a blocking statement, contains Return/Continue) for a compound node."""
        info = self._static.get(id(node))
        if info is None:
            nodes = list(k.walk((node,)))
            info = (node, any(isinstance(n, BLOCKING) for n in nodes),
                    any(isinstance(n, (k.Return, k.Continue)) for n in nodes))
            self._static[id(node)] = info
        return info[1], info[2]

    def _merge(self, parent: Ctx, parts: list[Ctx]) -> Ctx:
        """Lanes of ``parent`` that fell through every part (neither returned nor continued)."""
        mark = np.zeros(self.grid.num_lanes, dtype=bool)
        for part in parts:
            mark[part.lanes] = True
        keep = mark[parent.lanes]
        return parent if keep.all() else parent.narrow(keep)

    def _fork(self, parts: list[tuple[tuple[k.Node, ...], Ctx]]) -> Generator[Blocked, None, list[Ctx]]:
        """Run statement lists as separate tasks that may block independently; rejoin when all end."""
        gens = [self._exec_body(body, c) for body, c in parts]
        results: list[Ctx] = [c for _, c in parts]
        running = list(range(len(gens)))
        while running:
            waiting: list[tuple[int, Blocked]] = []
            for j in running:
                try:
                    waiting.append((j, next(gens[j])))
                except StopIteration as stop:
                    results[j] = stop.value
            running = [j for j, _ in waiting]
            if running:
                reasons = [(parts[j][1].task.name, b) for j, b in waiting]
                done = [parts[j][1].task.name for j in range(len(parts)) if j not in running]
                yield Blocked(lambda rs=reasons, done=done: (
                    [f"[{name}] {line}" for name, b in rs for line in b.describe()]
                    + [f"[{name}] finished its branch and waits there to reconverge" for name in done]))
        return results
