"""A 2-D TMA box: tiles of 8 rows x 32 columns, circular-buffered along the columns.

Each block owns 8 rows and walks their column tiles; every tile is one 8 x 32 box that the
block's 8 x 32 threads read from shared memory.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops

DESCRIPTION = "2-D TMA boxes of 8 x 32 floats, 3 stages along the column tiles"
# TMA needs row strides that are multiples of 16 bytes: widths are multiples of 4 floats.
SIZES = [[(1, 100)], [(37, 212)], [(64, 256)]]


def build(stages: int = 3, prefetch: int = -1) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.add(ops.mul(x, 2.0), 1.0)
        fusion.add_output(out)
    out.split(1, 32)         # [i0, ceilDiv(i1, 32), 32]
    out.split(0, 8)          # [ceilDiv(i0, 8), 8, ceilDiv(i1, 32), 32]
    out.reorder({1: 2})      # [ceilDiv(i0, 8), ceilDiv(i1, 32), 8, 32]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDy)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.axis(3).parallelize(ParallelType.Bulk)
    tile.circular_buffer(stages, prefetch)
    from fusion_ir import inline_most
    inline_most(fusion)
    return fusion
