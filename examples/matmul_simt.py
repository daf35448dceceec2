"""A small CUDA-core matmul: one output element per thread, a serial loop over K."""

from fusion_ir import DataType, Fusion, ParallelType, ops

DESCRIPTION = "[M, K] @ [K, N] with one thread per output element"
SIZES = [[(1, 1), (1, 1)], [(17, 9), (9, 23)], [(64, 32), (32, 64)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.Float)
        b = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.matmul(a, b)                # [M, N, rK]
        fusion.add_output(out)
    out.split(1, 16)                          # [M, ceilDiv(N, 16), 16, rK]
    out.split(0, 16)                          # [ceilDiv(M, 16), 16, ceilDiv(N, 16), 16, rK]
    out.reorder({1: 2, 2: 1})                 # [Mo, No, Mi, Ni, rK]
    out.axis(0).parallelize(ParallelType.BIDy)
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDy)
    out.axis(3).parallelize(ParallelType.TIDx)
    return fusion
