"""Row sums split across blocks: each of ``splits`` blocks along ``blockIdx.z`` sums one range of a row's
columns, and the last block of the row group to finish adds the ranges' partials in range order (a grid
reduction: ``lowering/grid_reduction.py``; ``docs/matmul.md``, "Split-K", draws the protocol).

``out = sum(x, axis=1)`` scheduled as ``[I0 / 64 (BIDx), 64 (TIDx), splits (BIDz, reduction),
ceilDiv(I1, splits) (serial)]``: a thread's partial is one register, written to a global work buffer at
``[split][block][slot][thread]``; the block's semaphore counts the arrivals.
"""

from fusion_ir import DataType, Fusion, ParallelType, ops

DESCRIPTION = "sum over the last axis, split across blockIdx.z and summed across blocks in split order"
SIZES = [[(1, 1)], [(200, 1000)], [(64, 4096)]]


def build(splits: int = 3) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.split(1, splits, inner_split=False)   # [I0, rS{splits}, rS{ceilDiv(I1, splits)}]
    out.split(0, 64)                          # [ceilDiv(I0, 64), 64, rS{splits}, rS{ceilDiv(I1, splits)}]
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    out.axis(2).parallelize(ParallelType.BIDz)
    return fusion
