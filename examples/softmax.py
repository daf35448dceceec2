"""Softmax over rows: max, exp(x - max), sum, divide; the exp is a persistent buffer in shared memory."""

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, inline_most, ops

DESCRIPTION = "softmax per row: block max, exp kept in shared memory, block sum, divide"
SIZES = [[(1, 1)], [(5, 300)], [(9, 1000)]]


def build() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        row_max = ops.max(x, [1])
        e = ops.exp(ops.sub(x, ops.broadcast(row_max, [False, True])))
        row_sum = ops.sum(e, [1])
        out = ops.div(e, ops.broadcast(row_sum, [False, True]))
        fusion.add_output(out)
    for tv in fusion.used_tensors():
        if tv.is_input:
            continue
        tv.split(1, 128)                        # [rows, ceilDiv(cols, 128), 128]
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(2).parallelize(ParallelType.TIDx)
    # e is read by the sum and, after it, by the divide: it holds a whole row (a persistent
    # buffer). The row length is symbolic, so it lives in shared memory, not registers.
    e.set_memory_type(MemoryType.Shared)
    inline_most(fusion)
    return fusion
