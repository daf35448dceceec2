"""fusion_ir.schedulers.normalization: softmax, log-softmax, layer norm and RMS norm over the last axis
(inner persistent) and the first (outer persistent), fp32 and bf16, simulated against numpy (float64); the
persistent buffers in registers or shared memory; the heuristic at GPU sizes; the fusions it declines."""

from __future__ import annotations

from dataclasses import fields, replace

import numpy as np
import pytest

from examples import _reduction_fusions as fusions
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ScheduleError, ops
from fusion_ir.schedulers import schedule
from fusion_ir.schedulers.normalization import (
    SCHEDULER,
    NormalizationParams,
    live_across_reductions,
    persistent_tensors,
)
from fusion_ir.schedulers.normalization_heuristic import REGISTERS, SHARED
from fusion_ir.schedulers.protocol import HeuristicParams
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

SIZES = [(7, 33), (64, 300), (3, 1000)]
SEEDS = [0, 1, 2]
BUILDERS = {"softmax": fusions.softmax, "log_softmax": fusions.log_softmax, "layer_norm": fusions.layer_norm,
            "rms_norm": fusions.rms_norm}


def run(fusion: Fusion, params: NormalizationParams | None = None) -> NormalizationParams:
    """Schedule ``fusion`` (from ``params`` or the suggestion), then simulate it at several seeds."""
    params = params if params is not None else SCHEDULER.suggest(fusion, None)
    SCHEDULER.apply(fusion, params)
    kernel = lower(fusion)
    bf16 = any(tv.dtype is DataType.BFloat16 for tv in fusion.outputs)
    shapes = fusions.input_shapes(fusion)
    for seed in SEEDS:
        inputs = random_inputs(fusion, shapes, seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=1e-2 if bf16 else 1e-5)
    return params


@pytest.mark.parametrize("shape", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("dtype", [DataType.Float, DataType.BFloat16], ids=["fp32", "bf16"])
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_inner_normalization_matches_numpy(name: str, dtype: DataType, shape: tuple[int, int]) -> None:
    params = run(BUILDERS[name](shape, 1, dtype))
    assert params.kind == "inner" and params.persistent_memory == REGISTERS


@pytest.mark.parametrize("shape", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("name", ["softmax", "layer_norm"])
def test_outer_normalization_matches_numpy(name: str, shape: tuple[int, int]) -> None:
    params = run(BUILDERS[name](shape, 0, DataType.Float))
    assert params.kind == "outer"


@pytest.mark.parametrize("name", ["log_softmax", "rms_norm"])
def test_outer_bf16(name: str) -> None:
    run(BUILDERS[name]((40, 96), 0, DataType.BFloat16))


def test_the_input_row_is_read_once_from_a_register_buffer() -> None:
    """Softmax keeps the cached row and exp(x - max) whole per thread: both are persistent, in registers,
    with the cache's vector axis a 16-byte load."""
    fusion = fusions.softmax((64, 1024))
    params = run(fusion)
    persistent = persistent_tensors(fusion)
    assert len(persistent) == 2
    assert all(tv.memory_type is MemoryType.Local for tv in persistent)
    cache = fusion.inputs[0].consumers()[0]
    assert cache.loop[-1].parallel_type is ParallelType.Vectorize and params.vectorize == 4
    assert fusion.outputs[0].loop[-1].parallel_type is ParallelType.Vectorize


@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
@pytest.mark.parametrize("name", ["softmax", "layer_norm"])
def test_persistent_buffers_in_shared_memory(name: str, axis: int) -> None:
    fusion = BUILDERS[name]((9, 200), axis, DataType.Float)
    params = replace(SCHEDULER.suggest(fusion, None), persistent_memory=SHARED)
    run(fusion, params)
    assert all(tv.memory_type is MemoryType.Shared for tv in persistent_tensors(fusion) if not tv.is_input)


def test_hidden_16384_keeps_two_blocks_per_sm_in_registers() -> None:
    """1024 threads x 4 vectors hold a 16384 row, but only one such block fits an SM (a block's reductions and
    exp then leave the SM's memory pipe idle): 512 threads x 8 vectors keep 2 blocks, the 32 live words of
    each thread under __launch_bounds__(512, 2)'s 64 registers."""
    for build in (fusions.softmax, fusions.layer_norm):
        p = SCHEDULER.suggest(build((4096, 16384)), None)
        assert (p.vectorize, p.threads_x, p.persistent_batch, p.persistent_memory, p.blocks_per_sm) == \
            (4, 512, 8, REGISTERS, 2), p
        assert "2 blocks of 512 threads" in p.why["blocks_per_sm"]
    p = SCHEDULER.suggest(fusions.softmax((4096, 16384), 1, DataType.BFloat16), None)
    assert (p.vectorize, p.threads_x, p.persistent_batch, p.blocks_per_sm) == (8, 512, 4, 2)
    p = SCHEDULER.suggest(fusions.softmax((16384, 4096), 1, DataType.BFloat16), None)
    assert (p.vectorize, p.threads_x, p.persistent_batch, p.blocks_per_sm) == (8, 128, 4, 2)


def test_two_blocks_cap_the_kernels_registers() -> None:
    fusion = fusions.softmax((4096, 16384))
    SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, None))
    kernel = lower(fusion)
    assert kernel.min_blocks_per_sm == 2 and kernel.launch_bounds == 512


def test_only_the_buffers_held_across_a_reduction_count_as_live() -> None:
    """softmax keeps x across the max and exp(x - max) across the sum: never both (exp replaces x as x dies)."""
    fusion = fusions.softmax((64, 128))
    persistent = persistent_tensors(fusion)
    assert len(persistent) == 2
    assert live_across_reductions(fusion, persistent) == [fusion.inputs[0]]


def test_softmax_multiplies_by_the_reciprocal_within_tolerance_of_dividing() -> None:
    fusion = fusions.softmax((64, 300))
    SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, None))
    x = random_inputs(fusion, [(64, 300)], 0)[0]
    (out,) = simulate(lower(fusion), [x])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    assert np.max(np.abs(out - e / e.sum(axis=1, keepdims=True)) / (e / e.sum(axis=1, keepdims=True))) < 1e-6


def test_a_longer_row_goes_to_shared_memory_then_is_declined() -> None:
    p = SCHEDULER.suggest(fusions.layer_norm((64, 24576)), None)
    assert p.persistent_memory == SHARED and "shared memory" in p.why["persistent_memory"]
    assert p.blocks_per_sm == 1 and p.threads_x == 1024     # 48 live words per thread at 512: over 64 - 32
    reason = SCHEDULER.decline(fusions.layer_norm((64, 65536)), None)
    assert reason is not None and "not scheduled" in reason


def test_short_rows_share_a_block() -> None:
    p = SCHEDULER.suggest(fusions.rms_norm((4096, 256)), None)
    assert p.threads_x == 32 and p.threads_y == 4


def test_outer_narrows_its_columns_until_the_rows_fit_registers() -> None:
    p = SCHEDULER.suggest(fusions.softmax((1024, 16384), 0), None)
    assert p.kind == "outer" and p.persistent_memory == REGISTERS
    assert p.threads_x * p.vectorize * 4 < 128          # narrower than a 128-byte segment
    assert p.threads_x * p.threads_y <= 1024


def test_outer_takes_full_segments_at_one_block_where_the_column_blocks_are_many_waves() -> None:
    """1024 x 65536: 2048 blocks of 32 columns are 15.5 waves on 132 SMs: 128-byte row segments at one block per
    SM (87.5 % of copy on the H100 against 81.5 % for two blocks of 16 columns); at 16384 columns (3.9 waves) the
    two narrower blocks stay."""
    p = SCHEDULER.suggest(fusions.softmax((1024, 65536), 0), None)
    assert (p.threads_x * p.vectorize * 4, p.blocks_per_sm, p.persistent_memory) == (128, 1, REGISTERS)
    assert "waves of column blocks" in p.why["threads_x"]


def test_outer_keeps_two_blocks_of_16_columns_per_sm() -> None:
    """1024 rows x 32 columns (128-byte segments) need 1024 threads; 16 columns keep 2 blocks of 512 threads
    per SM, 8 rows x 4 columns live per thread under a 64-register cap (the 1024 rows of 64 columns a wider
    block would hold need 256 KB, more than an SM's registers or shared memory)."""
    p = SCHEDULER.suggest(fusions.softmax((1024, 4096), 0), None)
    assert (p.vectorize, p.threads_x, p.threads_y, p.persistent_batch, p.blocks_per_sm) == (4, 4, 128, 8, 2)


def test_every_field_has_a_rule_and_str_prints_it() -> None:
    p = SCHEDULER.suggest(fusions.layer_norm((16384, 4096)), None)
    assert isinstance(p, HeuristicParams) and p.scheduler == "normalization"
    text = str(p)
    for f in fields(p):
        if f.name in ("scheduler", "why"):
            continue
        assert f.name in p.why, f"no rule for {f.name}"
        assert p.why[f.name] in text


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
        a = ops.sub(x, ops.broadcast(ops.max(x, [1]), [False, True]))
        fusion.add_output(ops.sub(a, ops.broadcast(ops.sum(a, [0]), [True, False])))
    return fusion


@pytest.mark.parametrize("build,words", [
    (_matmul, "matmul"),
    (_pointwise, "pointwise"),
    (_two_domains, "two different reduction domains"),
    (lambda: fusions.reduction((64, 32)), "plain reduction"),
], ids=["matmul", "pointwise", "two_domains", "sum"])
def test_declines_with_a_reason(build, words: str) -> None:
    fusion = build()
    reason = SCHEDULER.decline(fusion, None)
    assert reason is not None and words in reason
    with pytest.raises(ScheduleError, match="declines"):
        SCHEDULER.suggest(fusion, None)


def test_takes_softmax_and_outer_layer_norm() -> None:
    assert SCHEDULER.decline(fusions.softmax((64, 32)), None) is None
    assert SCHEDULER.decline(fusions.layer_norm((64, 32), 0), None) is None


def test_apply_refuses_other_params() -> None:
    with pytest.raises(ScheduleError, match="NormalizationParams"):
        SCHEDULER.apply(fusions.softmax((64, 32)), HeuristicParams("reduction"))


def test_symbolic_extents_take_the_given_sizes() -> None:
    """Scheduled from sizes=[(64, 300)]: the batch is a constant outer split, so the kernel keeps its registers
    and runs other sizes whose rows take the same vectors (64 x 300 and 5 x 280)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        e = ops.exp(ops.sub(x, ops.broadcast(ops.max(x, [1]), [False, True])))
        fusion.add_output(ops.div(e, ops.broadcast(ops.sum(e, [1]), [False, True])))
    assert "symbolic" in SCHEDULER.decline(fusion, None)
    SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, [(64, 300)]))
    kernel = lower(fusion)
    for shape in [(64, 300), (5, 280)]:
        inputs = random_inputs(fusion, [shape], 0)
        assert_matches(fusion, inputs, simulate(kernel, inputs))


@pytest.mark.parametrize("build,shape", [(fusions.softmax, (4, 29056)), (fusions.layer_norm, (4, 29056)),
                                         (fusions.rms_norm, (4, 57000))], ids=["softmax", "layer_norm", "rms_norm"])
def test_shared_buffers_and_the_reduction_workspace_over_the_limit_are_declined(build, shape) -> None:
    """The heuristic sized shared persistent buffers by the row alone: softmax of 29056 fp32 columns kept two
    rows in exactly 227 KiB and the block reduction's 7264-byte workspace made it a LoweringError. The heuristic
    now counts the buffers over the block's padded tile and the workspace."""
    fusion = build(shape)
    reason = SCHEDULER.decline(fusion, None)
    assert reason is not None and "block reduction's workspace; over 232448" in reason
    with pytest.raises(ScheduleError, match="workspace"):
        schedule(fusion)


def test_a_shared_plan_that_fits_with_its_workspace_lowers() -> None:
    fusion = fusions.rms_norm((4, 56000))
    params = schedule(fusion)
    assert params.persistent_memory == "shared"
    lower(fusion)


def test_a_float_weight_beside_a_bf16_row_loads_unvectorized() -> None:
    """bf16 rows take 8-element (16-byte) vectors; the fp32 weight's cache was given the same Vectorize axis,
    32 bytes, and ``schedule`` failed inside apply (``parallelize: Vectorize width 8 ... over the 16-byte
    limit``). The weight now loads element by element and the row stays vectorized."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(3, 40), dtype=DataType.BFloat16)
        w = fusion.add_input(shape=(40,), dtype=DataType.Float)
        y = ops.cast(x, DataType.Float)
        m = ops.broadcast(ops.mean(y, 1), [False, True])
        out = ops.mul(ops.sub(y, m), ops.broadcast(w, [True, False]))
        fusion.add_output(ops.cast(out, DataType.BFloat16))
    params = schedule(fusion)
    assert params.scheduler == "normalization" and params.vectorize == 8
    vectorized = {tv.definition.inputs[0].name for tv in fusion.used_tensors()
                  if tv.ndim and tv.axis(-1).parallel_type is ParallelType.Vectorize and tv.definition is not None
                  and tv.definition.inputs and tv.definition.inputs[0].is_input}
    assert vectorized == {x.name}
    inputs = random_inputs(fusion, [(3, 40), (40,)], 0)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs), tol=1e-2)
