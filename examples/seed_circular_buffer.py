"""The circular-buffer kernel of nvFuser's Hopper TMA work: the double-buffer copy with 3 stages.

Pre-prologue: the mbarrier array is initialized; prologue: the first two tiles are requested;
main loop: request tile i + 2, wait for tile i, copy it out; epilogue: the last two tiles
without requests; post-epilogue: the mbarriers are invalidated.
"""

from fusion_ir import Fusion

from . import seed_double_buffer

DESCRIPTION = "TMA tiles of 32 floats through 3 stages (prefetch 2): the seed's circular-buffer kernel"
SIZES = [[(96,)], [(1000,)], [(4099,)]]
STAGES = 3


def build(stages: int = STAGES, prefetch: int = -1) -> Fusion:
    return seed_double_buffer.build(stages, prefetch)
