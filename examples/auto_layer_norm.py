"""Layer norm over rows with 1-D weight and bias, scheduled by the normalization scheduler.

The unscheduled fusion comes from ``examples/_reduction_fusions.py``; ``SCHEDULER.suggest`` picks the
parameters from its constant shapes (``print(params)`` shows each with its rule)
and ``SCHEDULER.apply`` schedules every tensor.
"""

from examples import _reduction_fusions
from fusion_ir import DataType, Fusion
from fusion_ir.schedulers.normalization import SCHEDULER

DESCRIPTION = "layer norm over rows with 1-D weight and bias, scheduled by the normalization scheduler"
SHAPE = (32, 768)
SIZES = [_reduction_fusions.input_shapes(_reduction_fusions.layer_norm(SHAPE, 1, DataType.Float))] * 3


def build() -> Fusion:
    fusion = _reduction_fusions.layer_norm(SHAPE, 1, DataType.Float)
    SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, None))
    return fusion
