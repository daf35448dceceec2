"""Column sums: columns on threads and blocks, a serial loop down the rows."""

from fusion_ir import DataType, Fusion, ParallelType, ops

DESCRIPTION = "sum over the first axis, serial per thread"
SIZES = [[(1, 1)], [(50, 130)], [(256, 512)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(ops.mul(x, x), [0])
        fusion.add_output(out)
    out.reorder({0: 1})           # [I1, rI0]
    out.split(0, 64)              # [ceilDiv(I1, 64), 64, rI0]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    sq = out.producers()[0]
    sq.compute_at(out, -1)
    return fusion
