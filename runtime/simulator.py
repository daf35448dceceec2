"""``runtime.simulate``: execute kernel IR on the CPU with numpy, checking synchronization.

Execution model:
- A lane is one thread of the grid. The threads run as cooperative tasks, one per warp index
  (warp ``w`` of every block); a task executes each statement once for all its lanes (SIMT
  lockstep): per-lane values are numpy arrays, loop indices stay Python ints when uniform.
- The scheduler (``sim_scheduler``) visits the tasks in a seeded random order; a task runs until it blocks
  (``__syncthreads``, block reduction, mbarrier wait) or for a random number of statements, so
  warps drift apart as far as the synchronization allows: a missing RAW or WAR barrier shows.
- An ``if`` whose condition differs across a task's lanes and whose branches block forks the task
  into two sub-tasks that rejoin after the ``if`` (warp-specialized producer/consumer code).
- The async proxy (``sim_async``) lands TMA and cp.async copies at seeded random moments, no later
  than the wait that needs them (seeds divisible by 3: exactly when a wait needs them); destinations
  hold poison (NaN) until then.
- wgmma (``sim_wgmma``, ``sim_wgmma_state``): each warp computes its 16 rows of a warp group's MMA from the
  simulated shared memory; the accumulators read as poison until the ``wgmma.wait_group`` that retires them.
- TMA stores (``sim_proxy``): the source may be read until the issuing thread's bulk wait retires the
  store, so writing it before then is an error, and so is reading ordinary stores that no
  ``fence.proxy.async`` (then a barrier) made visible to the async proxy. ``stmatrix``: ``sim_stmatrix``.
- When no task can make progress the kernel is deadlocked: ``DeadlockError`` names every waiter.

Components. ``Simulator`` holds one object per piece of state as a field, each made in ``Simulator.__init__``
from the components it needs, passed to its constructor (so its module imports theirs; the import graph has
no cycle). State, and the statements each executes:

- ``progress`` (``sim_tasks.Progress``): statements executed and state changes (the deadlock check);
- ``tracer`` (``sim_trace.Tracer``): the events of block 0 for ``viz --show pipeline``;
- ``memory`` (``sim_memory.Memory``): the buffers by name (``Storage``, ``MBarrierArray``);
- ``groups`` (``sim_groups.CommitGroups``): the cp.async, bulk and wgmma commit-group counters;
- ``wgmma`` (``sim_wgmma_state.WgmmaState``): accumulators, the wgmmas in flight, their hazards;
- ``proxy`` (``sim_proxy.AsyncProxy``): TMA store sources and proxy fences; ``FenceAsyncProxy``;
- ``async_`` (``sim_async.AsyncEngine``): the copies in flight, which tell ``wgmma``, ``proxy`` and ``tracer``
  of their writes and landings;
- ``threads`` (``sim_threads.Threads``): exited threads and the alive count of each block;
- ``eval`` (``sim_eval.Evaluator``): per-lane values; ``Let``;
- ``barriers`` (``sim_barriers.Barriers``): ``BlockSync``, ``NamedBarrier``;
- ``grid_sync`` (``sim_grid_sync.GridSync``): a grid reduction's fences, semaphore arrivals and the
  publication of its partials between blocks; ``GridFence``, ``SemaphoreArrive``;
- ``registers`` (``sim_registers.RegisterSharing``): ``SetMaxNReg``;
- statement components whose state no other component reads: ``MemoryOps`` (``Allocate``, ``Assign``, ``WarpShuffleXor``),
  ``BlockReductions`` (``BlockReduce``), ``MBarrierOps`` (the mbarrier statements), ``CopyOps`` (TMA and
  cp.async copies, ``AsyncCommit``, ``AsyncWait``), ``WgmmaOps`` (``Mma``, ``WgmmaFence``), ``StMatrixOps`` (``StMatrix``);
- ``control`` (``sim_control.ControlFlow``): the dispatch table, statement lists, and ``ForLoop``,
  ``IfThenElse``, ``ElectSync`` (its threads: ``sim_elect``), ``Return``, ``Continue``, ``Comment``;
- ``scheduler`` (``sim_scheduler.Scheduler``): the warp tasks.

Adding a kernel-IR statement: write its handler ``handler(node, ctx, i)`` (``sim_tasks``) as a method of the
component whose state it changes (a new component if it has state of its own: a class taking the
components it uses in its constructor, made in ``Simulator.__init__`` and put in ``statements``), and add
``NodeClass: self.handler`` to that component's ``handles()``. ``ControlFlow`` dispatches on the node class
through the table of every ``handles()``; ``tests/runtime/test_simulator_handlers.py`` checks that each
statement class has exactly one handler.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fusion_ir.types import DataType, MemoryType
from lowering import kernel_ir as k
from lowering.verify import VerifyError, verify

from .arrays import ArrayArg, ArrayKind, bfloat16_input_hint, host_layout
from .errors import InputError, SimulationError
from .kernels import as_kernel, split_inputs
from .launch_plan import plan_launch, scratch_size
from .progress import ProgressArg, reporting
from .sim_async import AsyncEngine, land_probability
from .sim_barriers import Barriers
from .sim_control import ControlFlow
from .sim_copy_ops import CopyOps
from .sim_elect import Election
from .sim_eval import Evaluator
from .sim_grid_sync import GridSync
from .sim_groups import CommitGroups
from .sim_mbarrier_ops import MBarrierOps
from .sim_memory import Grid, Memory, Storage, storage_dtype, to_dtype
from .sim_memory_ops import MemoryOps
from .sim_proxy import AsyncProxy
from .sim_reduce import BlockReductions
from .sim_registers import RegisterSharing
from .sim_scheduler import Scheduler
from .sim_stmatrix import StMatrixOps
from .sim_tasks import Progress, Task, TaskGen
from .sim_threads import Threads
from .sim_trace import Tracer
from .sim_wgmma import WgmmaOps
from .sim_wgmma_state import WgmmaState

# a launch of more threads than this runs a range of blocks at a time (blocks never share memory, and the
# simulator's per-thread arrays stay small); each range is one step of the progress bar
CHUNK_LANES = 1 << 20


def simulate(kernel_or_fusion: k.Kernel | Any, inputs: Sequence[np.ndarray], seed: int = 0,
             trace: list[dict[str, Any]] | None = None, interleave_blocks: int | None = None, *,
             progress: ProgressArg = None) -> list[np.ndarray]:
    """Run ``kernel_or_fusion`` (a ``Kernel``, or a ``Fusion`` lowered first) on ``inputs`` and return its outputs
    (BFloat16 outputs come back as float32).

    ``seed`` drives when async copies land. With a ``trace`` list, mbarrier and TMA events of
    block 0 are appended to it as small dicts (for ``viz --show pipeline``). A launch of more than
    ``CHUNK_LANES`` threads runs ``CHUNK_LANES`` threads' worth of blocks at a time; ``progress`` reports
    the blocks simulated (``runtime.progress``: by default a bar on stderr when it is a terminal and the
    launch takes several ranges; ``True``, ``False`` or a callable ``f(blocks_done, blocks)``).
    ``interleave_blocks`` (a seed): the blocks no longer run in lockstep but in random groups that the
    scheduler interleaves like warps, so a block may run far ahead of another and a read of what another
    block writes, which no grid-level order makes safe, shows (``sim_scheduler``).
    """
    kernel = as_kernel(kernel_or_fusion, caller="simulate", inputs=inputs)
    try:
        verify(kernel)
    except VerifyError as e:
        raise SimulationError(f"kernel {kernel.name}: {e}") from e
    tensors, scalars = split_inputs(kernel, inputs)
    arrays = _validate_inputs(kernel, tensors)
    # The executor's argument checks (binding, runtime checks, TMA layouts, shared-memory size)
    # apply here too, so a launch the GPU would refuse is refused the same way.
    plan = plan_launch(kernel, [_plan_arg(a, b) for a, b in zip(arrays, kernel.inputs)])
    env = {**plan.env, **scalars}     # scalar parameters are read by name, like the extents
    chunks = block_ranges(kernel, plan.grid, plan.block)
    first: Simulator | None = None
    with reporting(progress, chunks[-1].stop if chunks else 0, f"simulating {kernel.name}: blocks",
                   long=len(chunks) > 1) as advance:
        for n, blocks in enumerate(chunks):
            sim = Simulator(kernel, env, Grid(plan.grid, plan.block, blocks, kernel.cluster_dims), seed, trace if n == 0 else None,
                            interleave_blocks)
            if first is None:
                sim.bind_params(arrays)
                first = sim
            else:
                sim.share_params(first)
            with np.errstate(all="ignore"):
                sim.run()
            advance(len(blocks))
    assert first is not None
    return first.results()


def block_ranges(kernel: k.Kernel, grid: tuple[int, int, int], block: tuple[int, int, int]) -> list[range]:
    """The ranges of linear block numbers simulated one after another: all blocks at once for a launch of at most
    ``CHUNK_LANES`` threads (and for a kernel with global scratch, which its blocks share, or launched in
    clusters, whose blocks reach each other's shared memory), else ranges of ``CHUNK_LANES`` threads' worth of
    blocks."""
    blocks = grid[0] * grid[1] * grid[2]
    threads = block[0] * block[1] * block[2]
    shares_global = bool(kernel.scratch) or any(isinstance(n, k.Allocate) and n.buffer.memory is MemoryType.Global
                                                for n in k.walk(kernel.body))
    if blocks * threads <= CHUNK_LANES or shares_global or kernel.cluster_dims != (1, 1, 1):
        return [range(blocks)]
    step = max(1, CHUNK_LANES // max(threads, 1))
    return [range(start, min(start + step, blocks)) for start in range(0, blocks, step)]


# ---------------------------------------------------------------- arguments
def _validate_inputs(kernel: k.Kernel, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    if len(inputs) != len(kernel.inputs):
        names = ", ".join(b.name for b in kernel.inputs)
        raise InputError(f"kernel {kernel.name} takes {len(kernel.inputs)} inputs ({names}), got {len(inputs)}",
                         k.InputRule.ARGUMENT_COUNT)
    arrays = []
    for buf, arr in zip(kernel.inputs, inputs):
        if not isinstance(arr, np.ndarray):
            raise InputError(f"input {buf.name}: the simulator needs a numpy array, got {type(arr).__name__}",
                             k.InputRule.ARGUMENT_TYPE, buf.name)
        name = arr.dtype.name
        accepted = {buf.dtype.numpy_name} | ({"float32"} if buf.dtype is DataType.BFloat16 else set())
        if name not in accepted:
            hint = bfloat16_input_hint(host=True) if buf.dtype is DataType.BFloat16 else ""
            raise InputError(f"input {buf.name}: dtype {name}, but the kernel expects {buf.dtype.numpy_name}{hint}",
                             k.InputRule.DTYPE, buf.name)
        if arr.ndim != len(buf.shape):
            raise InputError(f"input {buf.name}: rank {arr.ndim}, but the kernel expects rank {len(buf.shape)}",
                             k.InputRule.RANK, buf.name)
        arrays.append(host_layout(arr))   # the one rule for host arrays, as in execute
    return arrays


def _plan_arg(arr: np.ndarray, buf: k.Buffer) -> ArrayArg:
    """The argument as the launch plan sees it: the (C-ordered, ``host_layout``) array with its element
    strides, as the executor would pass it."""
    itemsize = arr.itemsize
    dtype = arr.dtype.name
    if buf.dtype is DataType.BFloat16:  # numpy has no bfloat16: the simulator takes float32 values
        dtype, itemsize = buf.dtype.numpy_name, buf.dtype.size
    strides = tuple(int(st) // arr.itemsize for st in arr.strides)
    return ArrayArg(ArrayKind.Numpy, arr, tuple(arr.shape), strides, dtype, itemsize)


# ---------------------------------------------------------------- the simulator
class Simulator:
    """The simulated launch of a range of blocks: the components the module docstring lists, made here in
    dependency order, each from the components it uses."""

    def __init__(self, kernel: k.Kernel, env: dict[str, int], grid: Grid, seed: int,
                 trace: list[dict[str, Any]] | None, interleave_blocks: int | None = None) -> None:
        self.kernel = kernel
        self.grid = grid
        self.base_env: dict[str, Any] = dict(env)
        for axis, n in zip("xyz", grid.block):
            self.base_env[f"blockDim.{axis}"] = n
        for axis, n in zip("xyz", grid.grid):
            self.base_env[f"gridDim.{axis}"] = n
        # one generator drives the whole interleaving: task order and switches, and when copies land
        self.rng = np.random.default_rng(seed)
        self.progress = Progress()
        self.tracer = Tracer(trace, grid, self.progress)
        self.memory = Memory()
        self.groups = CommitGroups(grid)
        self.wgmma = WgmmaState(kernel, grid, self.groups)
        self.proxy = AsyncProxy(kernel, grid, self.groups)
        self.async_ = AsyncEngine(self.rng, self.progress, land_probability(seed),
                                  on_write=(self.wgmma.copy_write, self.proxy.copy_write),
                                  on_land=(self.proxy.copy_landed, self.tracer.copy_landed))
        self.threads = Threads(grid, self.progress, self.wgmma, self.proxy)
        self.eval = Evaluator(grid, self.memory, self.wgmma)
        self.barriers = Barriers(grid, self.progress, self.threads, self.eval, self.proxy)
        self.registers = RegisterSharing(grid, self.threads)
        self.grid_sync = GridSync(grid, self.rng, self.progress, self.eval, self.memory, self.barriers)
        mbarriers = MBarrierOps(grid, self.eval, self.memory, self.async_, self.proxy, self.tracer, self.progress,
                                 self.threads)
        statements = (
            self.eval,                                                          # Let
            MemoryOps(kernel, grid, self.base_env, self.eval, self.memory, self.wgmma, self.proxy),
            self.barriers,                                                      # BlockSync, NamedBarrier
            BlockReductions(grid, self.eval, self.memory, self.barriers),
            mbarriers,
            CopyOps(grid, self.base_env, self.eval, self.memory, mbarriers, self.async_, self.groups, self.proxy,
                    self.wgmma, self.tracer),
            self.proxy,                                                         # FenceAsyncProxy
            WgmmaOps(grid, self.eval, self.memory, self.wgmma, self.tracer, self.proxy),
            StMatrixOps(grid, self.eval, self.memory, self.wgmma, self.proxy),
            self.registers,                                                     # SetMaxNReg
            self.grid_sync,                                                     # GridFence, SemaphoreArrive
        )
        self.control = ControlFlow(kernel, grid, self.rng, self.progress, self.async_, self.eval, self.threads,
                                   Election(grid, self.eval), statements)
        self.scheduler = Scheduler(kernel, grid, self.base_env, self.rng, self.progress, self.control,
                                   self.threads, interleave_blocks)

    def run(self) -> None:
        """Run every task to the end, check what the exited blocks must have cleaned up, then let the copies
        still in flight land."""
        self.scheduler.run()
        self._check_kernel_exit()
        self.async_.finish()

    def _root(self, task: Task) -> TaskGen:
        """A task of ``task``'s lanes through the whole kernel body (as the scheduler starts each warp)."""
        return self.scheduler.root(task)

    # ---- parameters and results -------------------------------------------
    def bind_params(self, arrays: list[np.ndarray]) -> None:
        for buf, arr in zip(self.kernel.inputs, arrays):
            span = 1 + sum((d - 1) * (s // arr.itemsize) for d, s in zip(arr.shape, arr.strides)) if arr.size else 0
            flat = np.lib.stride_tricks.as_strided(arr, shape=(span,), strides=(arr.itemsize,))
            st = Storage(buf, 1, span)
            st.data[:] = to_dtype(buf.dtype, flat.astype(storage_dtype(buf.dtype)) if buf.dtype.is_float else flat)
            self.memory.add_param(st, self.kernel.name)
        shapes = self.kernel.output_shapes(self.base_env)
        for buf, shape in zip(self.kernel.outputs, shapes):
            self.memory.add_param(Storage(buf, 1, int(np.prod(shape, dtype=np.int64))), self.kernel.name)
        self._output_shapes = shapes
        for scratch in self.kernel.scratch:      # as the executor: work buffers as they come, semaphores zeroed
            st = Storage(scratch.buffer, 1, scratch_size(self.kernel, scratch, self.base_env))
            if scratch.zeroed:
                st.data[:] = 0
            else:
                self.grid_sync.attach(st)
            self.memory.add_param(st, self.kernel.name)

    def _check_zeroed_scratch(self) -> None:
        """Zeroed scratch (a grid reduction's semaphores) is allocated and zeroed once for every launch of a prepared
        kernel (``runtime.executor.prepare``), so the kernel must leave it at zero: each last block resets what it
        counted on."""
        for scratch in self.kernel.scratch:
            st = self.memory.storages.get(scratch.buffer.name)
            if not scratch.zeroed or st is None:
                continue
            left = np.flatnonzero(st.data != 0)     # type: ignore[union-attr]
            if left.size:
                raise SimulationError(f"kernel {self.kernel.name} ends with {scratch.buffer.name}[{int(left[0])}] = "
                                      f"{st.data[left[0]]} (and {left.size - 1} more nonzero): scratch that every "  # type: ignore[index]
                                      f"launch expects zeroed ({scratch.purpose}) is not put back to 0, so the next "
                                      f"launch would start from stale counts (the last block's reset is missing)")

    def share_params(self, other: Simulator) -> None:
        """Run on ``other``'s parameters: a later range of blocks of the same launch reads and writes them."""
        for name in other.memory.params:
            self.memory.add_param(other.memory.storages[name], self.kernel.name)   # type: ignore[arg-type]
        self._output_shapes = other._output_shapes

    def results(self) -> list[np.ndarray]:
        out = []
        for buf, shape in zip(self.kernel.outputs, self._output_shapes):
            data = self.memory.storages[buf.name].data.reshape(shape)   # type: ignore[union-attr]
            out.append(data.astype(np.float16) if buf.dtype is DataType.Half else data.copy())
        return out

    # ---- what must be clean when the blocks exit ---------------------------------------------
    def _check_kernel_exit(self) -> None:
        self.groups.check_committed(np.arange(self.grid.num_lanes), "thread exit")
        self._check_zeroed_scratch()
        self.memory.check_exit()
        self.registers.check_exit()
        self.barriers.check_exit()
