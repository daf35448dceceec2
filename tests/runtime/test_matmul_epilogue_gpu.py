"""GPU tier: fused matmul epilogues (examples/matmul_epilogue) on the H100: relu/gelu(a @ b + bias) and
alpha * a @ b + beta * C against numpy at small sizes and against torch at 4096^3 and 8192^3
(torch.matmul followed by torch's own bias add and activation, torch.addmm for C); compute-sanitizer
memcheck, racecheck and synccheck on the kernel that TMA-loads C."""

from __future__ import annotations

import pytest

from examples import matmul_epilogue
from lowering import lower
from runtime import execute
from runtime.sm_count import sm_count
from tests.runtime.run_matmul_epilogue import main as run_small
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_small_sizes_match_numpy(kind: str) -> None:
    run_small(kind)


def torch_epilogue(torch, kind: str, a, b, extra, dtype):
    """The same epilogue in torch, on ``dtype`` (bfloat16: torch's unfused bf16 path; float64: the reference)."""
    a, b, extra = a.to(dtype), b.to(dtype), extra.to(dtype)
    if kind == "alpha_beta":
        return torch.addmm(extra, a, b, beta=matmul_epilogue.BETA, alpha=matmul_epilogue.ALPHA)
    biased = torch.matmul(a, b) + extra
    if kind == "bias_relu":
        return torch.relu(biased)
    return torch.nn.functional.gelu(biased, approximate="tanh")


@pytest.mark.parametrize("size", [4096, 8192])
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_large_matches_torch(kind: str, size: int) -> None:
    torch = torch_or_skip()
    a = torch.randn(size, size, device="cuda").bfloat16()
    b = torch.randn(size, size, device="cuda").bfloat16()
    extra = (torch.randn(size, size, device="cuda").bfloat16() if kind == "alpha_beta"
             else torch.randn(size, device="cuda") * 8)
    fusion = matmul_epilogue.build(kind, blocks=sm_count(), group_m=8)
    scalars = [matmul_epilogue.ALPHA, matmul_epilogue.BETA] if kind == "alpha_beta" else []
    (out,) = execute(lower(fusion), [a, b, extra, *scalars])
    expected = torch_epilogue(torch, kind, a, b, extra, torch.float64)
    err = ((out.double() - expected).norm() / expected.norm()).item()
    torch_err = ((torch_epilogue(torch, kind, a, b, extra, torch.bfloat16).double() - expected).norm()
                 / expected.norm()).item()
    assert err < 1.5 * torch_err, (err, torch_err)     # a bf16 result: as close as torch's bf16 result


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_epilogue", "alpha_beta")


@pytest.mark.parametrize("kind, tma_store", [("bias", False), ("C", True)])
def test_the_suggested_epilogue_arrangement_matches_torch(kind: str, tma_store: bool) -> None:
    """``schedule_matmul(fusion)`` with no params on a shape-specialized fusion of four waves and more: the
    persistent kernel, register stores for a bias epilogue and the TMA store with C (suggest_matmul_params)."""
    from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
    from tests.fusion_ir.test_suggest import _with_epilogue

    torch = torch_or_skip()
    m, n, k = 8192, 8192, 512
    fusion = _with_epilogue(kind, (m, n, k))
    params = suggest_matmul_params(fusion, sms=sm_count())
    assert params.persistent and params.tma_store is tma_store
    schedule_matmul(fusion, params)
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    extra = torch.randn(n, device="cuda") * 8 if kind == "bias" else torch.randn(m, n, device="cuda").bfloat16()
    (out,) = execute(lower(fusion), [a, b, extra])
    acc = a.double() @ b.double()
    expected = torch.relu(acc + extra.double()) if kind == "bias" else 2 * acc + 0.5 * extra.double()
    err = ((out.double() - expected).norm() / expected.norm()).item()
    assert err < 1e-2, err          # a bf16 result (2^-8 relative rounding)
