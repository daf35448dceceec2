"""GPU tier: the rescaled sum of matmuls on one wgmma accumulator (examples/matmul_rescaled: the accumulator's rows
rescaled in registers before each J's wgmmas) on the H100 against torch's float64 ``acc = acc * scale_j + a_j @ b_j``
of the same bf16 inputs (fresh random ones, scales in [0.5, 1.5)), against numpy at ragged sizes, and
compute-sanitizer memcheck, racecheck and synccheck on it."""

from __future__ import annotations

import numpy as np
import pytest

from examples import matmul_rescaled
from lowering import lower
from runtime import execute
from tests.runtime.run_matmul_rescaled import SIZES, main
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu
TORCH_SIZES = [(8, 2048, 256, 128, 256, 2), (3, 200, 136, 72, 64, 1), (16, 1000, 776, 264, 128, 3)]


@pytest.mark.parametrize("size", SIZES, ids=["x".join(map(str, s)) for s in SIZES])
def test_matches_numpy(size: tuple[int, ...]) -> None:
    main([size])


@pytest.mark.parametrize("size", TORCH_SIZES, ids=["x".join(map(str, s)) for s in TORCH_SIZES])
def test_matches_torch(size: tuple[int, int, int, int, int, int]) -> None:
    torch = torch_or_skip()
    j, m, n, k, tn, stages = size
    seed = int(np.random.default_rng().integers(2**31))              # fresh inputs every run
    generator = torch.Generator(device="cuda").manual_seed(seed)
    a = torch.randn(j, m, k, device="cuda", generator=generator).bfloat16()
    b = torch.randn(j, k, n, device="cuda", generator=generator).bfloat16()
    scale = torch.rand(j, m, device="cuda", generator=generator) + 0.5
    (out,) = execute(lower(matmul_rescaled.build(j, m, n, k, tn=tn, stages=stages)), [a, b, scale])
    expected = torch.zeros(m, n, dtype=torch.float64, device="cuda")
    for step in range(j):
        expected = expected * scale[step].double()[:, None] + a[step].double() @ b[step].double()
    assert tuple(out.shape) == (m, n) and out.dtype == torch.bfloat16
    err = ((out.double() - expected).norm() / expected.norm()).item()
    assert err < matmul_rescaled.TOLERANCE, f"{size}, inputs of seed {seed}: relative error {err:.3e}"


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_rescaled")
