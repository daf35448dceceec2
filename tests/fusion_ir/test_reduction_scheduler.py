"""fusion_ir.schedulers.reduction: sums and maxima over the last and the first axis, scheduled from the
suggested parameters and simulated against numpy (float64), the heuristic's choices at GPU sizes, and the
fusions it declines."""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from codegen import to_cuda
from examples import _reduction_fusions as fusions
from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.schedulers.protocol import HeuristicParams
from fusion_ir.schedulers.reduction import SCHEDULER, ReductionParams
from fusion_ir.schedulers.reduction_analysis import classify
from fusion_ir.schedulers.reduction_heuristic import suggest_reduction
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

SIZES = [(7, 33), (64, 300), (3, 1000)]
SEEDS = [0, 1, 2]


def run(fusion: Fusion, params: ReductionParams | None = None, tol: float = 1e-5) -> ReductionParams:
    """Schedule ``fusion`` (from ``params`` or the suggestion), then simulate it at several seeds."""
    params = params if params is not None else SCHEDULER.suggest(fusion, None)
    SCHEDULER.apply(fusion, params)
    kernel = lower(fusion)
    shapes = fusions.input_shapes(fusion)
    for seed in SEEDS:
        inputs = random_inputs(fusion, shapes, seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=tol)
    return params


@pytest.mark.parametrize("shape", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
@pytest.mark.parametrize("op", ["sum", "max"])
def test_reduction_matches_numpy(op: str, axis: int, shape: tuple[int, int]) -> None:
    params = run(fusions.reduction(shape, op, axis, square=True))
    assert params.kind == ("inner" if axis == 1 else "outer")


@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_bf16_input_reduces_in_float(axis: int) -> None:
    params = run(fusions.reduction((40, 96), "sum", axis, DataType.BFloat16), tol=1e-5)
    assert params.vectorize == 8      # 16 bytes of bf16


@pytest.mark.parametrize("splits", [1, 3])
@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_bf16_sum_without_a_cast_accumulates_in_float(axis: int, splits: int) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 296), dtype=DataType.BFloat16)
        fusion.add_output(ops.sum(x, [axis]))
    run(fusion, replace(SCHEDULER.suggest(fusion, None), grid_splits=splits), tol=1e-2)


@pytest.mark.parametrize("shape", [(3, 1000), (64, 300), (5, 37)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_grid_reduction_splits_match_numpy(axis: int, shape: tuple[int, int]) -> None:
    """A row (inner) or a column (outer) split across 3 blocks along BIDz, summed by the last to arrive."""
    fusion = fusions.reduction(shape, "sum", axis, square=True)
    params = replace(SCHEDULER.suggest(fusion, None), grid_splits=3)
    run(fusion, params)
    out = fusion.outputs[0]
    assert ParallelType.BIDz in [i.parallel_type for i in out.loop]


def test_the_suggestion_splits_few_rows_across_blocks() -> None:
    fusion = fusions.reduction((3, 1000), "max", 1)
    params = run(fusion)
    assert params.grid_splits > 1


def test_pointwise_ops_after_the_reduction_and_two_reductions() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(33, 200), dtype=DataType.Float)
        total = ops.sum(ops.abs(x), [1])
        fusion.add_output(ops.mul(total, 1.0 / 200))
        fusion.add_output(ops.max(x, [1]))
    run(fusion)


@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_two_reductions_each_reading_both_inputs(axis: int) -> None:
    """sum(x * y) and max(x - y): the second reduction's pointwise producer and the reduction itself are emitted
    inside the serial loop the first one opened over both caches."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(33, 96), dtype=DataType.Float)
        y = fusion.add_input(shape=(33, 96), dtype=DataType.Float)
        fusion.add_output(ops.sum(ops.mul(x, y), [axis]))
        fusion.add_output(ops.max(ops.sub(x, y), [axis]))
    run(fusion)


def test_a_1d_input_broadcast_along_the_rows_before_the_reduction() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(17, 64), dtype=DataType.Float)
        b = fusion.add_input(shape=(64,), dtype=DataType.Float)
        fusion.add_output(ops.sum(ops.add(x, ops.broadcast(b, [True, False])), [0]))
    run(fusion)


def test_symbolic_extents_take_the_given_sizes() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        fusion.add_output(ops.sum(x, [1]))
    assert "symbolic" in SCHEDULER.decline(fusion, None)
    params = SCHEDULER.suggest(fusion, [(64, 300)])
    SCHEDULER.apply(fusion, params)
    inputs = random_inputs(fusion, [(64, 300)], 0)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


def _domain(shape: tuple[int, int], axis: int, dtype: DataType = DataType.Float):
    domain = classify(fusions.reduction(shape, "sum", axis, dtype), None, "reduction")
    assert not isinstance(domain, str)
    return domain


def test_inner_heuristic_at_gpu_sizes() -> None:
    p = suggest_reduction(_domain((16384, 4096), 1), sms=132)
    assert (p.vectorize, p.threads_x, p.threads_y, p.grid_splits) == (4, 128, 1, 1)
    p = suggest_reduction(_domain((1024, 65536), 1), sms=132)
    assert (p.threads_x, p.grid_splits) == (512, 1)
    p = suggest_reduction(_domain((8, 1 << 20), 1), sms=132)
    # 8 rows leave 132 SMs x 2 resident blocks of 512 threads short: 264 / 8 = 33 splits, rounded up to 64
    # (512 blocks, each thread 8 vectors), not the 128 splits of 4 vectors that four blocks per SM asked
    assert (p.threads_x, p.grid_splits, p.blocks_per_sm) == (512, 64, 2)
    assert "132 SMs x 2" in p.why["grid_splits"]


def test_outer_heuristic_fills_the_sms() -> None:
    """x.sum(0) of [16384, 4096]: 32 column blocks of 256 threads, the rows split over enough blocks to give
    every one of 132 SMs four blocks (the hand-written example runs 64 threads in one serial loop)."""
    p = suggest_reduction(_domain((16384, 4096), 0), sms=132)
    assert (p.vectorize, p.threads_x, p.threads_y) == (4, 32, 8)
    assert p.threads == 256
    assert 32 * p.grid_splits >= 132 * 4
    p = suggest_reduction(_domain((1024, 65536), 0), sms=132)
    assert 512 * p.grid_splits >= 132 * 4 and p.grid_splits <= 1024 // (8 * 16)


def test_outer_few_rows_stay_on_one_thread_across_more_columns() -> None:
    """x.sum(0) of [8, 1M]: 8 rows on 8 threads left each thread one row and 4 block reductions of 8 values;
    one thread sums the 8 rows serially, 256 threads x 4 columns per block, 1024 blocks, no grid split."""
    p = suggest_reduction(_domain((8, 1 << 20), 0), sms=132)
    assert (p.vectorize, p.threads_x, p.threads_y, p.grid_splits, p.unroll) == (4, 256, 1, 1, 4)
    p = suggest_reduction(_domain((64, 1 << 20), 0), sms=132)
    assert (p.threads_x, p.threads_y) == (64, 4)           # 16 rows per thread
    p = suggest_reduction(_domain((4096, 16), 0), sms=132)
    assert (p.threads_x, p.threads_y) == (4, 64)           # narrow columns: the block still fills down the rows


def test_one_thread_down_the_rows_keeps_the_output_out_of_the_accumulation() -> None:
    """threads_y 1 is still a TIDy (a block reduction of one thread, no code): the sum accumulates in registers
    and the output is written once, never zeroed and read back in global memory."""
    fusion = fusions.reduction((8, 4096), "sum", 0)
    params = run(fusion)
    assert params.threads_y == 1
    source = to_cuda(lower(fusion))
    out = fusion.outputs[0]
    assert source.count(f"T{out.name}.data[") == 1


def test_every_field_has_a_rule_and_str_prints_it() -> None:
    p = SCHEDULER.suggest(fusions.reduction((16384, 4096), "sum", 0), None)
    assert isinstance(p, HeuristicParams) and p.scheduler == "reduction"
    text = str(p)
    for f in fields(p):
        if f.name in ("scheduler", "why"):
            continue
        assert f.name in p.why, f"no rule for {f.name}"
        assert p.why[f.name] in text


def test_params_are_frozen() -> None:
    p = SCHEDULER.suggest(fusions.reduction((64, 300), "sum", 1), None)
    with pytest.raises(AttributeError):
        p.threads_x = 1  # type: ignore[misc]


def _matmul() -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(64, 32), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(32, 64), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    return fusion


def _pointwise() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 32), dtype=DataType.Float)
        fusion.add_output(ops.exp(x))
    return fusion


def _two_domains() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 32), dtype=DataType.Float)
        fusion.add_output(ops.sum(x, [1]))
        fusion.add_output(ops.sum(x, [0]))
    return fusion


def _full_reduction() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(64, 32), dtype=DataType.Float)
        fusion.add_output(ops.sum(x, [0, 1]))
    return fusion


def _three_d() -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 64, 32), dtype=DataType.Float)
        fusion.add_output(ops.sum(x, [2]))
    return fusion


@pytest.mark.parametrize("build,words", [
    (_matmul, "matmul"),
    (_pointwise, "pointwise"),
    (_two_domains, "two different reduction domains"),
    (_full_reduction, "every axis"),
    (_three_d, "3-D"),
    (lambda: fusions.softmax((64, 32)), "normalization"),
], ids=["matmul", "pointwise", "two_domains", "full_reduction", "3d", "softmax"])
def test_declines_with_a_reason(build, words: str) -> None:
    fusion = build()
    reason = SCHEDULER.decline(fusion, None)
    assert reason is not None and words in reason
    with pytest.raises(ScheduleError, match="declines"):
        SCHEDULER.suggest(fusion, None)


def test_takes_a_plain_reduction() -> None:
    assert SCHEDULER.decline(fusions.reduction((64, 32), "max", 0), None) is None


def test_apply_refuses_other_params() -> None:
    with pytest.raises(ScheduleError, match="ReductionParams"):
        SCHEDULER.apply(fusions.reduction((64, 32)), HeuristicParams("normalization"))


@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_the_serial_loop_is_unrolled_by_the_suggested_factor(axis: int) -> None:
    fusion = fusions.reduction((16384, 4096), "sum", axis)
    params = SCHEDULER.suggest(fusion, None)
    SCHEDULER.apply(fusion, params)
    unrolled = [i for tv in fusion.used_tensors() if not tv.is_input for i in tv.loop
                if i.parallel_type is ParallelType.Unroll]
    assert params.unroll == 4 and unrolled and all(i.extent.const_value() == 4 for i in unrolled)


@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_a_block_over_the_targets_thread_limit_is_declined(axis: int) -> None:
    """The heuristic's blocks are H100 constants (256 threads for an outer sum, 128 or more for an inner one):
    on a GPU of 64 threads per block they lowered into a LoweringError; the scheduler declines them instead."""
    from fusion_ir.schedulers import schedule
    from target import H100, use

    with use(replace(H100, name="small GPU", max_threads_per_block=64)):
        fusion = fusions.reduction((7, 300) if axis == 1 else (300, 7), "sum", axis)
        reason = SCHEDULER.decline(fusion, None)
        assert reason is not None and "over small GPU's limit of 64 threads per block" in reason
        with pytest.raises(ScheduleError, match="threads_x x threads_y"):
            schedule(fusion)


def test_a_block_reduction_workspace_over_the_targets_shared_memory_is_declined() -> None:
    """8 bytes of shared workspace per thread: 512 threads along a row need 4 KiB, over a GPU of 2 KiB per block
    (a LoweringError from the launch limits before)."""
    from fusion_ir.schedulers import schedule
    from target import H100, use

    with use(replace(H100, name="small GPU", smem_per_block=2048)):
        fusion = fusions.reduction((2, 16384), "sum", 1)
        with pytest.raises(ScheduleError, match="bytes of block-reduction workspace, over small GPU's 2048 bytes"):
            schedule(fusion)


@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_a_permuted_input_is_declined(axis: int) -> None:
    """``sum(transpose(x), axis)``: the vector width came from the input's row (70, divisible by 2) while the
    domain's last axis is its column (33), an InputError at launch; both schedulers decline a permute."""
    from fusion_ir.schedulers import normalization

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(33, 70), dtype=DataType.Float)
        fusion.add_output(ops.sum(ops.set(ops.transpose(x, 0, 1)), axis))
    for scheduler in (SCHEDULER, normalization.SCHEDULER):
        reason = scheduler.decline(fusion, None)
        assert reason is not None and "permutes the axes of T0 ([1, 0])" in reason
