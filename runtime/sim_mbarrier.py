"""mbarrier objects of the simulator: arrival count, transaction count and phase, per block.

A barrier's key is ``block * size + index``. A phase completes when its pending arrivals reach
zero and its tx-count (bytes announced by ``arriveExpectTx`` minus bytes landed by TMA copies) is
zero; the phase number then increments and the arrivals reset to the init count. Waits compare
phases: ``waitParity(p)`` is done once ``phase % 2 != p``, ``wait(token)`` once ``phase > token``.
"""

from __future__ import annotations

import numpy as np

from fusion_ir.types import MemoryType
from lowering.kernel_ir import Buffer

from .errors import SimulationError

UNINITIALIZED, LIVE, INVALIDATED, CLOBBERED = 0, 1, 2, 3
_STATE_TEXT = {
    UNINITIALIZED: "is not initialized",
    INVALIDATED: "was invalidated (a __syncthreads must separate every use of an mbarrier from its inval)",
    CLOBBERED: "was overwritten by a write to aliased shared memory",
}


class MBarrierArray:
    """The mbarriers of one Shared Int64 buffer, for every block."""

    memory = MemoryType.Shared

    def __init__(self, buffer: Buffer, num_blocks: int, size: int) -> None:
        self.buffer = buffer
        self.name = buffer.name
        self.dtype = buffer.dtype
        self.size = size
        self.rows = num_blocks
        n = num_blocks * size
        self.expected = np.zeros(n, dtype=np.int64)
        self.pending = np.zeros(n, dtype=np.int64)
        self.tx = np.zeros(n, dtype=np.int64)
        self.phase = np.zeros(n, dtype=np.int64)
        self.state = np.zeros(n, dtype=np.int8)
        self.clobbered_by: dict[int, str] = {}
        self.byte_offset: int | None = None
        self.aliases: list = []

    def label(self, key: int) -> str:
        block, index = divmod(int(key), self.size)
        return f"mbarrier {self.name}[{index}] of block {block}"

    # ---- lifetime --------------------------------------------------------
    def reset_rows(self, rows: np.ndarray) -> None:
        """A new instance of the allocation (a loop around it came round) starts uninitialized, except
        barriers still live from the previous instance: allocation is static on the GPU, and one warp may
        reach the next instance's allocation while the elected thread still invalidates the previous one
        (whose inval, then the next init, keep the lifetime rules)."""
        keys = (rows[:, None] * self.size + np.arange(self.size)[None, :]).reshape(-1)
        keys = keys[self.state[keys] != LIVE]
        self.state[keys] = UNINITIALIZED

    def check_live(self, keys: np.ndarray, what: str) -> None:
        bad = self.state[keys] != LIVE
        if bad.any():
            key = int(keys[np.flatnonzero(bad)[0]])
            why = _STATE_TEXT[int(self.state[key])]
            if key in self.clobbered_by and self.state[key] == CLOBBERED:
                why = f"was overwritten by a write to {self.clobbered_by[key]} (shared memory reused while live)"
            raise SimulationError(f"{what} uses {self.label(key)}, which {why}")

    def init(self, keys: np.ndarray, counts: np.ndarray) -> None:
        if np.any(counts < 1):
            raise SimulationError(f"mbarrier::init of {self.label(int(keys[0]))} with arrival count < 1")
        uniq, times = np.unique(keys, return_counts=True)
        if np.any(times > 1):
            key = int(uniq[np.flatnonzero(times > 1)[0]])
            raise SimulationError(f"mbarrier::init of {self.label(key)} by {int(times.max())} threads at once; one "
                                  f"thread initializes a barrier (an elect-one predicate missing?)")
        live = keys[self.state[keys] == LIVE]
        if live.size:
            raise SimulationError(f"mbarrier::init of {self.label(int(live[0]))}, which is live (initialized and not "
                                  f"invalidated): a barrier is initialized once, or again after its inval")
        self.expected[keys] = counts
        self.pending[keys] = counts
        self.tx[keys] = 0
        self.phase[keys] = 0
        self.state[keys] = LIVE

    def inval(self, keys: np.ndarray) -> None:
        self.check_live(keys, "mbarrier::inval")
        self.state[keys] = INVALIDATED

    def clobber(self, keys: np.ndarray, by: str) -> None:
        live = keys[self.state[keys] == LIVE]
        self.state[live] = CLOBBERED
        for k in live[:4]:
            self.clobbered_by[int(k)] = by

    # ---- arrivals and transactions ---------------------------------------
    def arrive(self, keys: np.ndarray, tx_bytes: np.ndarray | None, what: str) -> np.ndarray:
        """One arrival per entry of ``keys`` (after adding ``tx_bytes``); returns keys whose phase completed."""
        self.check_live(keys, what)
        uniq, inverse = np.unique(keys, return_inverse=True)
        if tx_bytes is not None:
            self.tx[uniq] += np.bincount(inverse, weights=tx_bytes).astype(np.int64)
        self.pending[uniq] -= np.bincount(inverse)
        over = self.pending[uniq] < 0
        if over.any():
            key = int(uniq[np.flatnonzero(over)[0]])
            raise SimulationError(
                f"{what}: more arrivals on {self.label(key)} in phase {int(self.phase[key])} than its "
                f"arrival count {int(self.expected[key])}"
            )
        return self._complete(uniq)

    def complete_tx(self, keys: np.ndarray, nbytes: int) -> np.ndarray:
        """TMA copies landed: their bytes count against the tx-count; returns keys whose phase completed."""
        self.check_live(keys, "a landing TMA copy")
        np.subtract.at(self.tx, keys, nbytes)
        return self._complete(np.unique(keys))

    def _complete(self, keys: np.ndarray) -> np.ndarray:
        done = keys[(self.pending[keys] == 0) & (self.tx[keys] == 0)]
        self.phase[done] += 1
        self.pending[done] = self.expected[done]
        return done

    def describe(self, key: int, in_flight: int) -> str:
        tx = int(self.tx[key])
        if tx > 0:
            tx_text = f"tx-count {tx} bytes still expected"
        elif tx < 0:
            tx_text = f"tx-count {tx} (more bytes landed than arriveExpectTx announced)"
        else:
            tx_text = "tx-count 0"
        return (
            f"{self.label(key)} is in phase {int(self.phase[key])} with {int(self.pending[key])} of "
            f"{int(self.expected[key])} arrivals pending, {tx_text}, {in_flight} copies in flight"
        )
