"""Register double buffering: each thread loads its next 4 elements into registers while it
computes on the current 4; no barrier is needed because no other thread reads them."""

from fusion_ir import DataType, Fusion, ParallelType, ops

DESCRIPTION = "circular buffering in registers (Local memory), 2 stages"
SIZES = [[(1,)], [(5000,)], [(40001,)]]


def build(stages: int = 2, prefetch: int = -1) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.exp(ops.neg(x))
        fusion.add_output(out)
    out.split(0, 4)          # [.., 4]
    out.split(0, 128)        # [.., 128, 4]
    out.split(0, 8)          # [blocks, 8, 128, 4]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    regs = x.cache_after()   # Local
    regs.compute_at(out, 3)
    regs.circular_buffer(stages, prefetch)
    from fusion_ir import inline_most
    inline_most(fusion)
    return fusion
