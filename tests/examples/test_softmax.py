"""examples/softmax.py against a numpy softmax, in the simulator and (GPU tier) on the GPU."""

import numpy as np
import pytest

from examples import softmax
from fusion_ir import MemoryType
from fusion_ir.persistent import unmappable_axes
from lowering import lower
from runtime import execute, simulate

# rows x columns, none a multiple of the 128-wide tile
SHAPES = [(1, 1), (3, 127), (5, 300), (2, 1000)]


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def inputs(shape: tuple[int, int], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-4.0, 4.0, size=shape).astype(np.float32)


@pytest.mark.parametrize("shape", SHAPES)
def test_softmax_matches_numpy_in_the_simulator(shape: tuple[int, int]) -> None:
    x = inputs(shape, seed=sum(shape))
    (out,) = simulate(lower(softmax.build()), [x], seed=1)
    np.testing.assert_allclose(out, numpy_softmax(x), rtol=1e-5, atol=1e-7)


def test_the_exp_is_a_persistent_buffer_in_shared_memory() -> None:
    fusion = softmax.build()
    (e,) = [tv for tv in fusion.tensors if not tv.is_input and unmappable_axes(tv)]
    assert e.memory_type is MemoryType.Shared
    assert e.compute_at_pos == 1  # only the row (BIDx) loop is shared with all its consumers


@pytest.mark.gpu
@pytest.mark.parametrize("shape", SHAPES + [(300, 5001)])
def test_softmax_matches_numpy_on_the_gpu(shape: tuple[int, int]) -> None:
    x = inputs(shape, seed=7 + sum(shape))
    (out,) = execute(lower(softmax.build()), [x])
    np.testing.assert_allclose(out, numpy_softmax(x), rtol=1e-5, atol=1e-7)
