"""Every example lowers and matches numpy in the simulator at three sizes."""

import pytest

import examples
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, positive_inputs, random_inputs

POSITIVE = {"register_cache"}


# an example of examples.UNSCHEDULED (none today) would run on one thread: minutes per size
@pytest.mark.parametrize("name", examples.scheduled_names())
def test_example_matches_numpy(name: str) -> None:
    module = examples.load(name)
    for k, shapes in enumerate(module.SIZES):
        fusion = module.build()
        kernel = lower(fusion)
        make = positive_inputs if name in POSITIVE else random_inputs
        inputs = make(fusion, shapes, seed=100 + k)
        outputs = simulate(kernel, inputs, seed=k)
        assert_matches(fusion, inputs, outputs, tol=getattr(module, "TOLERANCE", 1e-5))
