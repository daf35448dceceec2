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
- wgmma (``sim_wgmma``): each warp computes its 16 rows of a warp group's MMA from the simulated shared
  memory; the accumulators read as poison until the ``wgmma.wait_group`` that retires them.
- TMA stores (``sim_proxy``): the source may be read until the issuing thread's bulk wait retires the
  store, so writing it before then is an error, and so is reading ordinary stores that no
  ``fence.proxy.async`` (then a barrier) made visible to the async proxy. ``stmatrix``: ``sim_stmatrix``.
- When no task can make progress the kernel is deadlocked: ``DeadlockError`` names every waiter.
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
from .kernels import as_kernel
from .launch_plan import plan_launch
from .progress import ProgressArg, reporting
from .sim_async import LAND_PROBABILITY, LAZY_EVERY, AsyncEngine
from .sim_barriers import Barriers
from .sim_control import ControlFlow
from .sim_copy_ops import CopyOps
from .sim_elect import Election
from .sim_eval import Evaluation
from .sim_mbarrier import LIVE, MBarrierArray
from .sim_mbarrier_ops import MBarrierOps
from .sim_memory import Grid, Storage, storage_dtype, to_dtype
from .sim_memory_ops import MemoryOps
from .sim_proxy import ProxyChecks
from .sim_reduce import BlockReductions
from .sim_registers import RegisterSharing
from .sim_scheduler import Ctx, Scheduling
from .sim_stmatrix import StMatrixOps
from .sim_trace import Tracing
from .sim_wgmma import WgmmaOps


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
    kernel = as_kernel(kernel_or_fusion, caller="simulate")
    try:
        verify(kernel)
    except VerifyError as e:
        raise SimulationError(f"kernel {kernel.name}: {e}") from e
    arrays = _validate_inputs(kernel, inputs)
    # The executor's argument checks (binding, runtime checks, TMA layouts, shared-memory size)
    # apply here too, so a launch the GPU would refuse is refused the same way.
    plan = plan_launch(kernel, [_plan_arg(a, b) for a, b in zip(arrays, kernel.inputs)])
    chunks = block_ranges(kernel, plan.grid, plan.block)
    first: Simulator | None = None
    with reporting(progress, chunks[-1].stop if chunks else 0, f"simulating {kernel.name}: blocks",
                   long=len(chunks) > 1) as advance:
        for n, blocks in enumerate(chunks):
            sim = Simulator(kernel, plan.env, Grid(plan.grid, plan.block, blocks), seed, trace if n == 0 else None,
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
    ``CHUNK_LANES`` threads (and for a kernel with global scratch, which its blocks share), else ranges of
    ``CHUNK_LANES`` threads' worth of blocks."""
    blocks = grid[0] * grid[1] * grid[2]
    threads = block[0] * block[1] * block[2]
    shares_global = any(isinstance(n, k.Allocate) and n.buffer.memory is MemoryType.Global for n in k.walk(kernel.body))
    if blocks * threads <= CHUNK_LANES or shares_global:
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
class Simulator(Scheduling, ControlFlow, Barriers, BlockReductions, Election, MemoryOps, Evaluation, MBarrierOps,
                CopyOps, ProxyChecks, WgmmaOps, StMatrixOps, RegisterSharing, Tracing, k.NodeVisitor):
    """The simulated launch: each job lives in its own module, this class puts them together.

    Statement handlers are ``visit_<Node>(node, ctx, i)`` methods (``k.NodeVisitor``), found in
    ``sim_control`` (loops, branches, return, continue), ``sim_barriers`` (``__syncthreads``, named
    barriers), ``sim_reduce``, ``sim_elect``, ``sim_memory_ops``, ``sim_mbarrier_ops`` and
    ``sim_copy_ops``, ``sim_proxy`` (``FenceAsyncProxy``; TMA store source hazards), ``sim_wgmma`` (``Mma``,
    ``WgmmaFence``), ``sim_stmatrix``, ``sim_registers`` (setmaxnreg checks); ``sim_scheduler`` runs the warp
    tasks that execute them.
    """

    backend = "the simulator"
    missing_error = SimulationError

    def __init__(self, kernel: k.Kernel, env: dict[str, int], grid: Grid, seed: int,
                 trace: list[dict[str, Any]] | None, interleave_blocks: int | None = None) -> None:
        self.kernel = kernel
        self.interleave_blocks = interleave_blocks
        self.grid = grid
        self.base_env: dict[str, Any] = dict(env)
        for axis, n in zip("xyz", grid.block):
            self.base_env[f"blockDim.{axis}"] = n
        for axis, n in zip("xyz", grid.grid):
            self.base_env[f"gridDim.{axis}"] = n
        self.rng = np.random.default_rng(seed)
        self.trace = trace
        self.async_ = AsyncEngine(self.rng, self._async_landed,
                                  0.0 if seed % LAZY_EVERY == 0 else LAND_PROBABILITY, on_write=self._async_write)
        self._init_scheduling()
        self._init_control_flow()
        self._init_barriers()
        self._init_reductions()
        self._init_memory()
        self._init_evaluation()
        self._init_copies()
        self._init_wgmma()
        self._init_proxy()
        self._init_registers()

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

    def share_params(self, other: Simulator) -> None:
        """Run on ``other``'s parameters: a later range of blocks of the same launch reads and writes them."""
        for name in other.params:
            self._add_param(other.storages[name])
        self._output_shapes = other._output_shapes

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

    # ---- what must be clean when the blocks exit ---------------------------------------------
    def _check_kernel_exit(self) -> None:
        self._check_committed(np.arange(self.grid.num_lanes), "thread exit")
        for st in self.storages.values():
            if isinstance(st, MBarrierArray):
                live = np.flatnonzero(st.state == LIVE)
                if live.size:
                    raise SimulationError(f"{st.label(int(live[0]))} (and {live.size - 1} more) was initialized and "
                                          f"never invalidated (mbarrier::inval) before its block exited; its shared "
                                          f"memory cannot be reused as data")
        self._check_register_exit()

    # ---- statements without an effect on the simulated state ---------------------------------
    def visit_Comment(self, node: k.Comment, ctx: Ctx, i: int) -> None:
        return None

    def visit_Let(self, node: k.Let, ctx: Ctx, i: int) -> None:
        """Bind the name in this scope's symbols (again on each pass through the scope); a loop's body
        sees it through its copy of them."""
        ctx.env[node.name] = self._ev(node.value, ctx)
