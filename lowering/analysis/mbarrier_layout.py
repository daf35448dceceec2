"""How mbarriers sit in shared memory: one mbarrier's bytes and alignment, and the ping-pong
ordering barriers' slots in their array. Read by the ``mbarriers`` analysis, which places the
arrays, and by ``pipeline_depth``, which counts their bytes before the pipelines exist."""

from __future__ import annotations

from dataclasses import dataclass

from fusion_ir.scalar import Val
from smem_model import MBARRIER_ALIGN, MBARRIER_BYTES

from ..kernel_ir import Buffer

MBAR_ALIGN = MBARRIER_ALIGN
MBAR_BYTES = MBARRIER_BYTES        # one mbarrier: an int64 in shared memory (the shared-memory model's)


@dataclass(frozen=True)
class OrderingBarriers:
    """Ping-pong: the barriers that keep ``takers`` compute warp groups in turn. Group ``w`` waits on
    ``mainloop(w)`` before its tile's wgmma and ``epilogue(w)`` before its epilogue, and arrives on
    the next group's slot of each when done with that section; every slot counts one group's threads."""

    mbar: Buffer
    takers: int

    def mainloop(self, w: Val) -> Val:
        return w

    def epilogue(self, w: Val) -> Val:
        return w + self.takers

    def next(self, w: Val) -> Val:
        return (w + 1) % self.takers

    @property
    def slots(self) -> int:
        return self.slots_for(self.takers)

    @staticmethod
    def slots_for(takers: int) -> int:
        """A mainloop and an epilogue slot per warp group."""
        return 2 * takers
