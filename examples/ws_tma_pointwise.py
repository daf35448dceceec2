"""A warp-specialized 2-D pointwise kernel: ``exp(a + b)`` with both inputs loaded by TMA.

Each block owns 8 rows and walks their 128-column tiles. One producer warp group (TIDy padded by
one: block 128 x 3) issues the two 8 x 128 boxes of every tile into a 4-stage pipeline; two
compute warp groups (threadIdx.y 0 and 1, four rows each) compute and store. Registers are
shared 40 / 232.
"""

from fusion_ir import DataType, Fusion, LoadStoreOpType, ParallelType, WarpSpecialized, ops

DESCRIPTION = "exp(a + b) over 8 x 128 TMA tiles, 4 stages, one producer and two compute warp groups"
# TMA needs row strides that are multiples of 16 bytes: widths are multiples of 4 floats.
SIZES = [[(8, 512), (8, 512)], [(37, 300), (37, 300)], [(70, 1028), (70, 1028)]]


def build(stages: int = 4, registers: tuple[int, int] | None = (40, 232), rows: int = 8,
          cols: int = 128) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.Float)
        b = fusion.add_input(ndim=2, dtype=DataType.Float)
        total = ops.add(a, b)
        out = ops.exp(total)
        fusion.add_output(out)
    out.split(1, cols)                   # [i0, ceilDiv(i1, cols), cols]
    out.split(0, rows)                   # [ceilDiv(i0, rows), rows, ceilDiv(i1, cols), cols]
    out.reorder({1: 2})                  # [ceilDiv(i0, rows), ceilDiv(i1, cols), rows, cols]
    out.split(2, 2, inner_split=False)   # [.., .., 2, rows / 2, cols]: two compute warp groups
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDy)
    out.axis(4).parallelize(ParallelType.TIDx)
    for x in (a, b):
        tile = x.cache_after(LoadStoreOpType.TMA)
        tile.compute_at(out, 2)          # [.., .., cols, rows]: the rest of the tile, columns first
        tile.reorder({2: 3})             # rows, then columns, as the box is laid out
        tile.axis(2).parallelize(ParallelType.Bulk)
        tile.axis(3).parallelize(ParallelType.Bulk)
        tile.circular_buffer(stages, type=WarpSpecialized(on=ParallelType.TIDy, num_registers=registers))
    total.compute_at(out, -1)
    return fusion
