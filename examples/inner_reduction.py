"""Row sums: each block reduces one row, 128 threads in a serial loop then a block reduction."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops

DESCRIPTION = "sum over the last axis with a TIDx block reduction"
SIZES = [[(1, 1)], [(6, 333)], [(8, 2048)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.split(1, 128)             # [I0, rS{ceilDiv(I1, 128)}, r{128}]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    inline_most(fusion)
    return fusion
