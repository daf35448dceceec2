"""GPU tier: matmuls whose operand rows are not 16-byte multiples (K = 263, 1001, 262; N = 1001; an odd M of a
[K, M] A), which the compute warp groups load with cp.async or plain copies into the swizzled tiles the wgmma
reads (docs/matmul.md, "Any K and any row stride"), with the suggested parameters, against a float64 product of
the same inputs (numpy; and torch.matmul on the device where torch is installed) at small and large odd shapes.
compute-sanitizer memcheck, racecheck and synccheck on a cp.async and a plain-copy kernel (the zero-filling copies
past the edges keep their addresses inside the tensors)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, ops
from fusion_ir.schedulers import schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.matmul_problem import matmul_problem
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean

pytestmark = pytest.mark.gpu

# M, N, K, a given [K, M], b given [N, K]
SHAPES = {
    "small_k263": (200, 136, 263, False, False),
    "small_k263_bt": (200, 136, 263, False, True),
    "small_m201_at": (201, 136, 100, True, False),
    "k263": (2000, 3000, 263, False, False),
    "k262_cp_async4": (2000, 3000, 262, False, False),
    "k1001": (4096, 4096, 1001, False, False),
    "k1001_bt": (4096, 4096, 1001, False, True),
    "n1001": (1024, 1001, 1024, False, False),
}


def _fusion(m: int, n: int, k: int, ta: bool, tb: bool) -> tuple[Fusion, list[tuple[int, int]]]:
    shapes = [(k, m) if ta else (m, k), (n, k) if tb else (k, n)]
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=shapes[0], dtype=DataType.BFloat16)
        b = fusion.add_input(shape=shapes[1], dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(ops.transpose(a, 0, 1) if ta else a, ops.transpose(b, 0, 1) if tb else b))
    return fusion, shapes


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_suggested_kernel_matches_numpy(name: str) -> None:
    fusion, shapes = _fusion(*SHAPES[name])
    assert not matmul_problem(fusion).tma_operands
    kernel = lower(schedule_matmul(fusion))
    seed = int(np.random.default_rng().integers(2**31))          # fresh inputs every run
    inputs = random_inputs(fusion, shapes, seed=seed)
    try:
        assert_matches(fusion, inputs, execute(kernel, inputs), tol=1e-5)
    except AssertionError as e:
        raise AssertionError(f"{name}, inputs of seed {seed}: {e}") from e


@pytest.mark.parametrize("name", ["small_k263", "k263", "k1001", "k1001_bt", "n1001"])
def test_suggested_kernel_matches_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    m, n, k, ta, tb = SHAPES[name]
    fusion, shapes = _fusion(m, n, k, ta, tb)
    kernel = lower(schedule_matmul(fusion, suggest_matmul_params(fusion)))
    g = torch.Generator(device="cuda").manual_seed(1)
    a, b = (torch.randn(s, device="cuda", generator=g).bfloat16() for s in shapes)
    (out,) = execute(kernel, [a, b])
    a64, b64 = a.double(), b.double()
    expected = (a64.T if ta else a64) @ (b64.T if tb else b64)
    err = float(torch.linalg.norm(out.double() - expected) / torch.linalg.norm(expected))
    assert out.shape == (m, n) and not torch.isnan(out).any()
    assert err < 1e-5, f"{name}: relative error {err:.3e} against the float64 product"


SANITIZED = {"cp_async_k100": {"shape": [200, 264, 100], "tile": [128, 128, 64], "stages": 3},
             "plain_copies_k263_bt": {"shape": [200, 264, 263], "transpose_b": True, "tile": [128, 128, 64],
                                      "stages": 3},
             # A's last row ends 14 bytes into a 16-byte granule: its misaligned vectors read no chunk past it
             "misaligned_m201_k263": {"shape": [201, 264, 263], "tile": [128, 128, 64], "stages": 3}}


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("mode", sorted(SANITIZED))
def test_compute_sanitizer_is_clean(tool: str, mode: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul", json.dumps(SANITIZED[mode]))
