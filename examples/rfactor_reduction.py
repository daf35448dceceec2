"""A reduction split in two: each thread sums a strided slice (rfactor), then a block reduction."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops

DESCRIPTION = "row max via rfactor: serial partial maxima per thread, then across TIDx"
SIZES = [[(1, 1)], [(5, 1000)], [(16, 4096)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.max(x, [1])
        fusion.add_output(out)
    out.split(1, 64)              # [I0, r{ceilDiv(I1, 64)}, r{64}]
    partial = out.rfactor([1])    # partial reduces the serial axis; out reduces across threads
    for tv in (partial, out):
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(-1).parallelize(ParallelType.TIDx)
    inline_most(fusion)
    return fusion
