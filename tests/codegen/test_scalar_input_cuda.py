"""Scalar inputs in the CUDA: parameters by value at the end of the signature (Half and BFloat16 as float), read
by name in the expressions, no pointer and no load; the kernels compile with nvcc for sm_90a."""

from __future__ import annotations

import re
import warnings

import pytest

from codegen import compile_check, nvcc_available, to_cuda
from examples import matmul_epilogue
from fusion_ir import DataType, Fusion, ops
from lowering import lower

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")


def _scaled(scalar: DataType) -> str:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        alpha = fusion.add_scalar_input(scalar)
        fusion.add_output(ops.cast(ops.mul(ops.cast(x, DataType.Float), alpha), DataType.BFloat16))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return to_cuda(lower(fusion, sizes=[(64, 256), ()]))


@pytest.mark.parametrize("scalar, ctype", [(DataType.Float, "float"), (DataType.Int32, "int"),
                                           (DataType.Int64, "int64_t"), (DataType.Half, "float"),
                                           (DataType.BFloat16, "float")])
def test_the_scalar_is_a_parameter_by_value_read_by_name(scalar: DataType, ctype: str) -> None:
    source = _scaled(scalar)
    signature = next(line for line in source.splitlines() if line.startswith('extern "C"'))
    assert re.search(rf", {re.escape(ctype)} S1\) \{{$", signature), signature
    body = source[source.index(signature):]
    assert "S1.data" not in body and "Tensor<float, 0>" not in body
    assert re.search(r"\* (static_cast<float>\()?S1\b", body)


def test_the_matmul_epilogue_reads_alpha_and_beta_in_the_compute_warps() -> None:
    fusion = matmul_epilogue.build("alpha_beta")
    source = to_cuda(lower(fusion))
    alpha, beta = fusion.inputs[3], fusion.inputs[4]
    assert f"TensorMap tmap_T10, float {alpha}, float {beta}) {{" in source
    assert f"* {alpha})" in source and f"* {beta})" in source


@needs_nvcc
@pytest.mark.parametrize("scalar", [DataType.Float, DataType.Int64, DataType.BFloat16])
def test_a_pointwise_kernel_with_a_scalar_compiles(scalar: DataType) -> None:
    resources = compile_check(_scaled(scalar))
    assert not resources.spills


@needs_nvcc
def test_the_alpha_beta_matmul_compiles() -> None:
    """(The kernel's 224-byte stack is the same with alpha and beta as constants: the parameters add none.)"""
    resources = compile_check(to_cuda(lower(matmul_epilogue.build("alpha_beta"))))
    assert resources.kernel == "fusion_kernel" and resources.registers <= 168
