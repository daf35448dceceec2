"""Property of ``schedule()``: a drawn pointwise, transpose, reduction or normalization fusion is either refused
with a ScheduleError or scheduled into a kernel that lowers and matches numpy in the simulator at the sizes it was
scheduled for (``fuzz.schedulers``). ``HYPOTHESIS_PROFILE=long`` runs 1,000 cases; ``python -m
fuzz.scheduler_campaign`` runs longer ones that count every outcome (docs/fuzzing.md)."""

from __future__ import annotations

import collections

import numpy as np

from hypothesis import given, settings

from fusion_ir import DataType
from fuzz.schedulers import Gpu, InputDef, Reduce, SchedulerCase, check, scheduler_cases, within_sum

from .profiles import budget

SEEN: collections.Counter[str] = collections.Counter()


@settings(max_examples=budget("schedulers"))
@given(case=scheduler_cases())
def test_scheduled_fusions_match_numpy_or_are_refused(case: SchedulerCase) -> None:
    SEEN[check(case).split(":")[0]] += 1


def test_the_strategy_reaches_both_schedulers() -> None:
    pointwise = SchedulerCase((5, 40), (InputDef((0, 1), DataType.Float, True), InputDef((1,), DataType.Half, False,
                                                                                          "sin")),
                              (("binary", "mul", 1), ("cast", DataType.BFloat16)))
    transpose = SchedulerCase((33, 7), (InputDef((0, 1), DataType.Int32, False),), (("scalar", "add", 3),), (1, 0))
    assert check(pointwise) == "pointwise" and check(transpose) == "transpose"


def test_a_broadcast_no_split_keeps_whole_is_refused() -> None:
    middle = SchedulerCase((3, 4, 8), (InputDef((0, 1, 2), DataType.Float, False),
                                       InputDef((1,), DataType.Float, True, "neg")), (("binary", "add", 1),))
    assert check(middle).startswith("declined: schedule: no scheduler takes this fusion")


def test_a_case_ending_in_a_sum_is_another_schedulers_or_refused() -> None:
    case = SchedulerCase((6, 40), (InputDef((0, 1), DataType.Float, False),), (("unary", "sin"), ("sum", 1)))
    outcome = check(case)
    assert outcome.startswith("declined: schedule: no scheduler takes this fusion") or outcome in (
        "reduction", "normalization")


def test_the_strategy_reaches_the_reduction_and_normalization_schedulers() -> None:
    bf16 = InputDef((0, 1), DataType.BFloat16, True)
    column_sum = SchedulerCase((300, 5), (bf16,), (("cast", DataType.Float), ("unary", "sin")), seed=3,
                               reduce=Reduce("sum", 0, DataType.BFloat16, post=(("scalar", "mul", 2.0),)))
    layer_norm = SchedulerCase((7, 33), (bf16, InputDef((1,), DataType.BFloat16, False),
                                         InputDef((1,), DataType.BFloat16, True)), (("cast", DataType.Float),),
                               reduce=Reduce("layer_norm", 1, DataType.BFloat16, ("mean_op", "stats"), 1, 2))
    softmax = SchedulerCase((40, 3), (InputDef((0, 1), DataType.Float, False),), (), seed=1,
                            reduce=Reduce("softmax", 0, flags=("recip",)))
    assert check(column_sum) == "reduction"
    assert check(layer_norm) == "normalization" and check(softmax) == "normalization"


def test_a_variance_alone_is_refused_by_both() -> None:
    """``var_mean``'s variance broadcasts its mean back (not a plain reduction) but outputs no 2-D tensor for the
    normalization scheduler to schedule along."""
    var = SchedulerCase((8, 31), (InputDef((0, 1), DataType.Float, False),), (), reduce=Reduce("var", 1, flags=(
        "bessel",)))
    assert check(var).startswith("declined: schedule: no scheduler takes this fusion")


def test_a_made_up_gpu_reaches_shared_memory_buffers() -> None:
    seen: list[object] = []
    rms = SchedulerCase((3, 1025), (InputDef((0, 1), DataType.Float, True), InputDef((1,), DataType.Float, False)),
                        (), reduce=Reduce("rms_norm", 1, weight=1), gpu=Gpu(4, 256, 4096, 227 * 1024))
    assert check(rms, seen.append) == "normalization" and seen[0].persistent_memory == "shared"


def test_a_case_script_rebuilds_the_case() -> None:
    case = SchedulerCase((5, 7), (InputDef((0, 1), DataType.Half, True), InputDef((0,), DataType.Half, False,
                                                                                   "neg")),
                         (("binary", "add", 1), ("cast", DataType.BFloat16)), seed=9,
                         reduce=Reduce("max", 1, DataType.Half, post=(("unary", "abs"),)), gpu=Gpu(1, 128, 4096, 2048))
    script = case.script()
    assert "<DataType" not in script
    rebuilt = eval(script.splitlines()[-1].removeprefix("# rebuild: "), {
        "SchedulerCase": SchedulerCase, "InputDef": InputDef, "Reduce": Reduce, "Gpu": Gpu, "DataType": DataType})
    assert rebuilt == case and check(rebuilt) == check(case)


def test_a_mean_that_cancels_is_bounded_by_its_terms() -> None:
    """``mean(x - 1.5 + w) + 1.5`` of one row of 3000: float32's error of the mean (its terms' size times
    rounding) over a result near 0 is a relative error over 1e-5 but within the terms' bound."""
    case = SchedulerCase((1, 3000), (InputDef((0, 1), DataType.Float, True), InputDef((1,), DataType.Float, True)),
                         (("scalar", "sub", 1.5), ("binary", "add", 1)), seed=1,
                         reduce=Reduce("mean_scale", 1, post=(("scalar", "add", 1.5),)), gpu=Gpu(1, 1024, 65536, 16384))
    assert check(case) == "reduction"
    ok, why = within_sum(np.array([1e-3]), np.array([0.0]), np.array([1.5]))
    assert not ok and "over 1e-5 of it + 1e-6 of its terms' magnitudes 1.5" in why
