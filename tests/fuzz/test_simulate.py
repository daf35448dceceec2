"""Property 2: every kernel that lowers gives numpy's result in the simulator, at sizes that divide
no split factor and at loop extents below the stage count, or refuses the sizes with an InputError."""

from hypothesis import given, settings

from fuzz.properties import run_case
from fuzz.strategies import cases

from .profiles import budget


@settings(max_examples=budget("simulate"))
@given(case=cases())
def test_lowered_kernels_match_numpy_in_the_simulator(case) -> None:
    run_case(case, simulate=True)


@settings(max_examples=budget("circular_buffer"))
@given(case=cases(templates=("tma",), max_random_steps=2))
def test_tma_and_circular_buffered_kernels_match_numpy_in_the_simulator(case) -> None:
    run_case(case, simulate=True)
