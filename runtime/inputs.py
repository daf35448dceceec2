"""Random input arrays for a fusion's inputs, for tests and benchmarks."""

from __future__ import annotations

import numpy as np

from fusion_ir import DataType, Fusion, ScalarInput
from fusion_ir.reference import round_bf16


def random_inputs(fusion: Fusion, shapes: list[tuple[int, ...]], seed: int) -> list:
    """Fresh, NaN-free inputs: uniform in [-2, 2) for floats, small integers for ints; for a scalar input a
    Python number (a float in [0.5, 2), an int in [1, 4]; its shape is ``()``)."""
    rng = np.random.default_rng(seed)
    out: list = []
    for tv, shape in zip(fusion.inputs, shapes):
        if isinstance(tv, ScalarInput):
            out.append(float(rng.uniform(0.5, 2.0)) if tv.dtype.is_float else int(rng.integers(1, 5)))
        elif tv.dtype is DataType.Int32:
            out.append(rng.integers(-8, 8, size=shape).astype(np.int32))
        elif tv.dtype is DataType.BFloat16:   # numpy has no bfloat16: float32 values a bfloat16 holds exactly
            out.append(round_bf16(rng.uniform(-2.0, 2.0, size=shape)))
        else:
            out.append(rng.uniform(-2.0, 2.0, size=shape).astype(np.dtype(tv.dtype.numpy_name)))
    return out


def positive_inputs(fusion: Fusion, shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    """Float32 inputs in [0.5, 2): safe for log, sqrt and division."""
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 2.0, size=s).astype(np.float32) for s in shapes]
