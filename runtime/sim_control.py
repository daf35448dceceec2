"""Statement lists in the simulator: dispatch of each statement to its handler, and control flow (loops,
branches, ``ElectSync`` bodies, ``return`` and ``continue``).

``ControlFlow`` holds the simulator's one dispatch table, kernel-IR node class -> handler, made of the
``handles()`` of every statement component it is given and its own; a class with two handlers is an error,
and a statement without one is reported when it is reached. It runs a statement list for a task's lanes
(``run_body``): one statement at a time, for all the lanes at once (SIMT lockstep); after each, the copies in
flight of the task may land (``sim_async``), and after a random number of statements (a draw of the seeded
generator shared with the scheduler and the async engine) the task yields to the others.

A loop with uniform bounds iterates once for all lanes (the index stays a Python int); thread-
dependent bounds iterate to the largest stop under a per-iteration lane mask. A divergent ``if``
runs both branches on their lanes, as separate tasks when a branch may block (``fork``). Lanes that return
leave every enclosing statement list; lanes that continue leave the rest of the loop body.
"""

from __future__ import annotations

import inspect
from collections.abc import Generator, Sequence
from dataclasses import replace

import numpy as np

from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_async import AsyncEngine
from .sim_elect import Election
from .sim_eval import Evaluator
from .sim_memory import Grid
from .sim_tasks import SWITCH, Blocked, Ctx, ExecutesStatements, Handler, Progress, Task, TaskGen
from .sim_threads import Threads
from .sim_values import uniform

# a running task yields to the others after a geometric number of statements with this mean
MEAN_STATEMENTS_BETWEEN_SWITCHES = 32
# statement executions (summed over tasks) after which a simulation is taken to be runaway
MAX_STATEMENTS = 20_000_000
# statements that may block their task: a compound statement containing one forks on divergence
BLOCKING = (k.BlockSync, k.NamedBarrier, k.BlockReduce, k.MBarrierWait, k.MBarrierWaitParity)


def dispatch_table(components: Sequence[ExecutesStatements]) -> dict[type, Handler]:
    """Every component's ``handles()`` in one table; a node class two components handle is an error."""
    table: dict[type, Handler] = {}
    owner: dict[type, ExecutesStatements] = {}
    for component in components:
        for cls, handler in component.handles().items():
            if cls in table:
                raise SimulationError(f"kernel IR node {cls.__name__} has two simulator handlers: "
                                      f"{type(owner[cls]).__name__} and {type(component).__name__}")
            table[cls] = handler
            owner[cls] = component
    return table


class ControlFlow:
    """Runs statement lists through the dispatch table; executes the compound statements itself."""

    def __init__(self, kernel: k.Kernel, grid: Grid, rng: np.random.Generator, progress: Progress,
                 async_: AsyncEngine, evaluator: Evaluator, threads: Threads, election: Election,
                 statements: Sequence[ExecutesStatements]) -> None:
        self.kernel = kernel
        self.grid = grid
        self.rng = rng
        self.progress = progress
        self.async_ = async_
        self.eval = evaluator
        self.threads = threads
        self.election = election
        self.components: tuple[ExecutesStatements, ...] = (self, *statements)
        self.handlers = dispatch_table(self.components)
        self._blocking: dict[type, bool] = {}
        self._static: dict[int, tuple[k.Node, bool, bool]] = {}
        self._budget = self._switch_budget()

    def handles(self) -> dict[type, Handler]:
        return {k.ForLoop: self.for_loop, k.IfThenElse: self.if_then_else, k.ElectSync: self.elect_sync,
                k.Return: self.return_, k.Continue: self.continue_, k.Comment: self.comment}

    # ---- statement lists ---------------------------------------------------------------------
    def run_body(self, body: tuple[k.Node, ...], ctx: Ctx) -> TaskGen:
        """Execute ``body`` for ``ctx``'s lanes; returns the context of the lanes that fall through its end."""
        for i, node in enumerate(body):
            if ctx.lanes.size == 0:
                break
            fn, blocking = self.handler(type(node))
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

    def handler(self, cls: type) -> tuple[Handler, bool]:
        """The handler for statements of class ``cls`` and whether it is a generator (a statement that may block)."""
        fn = self.handlers.get(cls)
        if fn is None:
            raise SimulationError(f"the simulator cannot handle kernel IR node {cls.__name__}: no simulator "
                                  f"component registers a handler for it (handles())")
        blocking = self._blocking.get(cls)
        if blocking is None:
            blocking = self._blocking[cls] = inspect.isgeneratorfunction(fn)
        return fn, blocking

    def _tick(self, task: Task) -> None:
        self.progress.steps += 1
        self.progress.advance()
        if self.progress.steps > MAX_STATEMENTS:
            raise SimulationError(f"kernel {self.kernel.name}: more than {MAX_STATEMENTS} statements executed; "
                                  f"a loop bound is probably wrong")
        if self.async_.copies:
            self.async_.tick(task)

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
        gens = [self.run_body(body, c) for body, c in parts]
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

    def _alive(self, ctx: Ctx) -> Ctx:
        keep = ~self.threads.exited[ctx.lanes]
        return ctx if keep.all() else ctx.narrow(keep)

    # ---- loops -------------------------------------------------------------------------------
    def for_loop(self, node: k.ForLoop, ctx: Ctx, i: int) -> TaskGen:
        start, stop = uniform(self.eval.ev(node.start, ctx)), uniform(self.eval.ev(node.stop, ctx))
        step = self._loop_step(node, ctx)
        name = node.index.name
        loops = ctx.loops + (name,)
        threads = self.threads
        if not isinstance(start, np.ndarray) and not isinstance(stop, np.ndarray):
            env = dict(ctx.env)
            cur = Ctx(ctx.lanes, env, ctx.task, ctx.path, ctx.site + (i,), loops)
            exits = threads.exit_events
            for n_iter, value in enumerate(range(int(start), int(stop), step)):
                env[name] = value
                cur.path = ctx.path + (i, n_iter)
                yield from self.run_body(node.body, cur)
                if threads.exit_events != exits:
                    exits = threads.exit_events
                    keep = ~threads.exited[cur.lanes]
                    if not keep.all():
                        cur = cur.narrow(keep)
                        env = cur.env
                    if cur.lanes.size == 0:
                        break
            return self._alive(ctx)
        # thread-dependent bounds: iterate to the largest stop with a per-iteration mask
        n = ctx.lanes.size
        idx = np.broadcast_to(np.asarray(start, dtype=np.int64), (n,)).copy()
        stop_arr = np.broadcast_to(np.asarray(stop, dtype=np.int64), (n,))
        n_iter = 0
        while True:
            active = (idx < stop_arr) & ~threads.exited[ctx.lanes]
            if not active.any():
                break
            cur = ctx.narrow(active)
            cur.env[name] = idx[active]
            cur.path = ctx.path + (i, n_iter)
            cur.site = ctx.site + (i,)
            cur.loops = loops
            yield from self.run_body(node.body, cur)
            idx += step
            n_iter += 1
        return self._alive(ctx)

    def _loop_step(self, node: k.ForLoop, ctx: Ctx) -> int:
        step = uniform(self.eval.ev(node.step, ctx))
        if isinstance(step, np.ndarray):
            raise SimulationError(f"loop {node.index}: step {node.step} differs between the threads of "
                                  f"{ctx.task.name}; a loop step must be the same in every thread")
        if int(step) < 1:
            raise SimulationError(f"loop {node.index}: step {node.step} is {int(step)}; loop steps must be positive")
        return int(step)

    # ---- branches ----------------------------------------------------------------------------
    def if_then_else(self, node: k.IfThenElse, ctx: Ctx, i: int) -> TaskGen:
        cond = self.eval.ev(node.cond, ctx)
        if isinstance(cond, np.ndarray):
            cond = np.broadcast_to(cond, ctx.lanes.shape).astype(bool, copy=False)
            if cond.all():
                cond = True
            elif not cond.any():
                cond = False
        if not isinstance(cond, np.ndarray):
            branch = 0 if cond else 1
            body = (node.then_body, node.else_body)[branch]
            out = yield from self.run_body(body, ctx.enter((i, branch), (i, branch)))
            return replace(out, path=ctx.path, site=ctx.site)
        blocking, escapes = self._static_info(node)
        then_ctx = ctx.narrow(cond).enter((i, 0), (i, 0))
        else_ctx = ctx.narrow(~cond).enter((i, 1), (i, 1))
        if blocking:
            for sub, truth in ((then_ctx, "true"), (else_ctx, "false")):
                sub.task = Task(f"{ctx.task.name}, IF {node.cond} {truth}", sub.lanes, ctx.task.key + sub.site)
            parts = yield from self._fork([(node.then_body, then_ctx), (node.else_body, else_ctx)])
        else:
            parts = [(yield from self.run_body(node.then_body, then_ctx)),
                     (yield from self.run_body(node.else_body, else_ctx))]
        if not escapes and not blocking:
            return ctx
        return self._merge(self._alive(ctx), parts)

    def elect_sync(self, node: k.ElectSync, ctx: Ctx, i: int) -> TaskGen:
        """The body, for the threads ``election`` picks; the others skip it."""
        elected = self.election.elected(node, ctx)
        if not elected.any():
            return ctx
        sub = ctx.narrow(elected).enter((i,), (i,))
        out = yield from self.run_body(node.body, sub)
        _, escapes = self._static_info(node)
        if not escapes:
            return ctx
        gone = np.zeros(self.grid.num_lanes, dtype=bool)
        gone[sub.lanes] = True
        gone[out.lanes] = False
        keep = ~gone[ctx.lanes]
        return ctx if keep.all() else ctx.narrow(keep)

    # ---- leaving a statement list ------------------------------------------------------------
    def return_(self, node: k.Return, ctx: Ctx, i: int) -> Ctx:
        self.threads.exit(ctx.lanes)
        return ctx.empty()

    def continue_(self, node: k.Continue, ctx: Ctx, i: int) -> Ctx:
        return ctx.empty()

    def comment(self, node: k.Comment, ctx: Ctx, i: int) -> None:
        return None


__all__ = ["BLOCKING", "ControlFlow", "dispatch_table"]
