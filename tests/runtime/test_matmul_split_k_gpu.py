"""GPU tier: split-K matmuls (examples/matmul_split_k.py, MatmulParams.split_k) on the H100.

Against torch at 1024 x 1024 x 32768 (split 4, the suggested kernel) and at an odd shape, each run twice with
the outputs compared bit for bit: the last block sums the partial tiles in split order whichever block arrives
last, so the result is deterministic on the GPU too. The second launch also checks that the last blocks put
their semaphores back to zero (``prepare`` reuses one scratch allocation across launches). compute-sanitizer on
a small case.
"""

from __future__ import annotations

import json

import pytest

from examples import matmul_split_k
from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import execute
from runtime.executor import prepare
from tests.helpers import assert_matches, random_inputs
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu


def _relative_error(torch, out, a, b) -> float:
    expected = a.double() @ b.double()
    return ((out.double() - expected).norm() / expected.norm()).item()


def _suggested(m: int, n: int, k: int) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k, n), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    return fusion


def test_suggested_split_k_at_1024_x_1024_x_32768_matches_torch_and_repeats_bit_for_bit() -> None:
    torch = torch_or_skip()
    fusion = _suggested(1024, 1024, 32768)
    params = suggest_matmul_params(fusion)
    assert params.split_k == 4
    kernel = lower(schedule_matmul(fusion, params))
    a = torch.randn(1024, 32768, device="cuda").bfloat16()
    b = torch.randn(32768, 1024, device="cuda").bfloat16()
    (first,) = execute(kernel, [a, b])
    (second,) = execute(kernel, [a, b])
    assert torch.equal(first.view(torch.int32), second.view(torch.int32))
    err = _relative_error(torch, first, a, b)
    assert err < 1e-5, err
    assert err <= _relative_error(torch, torch.matmul(a, b), a, b)   # fp32 out at least as close as torch's bf16


@pytest.mark.parametrize("warp_specialized", [False, True])
@pytest.mark.parametrize("split", [2, 3, 4])
def test_odd_shape_matches_torch_and_repeats_bit_for_bit_with_reused_scratch(split: int, warp_specialized: bool) -> None:
    """1000 x 1032 x 4104: no tile divides it; ``prepare`` launches twice on one scratch allocation. Warp-specialized:
    the producer warps have returned when the compute warps arrive (``__syncthreads_or`` counts the others)."""
    torch = torch_or_skip()
    m, n, k = 1000, 1032, 4104
    kernel = lower(matmul_split_k.build(split_k=split, tile=(128, 256, 64), compute_warp_groups=2, stages=4,
                                        warp_specialized=warp_specialized))
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    outs = [torch.full((m, n), float("nan"), device="cuda") for _ in range(2)]
    launches = [prepare(kernel, [a, b], [out]) for out in outs]
    launches[0]()
    launches[0]()          # again on the same semaphores: the last blocks reset them to zero
    launches[1]()
    torch.cuda.synchronize()
    assert torch.equal(outs[0].view(torch.int32), outs[1].view(torch.int32))
    err = _relative_error(torch, outs[0], a, b)
    assert err < 1e-5, err


def test_split_k_with_bf16_epilogue_matches_numpy() -> None:
    fusion = matmul_split_k.build(split_k=3, epilogue=True)
    inputs = random_inputs(fusion, [(200, 1000), (1000, 264), (264,)], seed=4300)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=1e-2)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("warp_specialized", [False, True])
def test_compute_sanitizer_is_clean(tool: str, warp_specialized: bool) -> None:
    params = {"split_k": 2, "tile": [128, 128, 64], "compute_warp_groups": 1, "stages": 2,
              "warp_specialized": warp_specialized}
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(params))


def test_the_tuners_split_k_candidates_of_other_tiles_match_torch_and_repeat_bit_for_bit() -> None:
    """96 x 4096 x 16384: the candidates' split-K of 256 x 128 and 128 x 128 (4 splits each, Pipelined and
    warp-specialized), M a part of one row of tiles."""
    from fusion_ir.schedulers.candidates import matmul_candidates

    torch = torch_or_skip()
    m, n, k = 96, 4096, 16384
    fusion = _suggested(m, n, k)
    chosen = [c for c in matmul_candidates(fusion, 132) if c.split_k > 1 and c.tile != (128, 256, 64)]
    assert {(c.tile, c.split_k, c.warp_specialized) for c in chosen} >= {
        ((256, 128, 64), 4, False), ((128, 128, 64), 4, False)}
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    for params in chosen:
        kernel = lower(schedule_matmul(_suggested(m, n, k), params))
        (first,) = execute(kernel, [a, b])
        (second,) = execute(kernel, [a, b])
        assert torch.equal(first.view(torch.int32), second.view(torch.int32)), params
        err = _relative_error(torch, first, a, b)
        assert err < 1e-5, (params, err)


def test_the_suggested_256_x_128_split_k_where_b_rows_are_misaligned_matches_torch() -> None:
    """768 x 1512 x 20000: B's rows of 3024 bytes; the rules split 256 x 128 tiles in 3 (warp-specialized)."""
    torch = torch_or_skip()
    m, n, k = 768, 1512, 20000
    fusion = _suggested(m, n, k)
    params = suggest_matmul_params(fusion)
    assert (params.tile, params.split_k, params.warp_specialized) == ((256, 128, 64), 3, True)
    kernel = lower(schedule_matmul(fusion, params))
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    (first,) = execute(kernel, [a, b])
    (second,) = execute(kernel, [a, b])
    assert torch.equal(first.view(torch.int32), second.view(torch.int32))
    err = _relative_error(torch, first, a, b)
    assert err < 1e-5, err
