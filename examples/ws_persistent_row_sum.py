"""Seed 000's loop shape without tensor cores: a persistent, warp-specialized row sum.

``blocks`` blocks stay resident; each walks the rows ``blockIdx.x, blockIdx.x + blocks, ...`` (the
row axis split by the number of blocks: the outer part is the persistent tile loop, the inner part
``BIDx``) and, inside, the row's 128-float column tiles (the k loop). One producer warp group
streams the tiles of all its rows through one pipeline that runs across both loops without
draining between rows (its stage comes from the linearized (row, k) count); the compute warp group
sums each row and stores it after the k loop, then moves on to its next row.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, WarpSpecialized, ops

DESCRIPTION = "persistent row sums: tile loop over rows, k loop over 128-float tiles, one pipeline across both"
# Row strides are multiples of 16 bytes for TMA: widths are multiples of 4 floats.
SIZES = [[(7, 384)], [(10, 1000)], [(3, 4100)]]
BLOCKS = 3      # small for the simulator; on a GPU use runtime.sm_count() (132 on an H100)


def build(stages: int = 4, blocks: int = BLOCKS, registers: tuple[int, int] | None = None) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.split(1, 128)                     # [i0, r ceilDiv(i1, 128), r 128]
    out.split(0, blocks)                  # [ceilDiv(i0, blocks), blocks, r ceilDiv(i1, 128), r 128]
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 3)               # one tile per (row, k) iteration
    tile.axis(3).parallelize(ParallelType.Bulk)
    tile.circular_buffer(stages, type=WarpSpecialized(on=ParallelType.TIDy, num_registers=registers))
    return fusion
