"""The double-buffer kernel of nvFuser's Hopper TMA work: a 1-D copy through shared memory.

The input is split in tiles of 32 floats; each tile is loaded by TMA into shared memory and
copied out by the same block. Two stages: while tile i is read, tile i + 1 is in flight.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops

DESCRIPTION = "TMA tiles of 32 floats, double-buffered (2 stages, prefetch 1): the seed's double-buffer kernel"
SIZES = [[(64,)], [(1000,)], [(4099,)]]
STAGES = 2


def build(stages: int = STAGES, prefetch: int = -1) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(0, 32)                           # [ceilDiv(i0, 32), 32]
    tile = x.cache_after(LoadStoreOpType.TMA)  # shared memory, filled by TMA
    tile.compute_at(out, 1)                    # one tile per iteration of the outer loop
    tile.axis(1).parallelize(ParallelType.Bulk)  # the 32 floats are the TMA box
    tile.circular_buffer(stages, prefetch)
    return fusion
