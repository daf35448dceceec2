"""Broadcast a row vector over a matrix: out[i, j] = x[i, j] + bias[j]."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "x + broadcast(bias) over rows"
SIZES = [[(1, 1), (1,)], [(5, 200), (200,)], [(32, 512), (512,)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        bias = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.add(x, ops.broadcast(bias, [True, False]))
        fusion.add_output(out)
    out.split(1, 128)
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
