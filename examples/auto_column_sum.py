"""Sum over the first axis, scheduled by the reduction scheduler: columns on TIDx, rows on TIDy and a grid reduction.

The unscheduled fusion comes from ``examples/_reduction_fusions.py``; ``schedule(fusion)`` asks the
registered schedulers in turn and the first that takes it picks the parameters from its constant shapes (each with
its rule: ``print(params)`` or ``viz NAME --show heuristics``) and schedules every tensor.
"""

from examples import _reduction_fusions
from fusion_ir import DataType, Fusion
from fusion_ir.schedulers import schedule

DESCRIPTION = "sum over the first axis, scheduled by the reduction scheduler: columns on TIDx, rows on TIDy and a grid reduction"
SHAPE = (1000, 256)
SIZES = [_reduction_fusions.input_shapes(_reduction_fusions.reduction(SHAPE, "sum", 0, DataType.Float))] * 3


def build() -> Fusion:
    fusion = _reduction_fusions.reduction(SHAPE, "sum", 0, DataType.Float)
    schedule(fusion)
    return fusion
