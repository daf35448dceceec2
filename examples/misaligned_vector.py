"""A misaligned vector: the rows of a [R, C] bf16 input hold an odd C, so a row starts aligned to one element only
and no 16-byte vector load of it is legal. ``ParallelType.MisalignedVectorize`` copies 8 elements at a time into
shared memory anyway: each copy reads the aligned 16-byte chunks that hold its elements and shifts them into place,
each element predicated on its column (the last vector of a row is partly past C and written as zeros)."""

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, inline_most, ops

DESCRIPTION = "MisalignedVectorize: 16-byte copies of rows aligned to one element, into shared memory"
SIZES = [[(6, 37)]]


def build(rows: int = 6, cols: int = 37) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(rows, cols), dtype=DataType.BFloat16)
        wide = ops.cast(x, DataType.Float)
        out = ops.mul(wide, 2.0)
        fusion.add_output(out)
    tile = x.cache_after()                       # a plain copy into shared memory
    tile.set_memory_type(MemoryType.Shared)
    for tv in (tile, wide, out):
        tv.split(1, 8)                           # [R, ceil(C / 8), 8]
        tv.axis(1).parallelize(ParallelType.TIDx)
    tile.axis(2).parallelize(ParallelType.MisalignedVectorize)
    inline_most(fusion)
    return fusion
