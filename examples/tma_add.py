"""out = a + b with both inputs loaded by TMA through one circular-buffered pipeline.

Each block walks ``tiles`` tiles; a tile is ``boxes`` TMA boxes of 256 floats per input, so
one mbarrier array guards the loads of both inputs: a stage expects 2 x boxes x 1 KiB. The
256 threads read the tile from shared memory and write the sum. ``warp_specialized=True`` has a
producer warp group issue the boxes instead, and 128 compute threads (two elements of each box
apiece) read them.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, Pipelined, WarpSpecialized, ops

DESCRIPTION = "two TMA inputs sharing one mbarrier array, 4 stages, 4 boxes of 256 floats per stage"
SIZES = [[(1,), (1,)], [(5000,), (5000,)], [(70001,), (70001,)]]
BOX = 256


def build(stages: int = 4, prefetch: int = -1, boxes: int = 4, tiles: int = 8,
          war_mbarrier: bool = False, warp_specialized: bool = False,
          registers: tuple[int, int] | None = None) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.add(a, b)
        fusion.add_output(out)
    out.split(0, BOX)        # [ceilDiv(i0, 256), 256]
    out.split(0, boxes)      # [.., boxes, 256]
    out.split(0, tiles)      # [blocks, tiles, boxes, 256]
    out.axis(0).parallelize(ParallelType.BIDx)
    if warp_specialized:
        out.split(3, 128)    # [blocks, tiles, boxes, 2, 128]: the producer pads TIDy, so TIDx <= 128
        out.axis(4).parallelize(ParallelType.TIDx)
        cb_type = WarpSpecialized(on=ParallelType.TIDy, num_registers=registers)
    else:
        out.axis(3).parallelize(ParallelType.TIDx)
        cb_type = Pipelined(uses_mbarrier_for_war=war_mbarrier)
    for x in (a, b):
        tile = x.cache_after(LoadStoreOpType.TMA)
        tile.compute_at(out, 2)                      # one tile per iteration of the tiles loop
        tile.axis(3).parallelize(ParallelType.Bulk)  # each box: 256 floats; the boxes loop issues them
        tile.circular_buffer(stages, prefetch, cb_type)
    return fusion
