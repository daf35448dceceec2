"""GPU tier: fused matmul epilogues (examples/matmul_epilogue) on the H100: relu/gelu(a @ b + bias), alpha * a @ b +
beta * C (alpha and beta kernel arguments) and a @ b + C, against numpy at small sizes and against torch in float64
at 4096^3 and an odd shape, with the suggested parameters (sub-tiled epilogues, the bias in shared memory) and the
persistent whole-tile kernel, and the ping-pong kernel with C or a bias (each warp group loading those of its own
turn); compute-sanitizer memcheck, racecheck and synccheck on the sub-tiled bias-gelu and C kernels and on the
ping-pong C, residual and bias kernels."""

from __future__ import annotations

import pytest

from examples import matmul_epilogue
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from lowering import lower
from runtime import execute
from runtime.sm_count import sm_count
from tests.runtime.run_matmul_epilogue import main as run_small
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean
from tests.runtime.test_executor_gpu import torch_or_skip

pytestmark = pytest.mark.gpu
SHAPES = [(4096, 4096, 4096), (1000, 1736, 520)]       # M, N, K: a large one and an odd one (not tile multiples)


@pytest.mark.parametrize("sub_tiled", [False, True])
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_small_sizes_match_numpy(kind: str, sub_tiled: bool) -> None:
    run_small(kind, sub_tiled)


def torch_epilogue(torch, kind: str, a, b, extra, dtype):
    """The same epilogue in torch, on ``dtype`` (bfloat16: torch's unfused bf16 path; float64: the reference)."""
    a, b, extra = a.to(dtype), b.to(dtype), extra.to(dtype)
    if kind == "alpha_beta":
        return torch.addmm(extra, a, b, beta=matmul_epilogue.BETA, alpha=matmul_epilogue.ALPHA)
    if kind == "residual":
        return torch.addmm(extra, a, b)
    biased = torch.matmul(a, b) + extra
    if kind == "bias_relu":
        return torch.relu(biased)
    return torch.nn.functional.gelu(biased, approximate="tanh")


def _check(torch, fusion, kind: str, m: int, n: int, k: int) -> None:
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    extra = (torch.randn(m, n, device="cuda").bfloat16() if kind in matmul_epilogue.C_KINDS
             else torch.randn(n, device="cuda") * 8)
    scalars = [matmul_epilogue.ALPHA, matmul_epilogue.BETA] if kind == "alpha_beta" else []
    (out,) = execute(lower(fusion), [a, b, extra, *scalars])
    expected = torch_epilogue(torch, kind, a, b, extra, torch.float64)
    err = ((out.double() - expected).norm() / expected.norm()).item()
    torch_err = ((torch_epilogue(torch, kind, a, b, extra, torch.bfloat16).double() - expected).norm()
                 / expected.norm()).item()
    assert err < 1.5 * torch_err, (err, torch_err)     # a bf16 result: as close as torch's bf16 result


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_the_suggested_kernel_matches_torch(kind: str, shape: tuple[int, int, int]) -> None:
    torch = torch_or_skip()
    fusion = matmul_epilogue.fusion_of(kind, shape)
    schedule_matmul(fusion, suggest_matmul_params(fusion, sms=sm_count()))
    _check(torch, fusion, kind, *shape)


@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_the_persistent_whole_tile_kernel_matches_torch(kind: str) -> None:
    torch = torch_or_skip()
    _check(torch, matmul_epilogue.build(kind, blocks=sm_count(), group_m=8), kind, 4096, 4096, 4096)


@pytest.mark.parametrize("kind", ["bias_relu", "bias_gelu"])
def test_ping_pong_sub_tiled_matches_torch(kind: str) -> None:
    torch = torch_or_skip()
    fusion = matmul_epilogue.build(kind, blocks=sm_count(), group_m=8, ping_pong=True, tile=(128, 128, 64),
                                   stages=4, epilogue_tile=(128, 32))
    _check(torch, fusion, kind, *SHAPES[1])


@pytest.mark.parametrize("tma_store", [True, False], ids=["tma_store", "register_store"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_ping_pong_with_an_epilogue_input_matches_torch(kind: str, shape: tuple[int, int, int], tma_store: bool) -> None:
    """Each ping-pong warp group TMA-loads the C tile (or the bias) of its own turn."""
    torch = torch_or_skip()
    fusion = matmul_epilogue.build(kind, blocks=sm_count(), group_m=8, ping_pong=True, tile=(128, 128, 64),
                                   stages=4, tma_store=tma_store)
    _check(torch, fusion, kind, *shape)


@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
def test_the_suggested_ping_pong_kernel_at_short_k_matches_torch(kind: str) -> None:
    """K = 128: the suggestion is ping-pong, with C or a bias as for the plain matmul."""
    torch = torch_or_skip()
    fusion = matmul_epilogue.fusion_of(kind, (4096, 4096, 128))
    params = suggest_matmul_params(fusion, sms=sm_count())
    assert params.ping_pong
    schedule_matmul(fusion, params)
    _check(torch, fusion, kind, 4096, 4096, 128)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("kind", ["alpha_beta", "residual", "bias_gelu"])
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean_on_ping_pong(tool: str, kind: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_epilogue", kind, "ping_pong")


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("kind", ["bias_gelu", "alpha_beta"])
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str, kind: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_epilogue", kind, "sub_tiled")


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("kind", ["bias_gelu", "alpha_beta"])
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean_on_a_carried_ring(tool: str, kind: str) -> None:
    """The persistent 256 x 128 tile's ring of 256 x 32 staging tiles carried across tiles (store_wait="carried")."""
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_epilogue", kind, "carried")


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_two_outputs_match_torch(shape: tuple[int, int, int]) -> None:
    """The pre-activation and the activation (``bias_gelu_pre``), both from one suggested kernel."""
    torch = torch_or_skip()
    m, n, k = shape
    fusion = matmul_epilogue.fusion_of("bias_gelu_pre", shape)
    schedule_matmul(fusion, suggest_matmul_params(fusion, sms=sm_count()))
    a = torch.randn(m, k, device="cuda").bfloat16()
    b = torch.randn(k, n, device="cuda").bfloat16()
    bias = torch.randn(n, device="cuda") * 8
    pre, act = execute(lower(fusion), [a, b, bias])
    expected = a.double() @ b.double() + bias.double()
    for out, ref in ((pre, expected), (act, torch.nn.functional.gelu(expected, approximate="tanh"))):
        err = ((out.double() - ref).norm() / ref.norm()).item()
        assert err < 1e-2, err          # a bf16 result (2^-8 relative rounding)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_an_fp16_residual_read_by_ldmatrix_matches_torch(shape: tuple[int, int, int]) -> None:
    """a @ b + C with C in fp16 (the result bf16): C's shared tile is read by ldmatrix as a bf16 C is."""
    from fusion_ir import DataType, ops
    from lowering import kernel_ir as k

    torch = torch_or_skip()
    m, n, kk = shape
    fusion = _fusion_with(shape, (m, n), DataType.Half,
                          lambda acc, c: ops.cast(ops.add(acc, c), DataType.BFloat16))
    schedule_matmul(fusion)
    kernel = lower(fusion)
    assert any(isinstance(x, k.LdMatrix) for x in k.walk(kernel.body))
    ta = torch.randn(m, kk, device="cuda").bfloat16()
    tb = torch.randn(kk, n, device="cuda").bfloat16()
    tc = torch.randn(m, n, device="cuda").half()
    (out,) = execute(kernel, [ta, tb, tc])
    expected = ta.double() @ tb.double() + tc.double()
    err = ((out.double() - expected).norm() / expected.norm()).item()
    theirs = ((torch.addmm(tc.bfloat16(), ta, tb).double() - expected).norm() / expected.norm()).item()
    assert err < 1.5 * theirs, (err, theirs)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_a_relu_into_fp16_written_in_packed_pairs_matches_torch(shape: tuple[int, int, int]) -> None:
    """relu(a @ b + bias) to fp16: the relu folded into the packed conversion (``cvt.rn.relu.f16x2.f32``,
    ``codegen.packed_pairs``), a NaN staying a NaN as torch's relu keeps it."""
    from fusion_ir import DataType, ops

    torch = torch_or_skip()
    m, n, kk = shape
    fusion = _fusion_with(shape, (n,), DataType.Float, lambda acc, bias: ops.cast(
        ops.relu(ops.add(acc, ops.broadcast(bias, [True, False]))), DataType.Half))
    schedule_matmul(fusion)
    kernel = lower(fusion)
    from codegen import to_cuda

    assert "reluPairHalf(" in to_cuda(kernel).split("__global__")[-1]
    ta = torch.randn(m, kk, device="cuda").bfloat16()
    tb = torch.randn(kk, n, device="cuda").bfloat16()
    tbias = torch.randn(n, device="cuda")
    tbias[7] = float("nan")
    (out,) = execute(kernel, [ta, tb, tbias])
    expected = torch.relu(ta.double() @ tb.double() + tbias.double())
    assert out.dtype == torch.float16 and torch.isnan(out[:, 7]).all()
    finite = torch.ones(n, dtype=torch.bool, device="cuda")
    finite[7] = False
    err = ((out[:, finite].double() - expected[:, finite]).norm() / expected[:, finite].norm()).item()
    assert err < 1e-3, err          # an fp16 result: its rounding is 2^-11 of each element


def _fusion_with(shape: tuple[int, int, int], extra: tuple[int, ...], dtype, output):
    """bf16 ``a [M, K] @ b [K, N]`` and a third input of ``extra`` and ``dtype``; the output ``output(a @ b, it)``."""
    from fusion_ir import DataType, Fusion, ops

    m, n, kk = shape
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, kk), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(kk, n), dtype=DataType.BFloat16)
        third = fusion.add_input(shape=extra, dtype=dtype)
        fusion.add_output(output(ops.matmul(a, b), third))
    return fusion
