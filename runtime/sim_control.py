"""Control flow in the simulator: loops, branches, ``return`` and ``continue``, and thread exit.

A loop with uniform bounds iterates once for all lanes (the index stays a Python int); thread-
dependent bounds iterate to the largest stop under a per-iteration lane mask. A divergent ``if``
runs both branches on their lanes, as separate tasks when a branch may block. Lanes that return
leave every enclosing statement list; lanes that continue leave the rest of the loop body.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_scheduler import Ctx, Task, TaskGen
from .sim_values import uniform


class ControlFlow:
    """Loops, branches, return/continue and thread exit of a ``Simulator``."""

    def _init_control_flow(self) -> None:
        n = self.grid.num_lanes
        self.exited = np.zeros(n, dtype=bool)
        self.exit_events = 0
        self.alive = np.full(self.grid.num_blocks, self.grid.threads_per_block, dtype=np.int64)

    def visit_ForLoop(self, node: k.ForLoop, ctx: Ctx, i: int) -> TaskGen:
        start, stop = uniform(self._ev(node.start, ctx)), uniform(self._ev(node.stop, ctx))
        step = self._loop_step(node, ctx)
        name = node.index.name
        loops = ctx.loops + (name,)
        if not isinstance(start, np.ndarray) and not isinstance(stop, np.ndarray):
            env = dict(ctx.env)
            cur = Ctx(ctx.lanes, env, ctx.task, ctx.path, ctx.site + (i,), loops)
            exits = self.exit_events
            for n_iter, value in enumerate(range(int(start), int(stop), step)):
                env[name] = value
                cur.path = ctx.path + (i, n_iter)
                yield from self._exec_body(node.body, cur)
                if self.exit_events != exits:
                    exits = self.exit_events
                    keep = ~self.exited[cur.lanes]
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
            active = (idx < stop_arr) & ~self.exited[ctx.lanes]
            if not active.any():
                break
            cur = ctx.narrow(active)
            cur.env[name] = idx[active]
            cur.path = ctx.path + (i, n_iter)
            cur.site = ctx.site + (i,)
            cur.loops = loops
            yield from self._exec_body(node.body, cur)
            idx += step
            n_iter += 1
        return self._alive(ctx)

    def _loop_step(self, node: k.ForLoop, ctx: Ctx) -> int:
        step = uniform(self._ev(node.step, ctx))
        if isinstance(step, np.ndarray):
            raise SimulationError(f"loop {node.index}: step {node.step} differs between the threads of "
                                  f"{ctx.task.name}; a loop step must be the same in every thread")
        if int(step) < 1:
            raise SimulationError(f"loop {node.index}: step {node.step} is {int(step)}; loop steps must be positive")
        return int(step)

    def _alive(self, ctx: Ctx) -> Ctx:
        keep = ~self.exited[ctx.lanes]
        return ctx if keep.all() else ctx.narrow(keep)

    def visit_IfThenElse(self, node: k.IfThenElse, ctx: Ctx, i: int) -> TaskGen:
        cond = self._ev(node.cond, ctx)
        if isinstance(cond, np.ndarray):
            cond = np.broadcast_to(cond, ctx.lanes.shape).astype(bool, copy=False)
            if cond.all():
                cond = True
            elif not cond.any():
                cond = False
        if not isinstance(cond, np.ndarray):
            branch = 0 if cond else 1
            body = (node.then_body, node.else_body)[branch]
            out = yield from self._exec_body(body, ctx.enter((i, branch), (i, branch)))
            return replace(out, path=ctx.path, site=ctx.site)
        blocking, escapes = self._static_info(node)
        then_ctx = ctx.narrow(cond).enter((i, 0), (i, 0))
        else_ctx = ctx.narrow(~cond).enter((i, 1), (i, 1))
        if blocking:
            for sub, truth in ((then_ctx, "true"), (else_ctx, "false")):
                sub.task = Task(f"{ctx.task.name}, IF {node.cond} {truth}", sub.lanes, ctx.task.key + sub.site)
            parts = yield from self._fork([(node.then_body, then_ctx), (node.else_body, else_ctx)])
        else:
            parts = [(yield from self._exec_body(node.then_body, then_ctx)),
                     (yield from self._exec_body(node.else_body, else_ctx))]
        if not escapes and not blocking:
            return ctx
        return self._merge(self._alive(ctx), parts)

    def visit_Return(self, node: k.Return, ctx: Ctx, i: int) -> Ctx:
        self._exit(ctx.lanes)
        return ctx.empty()

    def visit_Continue(self, node: k.Continue, ctx: Ctx, i: int) -> Ctx:
        return ctx.empty()

    def _exit(self, lanes: np.ndarray) -> None:
        new = lanes[~self.exited[lanes]]
        if new.size == 0:
            return
        self._wgmma_exit(new)
        self._proxy_exit(new)
        self.exited[new] = True
        self.alive -= np.bincount(self.grid.block_of[new], minlength=self.grid.num_blocks)
        self.exit_events += 1
        self.progress += 1
