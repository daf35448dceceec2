"""Property of ``schedule()``: a drawn pointwise or transpose fusion is either refused with a ScheduleError or
scheduled into a kernel that lowers and matches numpy in the simulator at the sizes it was scheduled for
(``fuzz.schedulers``). ``HYPOTHESIS_PROFILE=long`` runs 1,000 cases."""

from __future__ import annotations

import collections

from hypothesis import given, settings

from fusion_ir import DataType
from fuzz.schedulers import InputDef, SchedulerCase, check, scheduler_cases

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
