"""out = x^T scheduled by ``schedule()``: the transpose scheduler copies 32 x 32 tiles through a swizzled shared
buffer, reading rows of x and writing rows of out (``viz auto_transpose --show heuristics``)."""

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule

DESCRIPTION = "a 2-D transpose through 32 x 32 shared-memory tiles (128-byte swizzle): scheduled by schedule()"
SIZES = [[(1, 1)], [(70, 45)], [(128, 96)]]


def build(shape: tuple[int, int] | None = None) -> Fusion:
    """Scheduled for any size; for ``shape`` (one input's), the scheduler also reads rows in 16-byte vectors
    where the innermost extent allows (a launch checks it)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        fusion.add_output(ops.transpose(x, 0, 1))
    schedule(fusion, sizes=None if shape is None else [shape])
    return fusion
