"""GPU tier: the reduction and normalization schedulers' kernels against torch at 16384 x 4096 fp32.

Sum and max over the last and the first axis, softmax, log-softmax, layer norm and RMS norm over the last
axis at 16384 x 4096; softmax over the first axis at 1024 x 65536 (the same 64 Mi elements: 16384 rows per
column block are more than a block's registers or shared memory can keep, so the normalization scheduler
declines the first axis of 16384 x 4096). Each case checks the result against torch's and prints its time
beside torch's, measured in the same run (CUDA graphs of 20 launches, median of 5 rounds).

``pytest -m gpu tests/runtime/test_reduction_schedulers_gpu.py -s``
"""

from __future__ import annotations

import numpy as np
import pytest

from bench import schedulers_reduce_cases as cases
from lowering import lower
from tests.helpers import rel_error
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu

NAMES = [f"{op}_dim{axis}_16384x4096_float32" for op in ("sum", "max") for axis in (1, 0)] + [
    f"{name}_16384x4096_float32" for name in ("softmax", "log_softmax", "layer_norm", "rms_norm")] + [
    "softmax_dim0_1024x65536_float32"] + [
    # the shapes whose choices the 2-blocks-per-SM, few-rows and split rules changed
    "softmax_4096x16384_float32", "log_softmax_4096x16384_float32", "layer_norm_4096x16384_float32",
    "softmax_dim0_1024x4096_float32", "sum_dim0_8x1048576_float32", "max_dim0_8x1048576_float32",
    "sum_dim1_8x1048576_float32"]
BY_NAME = {c.name: c for c in cases.CASES}


@pytest.mark.parametrize("name", NAMES)
def test_scheduled_kernel_matches_torch(name: str) -> None:
    torch = torch_or_skip()
    from runtime.executor import prepare
    from runtime.timing import interleaved_ms

    case = BY_NAME[name]
    fusion = cases.schedule(case)
    kernel = lower(fusion)
    gen = torch.Generator(device="cuda").manual_seed(7)
    inputs = [torch.randn(s, device="cuda", generator=gen, dtype=torch.float32) for s in case.shapes]
    expected = case.reference(*inputs)
    out = torch.full_like(expected, float("nan"))
    launch = prepare(kernel, inputs, [out])
    launch()
    torch.cuda.synchronize()
    err = rel_error(out.cpu().numpy().astype(np.float64), expected.cpu().numpy().astype(np.float64))
    assert err < 1e-5, f"{name}: relative error {err:.2e} against torch"

    ours, theirs = interleaved_ms([launch, lambda: case.reference(*inputs)], batch=20, rounds=5)
    moved = sum(x.numel() * x.element_size() for x in inputs) + out.numel() * out.element_size()
    print(f"\n{name}: {ours * 1e3:.1f} us ({moved / ours / 1e6:.0f} GB/s), torch {theirs * 1e3:.1f} us "
          f"({moved / theirs / 1e6:.0f} GB/s): {theirs / ours:.2f} of torch's speed")
    assert ours > 0
