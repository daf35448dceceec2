"""GPU tier: the integer and boolean cases of ``value_semantics_cases`` give on the H100 exactly what
the numpy reference and the simulator give (``fusion_ir/value_semantics.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.reference import evaluate
from lowering import lower
from runtime import execute
from tests.runtime.value_semantics_cases import CASES, ValueCase

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_values_on_gpu_match_the_reference_exactly(case: ValueCase) -> None:
    fusion = case.build()
    (out,) = execute(lower(fusion), list(case.inputs))
    (expected,) = evaluate(fusion, list(case.inputs))
    assert out.dtype == expected.dtype == case.expected.dtype
    np.testing.assert_array_equal(out, expected, err_msg=f"{case.name}: GPU vs reference")
    np.testing.assert_array_equal(out, case.expected, err_msg=f"{case.name}: GPU vs the documented value")
