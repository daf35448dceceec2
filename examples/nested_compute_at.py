"""A chain computed at different depths: one tensor per row tile, one per element."""

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ops

DESCRIPTION = "three ops at compute-at positions 1 (shared row), 2 and fully inlined"
SIZES = [[(1, 1)], [(9, 100)], [(32, 256)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        t1 = ops.add(x, 1.0)
        t2 = ops.mul(t1, t1)
        t3 = ops.sin(t2)
        out = ops.add(t3, x)
        fusion.add_output(out)
    out.split(1, 32)              # [I0, ceilDiv(I1, 32), 32]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    t3.compute_at(out, -1)
    t2.compute_at(t3, 2)
    t2.axis(2).parallelize(ParallelType.TIDx)
    t1.compute_at(t2, 1)          # a whole row of t1 per block, in shared memory
    t1.set_memory_type(MemoryType.Shared)
    t1.split(1, 32)
    t1.axis(2).parallelize(ParallelType.TIDx)
    return fusion
