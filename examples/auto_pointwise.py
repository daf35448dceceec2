"""bf16(relu((x + bias) * scale)) scheduled by ``schedule()``: the pointwise scheduler picks a 2-D split at the
broadcast boundary, 16-byte vectors, threads and unroll, each with its rule (``viz auto_pointwise --show
heuristics``)."""

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule

DESCRIPTION = "x + broadcast(bias), * a column scale, relu, cast to bf16: scheduled by schedule()"
SIZES = [[(1, 8), (8,), (1,)], [(37, 136), (136,), (37,)], [(64, 1024), (1024,), (64,)]]
TOLERANCE = 1e-2    # the output is rounded to bf16


def build(rows: int = 64, columns: int = 1024) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        bias = fusion.add_input(ndim=1, dtype=DataType.Float)
        scale = fusion.add_input(ndim=1, dtype=DataType.Float)
        y = ops.add(x, ops.broadcast(bias, [True, False]))
        y = ops.mul(y, ops.broadcast(scale, [False, True]))
        fusion.add_output(ops.cast(ops.relu(y), DataType.BFloat16))
    schedule(fusion, sizes=[(rows, columns), (columns,), (rows,)])
    return fusion
