"""Property 3: every kernel that lowers compiles for sm_90a with nvcc, without warnings (a sample per CI run)."""

import pytest
from hypothesis import assume, given, settings

from codegen.nvcc import nvcc_available
from fuzz.properties import check_compiles, check_lowering, check_schedule
from fuzz.strategies import cases

from .profiles import budget

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")


@settings(max_examples=budget("nvcc"))
@given(case=cases())
def test_lowered_kernels_compile_for_sm90a(case) -> None:
    fusion, outcomes = check_schedule(case)
    kernel = check_lowering(case, fusion, outcomes)
    assume(kernel is not None)
    check_compiles(case, kernel, outcomes)
