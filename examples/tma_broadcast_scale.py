"""Scale the columns of a matrix by a vector staged per tile: out[i, j] = x[i, j] * scale[j].

Each block owns 8 rows and walks their column tiles of 128. Per tile, TMA loads an 8 x 128 box of x
and a 128 box of ``scale`` into shared memory, both through one circular-buffered pipeline, and the
8 x 128 threads read the tile of ``scale`` once per row. ``scale`` is 1-D: computed at the tile loop
of ``out``, its cache takes a loop broadcast for the row axis it lacks (it is loaded inside each
block's tiles, the same for every row) and shares the tile loop with the box of x.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, inline_most, ops

DESCRIPTION = "a row-broadcast vector TMA-loaded per tile beside a 2-D TMA box, 2 stages"
# TMA needs row strides that are multiples of 16 bytes: widths are multiples of 4 floats.
SIZES = [[(1, 256), (256,)], [(37, 300), (300,)], [(64, 1024), (1024,)]]
ROWS, COLUMNS = 8, 128


def build(stages: int = 2) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        scale = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.mul(x, ops.broadcast(scale, [True, False]))
        fusion.add_output(out)
    x_tile = x.cache_after(LoadStoreOpType.TMA)
    scale_tile = scale.cache_after(LoadStoreOpType.TMA)
    out.split(1, COLUMNS)    # [i0, ceilDiv(i1, 128), 128]
    out.split(0, ROWS)       # [ceilDiv(i0, 8), 8, ceilDiv(i1, 128), 128]
    out.reorder({1: 2})      # [ceilDiv(i0, 8), ceilDiv(i1, 128), 8, 128]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDy)
    out.axis(3).parallelize(ParallelType.TIDx)
    x_tile.compute_at(out, 2)                       # [ceilDiv(i0, 8), ceilDiv(i1, 128), 8 (Bulk), 128 (Bulk)]
    x_tile.axis(2).parallelize(ParallelType.Bulk)
    x_tile.axis(3).parallelize(ParallelType.Bulk)
    scale_tile.compute_at(out, 2)                   # [b (row blocks), ceilDiv(i2, 128), b (rows), 128 (Bulk)]
    scale_tile.axis(3).parallelize(ParallelType.Bulk)
    for tile in (x_tile, scale_tile):
        tile.circular_buffer(stages)
    inline_most(fusion)
    return fusion
