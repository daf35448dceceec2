"""3-D relu(a * 2 + 1): merge the two inner axes, split the merged axis onto threads."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "3-D relu(a * 2 + 1) with a merge of the inner axes"
SIZES = [[(1, 1, 1)], [(3, 5, 37)], [(4, 16, 64)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=3, dtype=DataType.Float)
        out = ops.relu(ops.add(ops.mul(a, 2.0), 1.0))
        fusion.add_output(out)
    out.merge(1, 2)
    out.split(1, 64)
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
