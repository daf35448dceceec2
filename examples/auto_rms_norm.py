"""RMS norm of bf16 rows (fp32 math), scheduled by the normalization scheduler.

The unscheduled fusion comes from ``examples/_reduction_fusions.py``; ``schedule(fusion)`` asks the
registered schedulers in turn and the first that takes it picks the parameters from its constant shapes (each with
its rule: ``print(params)`` or ``viz NAME --show heuristics``) and schedules every tensor.
"""

from examples import _reduction_fusions
from fusion_ir import DataType, Fusion
from fusion_ir.schedulers import schedule

DESCRIPTION = "RMS norm of bf16 rows (fp32 math), scheduled by the normalization scheduler"
SHAPE = (32, 1024)
SIZES = [_reduction_fusions.input_shapes(_reduction_fusions.rms_norm(SHAPE, 1, DataType.BFloat16))] * 3
TOLERANCE = 1e-2   # the output is rounded to bf16


def build() -> Fusion:
    fusion = _reduction_fusions.rms_norm(SHAPE, 1, DataType.BFloat16)
    schedule(fusion)
    return fusion
