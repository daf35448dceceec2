"""The transpose scheduler: its params and rules, and its schedules simulated against numpy at sizes no tile
divides, batched, with ops after the permute, and with the innermost axis kept."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, SmemSwizzle, ops
from fusion_ir.schedulers import TransposeParams, schedule, transpose
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _permute(shape: tuple[int, ...], perm: tuple[int, ...], dtype: DataType = DataType.Float,
             then: DataType | None = None) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=dtype)
        y = ops.permute(x, perm)
        if then is not None:
            y = ops.cast(ops.add(ops.mul(y, 2.0), 1.0), then)
        fusion.add_output(y)
    return fusion


def _run(*args, tol: float = 1e-5) -> TransposeParams:
    fusion = _permute(*args)
    params = schedule(fusion)
    assert isinstance(params, TransposeParams)
    inputs = random_inputs(fusion, [args[0]], 0)
    assert_matches(_permute(*args), inputs, simulate(fusion, inputs), tol=tol)
    return params


@pytest.mark.parametrize("shape", [(37, 129), (256, 264), (1, 45)])
def test_a_2d_transpose_matches_numpy(shape: tuple[int, int]) -> None:
    params = _run(shape, (1, 0))
    assert (params.tile, params.rows, params.swizzle) == (32, 8, SmemSwizzle.B128)
    assert params.vectorize_load == (4 if shape[1] % 4 == 0 else 1)
    assert params.vectorize_store == (4 if shape[0] % 4 == 0 else 1)


@pytest.mark.parametrize(("shape", "perm"), [((3, 37, 70), (0, 2, 1)), ((5, 6, 40), (2, 0, 1)),
                                             ((3, 5, 7, 9), (3, 1, 0, 2))])
def test_batched_and_other_permutations_match_numpy(shape: tuple[int, ...], perm: tuple[int, ...]) -> None:
    _run(shape, perm)


def test_bf16_tiles_are_64_wide_and_ops_after_the_permute_inline() -> None:
    params = _run((3, 70, 130), (0, 2, 1), DataType.BFloat16, DataType.Float, tol=1e-2)
    assert (params.tile, params.rows, params.vectorize_load, params.vectorize_store) == (64, 4, 2, 2)
    assert "64 elements" in params.why["tile"]
    assert "halved to 2: the input's innermost extent 130" in params.why["vectorize_load"]
    assert "16 bytes of 4-byte elements: 4, halved to 2: the output's innermost extent 70" in params.why["vectorize_store"]


def test_bf16_reads_eight_elements_a_thread_and_stores_one() -> None:
    """Measured on the H100: a bf16 store vector gathered from as many tile rows ran slower than none."""
    params = _run((3, 64, 136), (0, 2, 1), DataType.BFloat16, None, tol=1e-2)
    assert (params.vectorize_load, params.vectorize_store) == (8, 1)
    assert "stored one by one" in params.why["vectorize_store"]


def test_a_given_bf16_store_vector_still_matches_numpy() -> None:
    from dataclasses import replace

    from fusion_ir.schedulers.transpose import suggest

    fusion = _permute((3, 64, 136), (0, 2, 1), DataType.BFloat16, None)
    schedule(fusion, params=replace(suggest(fusion, None), vectorize_store=8))
    inputs = random_inputs(fusion, [(3, 64, 136)], 0)
    assert_matches(_permute((3, 64, 136), (0, 2, 1), DataType.BFloat16, None), inputs, simulate(fusion, inputs),
                   tol=1e-2)


def test_a_cast_to_bf16_after_the_permute_matches_numpy() -> None:
    _run((40, 72), (1, 0), DataType.Float, DataType.BFloat16, tol=1e-2)


def test_keeping_the_innermost_axis_needs_no_tile() -> None:
    params = _run((4, 5, 33), (1, 0, 2))
    assert params.tile == 0 and "coalesced without a tile" in params.why["tile"]


def test_the_tile_is_staged_in_swizzled_shared_memory_by_coalesced_threads() -> None:
    fusion = _permute((256, 264), (1, 0))
    schedule(fusion)
    (x,) = fusion.inputs
    (cache,) = x.consumers()
    (out,) = fusion.outputs
    assert cache.memory_type is MemoryType.Shared and cache.swizzle is SmemSwizzle.B128
    assert cache.compute_at_pos == 1
    # rows of the input's innermost axis read by TIDx in 16-byte vectors, rows of the output's innermost along TIDx
    assert [i.parallel_type for i in cache.loop[-3:]] == [ParallelType.TIDy, ParallelType.TIDx, ParallelType.Vectorize]
    assert [i.extent.const_value() for i in cache.loop[1:]] == [1, 8, 32, 4]
    # and the output written in 16-byte vectors from a register stage
    assert [i.parallel_type for i in out.loop[-3:]] == [ParallelType.TIDy, ParallelType.TIDx, ParallelType.Vectorize]
    (stage,) = out.producers()
    assert stage.memory_type is MemoryType.Local and stage.compute_at_pos == 4
    assert [i.extent.const_value() for i in out.loop[1:]] == [1, 8, 32, 4]
    kernel = lower(fusion)
    assert [b.const_value() for b in kernel.block] == [32, 8, 1]
    assert kernel.smem_bytes.const_value() == 32 * 32 * 4


def test_the_grid_has_one_block_a_tile() -> None:
    params = transpose.suggest(_permute((3, 70, 130), (0, 2, 1)), None)
    assert params.grid == 3 * 3 * 5


@pytest.mark.parametrize(("build", "reason"), [
    (lambda: _pointwise_only(), "the fusion has no permute"),
    (lambda: _two_outputs(), "it takes one output; the fusion has 2"),
    (lambda: _permute_of_computed(), "the permute T2 reads T1, a computed tensor"),
])
def test_declines_with_a_reason(build, reason: str) -> None:
    assert reason in transpose.decline(build(), None)


def _pointwise_only() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 8))
        fusion.add_output(ops.neg(x))
    return fusion


def _two_outputs() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 8))
        t = ops.transpose(x, 0, 1)
        fusion.add_output(t)
        fusion.add_output(ops.neg(t))
    return fusion


def _permute_of_computed() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 8))
        fusion.add_output(ops.transpose(ops.exp(x), 0, 1))
    return fusion
