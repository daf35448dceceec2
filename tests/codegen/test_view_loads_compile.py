"""CI gate: every load of a view chain (``tests/lowering/view_load_cases.py``) compiles for sm_90a with nvcc,
with no errors and no warnings."""

from __future__ import annotations

import pytest

from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from lowering import lower
from tests.lowering.view_load_cases import view_load_cases

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")

CASES = list(view_load_cases())


@pytest.mark.parametrize("build", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_a_view_load_compiles_for_sm90a(build) -> None:
    resources = compile_check(to_cuda(lower(build())))
    assert resources.registers > 0 and not resources.spills
