"""GPU tier: every example runs on the H100 and matches numpy at three sizes.

Outputs are poisoned (NaN) by the executor before each run; inputs are fresh random numbers.
"""

import pytest

import examples
from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, positive_inputs, random_inputs

pytestmark = pytest.mark.gpu

POSITIVE = {"register_cache"}
# an example of examples.UNSCHEDULED (none today) would run one thread with every intermediate on its stack
CASES = [(name, k) for name in examples.scheduled_names() for k in range(len(examples.load(name).SIZES))]


@pytest.mark.parametrize("name,size", CASES)
def test_example_on_gpu(name: str, size: int) -> None:
    module = examples.load(name)
    fusion = module.build()
    kernel = lower(fusion)
    make = positive_inputs if name in POSITIVE else random_inputs
    inputs = make(fusion, module.SIZES[size], seed=1000 + size)
    outputs = execute(kernel, inputs)
    assert_matches(fusion, inputs, outputs, tol=getattr(module, "TOLERANCE", 1e-5))


def test_larger_sizes_on_gpu() -> None:
    """Sizes with many blocks and a non-divisible tail, drawn fresh."""
    for name, shapes in [("pointwise_2d", [(300, 5001), (300, 5001)]),
                         ("inner_reduction", [(257, 3001)]),
                         ("pointwise_vectorized", [(1 << 20,), (1 << 20,)]),
                         ("matmul_simt", [(130, 70), (70, 90)])]:
        fusion = examples.load(name).build()
        inputs = random_inputs(fusion, shapes, seed=7)
        assert_matches(fusion, inputs, execute(lower(fusion), inputs), tol=1e-4)
