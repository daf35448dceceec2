"""A TMA load without circular buffering: the mbarrier protocol of an unpipelined load.

One mbarrier lives for the whole kernel. For each tile the elected thread arrives on it with
the expected bytes and issues the 2-D box copy; every thread then waits on the barrier's phase,
the parity of the column loop's index (the parity form), and reads the tile; a block barrier
before the next tile's copy. Where the phase cannot be counted from the loop indices the
elected thread keeps a token, waits on it, and the block syncs (the token form,
``docs/pipelines.md``).
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, ops

DESCRIPTION = "non-circular 2-D TMA loads: arriveExpectTx, waitParity(loop index % 2) in every thread"
SIZES = [[(1, 4)], [(37, 212)], [(64, 256)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sub(x, 1.0)
        fusion.add_output(out)
    out.split(1, 32)         # [i0, ceilDiv(i1, 32), 32]
    out.split(0, 8)          # [ceilDiv(i0, 8), 8, ceilDiv(i1, 32), 32]
    out.reorder({1: 2})      # [ceilDiv(i0, 8), ceilDiv(i1, 32), 8, 32]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDy)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.axis(3).parallelize(ParallelType.Bulk)
    return fusion
