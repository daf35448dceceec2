"""exp(x - max(x)) per row: a reduction whose result is broadcast back within the block."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops

DESCRIPTION = "x - rowmax(x) then exp, one row per block, block reduction then broadcast"
SIZES = [[(1, 1)], [(4, 100)], [(8, 128)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        m = ops.max(x, [1])
        out = ops.exp(ops.sub(x, ops.broadcast(m, [False, True])))
        fusion.add_output(out)
    for tv in fusion.used_tensors():
        if tv.is_input:
            continue
        tv.split(1, 128)
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(2).parallelize(ParallelType.TIDx)
    inline_most(fusion)
    return fusion
