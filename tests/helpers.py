"""Shared test helpers: random inputs and relative-error comparison against the numpy reference."""

from __future__ import annotations

import numpy as np

from fusion_ir import DataType, Fusion
from fusion_ir.reference import evaluate


def random_inputs(fusion: Fusion, shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    """Fresh, NaN-free inputs: uniform in [-2, 2) for floats, small integers for ints."""
    rng = np.random.default_rng(seed)
    out = []
    for tv, shape in zip(fusion.inputs, shapes):
        if tv.dtype is DataType.Int32:
            out.append(rng.integers(-8, 8, size=shape).astype(np.int32))
        else:
            out.append(rng.uniform(-2.0, 2.0, size=shape).astype(np.dtype(tv.dtype.numpy_name)))
    return out


def positive_inputs(fusion: Fusion, shapes: list[tuple[int, ...]], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(0.5, 2.0, size=s).astype(np.float32) for s in shapes]


def rel_error(actual: np.ndarray, expected: np.ndarray) -> float:
    a = np.asarray(actual, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if a.shape != e.shape:
        raise AssertionError(f"shape {a.shape} != expected {e.shape}")
    if np.isnan(a).any():
        return float("inf")
    denom = np.linalg.norm(e.ravel())
    diff = np.linalg.norm((a - e).ravel())
    return float(diff / denom) if denom > 0 else float(diff)


def assert_matches(fusion: Fusion, inputs: list[np.ndarray], outputs: list[np.ndarray], tol: float = 1e-5) -> None:
    expected = evaluate(fusion, inputs)
    assert len(outputs) == len(expected)
    for k, (a, e) in enumerate(zip(outputs, expected)):
        err = rel_error(a, e)
        assert err < tol, f"output {k}: relative error {err:.3e} >= {tol}"
