"""The kernels ``suggest_matmul_params`` picks for the H100 compile for sm_90a with nvcc, with no
errors, warnings or spills: one shape for each of its main arrangements."""

from __future__ import annotations

import pytest

from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule_matmul
from lowering import lower

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")

SHAPES = {
    "persistent TMA store, 128 x 256, 32-bit indices": (8192, 8192, 8192),
    "256 x 128": (4096, 4096, 256),
    "split-K: 4 blocks per 128 x 256 tile": (1024, 1024, 32768),
    "64 x 128, one compute warp group": (1024, 1024, 1024),
    "128 x 128": (1024, 2048, 8192),
    # rows TMA cannot copy (docs/matmul.md, "Any K and any row stride"): A by plain copies, by 4-byte cp.async,
    # B's odd rows by plain copies
    "K = 263, plain copies of A": (2000, 3000, 263),
    "K = 1001, plain copies of A, 128 x 256": (4096, 4096, 1001),
    "K = 262, 4-byte cp.async of A": (2000, 3000, 262),
    "N = 1001, plain copies of B": (1024, 1001, 1024),
}


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_suggested_kernel_compiles_for_sm90a(name: str) -> None:
    m, n, k = SHAPES[name]
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k, n), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    resources = compile_check(to_cuda(lower(schedule_matmul(fusion))))
    assert resources.registers > 0
    assert resources.spill_store_bytes == 0 and resources.stack_bytes == 0


@pytest.mark.parametrize("kind", ["alpha_beta", "bias_gelu"])
def test_suggested_producer_loaded_epilogue_compiles_for_sm90a(kind: str) -> None:
    """The suggested kernels with their producer warp group loading the epilogue's inputs (``epilogue_loads=
    "producer"``, the tuner's candidate) compile with no spills (ptxas: 168 registers, as with the compute warp
    groups' loads, 2026-11-26)."""
    from dataclasses import replace

    from examples import matmul_epilogue
    from fusion_ir.schedulers import suggest_matmul_params

    fusion = matmul_epilogue.fusion_of(kind, (8192, 8192, 8192))
    params = replace(suggest_matmul_params(fusion), epilogue_loads="producer")
    schedule_matmul(fusion, params)
    assert fusion.scheduler_choice.params.epilogue_loads == "producer"
    resources = compile_check(to_cuda(lower(fusion)))
    assert resources.registers > 0
    assert resources.spill_store_bytes == 0 and resources.stack_bytes == 0
