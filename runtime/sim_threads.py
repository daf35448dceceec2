"""Thread exit in the simulator: which threads have exited (``Return`` or the end of the kernel body) and how
many of each block are still alive, which barriers wait for.

A thread exits clean: the wgmmas it issued are committed and retired (``sim_wgmma_state``) and its TMA stores
are done reading shared memory (``sim_proxy``); anything else is a ``SimulationError`` at the exit.
"""

from __future__ import annotations

import numpy as np

from .sim_memory import Grid
from .sim_proxy import AsyncProxy
from .sim_tasks import Progress
from .sim_wgmma_state import WgmmaState


class Threads:
    """Per lane whether it exited, per block how many threads are alive."""

    def __init__(self, grid: Grid, progress: Progress, wgmma: WgmmaState, proxy: AsyncProxy) -> None:
        self.grid = grid
        self.progress = progress
        self.wgmma = wgmma
        self.proxy = proxy
        self.exited = np.zeros(grid.num_lanes, dtype=bool)
        self.exit_events = 0     # grows with every exit: a loop checks its lanes only when it changed
        self.alive = np.full(grid.num_blocks, grid.threads_per_block, dtype=np.int64)

    def exit(self, lanes: np.ndarray) -> None:
        """``lanes`` exit (those that had not yet), after the checks of what they must have finished."""
        new = lanes[~self.exited[lanes]]
        if new.size == 0:
            return
        self.wgmma.check_exit(new)
        self.proxy.check_exit(new)
        self.exited[new] = True
        self.alive -= np.bincount(self.grid.block_of[new], minlength=self.grid.num_blocks)
        self.exit_events += 1
        self.progress.advance()


__all__ = ["Threads"]
