"""The elected-thread rule of the simulator: ``ElectSync`` runs its body in one thread per warp it names.

Each thread that reaches the statement names a warp, ``node.warp`` (linear thread index // 32): warp
0 of the block, or one that differs between threads, like ``threadIdx.y * 4`` for the first warp of
each warp group. In each block, every named warp elects its lowest lane that reaches the statement,
as ``elect.sync`` over that warp's lanes picks on the GPU; the other threads skip the body.
"""

from __future__ import annotations

import numpy as np

from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_scheduler import Ctx, TaskGen


class Election:
    """``ElectSync`` statements of a ``Simulator``."""

    def visit_ElectSync(self, node: k.ElectSync, ctx: Ctx, i: int) -> TaskGen:
        lanes = ctx.lanes
        warp = self._per_lane(node.warp, ctx)
        warps = -(-self.grid.threads_per_block // 32)
        bad = (warp < 0) | (warp >= warps)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise SimulationError(f"ElectSync: warp {node.warp} is {int(warp[j])} for "
                                  f"{self.grid.describe(int(lanes[j]))}, but a block of "
                                  f"{self.grid.threads_per_block} threads has warps 0..{warps - 1}")
        rows = np.flatnonzero(self.grid.warp_of[lanes] == warp)
        if rows.size == 0:
            return ctx
        # lanes are sorted, so the lanes of one (block, warp) pair are adjacent: elect the lowest of each
        pairs = self.grid.block_of[lanes[rows]] * warps + warp[rows]
        first = np.ones(rows.size, dtype=bool)
        first[1:] = pairs[1:] != pairs[:-1]
        elected = np.zeros(lanes.size, dtype=bool)
        elected[rows[first]] = True
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
