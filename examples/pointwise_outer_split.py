"""Outer split: 4 serial chunks per thread row, sizes that divide nothing."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "1-D sub with an outer split into 4 chunks and an inner split onto 32 threads"
SIZES = [[(1,), (1,)], [(999,), (999,)], [(2053,), (2053,)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.sub(a, ops.neg(b))
        fusion.add_output(out)
    out.outer_split(0, 4)       # [4, ceilDiv(I, 4)]
    out.split(1, 32)            # [4, ceilDiv(ceilDiv(I, 4), 32), 32]
    transform_like(out)
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
