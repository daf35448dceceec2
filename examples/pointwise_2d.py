"""2-D exp(a + b): rows on blocks, columns split by 128 onto threads with a serial outer loop."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "2-D exp(a + b), rows on blocks, a serial loop over column tiles"
SIZES = [[(1, 1), (1, 1)], [(7, 300), (7, 300)], [(16, 1024), (16, 1024)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.Float)
        b = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.exp(ops.add(a, b))
        fusion.add_output(out)
    out.split(1, 128)
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
