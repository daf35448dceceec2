"""The pointwise scheduler: its heuristic's choices with their rules, and its schedules simulated against numpy at
sizes no split divides, with broadcasts along outer, inner and middle axes, casts and several outputs."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.schedulers import PointwiseParams, pointwise, schedule
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _bias_scale(rows: int, cols: int, out_dtype: DataType = DataType.BFloat16, symbolic: bool = False) -> Fusion:
    """bf16(relu((x + bias[None, :]) * exp(scale)[:, None]))."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2) if symbolic else fusion.add_input(shape=(rows, cols))
        bias = fusion.add_input(ndim=1) if symbolic else fusion.add_input(shape=(cols,))
        scale = fusion.add_input(ndim=1) if symbolic else fusion.add_input(shape=(rows,))
        y = ops.add(x, ops.broadcast(bias, [True, False]))
        y = ops.mul(y, ops.broadcast(ops.exp(scale), [False, True]))
        fusion.add_output(ops.cast(ops.relu(y), out_dtype))
    return fusion


def _chain(shape: tuple[int, ...], dtype: DataType = DataType.Float) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=shape, dtype=dtype)
        b = fusion.add_input(shape=shape, dtype=dtype)
        s = ops.add(ops.mul(a, b), 1.0)
        fusion.add_output(ops.sigmoid(s))
        fusion.add_output(ops.cast(s, DataType.Half))
    return fusion


def _middle_broadcast(shape: tuple[int, int, int], pre: bool = False) -> Fusion:
    """x[b, m, n] + y[b, n] broadcast along the middle axis (``pre``: neg(y), computed before the broadcast)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape)
        y = fusion.add_input(shape=(shape[0], shape[2]))
        fusion.add_output(ops.add(x, ops.broadcast(ops.neg(y) if pre else y, [False, True, False])))
    return fusion


def _run(build, *args) -> PointwiseParams:
    fusion = build(*args)
    params = schedule(fusion)
    inputs = random_inputs(fusion, [tuple(i.extent.const_value() for i in tv.shape_ids) for tv in fusion.inputs], 0)
    outputs = simulate(fusion, inputs)
    tol = 1e-2 if any(o.dtype in (DataType.BFloat16, DataType.Half) for o in fusion.outputs) else 1e-5
    assert_matches(build(*args), inputs, outputs, tol=tol)
    return params


@pytest.mark.parametrize(("rows", "cols"), [(37, 129), (256, 264), (3, 700)])
def test_broadcast_bias_and_scale_match_numpy(rows: int, cols: int) -> None:
    params = _run(_bias_scale, rows, cols)
    assert params.break_point == 1 and "T1, T2" in params.why["break_point"]
    assert params.vectorize == (4 if cols % 4 == 0 else 1)


@pytest.mark.parametrize("shape", [(37, 129), (256, 264), (3, 5, 700)])
def test_a_chain_with_two_outputs_matches_numpy(shape: tuple[int, ...]) -> None:
    params = _run(_chain, shape)
    assert params.break_point == 0 and params.why["break_point"] == "1-D: no input is broadcast"


@pytest.mark.parametrize("shape", [(2, 5, 37), (3, 7, 64)])
def test_an_input_broadcast_along_a_middle_axis_is_read_in_place_and_matches_numpy(shape) -> None:
    params = _run(_middle_broadcast, shape)
    assert params.break_point == 0


def test_an_op_before_a_middle_axis_broadcast_is_refused() -> None:
    fusion = _middle_broadcast((2, 5, 37), pre=True)
    reason = pointwise.decline(fusion, None)
    assert reason is not None and reason.startswith("T2 is computed before a broadcast along axes [1] of T4, and no "
                                                    "merge into one axis or two")
    with pytest.raises(ScheduleError, match="pointwise: T2 is computed before a broadcast"):
        schedule(fusion)


def _bf16_add(shape: tuple[int, ...]) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=shape, dtype=DataType.BFloat16)
        b = fusion.add_input(shape=shape, dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.add(a, b), DataType.BFloat16))
    return fusion


def test_bf16_inputs_and_outputs_vectorize_by_eight() -> None:
    params = _run(_bf16_add, (5, 64))
    assert params.vectorize == 8 and "16 bytes of 2-byte elements" in params.why["vectorize"]


def test_the_heuristic_at_a_large_size_unrolls_and_uses_256_threads() -> None:
    params = pointwise.suggest(_bias_scale(4096, 4096), None)
    assert (params.break_point, params.vectorize, params.threads, params.unroll) == (1, 4, 256, 4)
    assert params.grid == (4, 1024)
    assert set(params.why) == {"reference", "vectorize", "break_point", "threads", "unroll", "grid"}


def test_an_odd_innermost_extent_halves_the_vector() -> None:
    params = pointwise.suggest(_chain((8, 6)), None)
    assert params.vectorize == 2 and "halved to 2: the innermost extent 6 divides by 2" in params.why["vectorize"]


def test_the_schedule_binds_blocks_unroll_threads_and_vectors() -> None:
    fusion = _bias_scale(64, 1024)
    schedule(fusion)
    (out,) = fusion.outputs
    assert [i.parallel_type for i in out.loop] == [ParallelType.BIDy, ParallelType.BIDx, ParallelType.TIDx,
                                                   ParallelType.Vectorize]
    assert all(tv.compute_at_pos > 0 for tv in fusion.used_tensors() if not tv.is_input and tv not in fusion.outputs)


def test_symbolic_extents_take_their_sizes_from_the_call() -> None:
    fusion = _bias_scale(0, 0, symbolic=True)
    params = schedule(fusion, sizes=[(37, 136), (136,), (37,)])
    assert params.vectorize == 4
    inputs = random_inputs(fusion, [(37, 136), (136,), (37,)], 0)
    assert_matches(_bias_scale(37, 136), inputs, simulate(fusion, inputs), tol=1e-2)


def test_outputs_of_different_ranks_are_declined() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 8))
        y = fusion.add_input(shape=(8,))
        fusion.add_output(ops.add(x, ops.broadcast(y, [True, False])))
        fusion.add_output(ops.neg(y))
    assert pointwise.decline(fusion, None) == ("output T4 has rank 1 but T3 has 2; one kernel's outputs span the "
                                               "same axes")
    with pytest.raises(ScheduleError, match="pointwise scheduler: output T4 has rank 1"):
        pointwise.suggest(fusion, None)


def test_one_input_broadcast_along_two_axes_is_declined() -> None:
    """``x[:, None] - neg(x)[None, :]``: x's one axis is the output's axis 0 on one path and axis 1 on the other."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(5,))
        fusion.add_output(ops.sub(ops.broadcast(x, [False, True]), ops.broadcast(ops.neg(x), [True, False])))
    reason = pointwise.decline(fusion, None)
    assert reason is not None and "of T0 is read as axis" in reason and "broadcast along different axes" in reason


def test_outputs_with_nothing_in_common_are_declined() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(5, 64))
        s = fusion.add_input(shape=(64,))
        fusion.add_output(ops.broadcast(ops.exp(s), [True, False]))
        fusion.add_output(ops.add(x, 1.0))
    reason = pointwise.decline(fusion, None)
    assert reason == ("output T3 shares no input or op with T4: the fusion is two kernels' worth of work (no loop "
                      "nest replayed from one reaches the other); make them two fusions")
