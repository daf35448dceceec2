"""Block reductions in the simulator: ``BlockReduce`` all-reduces a value across thread dimensions.

Every participating thread deposits its value and meets the others at a block-wide barrier; the
first task through computes every group's result (lanes that differ only in the reduced
dimensions), and a second barrier keeps the scratch from being refilled before all have read.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from fusion_ir.types import ParallelType
from lowering import kernel_ir as k

from .sim_barriers import Barriers
from .sim_eval import Evaluator
from .sim_memory import Grid, Memory, Storage, clobber_aliases, to_dtype
from .sim_tasks import Ctx, Handler, TaskGen
from .sim_values import REDUCE


@dataclass
class ReduceScratch:
    """Contributions of one BlockReduce statement, per lane, and the last computed result."""

    values: np.ndarray
    valid: np.ndarray
    keys: dict[tuple, np.ndarray] = field(default_factory=dict)
    result_for: tuple | None = None     # (dynamic instance, blocks) the cached result belongs to
    result: np.ndarray | None = None


class BlockReductions:
    """``BlockReduce`` statements, on top of the block-wide or named barriers of ``barriers``."""

    def __init__(self, grid: Grid, evaluator: Evaluator, memory: Memory, barriers: Barriers) -> None:
        self.grid = grid
        self.eval = evaluator
        self.memory = memory
        self.barriers = barriers
        self._scratch: dict[int, ReduceScratch] = {}

    def handles(self) -> dict[type, Handler]:
        return {k.BlockReduce: self.block_reduce}

    def block_reduce(self, node: k.BlockReduce, ctx: Ctx, i: int) -> TaskGen:
        lanes = ctx.lanes
        scratch = self._scratch.get(id(node))
        if scratch is None:
            n = self.grid.num_lanes
            scratch = self._scratch[id(node)] = ReduceScratch(np.zeros(n), np.zeros(n, dtype=bool))
        value = self.eval.value(node.value, ctx)
        scratch.values[lanes] = np.broadcast_to(np.asarray(value, dtype=np.float64), lanes.shape)
        scratch.valid[lanes] = True
        self._touch_workspace(node.workspace, lanes)
        what = f"blockReduce<{node.op}> into {node.buffer.name}"
        yield from self._reduce_barrier(node, ctx, what, ctx.path + (i, 0))
        instance = (ctx.path + (i,), np.unique(self.grid.block_of[lanes]).tobytes())
        if scratch.result_for != instance:  # the other tasks of the same blocks reuse the first one's result
            scratch.result_for, scratch.result = instance, self._reduce_groups(node, scratch)
        result = scratch.result[lanes]  # type: ignore[index]
        yield from self._reduce_barrier(node, ctx, what, ctx.path + (i, 1))  # nobody refills before all have read
        scratch.valid[lanes] = False
        st = self.memory.data_storage(node.buffer, what)
        pos = st.positions(self.grid, lanes, self.eval.ev(node.index, ctx), what)
        st.write(np.broadcast_to(pos, lanes.shape), to_dtype(st.dtype, result))
        return ctx

    def _reduce_barrier(self, node: k.BlockReduce, ctx: Ctx, what: str, where: tuple) -> TaskGen:
        """``__syncthreads``, or the named barrier of the warp-split branch the reduction runs in."""
        if node.barrier is None:
            yield from self.barriers.block_barrier(ctx, what, where)
        else:
            yield from self.barriers.named(node.barrier, ctx, f"{what} (bar.sync {node.barrier.id}, "
                                                              f"{node.barrier.threads})")

    def _reduce_groups(self, node: k.BlockReduce, scratch: ReduceScratch) -> np.ndarray:
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
        st = self.memory.storages.get(workspace.name)
        if isinstance(st, Storage) and st.aliases:
            rows = np.unique(self.grid.block_of[lanes])
            width = min(st.size, self.grid.threads_per_block)
            clobber_aliases(st, (rows[:, None] * st.size + np.arange(width)[None, :]).reshape(-1))
