"""GPU tier: stream-K matmuls (examples/matmul_stream_k.py, MatmulParams.stream_k) on the H100.

Against torch at 1234 x 4568 x 888 (180 tiles of 128 x 256: 1.36 waves of 132 SMs) and 448 x 2880 x 11520 (48 tiles
with a long K), a grid of the device's SM count, and at an odd shape with several grids; each run twice with the
outputs compared bit for bit: the last block of a split tile sums the partials in block order whichever block
arrives last, so the result is deterministic on the GPU too. The second launch also checks that the last blocks put
their semaphores back to zero (``prepare`` reuses one scratch allocation across launches). compute-sanitizer on a
small case. Each for the Pipelined kernel and the warp-specialized one.
"""

from __future__ import annotations

import json

import pytest

from examples import matmul_stream_k
from lowering import lower
from runtime import execute, sm_count
from runtime.executor import prepare
from tests.helpers import assert_matches, random_inputs
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu

BIG = {"tile": (128, 256, 64), "compute_warp_groups": 2, "stages": 4}


def _relative_error(torch, out, a, b) -> float:
    expected = a.double() @ b.double()
    return ((out.double() - expected).norm() / expected.norm()).item()


def _twice(torch, kernel, m: int, n: int, k: int):
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    outs = [torch.full((m, n), float("nan"), device="cuda") for _ in range(2)]
    launches = [prepare(kernel, [a, b], [out]) for out in outs]
    launches[0]()
    launches[0]()          # again on the same semaphores: the last blocks reset them to zero
    launches[1]()
    torch.cuda.synchronize()
    return a, b, outs


@pytest.mark.parametrize("ws", [False, True], ids=["pipelined", "warp_specialized"])
@pytest.mark.parametrize("shape", [(1234, 4568, 888), (448, 2880, 11520)])
def test_stream_k_matches_torch_and_repeats_bit_for_bit(shape: tuple[int, int, int], ws: bool) -> None:
    torch = torch_or_skip()
    m, n, k = shape
    kernel = lower(matmul_stream_k.build(blocks=sm_count(), warp_specialized=ws, **BIG))
    a, b, outs = _twice(torch, kernel, m, n, k)
    assert torch.equal(outs[0].view(torch.int32), outs[1].view(torch.int32))
    err = _relative_error(torch, outs[0], a, b)
    assert err < 1e-5, err
    assert err <= _relative_error(torch, torch.matmul(a, b), a, b)   # fp32 out at least as close as torch's bf16


@pytest.mark.parametrize("ws", [False, True], ids=["pipelined", "warp_specialized"])
@pytest.mark.parametrize("blocks", [7, 100, 132, 264])
def test_odd_shape_matches_torch_and_repeats_bit_for_bit_with_reused_scratch(blocks: int, ws: bool) -> None:
    """1000 x 1032 x 4104: no tile divides it; grids smaller and larger than the SMs (a block never waits on
    another, so more blocks than fit at once still finish)."""
    torch = torch_or_skip()
    kernel = lower(matmul_stream_k.build(blocks=blocks, warp_specialized=ws, **BIG))
    a, b, outs = _twice(torch, kernel, 1000, 1032, 4104)
    assert torch.equal(outs[0].view(torch.int32), outs[1].view(torch.int32))
    err = _relative_error(torch, outs[0], a, b)
    assert err < 1e-5, err


def test_stream_k_with_bf16_bias_relu_epilogue_matches_numpy() -> None:
    fusion = matmul_stream_k.build(blocks=7, epilogue=True, tma_store=True)
    inputs = random_inputs(fusion, [(200, 1000), (1000, 264), (264,)], seed=4400)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=1e-2)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("ws", [False, True], ids=["pipelined", "warp_specialized"])
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, ws: bool) -> None:
    params = {"stream_k": True, "blocks": 5, "tile": [128, 128, 64], "compute_warp_groups": 1, "stages": 3,
              "warp_specialized": ws}
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(params))
