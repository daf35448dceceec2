"""GPU tier: attention from the fusion IR (examples/attention through the attention scheduler: the online-softmax
rewrite, one kernel) against numpy at small sizes and against torch's scaled_dot_product_attention in float64 at
[4, 16, 4096, 128] and an odd size, causal and not; compute-sanitizer memcheck, racecheck and synccheck on a small
case."""

from __future__ import annotations

import pytest

from examples import attention
from tests.runtime.run_attention import main as run_small
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.sdpa_check import assert_matches_sdpa

pytestmark = pytest.mark.gpu
SHAPES = [(4, 16, 4096, 4096, 128), (2, 3, 1000, 1237, 64)]     # B, H, Sq, Skv, D: a large one and an odd one


@pytest.mark.parametrize("causal", [False, True])
def test_small_sizes_match_numpy(causal: bool) -> None:
    run_small(causal)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_the_kernel_matches_torch_sdpa(shape: tuple[int, ...], causal: bool) -> None:
    assert_matches_sdpa(attention.build(*shape, causal=causal), shape, causal)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_attention", "causal")
