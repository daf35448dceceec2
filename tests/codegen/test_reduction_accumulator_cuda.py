"""codegen of a Half or BFloat16 sum with no thread-parallel reduction axis: it adds into a float
accumulator and converts once, after the loop; nvcc sm_90a compiles it cleanly."""

from __future__ import annotations

import pytest

from codegen import compile_check, nvcc_available, to_cuda
from fusion_ir import DataType
from lowering import lower
from tests.codegen.test_cuda import lines_of
from tests.lowering.test_passes import _serial_sum

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")

TO_FLOAT = {DataType.Half: "__half2float", DataType.BFloat16: "__bfloat162float"}
FROM_FLOAT = {DataType.Half: "__float2half", DataType.BFloat16: "__float2bfloat16"}


@pytest.mark.parametrize("dtype", [DataType.Half, DataType.BFloat16])
def test_a_serial_16_bit_sum_adds_into_a_float_and_converts_after_the_loop(dtype: DataType) -> None:
    lines = lines_of(to_cuda(lower(_serial_sum(dtype))))
    assert "float T1_acc[1];" in lines
    add = next(k for k, line in enumerate(lines) if line.startswith("T1_acc[0] = T1_acc[0] + "))
    assert TO_FLOAT[dtype] in lines[add]
    final = f"T1.data[((int64_t)threadIdx.x) * T1_stride0] = {FROM_FLOAT[dtype]}(T1_acc[0]);"
    assert lines.index(final) > add + 1                     # after the reduction loop closes
    assert not any(line.startswith("T1.data[") for line in lines[:add + 1])


@needs_nvcc
@pytest.mark.parametrize("dtype", [DataType.Half, DataType.BFloat16])
def test_a_serial_16_bit_sum_compiles(dtype: DataType) -> None:
    assert compile_check(to_cuda(lower(_serial_sum(dtype)))).kernel == "fusion_kernel"
