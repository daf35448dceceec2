"""A cp.async pipeline: each thread copies its element of the next tiles into shared memory
asynchronously (commit one group per tile, wait until the current tile's group is done)."""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops

DESCRIPTION = "cp.async circular buffering: 3 stages, commit_group / wait_group, block syncs"
SIZES = [[(4,)], [(5000,)], [(70000,)]]  # vectorized by 4: multiples of 4


def build(stages: int = 3, prefetch: int = -1, vector: int = 4) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.mul(ops.add(x, 1.0), x)
        fusion.add_output(out)
    if vector > 1:
        out.split(0, vector)  # [.., vector]
    out.split(0, 128)        # [.., 128(, vector)]
    out.split(0, 8)          # [blocks, 8, 128(, vector)]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.CpAsync)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.TIDx)
    if vector > 1:
        tile.axis(3).parallelize(ParallelType.Vectorize)
    tile.circular_buffer(stages, prefetch)
    from fusion_ir import inline_most
    inline_most(fusion)
    return fusion
