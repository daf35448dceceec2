"""Every kernel bench/schedulers.py times (the pointwise and transpose schedulers at 4096^2, 8192^2 and 16384 x 4096,
fp32 and bf16: vectors, unroll, 2-D grids, swizzled tiles) compiles with nvcc for sm_90a without a warning, a spill
or a stack frame. Skipped where nvcc is missing."""

from __future__ import annotations

import pytest

from bench.schedulers import CASES
from codegen import compile_check, nvcc_available, to_cuda
from fusion_ir.schedulers import schedule
from lowering import lower

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")


@needs_nvcc
@pytest.mark.parametrize("case", CASES, ids=[c.name.replace(" ", "-") for c in CASES])
def test_scheduled_kernel_compiles_cleanly(case) -> None:
    fusion = case.build()
    schedule(fusion)
    kernel = lower(fusion)
    resources = compile_check(to_cuda(kernel))
    assert 0 < resources.registers <= 255
    assert not resources.spills and resources.stack_bytes == 0
