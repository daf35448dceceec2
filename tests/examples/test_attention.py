"""examples/attention.py: the unscheduled attention fusion against its float64 numpy reference, through the fusion's
numpy evaluation (any size) and through the one-thread kernel in the simulator (tiny sizes)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import examples
from examples import attention
from fusion_ir import DataType, MmaOp
from fusion_ir.reference import evaluate
from fusion_ir.schedulers import AttentionParams, schedule
from fusion_ir.schedulers.auto import AutoScheduleWarning
from lowering import lower
from runtime import simulate
from tests.helpers import rel_error

# (batch, heads, seq_q, seq_kv, head_dim): Sq = Skv, Sq < Skv, Sq > Skv
SHAPES = [(1, 2, 40, 40, 64), (1, 2, 40, 56, 64), (2, 1, 48, 33, 32)]


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_the_fusion_computes_attention(shape: tuple[int, ...], causal: bool) -> None:
    """``evaluate`` of the fusion (float64, the bf16 cast of p not rounded) is the reference, for several inputs."""
    fusion = attention.fusion_of(*shape, causal=causal)
    for seed in (0, 1, 2):
        inputs = attention.make_inputs(*shape, seed=seed)
        (out,) = evaluate(fusion, inputs)
        np.testing.assert_allclose(out, attention.reference(*inputs, causal=causal), rtol=1e-12, atol=1e-12)


def test_the_mask_is_torch_is_causal_top_left() -> None:
    """Query i sees keys 0..i, whether Sq is under or over Skv: with v the identity, each row of the output is that
    row's softmax, zero past the diagonal (Sq > Skv: the last rows see every key)."""
    for seq_q, seq_kv in [(5, 8), (8, 5)]:
        q, k, _ = attention.make_inputs(1, 1, seq_q, seq_kv, 8, seed=3)
        p = attention.reference(q, k, np.eye(seq_kv)[None, None], causal=True)[0, 0]
        for i in range(seq_q):
            assert np.all(p[i, i + 1:] == 0) and np.all(p[i, :i + 1] > 0)
            assert p[i].sum() == pytest.approx(1.0)


def test_the_symbolic_fusion_takes_any_size() -> None:
    fusion = attention.fusion_of(head_dim=16, causal=True, symbolic=True)
    assert all(len(tv.logical) == 4 and tv.dtype is DataType.BFloat16 for tv in fusion.inputs)
    for shape in [(1, 1, 7, 9, 16), (2, 3, 12, 5, 16)]:
        inputs = attention.make_inputs(*shape, seed=4)
        (out,) = evaluate(fusion, inputs)
        np.testing.assert_allclose(out, attention.reference(*inputs, causal=True), rtol=1e-12, atol=1e-12)


def test_the_inputs_are_fresh_bf16_values() -> None:
    a = attention.make_inputs(1, 2, 8, 6, 16, seed=0)
    b = attention.make_inputs(1, 2, 8, 6, 16, seed=1)
    assert [x.shape for x in a] == [(1, 2, 8, 16), (1, 2, 6, 16), (1, 2, 6, 16)]
    assert all(x.dtype == np.float32 for x in a)
    assert all(not (x.view(np.uint32) & np.uint32(0xFFFF)).any() for x in a)     # exact in bf16: low 16 bits zero
    assert not np.array_equal(a[0], b[0])


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_the_one_thread_kernel_matches_in_the_simulator(causal: bool) -> None:
    """Lowered unscheduled (one thread, asked for: no warning): the kernel rounds p to bf16 before the second
    matmul and the result to bf16, so it matches the float64 reference within bf16's precision."""
    shape = (1, 1, 24, 20, 16)
    fusion = attention.fusion_of(*shape, causal=causal)
    fusion.auto_schedule = False
    for seed in (0, 1):
        inputs = attention.make_inputs(*shape, seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("error", AutoScheduleWarning)
            (out,) = simulate(lower(fusion), inputs, seed=seed)
        assert rel_error(out, attention.reference(*inputs, causal=causal)) < attention.TOLERANCE


def test_the_printed_fusion_shows_the_transpose_and_both_matmuls() -> None:
    text = str(attention.fusion_of(causal=True))
    assert text.count("= mma(") == 2
    assert "Set.Permute(" in text and "dims = {0, 1, 3, 2}" in text
    assert "iota(" in text and "le(" in text and "where(" in text and "-inf" in text
    for op in ("op = max", "exp(", "op = sum", " / T", "__to_bfloat16("):
        assert op in text, op
    assert "iota(" not in str(attention.fusion_of(causal=False))


def test_the_attention_scheduler_takes_it_and_its_kernel_matches_numpy() -> None:
    """``schedule`` gives the fusion to the attention scheduler (the online-softmax rewrite, then the CUDA-core
    schedule); its kernel in the simulator matches the float64 reference within bf16's rounding of p."""
    fusion = attention.fusion_of(1, 2, 33, 70, 16, causal=True)
    assert sum(isinstance(e, MmaOp) for e in fusion.exprs) == 2 and "attention" in examples.scheduled_names()
    params = schedule(fusion)
    assert isinstance(params, AttentionParams)
    x = attention.make_inputs(1, 2, 33, 70, 16, seed=5)
    (out,) = simulate(fusion, x)
    want = attention.reference(*x, causal=True)
    assert np.abs(out - want).max() <= attention.TOLERANCE * np.abs(want).max()


@pytest.mark.parametrize("shape, causal, seeds", [
    ((1, 2, 200, 200, 64), False, (11,)),
    ((2, 1, 256, 256, 128), False, (12,)),
    ((1, 2, 70, 131, 32), True, (13, 14, 15)),       # causal with Sq != Skv (top-left aligned)
    ((2, 1, 131, 70, 32), True, (16,)),
], ids=str)
def test_the_scheduled_kernel_simulates_to_numpy(shape, causal: bool, seeds) -> None:
    """The attention scheduler's kernel at the sizes the attention issue names, in the simulator, against the
    float64 reference (fresh bf16 inputs per seed)."""
    fusion = attention.build(*shape, causal=causal)
    kernel = lower(fusion)
    for seed in seeds:
        x = attention.make_inputs(*shape, seed=seed)
        (out,) = simulate(kernel, x)
        assert rel_error(out, attention.reference(*x, causal)) <= attention.TOLERANCE
