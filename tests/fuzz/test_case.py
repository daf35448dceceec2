"""The fuzz machinery itself: cases replay, print as runnable scripts, and the comparison catches what it should."""

from __future__ import annotations

import runpy

import numpy as np
import pytest
from hypothesis import given, settings

from fusion_ir import DataType, LoadStoreOpType, ParallelType, Pipelined
from fuzz.case import Case, InputSpec, OpSpec, Step, TRef, build, compare, evaluate_float32, make_inputs, to_script
from fuzz.properties import PropertyFailure, Stats, check_lowering, check_schedule, run_case
from fuzz.strategies import cases

PT = ParallelType


def pointwise_case(steps: tuple[Step, ...], exact: bool = True) -> Case:
    """T2 = T0 + T1 (2-D), T3 = relu(T2), output T3."""
    return Case(inputs=(InputSpec((0, 1), DataType.Float), InputSpec((0, 1), DataType.Float)),
                ops=(OpSpec("add", (TRef(0), TRef(1))), OpSpec("relu", (TRef(2),))),
                outputs=(3,), steps=steps, sizes=((5, 7), (1, 33)), seed=3, exact=exact)


SCHEDULE = (
    Step("split", TRef(3), (1, 4)),
    Step("cache_after", TRef(0), (LoadStoreOpType.Set,), result=4),
    Step("merge", TRef(3), (0, 7)),                       # rejected: axis 7 is out of range
    Step("transform_like_all", None, (TRef(3),)),
    Step("parallelize", TRef(3), (0, PT.BIDx)),
    Step("parallelize", TRef(3), (2, PT.TIDx)),
    Step("parallelize_like_all", None, (TRef(3),)),
    Step("inline_most", None),
)


def test_a_case_replays_with_the_same_outcomes_and_lowers() -> None:
    case = pointwise_case(SCHEDULE)
    stats = Stats()
    kernel = run_case(case, stats)
    assert kernel is not None
    assert stats.calls[("merge", "ScheduleError")] == 1
    assert stats.calls[("split", "ok")] == 1
    assert stats.lowering["lowered"] == 1
    assert stats.runs["matched numpy"] == 2
    assert stats.passes[("indexing", "changed")] == 1


def test_a_result_name_that_does_not_replay_is_reported() -> None:
    steps = (Step("cache_after", TRef(0), (LoadStoreOpType.Set,), result=9),)
    with pytest.raises(PropertyFailure, match="replay is not deterministic"):
        check_schedule(pointwise_case(steps))


def test_the_script_reproduces_the_case(tmp_path, capsys) -> None:
    case = pointwise_case(SCHEDULE)
    _, outcomes = check_schedule(case)
    script = to_script(case, outcomes, title="a test case")
    assert "rejected(lambda: t3.merge(0, 7))" in script
    assert "t4 = t0.cache_after(LoadStoreOpType.Set)" in script
    path = tmp_path / "case.py"
    path.write_text(script)
    runpy.run_path(str(path), run_name="__main__")
    assert "matches numpy" in capsys.readouterr().out


def test_scripts_print_every_argument_kind_as_python() -> None:
    steps = (Step("reorder", TRef(3), ({0: 1, 1: 0},)),
             Step("circular_buffer", TRef(3), (3, -1), (("type", Pipelined(uses_mbarrier_for_war=True)),)),
             Step("inline_most", None, ([TRef(2), TRef(3)],)),
             Step("split", TRef(3), ("1", 2.5), (("inner_split", False),)))
    script = to_script(pointwise_case(steps), ["ScheduleError"] * len(steps))
    compile(script, "case.py", "exec")
    assert "t3.reorder({0: 1, 1: 0})" in script
    assert "t3.circular_buffer(3, -1, type=Pipelined(uses_mbarrier_for_war=True))" in script
    assert "inline_most(fusion, [t2, t3])" in script
    assert "t3.split('1', 2.5, inner_split=False)" in script


@settings(max_examples=30)
@given(case=cases())
def test_generated_scripts_are_valid_python(case: Case) -> None:
    _, outcomes = check_schedule(case)
    compile(to_script(case, outcomes), "case.py", "exec")


def test_compare_is_exact_for_integer_math() -> None:
    case = pointwise_case(())
    want = [np.arange(6, dtype=np.float64).reshape(2, 3)]
    assert compare(case, [want[0].astype(np.float32)], want) is None
    off = want[0].astype(np.float32)
    off[1, 2] += 1
    assert "1 of 6 elements differ" in compare(case, [off], want)
    assert "shape" in compare(case, [off[:1]], want)
    nan = want[0].astype(np.float32)
    nan[0, 0] = np.nan
    assert "NaN" in compare(case, [nan], want)
    assert "dtype" in compare(case, [want[0].astype(np.int32)], want)


def test_compare_allows_float32_rounding_for_inexact_math() -> None:
    case = Case(inputs=(InputSpec((0,), DataType.Float),), ops=(OpSpec("exp", (TRef(0),)),), outputs=(1,),
                steps=(), sizes=((50,),), exact=False)
    inputs = make_inputs(case, 0)
    want = [np.exp(inputs[0].astype(np.float64))]
    noise = evaluate_float32(case, inputs)
    assert compare(case, noise, want, noise) is None
    wrong = noise[0].copy()
    wrong[3] = wrong[4]
    assert compare(case, [wrong], want, noise) is not None or inputs[0][3] == inputs[0][4]


def test_inputs_are_integer_valued_fresh_and_nan_free() -> None:
    case = pointwise_case(())
    a, b = make_inputs(case, 0), make_inputs(case, 1)
    assert a[0].shape == (5, 7) and b[0].shape == (1, 33)
    for x in a + b:
        assert x.dtype == np.float32 and not np.isnan(x).any()
        assert np.array_equal(x, np.round(x)) and np.abs(x).max() <= 4


def test_lowering_errors_are_counted_by_pass() -> None:
    case = pointwise_case(())   # an unscheduled 2-D intermediate in Local memory has a symbolic size
    fusion, outcomes = check_schedule(case)
    stats = Stats()
    assert check_lowering(case, fusion, outcomes, stats) is None
    assert stats.passes[("buffers", "LoweringError")] == 1
    assert build(case).state_fingerprint() == fusion.state_fingerprint()


def test_the_gpu_worker_runs_kernels_in_a_child_process_and_survives_input_errors() -> None:
    """The GPU property's process plumbing, with the simulator standing in for the GPU."""
    from fuzz.properties import GpuWorker
    from runtime import InputError, simulate

    case = pointwise_case(SCHEDULE)
    kernel = run_case(case)
    try:
        inputs = make_inputs(case, 0)
        got = GpuWorker.execute(kernel, inputs, run=simulate)
        assert compare(case, got, [np.maximum(inputs[0] + inputs[1], 0).astype(np.float64)]) is None
        with pytest.raises(InputError):
            GpuWorker.execute(kernel, inputs[:1], run=simulate)
        assert GpuWorker._pool is not None       # a refused input keeps the worker
        with pytest.raises(TypeError):
            GpuWorker.execute(kernel, inputs, run=len)
        assert GpuWorker._pool is None           # anything else replaces it
    finally:
        GpuWorker.close()
