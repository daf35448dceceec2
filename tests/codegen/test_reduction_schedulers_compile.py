"""The reduction and normalization schedulers' kernels compile for sm_90a with nvcc at the GPU tier's sizes,
without spilling registers under their ``__launch_bounds__`` caps (16384 x 4096 and the other shapes of
bench/schedulers_reduce_cases.py's kinds); softmax divides once per row, not per element."""

from __future__ import annotations

import re

import pytest

from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from examples import _reduction_fusions as fusions
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import normalization, reduction
from lowering import lower

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")

CASES = {
    "sum_inner_16384x4096": lambda: fusions.reduction((16384, 4096), "sum", 1),
    "max_outer_16384x4096": lambda: fusions.reduction((16384, 4096), "max", 0),
    "sum_inner_grid_8x1M": lambda: fusions.reduction((8, 1 << 20), "sum", 1),
    "sum_outer_1024x65536": lambda: fusions.reduction((1024, 65536), "sum", 0),
    "sum_outer_bf16_4096x4096": lambda: _bf16_sum((4096, 4096), 0),
    "sum_inner_bf16_4096x4096": lambda: _bf16_sum((4096, 4096), 1),
    "softmax_16384x4096": lambda: fusions.softmax((16384, 4096)),
    "softmax_4096x16384": lambda: fusions.softmax((4096, 16384)),
    "softmax_bf16_4096x16384": lambda: fusions.softmax((4096, 16384), 1, DataType.BFloat16),
    "layer_norm_bf16_4096x16384": lambda: fusions.layer_norm((4096, 16384), 1, DataType.BFloat16),
    "softmax_bf16_16384x1024": lambda: fusions.softmax((16384, 1024), 1, DataType.BFloat16),
    "softmax_outer_1024x4096": lambda: fusions.softmax((1024, 4096), 0),
    "log_softmax_bf16_4096x16384": lambda: fusions.log_softmax((4096, 16384), 1, DataType.BFloat16),
    "layer_norm_4096x16384": lambda: fusions.layer_norm((4096, 16384)),
    "rms_norm_bf16_16384x1024": lambda: fusions.rms_norm((16384, 1024), 1, DataType.BFloat16),
    "layer_norm_shared_64x24576": lambda: fusions.layer_norm((64, 24576)),
    "softmax_outer_1024x65536": lambda: fusions.softmax((1024, 65536), 0),
}


def _bf16_sum(shape: tuple[int, int], axis: int) -> Fusion:
    """A bf16 sum without a cast: accumulated in float, stored as bf16 (8-wide vectors)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=DataType.BFloat16)
        fusion.add_output(ops.sum(x, [axis]))
    return fusion


def _scheduled(build) -> Fusion:
    fusion = build()
    for scheduler in (reduction.SCHEDULER, normalization.SCHEDULER):
        if scheduler.decline(fusion, None) is None:
            scheduler.apply(fusion, scheduler.suggest(fusion, None))
            return fusion
    raise AssertionError("neither scheduler takes the fusion")


@pytest.mark.parametrize("name", sorted(CASES))
def test_scheduled_kernel_compiles_without_spills(name: str) -> None:
    resources = compile_check(to_cuda(lower(_scheduled(CASES[name]))))
    assert resources.registers > 0
    assert resources.spill_store_bytes == 0 and resources.spill_load_bytes == 0, resources.log


def test_softmax_divides_once_per_row() -> None:
    """One reciprocal of the row's sum, then a multiply per element (an IEEE division is ~10 instructions)."""
    source = to_cuda(lower(_scheduled(lambda: fusions.softmax((4096, 16384)))))
    body = source[source.index("fusion_kernel("):]
    divisions = [line for line in body.splitlines() if re.search(r"\] / T\d+\[|1\.0f / ", line)]
    assert len(divisions) == 1 and "1.0f / " in divisions[0], divisions
