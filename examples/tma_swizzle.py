"""A swizzled TMA box: tiles land in shared memory with the TMA unit's 16-byte-chunk XOR swizzle,
and ordinary threads read them back through swizzled indices.

Each block owns ``rows`` rows and walks their column tiles; every tile is one ``rows x cols``
box, double-buffered, that the block's ``cols`` threads read row by row. A box row must fit the
swizzle span (128 B: 32 floats or 64 halves); the swizzle spreads the rows of a column over
different shared-memory banks.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, SmemSwizzle, inline_most, ops

DESCRIPTION = "2-D TMA boxes of 8 x 32 floats written with a 128-byte swizzle, read through it"
# TMA needs row strides that are multiples of 16 bytes: widths are multiples of 4 floats.
SIZES = [[(1, 36)], [(37, 212)], [(64, 256)]]


def build(rows: int = 8, cols: int = 32, dtype: DataType = DataType.Float,
          swizzle: SmemSwizzle = SmemSwizzle.B128, stages: int = 2) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype)
        out = ops.add(ops.mul(x, 2.0), 1.0)
        fusion.add_output(out)
    out.split(1, cols)       # [i0, ceilDiv(i1, cols), cols]
    out.split(0, rows)       # [ceilDiv(i0, rows), rows, ceilDiv(i1, cols), cols]
    out.reorder({1: 2})      # [ceilDiv(i0, rows), ceilDiv(i1, cols), rows, cols]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA, swizzle=swizzle)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.axis(3).parallelize(ParallelType.Bulk)
    tile.circular_buffer(stages)
    inline_most(fusion)
    return fusion
