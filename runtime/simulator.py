"""``runtime.simulate``: execute kernel IR on the CPU with numpy, checking synchronization.

Execution model:
- A lane is one thread of the grid. The threads run as cooperative tasks, one per warp index
  (warp ``w`` of every block); a task executes each statement once for all its lanes (SIMT
  lockstep): per-lane values are numpy arrays, loop indices stay Python ints when uniform.
- The scheduler visits the tasks in a seeded random order; a task runs until it blocks
  (``__syncthreads``, block reduction, mbarrier wait) or for a random number of statements, so
  warps drift apart as far as the synchronization allows: a missing RAW or WAR barrier shows.
- An ``if`` whose condition differs across a task's lanes and whose branches block forks the task
  into two sub-tasks that rejoin after the ``if`` (warp-specialized producer/consumer code).
- The async proxy (``sim_async``) lands TMA and cp.async copies at seeded random moments, no later
  than the wait that needs them (seeds divisible by 3: exactly when a wait needs them); destinations
  hold poison (NaN) until then.
- When no task can make progress the kernel is deadlocked: ``DeadlockError`` names every waiter.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, ParallelType
from lowering import kernel_ir as k

from .arrays import as_array_arg
from .launch_plan import plan_launch
from .errors import DeadlockError, InputError, PipelineFillError, SimulationError
from .sim_async import LAND_PROBABILITY, LAZY_EVERY, AsyncCopy, AsyncEngine
from .sim_mbarrier import MBarrierArray
from .sim_memory import POISON_INT, Grid, Storage, clobber_aliases, storage_dtype, to_dtype
from .sim_values import BINARY, REDUCE, UNARY, compile_val, int_div, uniform

MAX_THREADS_PER_BLOCK = 1024
# a running task yields to the others after a geometric number of statements with this mean
MEAN_STATEMENTS_BETWEEN_SWITCHES = 32
# statement executions (summed over tasks) after which a simulation is taken to be runaway
MAX_STATEMENTS = 20_000_000
_BLOCKING = (k.BlockSync, k.BlockReduce, k.MBarrierWait, k.MBarrierWaitParity)


def simulate(kernel: k.Kernel, inputs: Sequence[np.ndarray], seed: int = 0,
             trace: list[dict[str, Any]] | None = None) -> list[np.ndarray]:
    """Run ``kernel`` on ``inputs`` and return its outputs (BFloat16 outputs come back as float32).

    ``seed`` drives when async copies land. With a ``trace`` list, mbarrier and TMA events of
    block 0 are appended to it as small dicts (for ``viz --show pipeline``).
    """
    arrays = _validate_inputs(kernel, inputs)
    env = kernel.symbol_env(arrays)
    _check_shapes(kernel, arrays, env)
    _run_checks(kernel, env)
    # The executor's remaining argument checks (TMA layouts, shared-memory size) apply here too,
    # so a launch the GPU would refuse is refused the same way.
    plan_launch(kernel, [_plan_arg(a, b) for a, b in zip(arrays, kernel.inputs)])
    grid_dims, block_dims = kernel.launch_dims(env)
    threads = block_dims[0] * block_dims[1] * block_dims[2]
    if min(block_dims) < 1 or min(grid_dims) < 0:
        raise SimulationError(f"kernel {kernel.name}: invalid launch grid {grid_dims}, block {block_dims}")
    if threads > MAX_THREADS_PER_BLOCK:
        raise SimulationError(f"kernel {kernel.name}: block {block_dims} has {threads} threads, more than "
                              f"{MAX_THREADS_PER_BLOCK}")
    sim = _Simulator(kernel, env, Grid(grid_dims, block_dims), seed, trace)
    sim.bind_params(arrays)
    with np.errstate(all="ignore"):
        sim.run()
    return sim.results()


# ---------------------------------------------------------------- arguments
def _validate_inputs(kernel: k.Kernel, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len(inputs) != len(kernel.inputs):
        names = ", ".join(b.name for b in kernel.inputs)
        raise InputError(f"kernel {kernel.name} takes {len(kernel.inputs)} inputs ({names}), got {len(inputs)}")
    arrays = []
    for buf, arr in zip(kernel.inputs, inputs):
        if not isinstance(arr, np.ndarray):
            raise InputError(f"input {buf.name}: the simulator needs a numpy array, got {type(arr).__name__}")
        name = arr.dtype.name
        accepted = {buf.dtype.numpy_name} | ({"float32"} if buf.dtype is DataType.BFloat16 else set())
        if name not in accepted:
            raise InputError(f"input {buf.name}: dtype {name}, but the kernel expects {buf.dtype.numpy_name}")
        if arr.ndim != len(buf.shape):
            raise InputError(f"input {buf.name}: rank {arr.ndim}, but the kernel expects rank {len(buf.shape)}")
        if any(s < 0 or s % arr.itemsize for s in arr.strides):
            arr = np.ascontiguousarray(arr)  # the kernel indexes by non-negative element strides
        arrays.append(arr)
    return arrays


def _plan_arg(arr: np.ndarray, buf: k.Buffer):
    arg = as_array_arg(arr, f"input {buf.name}")
    if buf.dtype is DataType.BFloat16:  # numpy has no bfloat16: the simulator takes float32 values
        from dataclasses import replace

        arg = replace(arg, dtype=buf.dtype.numpy_name, itemsize=buf.dtype.size)
    return arg


def _check_shapes(kernel: k.Kernel, arrays: list[np.ndarray], env: dict[str, int]) -> None:
    for buf, arr in zip(kernel.inputs, arrays):
        for dim, (ext, actual) in enumerate(zip(buf.shape, arr.shape)):
            expected = int(ext.evaluate(env))
            if expected != actual:
                raise InputError(f"input {buf.name}: dimension {dim} is {actual}, but the kernel expects "
                                 f"{expected} ({ext})")


def _run_checks(kernel: k.Kernel, env: dict[str, int]) -> None:
    for check in kernel.checks:
        if not bool(check.cond.evaluate(env)):
            error = PipelineFillError if "circular buffer" in check.message.lower() else InputError
            raise error(f"kernel {kernel.name}: {check.message} (check {check.cond} failed)")


# ---------------------------------------------------------------- tasks
class _Blocked:
    """Yielded by a task that cannot make progress; ``describe`` says what it waits for."""

    __slots__ = ("describe",)

    def __init__(self, describe: Callable[[], list[str]]) -> None:
        self.describe = describe


_SWITCH = _Blocked(lambda: ["(yielded to other tasks)"])


@dataclass
class _Task:
    name: str
    lanes: np.ndarray
    key: tuple = ()   # ("warp", w) for a root task, extended by (if site, branch) for each fork


@dataclass
class _Ctx:
    """The lanes executing a statement list and their symbol values (arrays are per lane)."""

    lanes: np.ndarray
    env: dict[str, Any]
    task: _Task
    path: tuple = ()              # dynamic position: statement indices, branch and iteration numbers
    site: tuple = ()              # static position: statement indices and branch numbers
    loops: tuple[str, ...] = ()   # enclosing loop index symbols (for traces)

    def narrow(self, keep: np.ndarray) -> _Ctx:
        env = {name: (v[keep] if isinstance(v, np.ndarray) else v) for name, v in self.env.items()}
        return _Ctx(self.lanes[keep], env, self.task, self.path, self.site, self.loops)

    def enter(self, path: tuple, site: tuple) -> _Ctx:
        return _Ctx(self.lanes, self.env, self.task, self.path + path, self.site + site, self.loops)

    def empty(self) -> _Ctx:
        return self.narrow(np.zeros(self.lanes.size, dtype=bool))


TaskGen = Generator[_Blocked, None, _Ctx]


@dataclass
class _ReduceScratch:
    """Contributions of one BlockReduce statement, per lane, and the last computed result."""

    values: np.ndarray
    valid: np.ndarray
    keys: dict[tuple, np.ndarray] = field(default_factory=dict)
    result_for: tuple | None = None     # (dynamic instance, blocks) the cached result belongs to
    result: np.ndarray | None = None


class _Simulator:
    def __init__(self, kernel: k.Kernel, env: dict[str, int], grid: Grid, seed: int,
                 trace: list[dict[str, Any]] | None) -> None:
        self.kernel = kernel
        self.grid = grid
        self.base_env: dict[str, Any] = dict(env)
        for axis, n in zip("xyz", grid.block):
            self.base_env[f"blockDim.{axis}"] = n
        for axis, n in zip("xyz", grid.grid):
            self.base_env[f"gridDim.{axis}"] = n
        self.rng = np.random.default_rng(seed)
        self.trace = trace
        nb, n = grid.num_blocks, grid.num_lanes
        self.storages: dict[str, Storage | MBarrierArray] = {}
        self.params: set[str] = set()
        self.mbar_names = _mbarrier_buffers(kernel.body)
        # thread lifetime and the block-wide barrier (__syncthreads, block reductions)
        self.exited = np.zeros(n, dtype=bool)
        self.exit_events = 0
        self.alive = np.full(nb, grid.threads_per_block, dtype=np.int64)
        self.bar_arrived = np.zeros(nb, dtype=np.int64)
        self.bar_gen = np.zeros(nb, dtype=np.int64)
        self.at_barrier = np.zeros(n, dtype=bool)
        self.bar_where = np.zeros(nb, dtype=np.int64)   # which barrier statement instance each block waits at
        self._where_ids: dict[tuple, int] = {}
        self._where_text: list[str] = []
        # per-block "first arrival" of a dynamic statement instance (shared allocations)
        self.claims: dict[tuple, np.ndarray] = {}
        self._elect_owner: dict[tuple, np.ndarray] = {}   # elect-sync site -> owning task id per block
        self._task_ids: dict[tuple, int] = {}
        self.committed = {"cp.async": np.zeros(n, dtype=np.int64), "bulk": np.zeros(n, dtype=np.int64)}
        self.async_ = AsyncEngine(self.rng, self._on_land,
                                  0.0 if seed % LAZY_EVERY == 0 else LAND_PROBABILITY)
        self.progress = 0
        self.steps = 0
        self._budget = self._switch_budget()
        self._compiled: dict[int, tuple[Val, Callable[[dict[str, Any]], Any]]] = {}
        self._static: dict[int, tuple[k.Node, bool, bool]] = {}
        self._scratch: dict[int, _ReduceScratch] = {}
        self._dispatch: dict[type, tuple[str, Callable[..., Any]]] = {
            k.Allocate: ("ctx", self._allocate),
            k.Assign: ("stmt", self._assign),
            k.BlockReduce: ("gen", self._block_reduce),
            k.ForLoop: ("gen", self._for),
            k.IfThenElse: ("gen", self._if),
            k.ElectSync: ("gen", self._elect),
            k.BlockSync: ("gen", self._block_sync),
            k.Comment: ("stmt", _nothing),
            k.MBarrierInit: ("stmt", self._mbar_init),
            k.MBarrierInval: ("stmt", self._mbar_inval),
            k.MBarrierArrive: ("stmt", self._mbar_arrive),
            k.MBarrierArriveExpectTx: ("stmt", self._mbar_arrive_expect_tx),
            k.MBarrierWait: ("gen", self._mbar_wait),
            k.MBarrierWaitParity: ("gen", self._mbar_wait_parity),
            k.TmaLoad: ("stmt", self._tma_load),
            k.TmaStore: ("stmt", self._tma_store),
            k.CpAsync: ("stmt", self._cp_async),
            k.AsyncCommit: ("stmt", self._async_commit),
            k.AsyncWait: ("stmt", self._async_wait),
            k.FenceAsyncProxy: ("stmt", _nothing),
            k.SetMaxNReg: ("stmt", _nothing),
            k.Return: ("ctx", self._return),
            k.Continue: ("ctx", lambda node, ctx, i: ctx.empty()),
            k.Mma: ("stmt", self._mma),
        }

    # ---- parameters and results -------------------------------------------
    def bind_params(self, arrays: list[np.ndarray]) -> None:
        for buf, arr in zip(self.kernel.inputs, arrays):
            span = 1 + sum((d - 1) * (s // arr.itemsize) for d, s in zip(arr.shape, arr.strides)) if arr.size else 0
            flat = np.lib.stride_tricks.as_strided(arr, shape=(span,), strides=(arr.itemsize,))
            st = Storage(buf, 1, span)
            st.data[:] = to_dtype(buf.dtype, flat.astype(storage_dtype(buf.dtype)) if buf.dtype.is_float else flat)
            self._add_param(st)
        shapes = self.kernel.output_shapes(self.base_env)
        for buf, shape in zip(self.kernel.outputs, shapes):
            self._add_param(Storage(buf, 1, int(np.prod(shape, dtype=np.int64))))
        self._output_shapes = shapes

    def _add_param(self, st: Storage) -> None:
        if st.name in self.storages:
            raise SimulationError(f"kernel {self.kernel.name}: two parameters are named {st.name}")
        self.storages[st.name] = st
        self.params.add(st.name)

    def results(self) -> list[np.ndarray]:
        out = []
        for buf, shape in zip(self.kernel.outputs, self._output_shapes):
            data = self.storages[buf.name].data.reshape(shape)
            out.append(data.astype(np.float16) if buf.dtype is DataType.Half else data.copy())
        return out

    # ---- scheduler ------------------------------------------------------------
    def run(self) -> None:
        tasks: list[tuple[_Task, TaskGen]] = []
        T = self.grid.threads_per_block
        for w in range((T + 31) // 32):
            lanes = np.flatnonzero(self.grid.warp_of == w)
            if lanes.size:
                task = _Task(f"warp {w}", lanes, ("warp", w))
                tasks.append((task, self._root(task)))
        while tasks:
            before = self.progress
            blocked: list[tuple[_Task, TaskGen, _Blocked]] = []
            for j in self.rng.permutation(len(tasks)):
                task, gen = tasks[j]
                try:
                    blocked.append((task, gen, next(gen)))
                except StopIteration:
                    self.progress += 1
            tasks = [(t, g) for t, g, _ in blocked]
            if blocked and self.progress == before:
                raise DeadlockError(self._deadlock_message(blocked))
        self.async_.finish()

    def _root(self, task: _Task) -> TaskGen:
        env = {**self.base_env, **self.grid.lane_symbols(task.lanes)}
        ctx = yield from self._exec_body(self.kernel.body, _Ctx(task.lanes, env, task))
        self._exit(task.lanes)
        return ctx

    def _deadlock_message(self, blocked: list[tuple[_Task, TaskGen, _Blocked]]) -> str:
        lines = []
        for task, _, b in sorted(blocked, key=lambda t: int(t[0].lanes[0])):
            described = b.describe()
            lines += [f"  {task.name} of every block: {line}" for line in described[:4]]
            if len(described) > 4:
                lines.append(f"    ... and {len(described) - 4} more")
        shown = lines[:40] + ([f"  ... and {len(lines) - 40} more"] if len(lines) > 40 else [])
        return (f"deadlock in kernel {self.kernel.name}: every thread is waiting and nothing in flight "
                f"can release it:\n" + "\n".join(shown))

    def _tick(self, task: _Task) -> None:
        self.steps += 1
        self.progress += 1
        if self.steps > MAX_STATEMENTS:
            raise SimulationError(f"kernel {self.kernel.name}: more than {MAX_STATEMENTS} statements executed; "
                                  f"a loop bound is probably wrong")
        if self.async_.copies:
            self.async_.tick(task)

    # ---- statement lists ------------------------------------------------------
    def _exec_body(self, body: tuple[k.Node, ...], ctx: _Ctx) -> TaskGen:
        for i, node in enumerate(body):
            if ctx.lanes.size == 0:
                break
            entry = self._dispatch.get(type(node))
            if entry is None:
                raise SimulationError(f"the simulator cannot execute {type(node).__name__} nodes: {node!r:.200}")
            kind, fn = entry
            if kind == "gen":
                ctx = yield from fn(node, ctx, i)
            elif kind == "ctx":
                ctx = fn(node, ctx, i)
            else:
                fn(node, ctx)
            self._tick(ctx.task)
            self._budget -= 1
            if self._budget <= 0:
                self._budget = self._switch_budget()
                yield _SWITCH
        return ctx

    def _switch_budget(self) -> int:
        return int(self.rng.geometric(1.0 / MEAN_STATEMENTS_BETWEEN_SWITCHES))

    def _static_info(self, node: k.Node) -> tuple[bool, bool]:
        """(contains a blocking statement, contains Return/Continue) for a compound node."""
        info = self._static.get(id(node))
        if info is None:
            nodes = list(k.walk((node,)))
            info = (node, any(isinstance(n, _BLOCKING) for n in nodes),
                    any(isinstance(n, (k.Return, k.Continue)) for n in nodes))
            self._static[id(node)] = info
        return info[1], info[2]

    def _merge(self, parent: _Ctx, parts: list[_Ctx]) -> _Ctx:
        """Lanes of ``parent`` that fell through every part (neither returned nor continued)."""
        mark = np.zeros(self.grid.num_lanes, dtype=bool)
        for part in parts:
            mark[part.lanes] = True
        keep = mark[parent.lanes]
        return parent if keep.all() else parent.narrow(keep)

    def _fork(self, parts: list[tuple[tuple[k.Node, ...], _Ctx]]) -> Generator[_Blocked, None, list[_Ctx]]:
        """Run statement lists as separate tasks that may block independently; rejoin when all end."""
        gens = [self._exec_body(body, c) for body, c in parts]
        results: list[_Ctx] = [c for _, c in parts]
        running = list(range(len(gens)))
        while running:
            waiting: list[tuple[int, _Blocked]] = []
            for j in running:
                try:
                    waiting.append((j, next(gens[j])))
                except StopIteration as stop:
                    results[j] = stop.value
            running = [j for j, _ in waiting]
            if running:
                reasons = [(parts[j][1].task.name, b) for j, b in waiting]
                done = [parts[j][1].task.name for j in range(len(parts)) if j not in running]
                yield _Blocked(lambda rs=reasons, done=done: (
                    [f"[{name}] {line}" for name, b in rs for line in b.describe()]
                    + [f"[{name}] finished its branch and waits there to reconverge" for name in done]))
        return results

    # ---- control flow ----------------------------------------------------------
    def _for(self, node: k.ForLoop, ctx: _Ctx, i: int) -> TaskGen:
        if not node.index.is_symbol:
            raise SimulationError(f"loop index {node.index} is not a symbol")
        start, stop = uniform(self._ev(node.start, ctx)), uniform(self._ev(node.stop, ctx))
        step = uniform(self._ev(node.step, ctx))
        if isinstance(step, np.ndarray) or int(step) < 1:
            raise SimulationError(f"loop {node.index}: step {node.step} must be a positive value the same in "
                                  f"every thread")
        step = int(step)
        name = node.index.name
        loops = ctx.loops + (name,)
        if not isinstance(start, np.ndarray) and not isinstance(stop, np.ndarray):
            env = dict(ctx.env)
            cur = _Ctx(ctx.lanes, env, ctx.task, ctx.path, ctx.site + (i,), loops)
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

    def _alive(self, ctx: _Ctx) -> _Ctx:
        keep = ~self.exited[ctx.lanes]
        return ctx if keep.all() else ctx.narrow(keep)

    def _if(self, node: k.IfThenElse, ctx: _Ctx, i: int) -> TaskGen:
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
                sub.task = _Task(f"{ctx.task.name}, IF {node.cond} {truth}", sub.lanes, ctx.task.key + sub.site)
            parts = yield from self._fork([(node.then_body, then_ctx), (node.else_body, else_ctx)])
        else:
            parts = [(yield from self._exec_body(node.then_body, then_ctx)),
                     (yield from self._exec_body(node.else_body, else_ctx))]
        if not escapes and not blocking:
            return ctx
        return self._merge(self._alive(ctx), parts)

    def _elect(self, node: k.ElectSync, ctx: _Ctx, i: int) -> TaskGen:
        """The body runs in one thread per block: the lowest lane of the task that owns this elect-sync.

        The first task (warp) of a block to reach an elect-sync statement owns it for the whole kernel,
        as the elected thread of warp 0 does on the GPU; the other tasks skip it.
        """
        blocks = self.grid.block_of[ctx.lanes]
        first = np.ones(blocks.size, dtype=bool)
        first[1:] = blocks[1:] != blocks[:-1]   # lanes are sorted, so this is each block's lowest lane
        owner = self._elect_owner.get(ctx.site + (i,))
        if owner is None:
            owner = self._elect_owner[ctx.site + (i,)] = np.full(self.grid.num_blocks, -1, dtype=np.int64)
        me = self._task_ids.setdefault(ctx.task.key, len(self._task_ids))
        mine = blocks[first]
        owner[mine[owner[mine] < 0]] = me
        elected = first & (owner[blocks] == me)
        if not elected.any():
            return ctx
        sub = ctx.narrow(elected).enter((i,), (i,))
        out = yield from self._exec_body(node.body, sub)
        _, escapes = self._static_info(node)
        if not escapes:
            return ctx
        gone = np.zeros(self.grid.num_lanes, dtype=bool)
        gone[sub.lanes] = True
        gone[out.lanes] = False
        keep = ~gone[ctx.lanes]
        return ctx if keep.all() else ctx.narrow(keep)

    def _claim(self, key: tuple, blocks: np.ndarray) -> np.ndarray:
        """Blocks (of ``blocks``) for which this task is the first to reach dynamic instance ``key``."""
        claimed = self.claims.get(key)
        if claimed is None:
            claimed = self.claims[key] = np.zeros(self.grid.num_blocks, dtype=bool)
        new = blocks[~claimed[blocks]]
        claimed[new] = True
        return new

    def _return(self, node: k.Return, ctx: _Ctx, i: int) -> _Ctx:
        self._exit(ctx.lanes)
        return ctx.empty()

    def _exit(self, lanes: np.ndarray) -> None:
        new = lanes[~self.exited[lanes]]
        if new.size == 0:
            return
        self.exited[new] = True
        self.alive -= np.bincount(self.grid.block_of[new], minlength=self.grid.num_blocks)
        self.exit_events += 1
        self.progress += 1

    # ---- block-wide barrier ---------------------------------------------------------
    def _block_sync(self, node: k.BlockSync, ctx: _Ctx, i: int) -> TaskGen:
        what = f"__syncthreads() ({node.reason})" if node.reason else "__syncthreads()"
        yield from self._barrier(ctx, what, ctx.path + (i,))
        return ctx

    def _barrier(self, ctx: _Ctx, what: str, where: tuple) -> Generator[_Blocked, None, None]:
        """Block-wide barrier: every thread of the block that has not exited must reach this same instance."""
        lanes = ctx.lanes
        self._check_reach(ctx, what)
        blocks, counts = np.unique(self.grid.block_of[lanes], return_counts=True)
        where_id = self._where_ids.get(where)
        if where_id is None:
            where_id = self._where_ids[where] = len(self._where_text)
            self._where_text.append(what)
        waiting = blocks[self.bar_arrived[blocks] > 0]
        clash = waiting[self.bar_where[waiting] != where_id]
        if clash.size:
            b = int(clash[0])
            raise DeadlockError(
                f"threads of block {self.grid.block_name(b)} wait at different barriers: "
                f"{self._where_text[int(self.bar_where[b])]} and {what} (a barrier in divergent code or in "
                f"different loop iterations); a __syncthreads must be reached by every thread of the block"
            )
        self.bar_where[blocks] = where_id
        target = self.bar_gen[blocks] + 1
        self.bar_arrived[blocks] += counts
        self.at_barrier[lanes] = True
        self._release(blocks)
        while np.any(self.bar_gen[blocks] < target):
            yield _Blocked(lambda: self._describe_sync(what, blocks, target))
            self._release(blocks)

    def _release(self, blocks: np.ndarray) -> None:
        arrived = self.bar_arrived[blocks]
        ready = blocks[(arrived > 0) & (arrived >= self.alive[blocks])]
        if ready.size:
            self.bar_gen[ready] += 1
            self.bar_arrived[ready] = 0
            self.at_barrier.reshape(self.grid.num_blocks, -1)[ready] = False
            self.progress += 1

    def _check_reach(self, ctx: _Ctx, what: str) -> None:
        """Threads of this task that are alive but elsewhere (branch, loop mask, continue) never arrive."""
        task = ctx.task.lanes
        if task.size == ctx.lanes.size:
            return
        alive = task[~self.exited[task]]
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
        waiting = blocks[self.bar_gen[blocks] < target]
        if waiting.size == 0:
            return []
        b = int(waiting[0])
        rows = slice(b * T, (b + 1) * T)
        absent = np.flatnonzero(~self.at_barrier[rows] & ~self.exited[rows])
        who = ", ".join(self.grid.describe(int(b * T + t)).split(" of ")[0] for t in absent[:3])
        more = f" (and {waiting.size - 1} more blocks)" if waiting.size > 1 else ""
        line = (f"waits at {what} in block {self.grid.block_name(b)}{more}: {int(self.bar_arrived[b])} of "
                f"{int(self.alive[b])} threads arrived; not arrived: {who}{' ...' if absent.size > 3 else ''}")
        return [line]

    def _block_reduce(self, node: k.BlockReduce, ctx: _Ctx, i: int) -> TaskGen:
        if node.op not in REDUCE:
            raise SimulationError(f"blockReduce into {node.buffer.name}: unknown op {node.op!r}")
        lanes = ctx.lanes
        scratch = self._scratch.get(id(node))
        if scratch is None:
            n = self.grid.num_lanes
            scratch = self._scratch[id(node)] = _ReduceScratch(np.zeros(n), np.zeros(n, dtype=bool))
        value = self._value(node.value, ctx)
        scratch.values[lanes] = np.broadcast_to(np.asarray(value, dtype=np.float64), lanes.shape)
        scratch.valid[lanes] = True
        self._touch_workspace(node.workspace, lanes)
        what = f"blockReduce<{node.op}> into {node.buffer.name}"
        yield from self._barrier(ctx, what, ctx.path + (i, 0))
        instance = (ctx.path + (i,), np.unique(self.grid.block_of[lanes]).tobytes())
        if scratch.result_for != instance:  # the other tasks of the same blocks reuse the first one's result
            scratch.result_for, scratch.result = instance, self._reduce_groups(node, scratch)
        result = scratch.result[lanes]  # type: ignore[index]
        yield from self._barrier(ctx, what, ctx.path + (i, 1))  # nobody refills the scratch before all have read
        scratch.valid[lanes] = False
        st = self._data_storage(node.buffer, what)
        pos = st.positions(self.grid, lanes, self._ev(node.index, ctx), what)
        st.write(np.broadcast_to(pos, lanes.shape), to_dtype(st.dtype, result))
        return ctx

    def _reduce_groups(self, node: k.BlockReduce, scratch: _ReduceScratch) -> np.ndarray:
        """The reduction of every group of lanes that differ only in ``node.dims``, per lane."""
        dims = tuple(sorted(d.value for d in node.dims))
        keys = scratch.keys.get(dims)
        if keys is None:
            g = self.grid
            bx, by, _ = g.block
            tx, ty, tz = (np.zeros_like(t) if p.value in dims else t
                          for t, p in zip(g.tid, (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)))
            keys = scratch.keys[dims] = g.block_of * g.threads_per_block + (tz * by + ty) * bx + tx
        valid = np.flatnonzero(scratch.valid)
        acc = np.full(self.grid.num_lanes, float(node.init))
        REDUCE[node.op].at(acc, keys[valid], scratch.values[valid])
        return acc[keys]

    def _touch_workspace(self, workspace: k.Buffer, lanes: np.ndarray) -> None:
        """The reduction writes its shared workspace: that clobbers buffers wrongly aliased onto it."""
        st = self.storages.get(workspace.name)
        if isinstance(st, Storage) and st.aliases:
            rows = np.unique(self.grid.block_of[lanes])
            width = min(st.size, self.grid.threads_per_block)
            clobber_aliases(st, (rows[:, None] * st.size + np.arange(width)[None, :]).reshape(-1))

    # ---- memory ----------------------------------------------------------------------
    def _allocate(self, node: k.Allocate, ctx: _Ctx, i: int) -> _Ctx:
        buf = node.buffer
        if buf.name in self.params:
            raise SimulationError(f"Allocate of {buf.name}: a kernel parameter has the same name")
        size = uniform(self._ev(buf.size, ctx))
        if isinstance(size, np.ndarray):
            raise SimulationError(f"Allocate of {buf.name}: size {buf.size} differs between threads")
        size = int(size)
        old = self.storages.get(buf.name)
        if buf.memory is MemoryType.Local:
            if isinstance(old, Storage) and old.size == size:
                old.poison_rows(ctx.lanes)
            else:
                self.storages[buf.name] = Storage(buf, self.grid.num_lanes, size)
            return ctx
        if buf.memory is MemoryType.Global:
            if not (isinstance(old, Storage) and old.size == size):
                self.storages[buf.name] = Storage(buf, 1, size)
            return ctx
        new_blocks = self._claim(ctx.path + (i,), np.unique(self.grid.block_of[ctx.lanes]))
        is_mbar = buf.name in self.mbar_names
        if old is not None and old.size == size and isinstance(old, MBarrierArray) == is_mbar:
            if is_mbar:
                old.reset_rows(new_blocks)  # type: ignore[union-attr]
            else:
                old.poison_rows(new_blocks)  # type: ignore[union-attr]
            st = old
        else:
            if is_mbar and buf.dtype is not DataType.Int64:
                raise SimulationError(f"mbarrier buffer {buf.name} must be Int64, not {buf.dtype.name}")
            nb = self.grid.num_blocks
            st = MBarrierArray(buf, nb, size) if is_mbar else Storage(buf, nb, size)
            self.storages[buf.name] = st
        if node.offset is not None:
            self._place_shared(st, node, ctx)
        return ctx

    def _place_shared(self, st: Storage | MBarrierArray, node: k.Allocate, ctx: _Ctx) -> None:
        """Check a dynamic shared-memory placement and record which buffers share its bytes."""
        offset = int(self._ev(node.offset, ctx))  # type: ignore[arg-type]
        if st.byte_offset == offset:
            return
        buf = node.buffer
        nbytes = st.size * buf.dtype.size
        if offset % buf.align:
            raise SimulationError(f"Allocate of {buf.name}: shared-memory offset {offset} is not {buf.align}-byte "
                                  f"aligned")
        try:
            smem = int(self.kernel.smem_bytes.evaluate(self.base_env))
        except KeyError:
            smem = None
        if smem is not None and offset + nbytes > smem:
            raise SimulationError(f"Allocate of {buf.name}: bytes [{offset}, {offset + nbytes}) exceed the kernel's "
                                  f"{smem} bytes of dynamic shared memory")
        for other in self.storages.values():
            other.aliases = [a for a in other.aliases if a[0] is not st]
        st.aliases = []
        st.byte_offset = offset
        for other in self.storages.values():
            if other is st or other.memory is not MemoryType.Shared or other.byte_offset is None:
                continue
            o_off = other.byte_offset
            if offset < o_off + other.size * other.dtype.size and o_off < offset + nbytes:
                st.aliases.append((other, offset, o_off))
                other.aliases.append((st, o_off, offset))

    def _data_storage(self, buf: k.Buffer, what: str) -> Storage:
        st = self.storages.get(buf.name)
        if st is None:
            raise SimulationError(f"{what}: buffer {buf.name} is used before its Allocate")
        if isinstance(st, MBarrierArray):
            raise SimulationError(f"{what}: {buf.name} holds mbarriers, not data")
        return st

    def _assign(self, node: k.Assign, ctx: _Ctx) -> None:
        st = self._data_storage(node.buffer, f"a store to {node.buffer.name}")
        lanes = ctx.lanes
        what = lambda: f"a store to {node.buffer.name}[{node.index}]"  # formatted only on error
        idx = self._ev(node.index, ctx)
        if node.vector > 1:
            self._assign_vector(node, st, idx, ctx)
            return
        value = self._value(node.value, ctx)
        pos = st.positions(self.grid, lanes, idx, what)
        if node.reduce_op is not None:
            op = REDUCE.get(node.reduce_op)
            if op is None:
                raise SimulationError(f"{what()}: unknown reduce op {node.reduce_op!r}")
            value = op(st.read(pos), value)
        st.write(np.broadcast_to(pos, lanes.shape), np.broadcast_to(to_dtype(st.dtype, value), lanes.shape))

    def _assign_vector(self, node: k.Assign, st: Storage, idx: Any, ctx: _Ctx) -> None:
        load = node.value
        if not isinstance(load, k.Load):
            raise SimulationError(f"vectorized store to {node.buffer.name} needs a Load value, got {load!r:.120}")
        src = self._data_storage(load.buffer, f"a vector load of {load.buffer.name}")
        sidx = self._ev(load.index, ctx)
        lanes, v = ctx.lanes, node.vector
        for name, index in ((node.buffer.name, idx), (load.buffer.name, sidx)):
            per_lane = np.broadcast_to(np.asarray(index), lanes.shape)
            bad = np.flatnonzero(per_lane % v != 0)
            if bad.size:
                j = int(bad[0])
                raise SimulationError(f"misaligned vector access of {v} elements at {name}[{int(per_lane[j])}] by "
                                      f"{self.grid.describe(int(lanes[j]))}")
        ar = np.arange(v)
        dpos = np.broadcast_to(st.positions(self.grid, lanes, idx, f"a vector store to {node.buffer.name}", v),
                               lanes.shape)[:, None] + ar
        spos = np.broadcast_to(src.positions(self.grid, lanes, sidx, f"a vector load of {load.buffer.name}", v),
                               lanes.shape)[:, None] + ar
        values = src.read(spos)
        if node.reduce_op is not None:
            values = REDUCE[node.reduce_op](st.read(dpos), values)
        st.write(dpos.reshape(-1), to_dtype(st.dtype, values).reshape(-1))

    def _value(self, v: k.Value, ctx: _Ctx) -> Any:
        t = type(v)
        if t is k.Load:
            st = self._data_storage(v.buffer, f"a load of {v.buffer.name}")  # type: ignore[union-attr]
            idx = self._ev(v.index, ctx)  # type: ignore[union-attr]
            return st.read(st.positions(self.grid, ctx.lanes, idx,
                                        lambda: f"a load of {v.buffer.name}[{v.index}]"))  # type: ignore[union-attr]
        if t is k.Const:
            if v.dtype.is_float:  # type: ignore[union-attr]
                return to_dtype(v.dtype, np.float32(v.value))  # type: ignore[union-attr]
            return storage_dtype(v.dtype).type(v.value)  # type: ignore[union-attr]
        if t is k.UnaryValue:
            fn = UNARY.get(v.op)  # type: ignore[union-attr]
            if fn is None:
                raise SimulationError(f"unknown unary op {v.op!r}")  # type: ignore[union-attr]
            x = self._value(v.x, ctx)  # type: ignore[union-attr]
            if v.dtype.is_float:  # type: ignore[union-attr]
                x = np.asarray(x, dtype=np.float32)
            return to_dtype(v.dtype, fn(x))  # type: ignore[union-attr]
        if t is k.BinaryValue:
            a, b = self._value(v.a, ctx), self._value(v.b, ctx)  # type: ignore[union-attr]
            if v.dtype.is_float:  # type: ignore[union-attr]
                a, b = np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)
                fn = BINARY.get(v.op)  # type: ignore[union-attr]
            else:
                fn = int_div if v.op == "div" else BINARY.get(v.op)  # type: ignore[union-attr]
            if fn is None:
                raise SimulationError(f"unknown binary op {v.op!r}")  # type: ignore[union-attr]
            return to_dtype(v.dtype, fn(a, b))  # type: ignore[union-attr]
        if t is k.CastValue:
            return to_dtype(v.dtype, self._value(v.x, ctx))  # type: ignore[union-attr]
        raise SimulationError(f"the simulator cannot evaluate value {v!r:.200}")

    def _ev(self, v: Val, ctx: _Ctx) -> Any:
        entry = self._compiled.get(id(v))
        if entry is None:
            entry = self._compiled[id(v)] = (v, compile_val(v))
        try:
            return entry[1](ctx.env)
        except KeyError as e:
            raise SimulationError(f"symbol {e.args[0]} is not bound while evaluating {v}") from None
        except ZeroDivisionError:
            raise SimulationError(f"division by zero while evaluating {v}") from None

    def _per_lane(self, v: Val, ctx: _Ctx) -> np.ndarray:
        return np.broadcast_to(np.asarray(self._ev(v, ctx), dtype=np.int64), ctx.lanes.shape)

    # ---- mbarriers ------------------------------------------------------------------------
    def _mbar(self, buf: k.Buffer, what: str) -> MBarrierArray:
        st = self.storages.get(buf.name)
        if st is None:
            raise SimulationError(f"{what}: mbarrier buffer {buf.name} is used before its Allocate")
        if not isinstance(st, MBarrierArray):
            raise SimulationError(f"{what}: {buf.name} is not an mbarrier buffer")
        return st

    def _mbar_keys(self, mb: MBarrierArray, index: Val, ctx: _Ctx, what: str) -> np.ndarray:
        idx = self._per_lane(index, ctx)
        bad = (idx < 0) | (idx >= mb.size)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise SimulationError(f"out-of-bounds mbarrier {mb.name}[{int(idx[j])}] (size {mb.size}) in {what} by "
                                  f"{self.grid.describe(int(ctx.lanes[j]))}")
        return self.grid.block_of[ctx.lanes] * mb.size + idx

    def _mbar_init(self, node: k.MBarrierInit, ctx: _Ctx) -> None:
        mb = self._mbar(node.mbar, "mbarrier::init")
        keys = self._mbar_keys(mb, node.index, ctx, "mbarrier::init")
        mb.init(keys, self._per_lane(node.count, ctx))
        if mb.aliases:
            clobber_aliases(mb, keys)
        self._trace_event("mbarrier.init", ctx, mb, keys, count=int(self._per_lane(node.count, ctx)[0]))

    def _mbar_inval(self, node: k.MBarrierInval, ctx: _Ctx) -> None:
        mb = self._mbar(node.mbar, "mbarrier::inval")
        keys = self._mbar_keys(mb, node.index, ctx, "mbarrier::inval")
        for key in np.unique(keys):
            n = self.async_.in_flight(mb, int(key))
            if n:
                raise SimulationError(f"mbarrier::inval of {mb.label(int(key))} while {n} TMA copies on it are still "
                                      f"in flight (nobody waited for them)")
        mb.inval(keys)
        self._trace_event("mbarrier.inval", ctx, mb, keys)

    def _mbar_arrive(self, node: k.MBarrierArrive, ctx: _Ctx) -> None:
        mb = self._mbar(node.mbar, "mbarrier::arrive")
        keys = self._mbar_keys(mb, node.index, ctx, "mbarrier::arrive")
        self._trace_event("mbarrier.arrive", ctx, mb, keys)
        self._trace_completions(mb, mb.arrive(keys, None, "mbarrier::arrive"))

    def _mbar_arrive_expect_tx(self, node: k.MBarrierArriveExpectTx, ctx: _Ctx) -> None:
        what = "mbarrier::arriveExpectTx"
        mb = self._mbar(node.mbar, what)
        keys = self._mbar_keys(mb, node.index, ctx, what)
        tx = self._per_lane(node.tx_bytes, ctx)
        mb.check_live(keys, what)
        if node.token is not None:
            if node.token_index is None:
                raise SimulationError(f"{what} on {mb.name} stores a token but has no token_index")
            tok = self._data_storage(node.token, f"{what} token")
            pos = tok.positions(self.grid, ctx.lanes, self._ev(node.token_index, ctx), f"{what} token store")
            tok.write(np.broadcast_to(pos, ctx.lanes.shape), mb.phase[keys].astype(storage_dtype(tok.dtype)))
        self._trace_event("mbarrier.arrive_expect_tx", ctx, mb, keys, tx_bytes=int(tx[0]))
        self._trace_completions(mb, mb.arrive(keys, tx, what))

    def _mbar_wait_parity(self, node: k.MBarrierWaitParity, ctx: _Ctx, i: int) -> TaskGen:
        what = "mbarrier::waitParity"
        mb = self._mbar(node.mbar, what)
        keys = self._mbar_keys(mb, node.index, ctx, what)
        parity = self._per_lane(node.parity, ctx) & 1
        yield from self._wait(mb, keys, lambda: (mb.phase[keys] & 1) != parity, what, ctx,
                              lambda key, j: f"the phase with parity {int(parity[j])} to complete",
                              parity=int(parity[0]))
        return ctx

    def _mbar_wait(self, node: k.MBarrierWait, ctx: _Ctx, i: int) -> TaskGen:
        what = "mbarrier::wait"
        mb = self._mbar(node.mbar, what)
        keys = self._mbar_keys(mb, node.index, ctx, what)
        tok = self._data_storage(node.token, f"{what} token")
        tokens = np.broadcast_to(tok.read(tok.positions(self.grid, ctx.lanes, self._ev(node.token_index, ctx),
                                                        f"{what} token load")), ctx.lanes.shape)
        if np.any(tokens == POISON_INT):
            j = int(np.flatnonzero(tokens == POISON_INT)[0])
            raise SimulationError(f"{what} on {mb.label(int(keys[j]))} reads token {node.token.name}"
                                  f"[{node.token_index}], which no arriveExpectTx stored "
                                  f"({self.grid.describe(int(ctx.lanes[j]))})")
        yield from self._wait(mb, keys, lambda: mb.phase[keys] > tokens, what, ctx,
                              lambda key, j: f"phase {int(tokens[j])} (its token) to complete", token=int(tokens[0]))
        return ctx

    def _wait(self, mb: MBarrierArray, keys: np.ndarray, ready: Callable[[], np.ndarray], what: str, ctx: _Ctx,
              waited: Callable[[int, int], str], **trace: int) -> Generator[_Blocked, None, None]:
        """Block until ``ready()`` held for every lane once; a waiter forces its barrier's copies to land."""
        mb.check_live(keys, what)
        done = ready().copy()
        event = "mbarrier.wait_parity" if what.endswith("waitParity") else "mbarrier.wait"
        self._trace_event(event, ctx, mb, keys, **trace)
        while not done.all():
            if self.async_.force_barrier(mb, np.unique(keys[~done])):
                self.progress += 1
                done |= ready()
                continue
            yield _Blocked(lambda done=done: self._describe_wait(mb, keys, done, what, waited))
            mb.check_live(keys, what)
            done |= ready()
        self._trace_event(f"{event}.done", ctx, mb, keys)

    def _describe_wait(self, mb: MBarrierArray, keys: np.ndarray, done: np.ndarray, what: str,
                       waited: Callable[[int, int], str]) -> list[str]:
        """One line per barrier index: the first waiting block in detail, the others counted."""
        lines = []
        pending = np.flatnonzero(~done)
        for index in np.unique(keys[pending] % mb.size)[:4]:
            rows = pending[keys[pending] % mb.size == index]
            blocks = np.unique(keys[rows] // mb.size)
            j = int(rows[0])
            key = int(keys[j])
            more = f" (and in {blocks.size - 1} more blocks)" if blocks.size > 1 else ""
            lines.append(f"{what} waits on {mb.label(key)} for {waited(key, j)}{more}; "
                         f"{mb.describe(key, self.async_.in_flight(mb, key))}")
        return lines

    # ---- async copies ------------------------------------------------------------------------
    def _box(self, tmap: k.TensorMapParam, coords: tuple[Val, ...], ctx: _Ctx,
             what: str) -> tuple[Storage, np.ndarray, np.ndarray]:
        """Global positions and in-bounds mask [lanes, box elements] of a TMA box, row-major."""
        tensor = tmap.tensor
        glob = self._data_storage(tensor, what)
        rank = len(tmap.box)
        if len(coords) != rank or len(tensor.shape) != rank:
            raise SimulationError(f"{what} of {tensor.name}: box {tmap.box} has rank {rank}, the tensor has rank "
                                  f"{len(tensor.shape)} and {len(coords)} coordinates are given")
        if any(s != 1 for s in tmap.element_strides):
            raise SimulationError(f"{what} of {tensor.name}: element strides {tmap.element_strides} are not supported")
        extents = [int(s.evaluate(self.base_env)) for s in tensor.shape]
        strides = [int(s.evaluate(self.base_env)) for s in tensor.strides]
        n = ctx.lanes.size
        pos = np.zeros((n, 1), dtype=np.int64)
        valid = np.ones((n, 1), dtype=bool)
        for d, box in enumerate(reversed(tmap.box)):  # coords and the copied layout are outermost first
            p = self._per_lane(coords[d], ctx)[:, None] + np.arange(box)[None, :]
            pos = (pos[:, :, None] + (p * strides[d])[:, None, :]).reshape(n, -1)
            valid = (valid[:, :, None] & ((p >= 0) & (p < extents[d]))[:, None, :]).reshape(n, -1)
        pos = np.where(valid, pos, 0)
        if valid.any() and (pos.max() >= glob.size or pos.min() < 0):
            raise SimulationError(f"{what} of {tensor.name}: box reaches element {int(pos.max())} of {glob.size}")
        return glob, pos, valid

    def _shared_box(self, buf: k.Buffer, index: Val, width: int, ctx: _Ctx, what: str) -> tuple[Storage, np.ndarray]:
        st = self._data_storage(buf, what)
        if st.memory is not MemoryType.Shared:
            raise SimulationError(f"{what}: {buf.name} is {st.memory.name} memory, TMA needs Shared")
        idx = self._per_lane(index, ctx)
        if np.any((idx * st.dtype.size) % 16):
            j = int(np.flatnonzero((idx * st.dtype.size) % 16)[0])
            raise SimulationError(f"{what}: shared address {buf.name}[{int(idx[j])}] is not 16-byte aligned")
        pos = st.positions(self.grid, ctx.lanes, idx, what, width)
        return st, np.broadcast_to(pos, ctx.lanes.shape)[:, None] + np.arange(width)[None, :]

    def _tma_load(self, node: k.TmaLoad, ctx: _Ctx) -> None:
        what = "TMA load"
        glob, src_pos, valid = self._box(node.tensor_map, node.coords, ctx, what)
        if node.dst.dtype is not glob.dtype:
            raise SimulationError(f"{what} {glob.name} -> {node.dst.name}: dtype {glob.dtype.name} != "
                                  f"{node.dst.dtype.name}")
        dst, dst_pos = self._shared_box(node.dst, node.dst_index, src_pos.shape[1], ctx, f"{what} into {node.dst.name}")
        mb = self._mbar(node.mbar, what)
        keys = self._mbar_keys(mb, node.mbar_index, ctx, what)
        mb.check_live(keys, what)
        copy = AsyncCopy("tma", dst, dst_pos, glob, src_pos, valid, ctx.lanes.copy(), ctx.task, mbar=mb, bar_keys=keys,
                         nbytes=src_pos.shape[1] * glob.dtype.size)
        self.async_.issue(copy)
        self._trace_event("tma.issue", ctx, mb, keys, dst=node.dst.name, bytes=copy.nbytes,
                          coords=[int(self._per_lane(c, ctx)[0]) for c in node.coords])

    def _tma_store(self, node: k.TmaStore, ctx: _Ctx) -> None:
        what = "TMA store"
        glob, dst_pos, valid = self._box(node.tensor_map, node.coords, ctx, what)
        src, src_pos = self._shared_box(node.src, node.src_index, dst_pos.shape[1], ctx, f"{what} from {node.src.name}")
        if src.dtype is not glob.dtype:
            raise SimulationError(f"{what} {node.src.name} -> {glob.name}: dtype {src.dtype.name} != {glob.dtype.name}")
        copy = AsyncCopy("tma_store", glob, dst_pos, src, src_pos, valid, ctx.lanes.copy(), ctx.task,
                         group=self.committed["bulk"][ctx.lanes].copy())
        self.async_.issue(copy)
        self._trace_event("tma_store.issue", ctx, None, None, src=node.src.name)

    def _cp_async(self, node: k.CpAsync, ctx: _Ctx) -> None:
        what = f"cp.async {node.src.name} -> {node.dst.name}"
        lanes, v = ctx.lanes, node.vector
        dst = self._data_storage(node.dst, what)
        src = self._data_storage(node.src, what)
        pred = (np.ones(lanes.shape, dtype=bool) if node.pred is None
                else np.broadcast_to(np.asarray(self._ev(node.pred, ctx), dtype=bool), lanes.shape))
        ar = np.arange(v)[None, :]
        dst_pos = np.broadcast_to(dst.positions(self.grid, lanes, self._per_lane(node.dst_index, ctx), what, v),
                                  lanes.shape)[:, None] + ar
        sidx = self._per_lane(node.src_index, ctx)
        src_base = np.zeros(lanes.shape, dtype=np.int64)
        if pred.any():
            src_base[pred] = np.broadcast_to(src.positions(self.grid, lanes[pred], sidx[pred], what, v),
                                             (int(pred.sum()),))
        valid = np.broadcast_to(pred[:, None], (lanes.size, v))
        copy = AsyncCopy("cp.async", dst, dst_pos, src, src_base[:, None] + ar, valid, lanes.copy(), ctx.task,
                         group=self.committed["cp.async"][lanes].copy())
        self.async_.issue(copy)
        if self.trace is not None and lanes.size:
            self._trace_event("cp_async.issue", ctx, None, None, dst=node.dst.name, src=node.src.name,
                              dst_index=int(self._per_lane(node.dst_index, ctx)[0]))

    def _async_commit(self, node: k.AsyncCommit, ctx: _Ctx) -> None:
        self._commit_counter(node.kind)[ctx.lanes] += 1
        self._trace_event("async.commit", ctx, None, None, group=node.kind)

    def _async_wait(self, node: k.AsyncWait, ctx: _Ctx) -> None:
        counter = self._commit_counter(node.kind)
        kinds = ("cp.async",) if node.kind == "cp.async" else ("tma_store",)
        self.async_.wait_groups(kinds, ctx.lanes, counter[ctx.lanes] - node.pending, self.grid.num_lanes)
        self._trace_event("async.wait", ctx, None, None, group=node.kind, pending=node.pending)

    def _commit_counter(self, kind: str) -> np.ndarray:
        counter = self.committed.get(kind)
        if counter is None:
            raise SimulationError(f"unknown async group kind {kind!r} (expected 'cp.async' or 'bulk')")
        return counter

    def _mma(self, node: k.Mma, ctx: _Ctx) -> None:
        raise SimulationError(f"Mma {node.shape} into {node.acc.name} is not supported in the simulator")

    # ---- trace ---------------------------------------------------------------------------------
    def _trace_event(self, kind: str, ctx: _Ctx, mb: MBarrierArray | None, keys: np.ndarray | None,
                     **extra: Any) -> None:
        if self.trace is None or ctx.lanes.size == 0 or ctx.lanes[0] >= self.grid.threads_per_block:
            return  # only block 0 is traced
        event: dict[str, Any] = {"step": self.steps, "kind": kind, "task": ctx.task.name}
        if mb is not None and keys is not None:
            event.update(barrier=mb.name, index=int(keys[0]) % mb.size, phase=int(mb.phase[keys[0]]))
        loops = {}
        for name in ctx.loops:
            v = ctx.env.get(name)
            loops[name] = int(v[0]) if isinstance(v, np.ndarray) else v
        if loops:
            event["loops"] = loops
        event.update(extra)
        self.trace.append(event)

    def _trace_completions(self, mb: MBarrierArray, keys: np.ndarray) -> None:
        if self.trace is None:
            return
        for key in keys[keys < mb.size]:
            self.trace.append({"step": self.steps, "kind": "mbarrier.phase_complete", "barrier": mb.name,
                               "index": int(key), "phase": int(mb.phase[key])})

    def _on_land(self, copy: AsyncCopy, sel: np.ndarray, completed: np.ndarray) -> None:
        self.progress += 1
        if self.trace is None or copy.kind != "tma" or copy.mbar is None or copy.bar_keys is None:
            return
        rows = np.flatnonzero(sel & (copy.lanes < self.grid.threads_per_block))
        if rows.size:
            key = int(copy.bar_keys[rows[0]])
            self.trace.append({"step": self.steps, "kind": "tma.land", "barrier": copy.mbar.name, "index": key,
                               "dst": copy.dst.name})
        self._trace_completions(copy.mbar, completed)


def _nothing(node: k.Node, ctx: _Ctx) -> None:
    return None


def _mbarrier_buffers(body: tuple[k.Node, ...]) -> set[str]:
    names: set[str] = set()
    for node in k.walk(body):
        mbar = getattr(node, "mbar", None)
        if isinstance(mbar, k.Buffer):
            names.add(mbar.name)
    return names
