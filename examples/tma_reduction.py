"""Row sums with the rows streamed through shared memory by TMA, 3 stages deep.

Each block reduces one row: 128 threads each sum a column of 128-float tiles, then the block
reduces across threads. The tiles loop (the serial reduction axis) is circular-buffered.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops

DESCRIPTION = "TMA feeding a block reduction: row sums over 128-float tiles, 3 stages"
# Row strides are multiples of 16 bytes for TMA: widths are multiples of 4 floats.
SIZES = [[(1, 384)], [(5, 1000)], [(17, 4100)]]


def build(stages: int = 3, prefetch: int = -1) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.split(1, 128)        # [i0, r ceilDiv(i1, 128), r 128]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)  # one tile of the row per iteration of the reduction loop
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.circular_buffer(stages, prefetch)
    return fusion
