"""Stream-K kernels (``MatmulParams.stream_k``) compile for sm_90a with no errors, warnings or spills: the example,
its bias + relu TMA-store epilogue, and the 128 x 256 two-warp-group kernel at the GPU test's shapes."""

from __future__ import annotations

import pytest

import examples
from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from fusion_ir import DataType
from lowering import lower

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")

BUILDS = {
    "example": {},
    "bias relu, TMA store": {"epilogue": True, "tma_store": True},
    "128x256 wg2, 1234 x 4568 x 888, 132 blocks": {"tile": (128, 256, 64), "compute_warp_groups": 2, "stages": 4,
                                                   "blocks": 132, "shape": (1234, 4568, 888)},
    "128x256 wg2 bf16 out, TMA store, symbolic": {"tile": (128, 256, 64), "compute_warp_groups": 2, "stages": 4,
                                                  "blocks": 132, "out_dtype": DataType.BFloat16, "tma_store": True},
}


@pytest.mark.parametrize("name", sorted(BUILDS))
def test_stream_k_compiles_without_spills(name: str) -> None:
    resources = compile_check(to_cuda(lower(examples.load("matmul_stream_k").build(**BUILDS[name]))))
    assert not resources.spills, resources.log
