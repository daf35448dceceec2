"""``ParallelType.MisalignedVectorize``: a plain copy of a fusion input into shared memory in 16-byte vectors whose
source is aligned to one element only (rows of an odd number of bf16 elements). The lowering makes one vector
``Assign`` with a condition per element (``Assign.valid``); the simulator reads only the valid elements and writes
zeros for the rest; codegen reads the aligned chunks that hold them (``copyMisaligned``). The rules it checks,
mutations of its conditions, and the matmul operands that use it (docs/matmul.md, "Any K and any row stride")."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples.misaligned_vector import build
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ScheduleError, inline_most, ops
from fusion_ir.scalar import Val
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from lowering.kernel_ir import InputRule
from lowering.verify import VerifyError, verify
from runtime import SimulationError, simulate
from tests.helpers import assert_matches, random_inputs

MV = ParallelType.MisalignedVectorize


def _copies(kernel: k.Kernel) -> list[k.Assign]:
    return [n for n in k.walk(kernel.body) if isinstance(n, k.Assign) and n.valid is not None]


@pytest.mark.parametrize("shape", [(6, 37), (3, 8), (7, 1), (4, 16), (5, 3), (2, 63)])
def test_rows_of_any_length_match_numpy(shape: tuple[int, int]) -> None:
    fusion = build(*shape)
    kernel = lower(fusion)
    for seed in (0, 1):
        inputs = random_inputs(fusion, [shape], seed=40 + seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=1e-6)


def test_one_vector_assign_with_a_condition_per_element() -> None:
    (copy,) = _copies(lower(build(6, 37)))
    assert copy.vector == 8 and len(copy.valid) == 8 and copy.buffer.memory is MemoryType.Shared
    assert all("37" in str(c) for c in copy.valid) and len(set(map(str, copy.valid))) == 8


def test_no_divisibility_check_but_a_contiguity_check() -> None:
    """A misaligned vector runs past its row's end predicated, so its extent need not divide; its source must still
    hold the vector's elements consecutively."""
    rules = {c.rule for c in lower(build(6, 37)).checks}
    assert InputRule.VECTOR_DIVISIBLE not in rules and InputRule.VECTOR_CONTIGUOUS in rules


def test_the_cuda_reads_through_copy_misaligned() -> None:
    from codegen import to_cuda

    src = to_cuda(lower(build(6, 37)))
    assert "copyMisaligned<16, 2>(&T" in src and "__device__ __forceinline__ void copyMisaligned" in src


# ------------------------------------------------------------------ mutations of the conditions
def _with_valid(kernel: k.Kernel, valid: tuple) -> k.Kernel:
    def rewrite(body: tuple) -> tuple:
        out = []
        for n in body:
            if isinstance(n, k.Assign) and n.valid is not None:
                n = replace(n, valid=valid)
            out.append(k.map_bodies(n, rewrite))
        return tuple(out)
    return replace(kernel, body=rewrite(kernel.body))


def test_every_element_valid_reads_past_the_row() -> None:
    """Without the column conditions the last vector of the last row reads past the tensor: reported."""
    fusion = build(6, 37)
    inputs = random_inputs(fusion, [(6, 37)], seed=3)
    mutated = _with_valid(lower(fusion), tuple(Val.const(1) for _ in range(8)))
    with pytest.raises(SimulationError, match="out-of-bounds access T0"):
        simulate(mutated, inputs, seed=0)


def test_no_element_valid_copies_nothing() -> None:
    """With every condition false the tile is zeros: the result is wrong (the copy is what the conditions gate)."""
    fusion = build(6, 37)
    inputs = random_inputs(fusion, [(6, 37)], seed=3)
    (out,) = simulate(_with_valid(lower(fusion), tuple(Val.const(0) for _ in range(8))), inputs, seed=0)
    assert np.all(out == 0) and not np.all(inputs[0] == 0)


# ------------------------------------------------------------------ the rules
def _copy_fusion(dtype: DataType = DataType.BFloat16, cols: int = 37) -> tuple[Fusion, object, object]:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(6, cols), dtype=dtype)
        out = ops.add(x, x)
        fusion.add_output(out)
    tile = x.cache_after()
    return fusion, tile, out


def test_refused_on_a_tensor_that_is_no_copy_of_an_input() -> None:
    _, _, out = _copy_fusion()
    out.split(1, 8)
    with pytest.raises(ScheduleError, match=r"parallelize: MisalignedVectorize on .* needs a plain copy of a fusion "
                                            r"input \(cache_after\(LoadStoreOpType.Set\)\); T\d+ is not one"):
        out.parallelize(2, MV)


@pytest.mark.parametrize("dtype,width,match", [
    (DataType.BFloat16, 3, "is not a power of two"),
    (DataType.Float, 8, "32 bytes, over the 16-byte limit"),
    (DataType.BFloat16, 1, r"copies 1 x bfloat16 = 2 bytes; a misaligned vector is 4, 8 or 16 bytes of at least two"),
])
def test_refused_widths(dtype: DataType, width: int, match: str) -> None:
    _, tile, _ = _copy_fusion(dtype)
    tile.split(1, width)
    with pytest.raises(ScheduleError, match=match):
        tile.parallelize(2, MV)


def test_refused_into_registers() -> None:
    fusion, tile, out = _copy_fusion()
    for tv in (tile, out):
        tv.split(1, 8)
        tv.axis(1).parallelize(ParallelType.TIDx)
    tile.axis(2).parallelize(MV)
    inline_most(fusion)
    with pytest.raises(LoweringError, match=r"MisalignedVectorize axis .* copies into Local memory; a misaligned "
                                            r"vector is stored whole into shared memory"):
        lower(fusion)


def test_verify_refuses_a_condition_count_unlike_the_vector() -> None:
    kernel = lower(build(6, 37))
    bad = _with_valid(kernel, (Val.const(1),) * 3)
    with pytest.raises(VerifyError, match="a misaligned vector copies 8 elements of a global tensor unconverted, "
                                          "with one condition each; this one has 3 conditions"):
        verify(bad)
