"""runtime.timing.interleaved_ms: CUDA-graph-captured batches of prepared launches time the kernel and compute
what a plain launch computes; runtime.executor.compile_kernels compiles many kernels at once."""

from __future__ import annotations

import numpy as np
import pytest

from examples import pointwise_2d
from lowering import lower
from runtime.executor import compile_kernels
from runtime.nvrtc import CompileError
from tests.runtime.test_executor_gpu import torch_or_skip


def test_compile_kernels_returns_each_kernel_s_cubin_or_its_error() -> None:
    kernel = lower(pointwise_2d.build())
    results = compile_kernels([kernel, kernel], watchdog_s=None, workers=2)
    assert len(results) == 2
    if isinstance(results[0], Exception):       # no NVRTC here: each kernel's CompileError, returned, not raised
        assert all(isinstance(r, CompileError) for r in results)
    else:                                       # the same kernel twice: one cubin, from the cache the second time
        assert results[0].key == results[1].key and results[0].image


@pytest.mark.gpu
def test_graph_timing_runs_the_prepared_launches() -> None:
    torch = torch_or_skip()
    from runtime.executor import prepare
    from runtime.timing import interleaved_ms

    kernel = lower(pointwise_2d.build())
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal((300, 5001)).astype(np.float32) for _ in range(2)]
    args = [torch.from_numpy(x).cuda() for x in inputs]
    expected = np.exp(inputs[0].astype(np.float64) + inputs[1])
    out = torch.full(expected.shape, float("nan"), device="cuda", dtype=torch.float32)
    launch = prepare(kernel, args, [out])
    (ours, copy) = interleaved_ms([launch, lambda: out.clone()], batch=20, rounds=3)
    assert ours > 0 and copy > 0
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-5, atol=0)
    for graphs in (True, False):
        out.fill_(float("nan"))
        interleaved_ms([launch], batch=2, rounds=1, graphs=graphs)
        torch.cuda.synchronize()
        np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-5, atol=0)
