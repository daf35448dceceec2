"""The kernels of the running-total and pad cases (``tests/lowering/scan_cases.py``) compile for sm_90a with nvcc,
with no errors, warnings or spills; and the CUDA carries a scan's total in a register."""

from __future__ import annotations

import pytest

from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from lowering import lower
from tests.lowering.scan_cases import CASES, case

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")


@needs_nvcc
@pytest.mark.parametrize("op_case", CASES, ids=[c.name for c in CASES])
def test_scan_kernel_compiles_for_sm90a(op_case) -> None:
    resources = compile_check(to_cuda(lower(op_case.build())))
    assert resources.registers > 0 and not resources.spills


def test_scan_carry_is_a_register_array() -> None:
    source = to_cuda(lower(case("cummax_rows_on_threads").build()))
    assert "float T2_carry[1];" in source and "T2_carry[0] = fmaxf(T2_carry[0], T1[0]);" in source
