"""Register caches on both sides: load into registers, compute, write back through a cache."""

from fusion_ir import DataType, Fusion, ParallelType, inline_most, ops, parallelize_like, transform_like

DESCRIPTION = "cache_after and cache_before in registers around sqrt(|a|) * b, 4 elements per thread"
SIZES = [[(1,), (1,)], [(777,), (777,)], [(8192,), (8192,)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.mul(ops.sqrt(ops.abs(a)), b)
        fusion.add_output(out)
    a.cache_after()
    b.cache_after()
    out.cache_before()
    out.split(0, 4)
    out.split(0, 64)              # [ceilDiv(ceilDiv(I, 4), 64), 64, 4]
    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    inline_most(fusion)
    return fusion
