"""The CUDA of a grid reduction: the fence, the acquire-release atomic and the barrier that hands every thread
the last-block flag (codegen/grid_sync.cuh), and the scratch parameters after the outputs."""

from __future__ import annotations

import examples
from codegen import to_cuda
from lowering import lower


def test_split_k_cuda_has_the_fence_the_atomic_and_the_scratch_parameters() -> None:
    source = to_cuda(lower(examples.load("matmul_split_k").build()))
    assert "fence.acq_rel.gpu;" in source
    assert "atom.acq_rel.gpu.global.add.s32" in source
    assert "__syncthreads_or(last)" in source
    assert "Tensor<float, 2> T2, Tensor<float, 1> T3_work, Tensor<int, 1> T3_sem, const __grid_constant__" in source
    body = source[source.index('extern "C"'):]
    fence, arrive = body.index("gridFence();"), body.index("semaphoreArrive(&T3_sem.data[")
    assert fence < body.index("__syncthreads();", fence) < arrive
    assert body.index("if (last_T3 != 0)") > arrive


def test_a_kernel_without_grid_reduction_pastes_no_grid_sync_helper() -> None:
    assert "semaphoreArrive" not in to_cuda(lower(examples.load("matmul_wgmma").build()))
