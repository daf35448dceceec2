"""GPU tier: the row softmax of a matmul (examples/matmul_row_softmax), whose row max and row sum reduce the wgmma
accumulator fragment in registers and across each quad by warp shuffles, on the H100 against numpy at ragged sizes,
against torch's ``softmax(a @ b)`` in float64 at a large size, and compute-sanitizer memcheck, racecheck and
synccheck on it."""

from __future__ import annotations

import pytest

from examples import matmul_row_softmax
from lowering import lower
from runtime import execute
from tests.runtime.run_matmul_row_softmax import SIZES, main
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("size", SIZES, ids=["x".join(map(str, s)) for s in SIZES])
def test_matches_numpy(size: tuple[int, int, int]) -> None:
    main([size])


@pytest.mark.parametrize("n", matmul_row_softmax.N_TILES)
def test_matches_torch(n: int) -> None:
    torch = torch_or_skip()
    m, k = 4099, 1000
    gen = torch.Generator(device="cuda").manual_seed(n)
    a = torch.randn(m, k, device="cuda", generator=gen).bfloat16()
    b = (torch.randn(k, n, device="cuda", generator=gen) / k ** 0.5).bfloat16()
    (out,) = execute(lower(matmul_row_softmax.build(m, k, n)), [a, b])
    expected = torch.softmax(a.double() @ b.double(), dim=-1)
    err = ((out.double() - expected).norm() / expected.norm()).item()
    torch_err = ((torch.softmax((a @ b).float(), dim=-1).bfloat16().double() - expected).norm()
                 / expected.norm()).item()
    assert err < 2 * torch_err + 1e-3, (err, torch_err)     # a bf16 result: as close as torch's own in bf16


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_row_softmax")
