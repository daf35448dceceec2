"""Stage a tile in shared memory: load it with one thread mapping, read it transposed."""

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ops

DESCRIPTION = "cache_after into shared memory with compute_at; readers use other threads"
SIZES = [[(1, 1)], [(40, 70)], [(64, 256)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.mul(x, 3.0)
        fusion.add_output(out)
    out.split(1, 32)              # [I0, ceilDiv(I1, 32), 32]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    cache = x.cache_after()
    cache.set_memory_type(MemoryType.Shared)
    cache.compute_at(out, 1)      # the whole row of tiles is staged per block
    cache.split(-1, 32, inner_split=False)   # [I0, 32, ceilDiv(32.., )]: another thread mapping
    cache.axis(1).parallelize(ParallelType.TIDx)
    return fusion
