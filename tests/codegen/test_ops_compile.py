"""The kernels of the op-family fusions (``tests/fusion_ir/op_cases.py``) compile for sm_90a with nvcc,
with no errors and no warnings; and the CUDA names the device function each op is."""

from __future__ import annotations

import pytest

from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from lowering import lower
from tests.fusion_ir.op_cases import CASES, OpCase, case

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")


@needs_nvcc
@pytest.mark.parametrize("op_case", CASES, ids=[c.name for c in CASES])
def test_op_kernel_compiles_for_sm90a(op_case: OpCase) -> None:
    resources = compile_check(to_cuda(lower(op_case.build())))
    assert resources.registers > 0 and not resources.spills


@pytest.mark.parametrize(("name", "text"), [
    ("erf", "erff("), ("silu", "/ (1.0f + expf(-"), ("log1p", "log1pf("), ("expm1", "expm1f("),
    ("pow_tensor_exponent", "powf("), ("lt", " < "), ("ne", " != "), ("logical_and_or", " && "),
    ("logical_not", "!"), ("where_tensors", " ? "),
    ("mean_inner", "/ static_cast<float>(i1)"),                        # the extent bound at the kernel's top
    ("mean_negative_dim_constant_extent", "/ static_cast<float>(77LL)"),
    ("var_mean_offset_1e4", "/ static_cast<float>(i1 - 1)"),
    ("iota_causal_mask", "static_cast<int>(blockIdx.x)"),              # the iota of rows is the block index
])
def test_op_prints_as_its_cuda_function(name: str, text: str) -> None:
    assert text in to_cuda(lower(case(name).build()))
