"""Commit groups of the simulator: per thread, how many ``cp.async``, bulk (TMA store) and ``wgmma`` groups it
committed (``AsyncCommit``), and how many ``cp.async`` copies it issued since its last commit.

A copy or an ``Mma`` belongs to the open group of its thread when issued (the count of groups committed so
far); ``AsyncWait(kind, n)`` retires every group of its thread below ``committed - n``. The copies are
``sim_copy_ops``'s, the TMA store reads ``sim_proxy``'s and the wgmmas ``sim_wgmma_state``'s.
"""

from __future__ import annotations

import numpy as np

from lowering.kernel_ir import AsyncKind

from .errors import SimulationError
from .sim_memory import Grid


class CommitGroups:
    """The commit-group counters of every lane of a launch."""

    def __init__(self, grid: Grid) -> None:
        n = grid.num_lanes
        self.grid = grid
        self.committed = {kind: np.zeros(n, dtype=np.int64) for kind in AsyncKind}
        # cp.async copies each lane issued since its last cp.async.commit_group: a wait_group never waits
        # for them, so a wait (or the thread's exit) with some still uncommitted is a missing commit
        self.uncommitted = np.zeros(n, dtype=np.int64)

    def counter(self, kind: AsyncKind) -> np.ndarray:
        """The per-lane count of committed groups of ``kind``."""
        counter = self.committed.get(kind)
        if counter is None:
            raise SimulationError(f"unknown async group kind {kind!r} (expected 'cp.async', 'bulk' or 'wgmma')")
        return counter

    def check_committed(self, lanes: np.ndarray, what: str) -> None:
        """``lanes`` wait for their cp.async groups (or exit): none may have uncommitted copies."""
        left = lanes[self.uncommitted[lanes] > 0]
        if left.size:
            lane = int(left[0])
            raise SimulationError(f"{what}: {self.grid.describe(lane)} has {int(self.uncommitted[lane])} cp.async "
                                  f"copies issued since its last cp.async.commit_group; no wait_group waits for "
                                  f"uncommitted copies (a missing commit)")


__all__ = ["CommitGroups"]
