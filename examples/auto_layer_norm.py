"""Layer norm over rows with 1-D weight and bias, scheduled by the normalization scheduler.

The unscheduled fusion comes from ``examples/_reduction_fusions.py``; ``schedule(fusion)`` asks the
registered schedulers in turn and the first that takes it picks the parameters from its constant shapes (each with
its rule: ``print(params)`` or ``viz NAME --show heuristics``) and schedules every tensor.
"""

from examples import _reduction_fusions
from fusion_ir import DataType, Fusion
from fusion_ir.schedulers import schedule

DESCRIPTION = "layer norm over rows with 1-D weight and bias, scheduled by the normalization scheduler"
SHAPE = (32, 768)
SIZES = [_reduction_fusions.input_shapes(_reduction_fusions.layer_norm(SHAPE, 1, DataType.Float))] * 3


def build() -> Fusion:
    fusion = _reduction_fusions.layer_norm(SHAPE, 1, DataType.Float)
    schedule(fusion)
    return fusion
