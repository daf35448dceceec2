"""1-D add: split by 128 onto threads, the outer axis onto blocks."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "1-D a + b, 128 threads per block"
SIZES = [[(1,), (1,)], [(1000,), (1000,)], [(4096,), (4096,)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.add(a, b)
        fusion.add_output(out)
    out.split(0, 128)
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
