"""The simulator against the float64 numpy reference on the fusions of ``tests/fusion_ir/op_cases.py``:
comparisons, logical ops, ``where``, unary math, ``pow``, ``clamp``, ``mean``, ``var_mean``, ``iota``,
``full`` and ``reshape``, on fresh random inputs (the seed is in the failure message)."""

from __future__ import annotations

import secrets

import numpy as np
import pytest

from fusion_ir.reference import evaluate
from lowering import lower
from runtime import simulate
from tests.fusion_ir.op_cases import CASES, OpCase
from tests.helpers import rel_error


def check_outputs(case: OpCase, outputs: list[np.ndarray], expected: list[np.ndarray], where: str) -> None:
    assert len(outputs) == len(expected)
    for k, (out, ref) in enumerate(zip(outputs, expected)):
        assert out.shape == ref.shape, f"{case.name} output {k} ({where}): shape {out.shape} != {ref.shape}"
        if ref.dtype == np.bool_ or ref.dtype.kind == "i":
            assert out.dtype == ref.dtype, f"{case.name} output {k} ({where}): dtype {out.dtype} != {ref.dtype}"
            np.testing.assert_array_equal(out, ref, err_msg=f"{case.name} output {k} ({where})")
        else:
            infinite = np.isinf(ref)      # masks (-inf): equal there, the relative error of the rest
            np.testing.assert_array_equal(out[infinite], ref[infinite], err_msg=f"{case.name} output {k} ({where})")
            out, ref = np.where(infinite, 0, out), np.where(infinite, 0, ref)
            err, tol = rel_error(out, ref), case.tolerance(k)
            assert err < tol, f"{case.name} output {k} ({where}): relative error {err:.3e} >= {tol}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_simulator_matches_reference(case: OpCase) -> None:
    fusion = case.build()
    seed = secrets.randbits(32)
    inputs = case.inputs(fusion, seed)
    check_outputs(case, simulate(lower(fusion), inputs), evaluate(fusion, inputs), f"seed {seed}")


def test_var_mean_in_float32_is_stable_where_the_one_pass_formula_is_not() -> None:
    """1e4 + randn in float32: E[x^2] - E[x]^2 loses every digit of a variance near 1; the two-pass
    composite the simulator runs in float32 keeps it to 1e-5."""
    from tests.fusion_ir.op_cases import case

    var_case = case("var_mean_offset_1e4")
    fusion = var_case.build()
    (x,) = var_case.inputs(fusion, secrets.randbits(32))
    assert x.dtype == np.float32
    var, mean = simulate(lower(fusion), [x])
    exact = np.var(x.astype(np.float64), axis=1, ddof=1)
    one_pass = ((x * x).mean(axis=1) - x.mean(axis=1) ** 2) * (x.shape[1] / (x.shape[1] - 1))
    assert rel_error(var, exact) < 1e-5
    assert rel_error(one_pass, exact) > 1e-2
    assert rel_error(mean, x.astype(np.float64).mean(axis=1)) < 1e-6
