"""Property 1: a scheduling call succeeds or raises ScheduleError and then changes nothing;
``lower`` succeeds or raises LoweringError and never changes the fusion."""

from hypothesis import given, settings

from fuzz.properties import check_lowering, check_schedule
from fuzz.strategies import cases

from .profiles import budget


@settings(max_examples=budget("schedule"))
@given(case=cases(max_random_steps=10))
def test_schedule_calls_and_lower_raise_only_their_own_errors(case) -> None:
    fusion, outcomes = check_schedule(case)
    check_lowering(case, fusion, outcomes)
