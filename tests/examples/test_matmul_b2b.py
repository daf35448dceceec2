"""examples/matmul_b2b: ``cast(relu(x @ w1), bf16) @ w2`` in one kernel, the first accumulator's bf16 fragment the
second wgmma's A operand in registers. The simulator against numpy at sizes that are not tile multiples; the kernel
IR the lowering makes of it; the schedules the ``mma`` analysis refuses for a register operand."""

from __future__ import annotations

import pytest

from examples import matmul_b2b
from fusion_ir import ParallelType
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from lowering.analysis.mma import RegisterOperand
from lowering.errors import LoweringError
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

M, K1 = 200, 136          # a ragged last row tile, and a ragged last K1 tile (136 = 2 x 64 + 8)


@pytest.mark.parametrize("n2", [64, 256])
@pytest.mark.parametrize("n1", [64, 128])
def test_matches_numpy(n1: int, n2: int) -> None:
    fusion = matmul_b2b.build(M, K1, n1, n2)
    kernel = lower(fusion)
    for seed in (0, 1):
        inputs = random_inputs(fusion, matmul_b2b.input_shapes(M, K1, n1, n2), seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_b2b.TOLERANCE)


@pytest.mark.parametrize("m,k1,n1,n2", [(64, 64, 16, 16), (1, 8, 32, 32), (130, 296, 256, 256)])
def test_edge_sizes_match_numpy(m: int, k1: int, n1: int, n2: int) -> None:
    """One k-step of A (N1 = 16), one row and a one-vector K1, and the widest tiles (whole 256-column fragments)."""
    fusion = matmul_b2b.build(m, k1, n1, n2)
    inputs = random_inputs(fusion, matmul_b2b.input_shapes(m, k1, n1, n2), seed=3)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs, seed=3), tol=matmul_b2b.TOLERANCE)


def _mmas(kernel: k.Kernel) -> list[k.Mma]:
    return [n for n in k.walk(kernel.body) if isinstance(n, k.Mma)]


def test_the_second_matmul_reads_its_a_operand_from_the_first_ones_registers() -> None:
    traced = lower(matmul_b2b.build(M, K1, 128, 64), trace=True)
    mma = traced.analyses.mma
    first, second = (mma.tiles[acc] for acc in traced.analyses.tensor_cores.accumulators)
    assert not isinstance(first.a, RegisterOperand)
    assert isinstance(second.a, RegisterOperand) and second.a.k_steps == 128 // 16
    p = second.a.tv
    assert traced.analyses.tensor_cores.operand_of(p)[0][1].in_registers
    # the operand's registers are exactly its fragment: N1 / 2 per thread, the k-step's 8 from 8 t
    assert traced.analyses.buffers.buffers[p].size.const_value() == 64
    assert [second.a.first_register(Val.const(16 * t)).const_value() for t in range(4)] == [0, 8, 16, 24]
    a_shared, a_registers = _mmas(traced.kernel)
    assert isinstance(a_shared.a, k.MatrixDescriptor)
    assert isinstance(a_registers.a, k.RegisterFragment) and a_registers.a.buffer.name == f"T{p.name}"


def test_the_register_run_is_fenced_and_retired_before_the_output_reads_it() -> None:
    kernel = lower(matmul_b2b.build(M, K1, 64, 64))
    body = list(kernel.body)
    (loop,) = [n for n in body if isinstance(n, k.ForLoop) and any(
        isinstance(x, k.Mma) and isinstance(x.a, k.RegisterFragment) for x in k.walk(n.body))]
    at = body.index(loop)
    assert isinstance(body[at - 1], k.WgmmaFence)
    assert isinstance(body[at + 1], k.AsyncCommit) and body[at + 2] == k.AsyncWait(k.AsyncKind.Wgmma, 0)


def test_an_a_operand_in_registers_must_be_laid_out_as_a_fragment() -> None:
    fusion = matmul_b2b.build(64, 64, 64, 64)
    p = fusion.outputs[0].definition.inputs[0].definition.inputs[0]    # out = set(o), o = p @ w2s
    assert p.loop[-1].parallel_type is ParallelType.Unroll
    p.axis(-1).parallelize(ParallelType.Serial)          # the column pair's register is no longer a constant
    with pytest.raises(LoweringError, match=r"fragment axis .* must be an unrolled loop axis"):
        lower(fusion)


def test_n_must_be_whole_k_steps() -> None:
    with pytest.raises(ValueError, match="N1 = 24 and N2 = 64 must be multiples of 16"):
        matmul_b2b.build(64, 64, 24, 64)
