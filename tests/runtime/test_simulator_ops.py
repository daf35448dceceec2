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
            err = rel_error(out, ref)
            assert err < case.tol, f"{case.name} output {k} ({where}): relative error {err:.3e} >= {case.tol}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_simulator_matches_reference(case: OpCase) -> None:
    fusion = case.build()
    seed = secrets.randbits(32)
    inputs = case.inputs(fusion, seed)
    check_outputs(case, simulate(lower(fusion), inputs), evaluate(fusion, inputs), f"seed {seed}")
