"""GPU tier (``pytest -m gpu``): the op families beyond the basic ones on an H100.

Every fusion of ``tests/fusion_ir/op_cases.py`` (comparisons, logical ops, ``where``, unary math,
``pow``, ``clamp``, ``mean``, ``var_mean``, ``iota``, ``full``, ``reshape``) runs through NVRTC against
the float64 numpy reference on fresh random inputs, and one fusion per family against torch's own op.
"""

from __future__ import annotations

import secrets

import numpy as np
import pytest

from fusion_ir.reference import evaluate
from lowering import lower
from runtime import execute
from tests.fusion_ir.op_cases import CASES, OpCase, case
from tests.runtime.test_simulator_ops import check_outputs

pytestmark = pytest.mark.gpu


def _import_torch() -> tuple[object, str]:
    # at collection, before a test has touched CUDA (tests/runtime/test_executor_gpu.py says why)
    try:
        import torch
    except Exception as e:  # noqa: BLE001 - importorskip would let errors other than ImportError through
        return None, f"torch does not import here: {type(e).__name__}: {e}"
    return torch, ""


TORCH, TORCH_ERROR = _import_torch()


def torch_or_skip():
    if TORCH is None:
        pytest.skip(TORCH_ERROR)
    if not TORCH.cuda.is_available():
        pytest.skip("torch sees no GPU")
    return TORCH


def run(name: str, seed: int) -> tuple[OpCase, list[np.ndarray], list[np.ndarray]]:
    """The case's inputs and its outputs on the GPU."""
    op_case = case(name)
    fusion = op_case.build()
    inputs = op_case.inputs(fusion, seed)
    return op_case, inputs, [np.asarray(o) for o in execute(lower(fusion), inputs)]


@pytest.mark.parametrize("op_case", CASES, ids=[c.name for c in CASES])
def test_gpu_matches_reference(op_case: OpCase) -> None:
    seed = secrets.randbits(32)
    fusion = op_case.build()
    inputs = op_case.inputs(fusion, seed)
    outputs = [np.asarray(o) for o in execute(lower(fusion), inputs)]
    check_outputs(op_case, outputs, evaluate(fusion, inputs), f"GPU, seed {seed}")


def test_comparisons_and_where_match_torch() -> None:
    torch = torch_or_skip()
    _, (x, y), (out,) = run("where_tensors", secrets.randbits(32))
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    np.testing.assert_array_equal(out, torch.where(tx >= ty, tx, ty).cpu().numpy())
    _, (x, y), (lt, lt_scalar) = run("lt", secrets.randbits(32))
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda().float()
    np.testing.assert_array_equal(lt, (tx < ty).cpu().numpy())
    np.testing.assert_array_equal(lt_scalar, (tx < 0.5).cpu().numpy())


@pytest.mark.parametrize(("name", "fn"), [
    ("erf", lambda t, x: t.erf(x)), ("silu", lambda t, x: t.nn.functional.silu(x)),
    ("log1p", lambda t, x: t.log1p(x.abs())), ("expm1", lambda t, x: t.expm1(x)),
    ("clamp", lambda t, x: t.clamp(x, -0.5, 0.75)),
])
def test_unary_math_matches_torch(name: str, fn) -> None:
    torch = torch_or_skip()
    _, (x,), outputs = run(name, secrets.randbits(32))
    expected = fn(torch, torch.from_numpy(x).cuda()).cpu().numpy()
    np.testing.assert_allclose(outputs[0], expected, rtol=2e-6, atol=1e-7)


def test_pow_matches_torch() -> None:
    torch = torch_or_skip()
    _, (x, y), (out,) = run("pow_tensor_exponent", secrets.randbits(32))
    tx, ty = torch.from_numpy(x).cuda(), torch.from_numpy(y).cuda()
    np.testing.assert_allclose(out, torch.pow(tx.abs() + 0.5, ty).cpu().numpy(), rtol=2e-6)


def test_var_mean_matches_torch_on_data_far_from_zero() -> None:
    torch = torch_or_skip()
    _, (x,), (var, mean) = run("var_mean_offset_1e4", secrets.randbits(32))
    t_var, t_mean = torch.var_mean(torch.from_numpy(x).cuda(), dim=1, correction=1)
    np.testing.assert_allclose(mean, t_mean.cpu().numpy(), rtol=1e-6)
    # against the float64 variance of the same float32 inputs: ours within 1e-4, or no worse than twice torch's
    # (both accumulate in float32; which of them is nearer varies with the draw)
    exact = np.var(x.astype(np.float64), axis=1, ddof=1)
    ours = float(np.max(np.abs(var - exact) / exact))
    theirs = float(np.max(np.abs(t_var.cpu().numpy() - exact) / exact))
    print(f"var_mean relative error: ours {ours:.2e}, torch {theirs:.2e}")
    assert ours < 1e-4 or ours <= 2 * theirs, (ours, theirs)


def test_causal_mask_from_iota_matches_torch() -> None:
    torch = torch_or_skip()
    _, (x,), (out,) = run("iota_causal_mask", secrets.randbits(32))
    tx = torch.from_numpy(x).cuda()
    keep = torch.ones(x.shape, dtype=torch.bool, device="cuda").tril()
    np.testing.assert_array_equal(out, tx.masked_fill(~keep, float("-inf")).cpu().numpy())


def test_reshape_matches_torch() -> None:
    torch = torch_or_skip()
    _, (x,), (out,) = run("reshape_merge_symbolic", secrets.randbits(32))
    expected = torch.from_numpy(x).cuda().reshape(x.shape[0], -1).exp().cpu().numpy()
    np.testing.assert_allclose(out, expected, rtol=2e-6)
