"""The elected-thread rule of the simulator: ``ElectSync`` runs its body in one thread per warp it names.

Each thread that reaches the statement names a warp, ``node.warp`` (linear thread index // 32): warp
0 of the block, or one that differs between threads, like ``threadIdx.y * 4`` for the first warp of
each warp group. In each block, every named warp elects its lowest lane that reaches the statement,
as the CUDA elects lane 0 of a warp that arrives whole (``verify``); the other threads skip the body. The body runs as
a branch of the statement list (``sim_control``); this module is the rule that picks its threads.
"""

from __future__ import annotations

import numpy as np

from lowering import kernel_ir as k

from .errors import SimulationError
from .sim_eval import Evaluator
from .sim_memory import Grid
from .sim_tasks import Ctx


class Election:
    """Which threads run the body of an ``ElectSync``."""

    def __init__(self, grid: Grid, evaluator: Evaluator) -> None:
        self.grid = grid
        self.eval = evaluator

    def elected(self, node: k.ElectSync, ctx: Ctx) -> np.ndarray:
        """A mask over ``ctx.lanes``: the lowest lane that reaches the statement in each (block, named warp)."""
        lanes = ctx.lanes
        warp = self.eval.per_lane(node.warp, ctx)
        warps = -(-self.grid.threads_per_block // 32)
        bad = (warp < 0) | (warp >= warps)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise SimulationError(f"ElectSync: warp {node.warp} is {int(warp[j])} for "
                                  f"{self.grid.describe(int(lanes[j]))}, but a block of "
                                  f"{self.grid.threads_per_block} threads has warps 0..{warps - 1}")
        elected = np.zeros(lanes.size, dtype=bool)
        rows = np.flatnonzero(self.grid.warp_of[lanes] == warp)
        if rows.size == 0:
            return elected
        # lanes are sorted, so the lanes of one (block, warp) pair are adjacent: elect the lowest of each
        pairs = self.grid.block_of[lanes[rows]] * warps + warp[rows]
        first = np.ones(rows.size, dtype=bool)
        first[1:] = pairs[1:] != pairs[:-1]
        elected[rows[first]] = True
        return elected


__all__ = ["Election"]
