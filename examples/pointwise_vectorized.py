"""fp32 a + b with 16-byte vector loads and stores: the bandwidth schedule of bench/pointwise.py."""

from fusion_ir import (DataType, Fusion, ParallelType, inline_most, ops, parallelize_like,
                       transform_like)

DESCRIPTION = "a + b, register caches with Vectorize(4) loads and stores, 128 threads"
SIZES = [[(4,), (4,)], [(4000,), (4000,)], [(65536,), (65536,)]]


def build(threads: int = 128, vector: int = 4) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.add(a, b)
        fusion.add_output(out)
    caches = [a.cache_after(), b.cache_after()]
    out.cache_before()
    out.split(0, vector)
    out.split(0, threads)              # [ceilDiv(ceilDiv(I, 4), 128), 128, 4]
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    for tv in caches + [out]:
        tv.axis(2).parallelize(ParallelType.Vectorize)
    inline_most(fusion)
    return fusion
