"""32-bit index arithmetic (``Fusion.set_index_type``, ``MatmulParams.index_type``).

The kernel IR is the same; the CUDA declares extents and loop indices ``int`` and casts builtins
to ``int``, the 64-bit ``ceilDiv``/``min64``/``max64`` become their 32-bit versions, and the
executor refuses a launch on a tensor whose elements or offsets do not fit 31 bits.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from codegen import compile_check, nvcc_available, to_cuda
from examples import matmul_ping_pong, matmul_ws_persistent, pointwise_2d
from fusion_ir import DataType, ScheduleError
from fusion_ir.schedulers import MatmulParams
from lowering import lower
from runtime.arrays import as_array_arg
from runtime.errors import InputError
from runtime.launch_plan import check_index_type, plan_launch

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")


def _body(source: str) -> str:
    return source[source.index('extern "C" __global__'):]


def test_int64_is_the_default() -> None:
    body = _body(to_cuda(lower(pointwise_2d.build())))
    assert "for (int64_t " in body and "((int64_t)threadIdx.x)" in body
    assert not re.search(r"\bfor \(int ", body)


def test_int32_kernel_has_no_64_bit_index_arithmetic() -> None:
    kernel = lower(matmul_ws_persistent.build(index_type=DataType.Int32))
    assert kernel.index_type == DataType.Int32
    body = _body(to_cuda(kernel))
    assert "for (int " in body and "((int)tidY)" in body and "ceilDiv32(" in body
    # the only 64-bit integers left are the mbarrier objects
    assert set(re.findall(r"int64_t\*? ?\w+", body)) <= {"int64_t* T4_mbar"}
    assert "int64_t" not in body.replace("int64_t* T4_mbar", "").replace("reinterpret_cast<int64_t*>", "")


def test_int32_is_the_same_kernel_ir() -> None:
    k32 = lower(matmul_ws_persistent.build(index_type=DataType.Int32))
    k64 = lower(matmul_ws_persistent.build(index_type=DataType.Int64))
    assert k32.body == k64.body


@needs_nvcc
@pytest.mark.parametrize("build", [matmul_ws_persistent.build, matmul_ping_pong.build])
def test_int32_matmul_compiles_without_spills(build) -> None:
    resources = compile_check(to_cuda(lower(build())))
    assert not resources.spills and resources.stack_bytes == 0
    assert resources.registers <= 168


@needs_nvcc
def test_int32_pointwise_compiles() -> None:
    fusion = pointwise_2d.build()
    fusion.set_index_type(DataType.Int32)
    compile_check(to_cuda(lower(fusion)))


def test_set_index_type_rejects_other_types() -> None:
    fusion = pointwise_2d.build()
    with pytest.raises(ScheduleError, match=r"set_index_type.*Int32 or DataType.Int64"):
        fusion.set_index_type(DataType.Float)


def test_matmul_params_index_type_is_checked() -> None:
    with pytest.raises(ScheduleError, match=r"MatmulParams.index_type"):
        matmul_ws_persistent.build(index_type=DataType.Float)


def test_matmul_params_default_index_type() -> None:
    assert MatmulParams().index_type == DataType.Int64


def test_launch_refuses_tensors_over_31_bits() -> None:
    kernel = lower(matmul_ws_persistent.build())
    check_index_type(kernel, [(4096, 4096), (4096, 4096), (4096, 4096)], [(4096, 1)] * 3)
    with pytest.raises(InputError, match=r"32 bits.*T0 of shape \(65536, 65536\).*2\*\*31 - 1"):
        check_index_type(kernel, [(65536, 65536), (65536, 4096), (65536, 4096)],
                         [(65536, 1), (4096, 1), (4096, 1)])
    # offsets count too: a small view with a huge stride
    with pytest.raises(InputError, match=r"offsets up to"):
        check_index_type(kernel, [(2, 64), (64, 64), (2, 64)], [(2**31, 1), (64, 1), (64, 1)])


def test_plan_launch_checks_the_index_type(monkeypatch: pytest.MonkeyPatch) -> None:
    fusion = pointwise_2d.build()
    fusion.set_index_type(DataType.Int32)
    kernel = lower(fusion)
    args = [as_array_arg(np.ones((16, 32), np.float32), f"input {i}") for i in range(len(kernel.inputs))]
    plan_launch(kernel, args)
    import runtime.launch_plan as lp

    monkeypatch.setattr(lp, "INT32_INDEX_MAX", 100)   # as if 16 x 32 elements were over 31 bits
    with pytest.raises(InputError, match=r"indexes in 32 bits"):
        plan_launch(kernel, args)
