"""The simulator runs the running-total and pad ops (``tests/lowering/scan_cases.py``) as the float64 numpy
reference computes them: unscheduled, rows on threads and blocks, the running axis split in two serial loops,
pads of symbolic extents, and the online softmax's chain of statistics."""

from __future__ import annotations

import secrets

import numpy as np
import pytest

from fusion_ir.reference import evaluate
from lowering import lower
from runtime import simulate
from tests.lowering.scan_cases import CASES, case, online_softmax
from tests.runtime.test_simulator_ops import check_outputs


@pytest.mark.parametrize("op_case", CASES, ids=[c.name for c in CASES])
def test_simulator_matches_reference(op_case) -> None:
    fusion = op_case.build()
    seed = secrets.randbits(32)
    inputs = op_case.inputs(fusion, seed)
    check_outputs(op_case, simulate(lower(fusion), inputs), evaluate(fusion, inputs), f"seed {seed}")


def test_online_softmax_total_is_the_sum_of_exponentials() -> None:
    """``l * exp(m_final)`` is the row's ``sum(exp(x))`` over all blocks, and ``m_final`` its max, though no
    block saw the row's max before its own turn came."""
    fusion = online_softmax()()
    x = np.random.default_rng(7).standard_normal((5, 4, 8)).astype(np.float32) * 4
    x[3] += 6.0                      # a late block raises the max: the totals before it are rescaled
    l, mnew = simulate(lower(fusion), [x])
    rows = np.moveaxis(x, 1, 0).reshape(4, -1).astype(np.float64)
    np.testing.assert_allclose(mnew[-1], rows.max(axis=1), rtol=1e-6)
    np.testing.assert_allclose(l * np.exp(mnew[-1].astype(np.float64)), np.exp(rows).sum(axis=1), rtol=1e-5)


def test_pad_of_symbolic_extents_at_other_sizes() -> None:
    """One kernel, symbolic extents: the pad widths ``ceilDiv(i1, 64) * 64 - i1`` follow the input's size."""
    op_case = case("pad_symbolic")
    fusion = op_case.build()
    kernel = lower(fusion)
    for shape in ((2, 64), (3, 65), (1, 130)):
        x = np.random.default_rng(shape[1]).standard_normal(shape).astype(np.float32)
        padded, multiple = simulate(kernel, [x])
        assert multiple.shape == (shape[0], -(-shape[1] // 64) * 64)
        np.testing.assert_array_equal(padded, np.pad(x, [(0, 0), (2, 3)], constant_values=-1.0))
        np.testing.assert_allclose(multiple[:, :shape[1]], np.exp(x), rtol=1e-6)
        assert (multiple[:, shape[1]:] == 0).all()
