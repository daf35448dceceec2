"""The GPU tier's check of an attention fusion against torch's scaled_dot_product_attention in float64."""

from __future__ import annotations

from fusion_ir import Fusion
from lowering import lower
from runtime import execute
from tests.runtime.test_executor_gpu import torch_or_skip


def assert_matches_sdpa(fusion: Fusion, shape: tuple[int, int, int, int, int], causal: bool) -> None:
    """``fusion`` (attention of bf16 ``[B, H, S, D]`` q, k, v at ``shape`` = (B, H, Sq, Skv, D)) on fresh random
    inputs is as close to SDPA's float64 result as torch's own bf16 attention (twice its error, plus 1e-3)."""
    torch = torch_or_skip()
    b, h, sq, skv, d = shape
    q, k, v = (torch.randn(b, h, n, d, device="cuda").bfloat16() for n in (sq, skv, skv))
    (out,) = execute(lower(fusion), [q, k, v])
    sdpa = torch.nn.functional.scaled_dot_product_attention
    expected = sdpa(q.double(), k.double(), v.double(), is_causal=causal)
    err = ((out.double() - expected).norm() / expected.norm()).item()
    torch_err = ((sdpa(q, k, v, is_causal=causal).double() - expected).norm() / expected.norm()).item()
    assert err < 2 * torch_err + 1e-3, (err, torch_err)     # a bf16 result: as close as torch's bf16 attention
