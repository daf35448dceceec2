"""Shared test helpers: relative-error comparison against the numpy reference (inputs come from runtime.inputs)."""

from __future__ import annotations

import numpy as np

from fusion_ir import Fusion
from fusion_ir.reference import evaluate
from runtime.inputs import positive_inputs, random_inputs


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


__all__ = ["assert_matches", "positive_inputs", "random_inputs", "rel_error"]


def check_simulated_matmul(params: dict, size: tuple[int, int, int], seeds: tuple[int, ...], tol: float = 1e-5,
                           **build) -> None:
    """``examples/matmul_wgmma.build(**params, **build)`` simulated at ``size`` (M, N, K; ``transpose_a`` /
    ``transpose_b`` in ``build`` give the operands' layouts) with each of ``seeds``, against numpy."""
    from examples import matmul_wgmma
    from lowering import lower
    from runtime import simulate

    fusion = matmul_wgmma.build(**params, **build)
    kern = lower(fusion)
    m, n, kk = size
    shapes = matmul_wgmma.input_shapes(m, n, kk, build.get("transpose_a", False), build.get("transpose_b", False))
    inputs = random_inputs(fusion, shapes, seed=sum(size))
    expected = evaluate(fusion, inputs)[0]
    for seed in seeds:
        (out,) = simulate(kern, inputs, seed=seed)
        assert rel_error(out, expected) < tol, (params, size, seed)
