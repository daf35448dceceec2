"""The seed's TMA copy, warp-specialized: one producer warp group issues the tiles, the compute
warps copy them out.

Tiles of 128 floats go through 3 stages. ``WarpSpecialized(on=TIDy)`` pads TIDy by one warp group
(block 128 x 2): the threads with ``threadIdx.y >= 1`` wait for a free stage and issue its TMA copy;
the others wait for a full stage, copy it to the output and release it.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, WarpSpecialized, ops

DESCRIPTION = "TMA tiles of 128 floats, 3 stages, a producer warp group and a compute warp group"
SIZES = [[(128 * 3,)], [(1000,)], [(4099,)]]


def build(stages: int = 3, registers: tuple[int, int] | None = None) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(0, 128)                            # [ceilDiv(i0, 128), 128]
    out.axis(1).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 1)
    tile.axis(1).parallelize(ParallelType.Bulk)
    tile.circular_buffer(stages, type=WarpSpecialized(on=ParallelType.TIDy, num_registers=registers))
    return fusion
