"""Sum over the first axis, scheduled by the reduction scheduler: columns on TIDx, rows on TIDy and a grid reduction.

The unscheduled fusion comes from ``examples/_reduction_fusions.py``; ``SCHEDULER.suggest`` picks the
parameters from its constant shapes (``print(params)`` shows each with its rule)
and ``SCHEDULER.apply`` schedules every tensor.
"""

from examples import _reduction_fusions
from fusion_ir import DataType, Fusion
from fusion_ir.schedulers.reduction import SCHEDULER

DESCRIPTION = "sum over the first axis, scheduled by the reduction scheduler: columns on TIDx, rows on TIDy and a grid reduction"
SHAPE = (1000, 256)
SIZES = [_reduction_fusions.input_shapes(_reduction_fusions.reduction(SHAPE, "sum", 0, DataType.Float))] * 3


def build() -> Fusion:
    fusion = _reduction_fusions.reduction(SHAPE, "sum", 0, DataType.Float)
    SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, None))
    return fusion
