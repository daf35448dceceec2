"""One reference schedule propagated to every tensor of a DAG with a broadcast."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "merge + split on the output, propagated with transform_like and parallelize_like"
SIZES = [[(1, 1), (1,)], [(13, 77), (13,)], [(64, 128), (64,)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        scale = fusion.add_input(ndim=1, dtype=DataType.Float)
        y = ops.mul(x, ops.broadcast(scale, [False, True]))
        out = ops.maximum(y, ops.neg(x))
        fusion.add_output(out)
    out.merge(0, 1)
    out.split(0, 256)
    out.split(0, 2)               # [ceilDiv(.., 2), 2, 256]
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
