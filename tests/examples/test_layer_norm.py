"""examples/layer_norm.py against a numpy layer norm, in the simulator and (GPU tier) on the GPU."""

import numpy as np
import pytest

from examples import layer_norm
from fusion_ir import MemoryType
from fusion_ir.persistent import unmappable_axes
from lowering import lower
from runtime import InputError, execute, simulate

# (rows, hidden): no hidden size below is a multiple of the 8 elements each thread keeps
SHAPES = [(1, 1), (4, 37), (7, 300), (3, 1001)]


def numpy_layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) / np.sqrt(var + layer_norm.EPS) * weight + bias


def inputs(rows: int, hidden: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(-3.0, 3.0, size=(rows, hidden)).astype(np.float32),
            rng.uniform(0.5, 1.5, size=hidden).astype(np.float32),
            rng.uniform(-1.0, 1.0, size=hidden).astype(np.float32)]


@pytest.mark.parametrize("rows,hidden", SHAPES)
def test_layer_norm_matches_numpy_in_the_simulator(rows: int, hidden: int) -> None:
    args = inputs(rows, hidden, seed=rows * hidden)
    (out,) = simulate(lower(layer_norm.build(hidden)), args, seed=2)
    np.testing.assert_allclose(out, numpy_layer_norm(*args), rtol=1e-4, atol=1e-5)


def test_the_centred_row_is_a_persistent_buffer_in_registers() -> None:
    fusion = layer_norm.build()
    (centred,) = [tv for tv in fusion.tensors if not tv.is_input and unmappable_axes(tv)]
    assert centred.memory_type is MemoryType.Local
    assert centred.compute_at_pos == 1  # only the row (BIDx) loop is shared with all its consumers


def test_a_row_length_other_than_the_weight_is_refused() -> None:
    x, weight, bias = inputs(2, 300, seed=0)
    with pytest.raises(InputError):
        simulate(lower(layer_norm.build(300)), [x[:, :299].copy(), weight, bias])


@pytest.mark.gpu
@pytest.mark.parametrize("rows,hidden", SHAPES + [(1000, 4000)])
def test_layer_norm_matches_numpy_on_the_gpu(rows: int, hidden: int) -> None:
    args = inputs(rows, hidden, seed=11 + rows * hidden)
    (out,) = execute(lower(layer_norm.build(hidden)), args)
    np.testing.assert_allclose(out, numpy_layer_norm(*args), rtol=1e-4, atol=1e-5)
