"""GPU tier (``pytest -m gpu``): the running-total and pad cases (``tests/lowering/scan_cases.py``: cummax, cumsum,
rescaled_sum, pad) run through NVRTC on an H100 against the float64 numpy reference, and the online softmax's
total against ``sum(exp(x))``."""

from __future__ import annotations

import secrets

import numpy as np
import pytest

from fusion_ir.reference import evaluate
from lowering import lower
from runtime import execute
from tests.lowering.scan_cases import CASES, online_softmax
from tests.runtime.test_simulator_ops import check_outputs

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("op_case", CASES, ids=[c.name for c in CASES])
def test_gpu_matches_reference(op_case) -> None:
    seed = secrets.randbits(32)
    fusion = op_case.build()
    inputs = op_case.inputs(fusion, seed)
    outputs = [np.asarray(o) for o in execute(lower(fusion), inputs)]
    check_outputs(op_case, outputs, evaluate(fusion, inputs), f"GPU, seed {seed}")


def test_online_softmax_total_on_the_gpu() -> None:
    x = np.random.default_rng(11).standard_normal((5, 4, 8)).astype(np.float32) * 4
    x[3] += 6.0
    l, mnew = (np.asarray(o) for o in execute(lower(online_softmax()()), [x]))
    rows = np.moveaxis(x, 1, 0).reshape(4, -1).astype(np.float64)
    np.testing.assert_allclose(l * np.exp(mnew[-1].astype(np.float64)), np.exp(rows).sum(axis=1), rtol=1e-5)
