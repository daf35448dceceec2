"""Row sums fed by a warp-specialized TMA pipeline.

Each block reduces one row: its producer warp group (TIDy padded: block 128 x 2) streams the
row's 128-float tiles into 3 stages; the 128 compute threads each sum a column of tiles and then
reduce across the block, with barriers named for the compute warps only.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, WarpSpecialized, ops

DESCRIPTION = "TMA tiles into a block reduction, warp-specialized: row sums over 128-float tiles"
# Row strides are multiples of 16 bytes for TMA: widths are multiples of 4 floats.
SIZES = [[(1, 384)], [(5, 1000)], [(17, 4100)]]


def build(stages: int = 3) -> Fusion:
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
    tile.circular_buffer(stages, type=WarpSpecialized(on=ParallelType.TIDy))
    return fusion
