"""runtime.simulate: loop steps as values, e.g. a persistent grid-stride loop stepping by gridDim.x."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.scalar import Val
from runtime import SimulationError, simulate
from tests.codegen.sample_kernels import grid_stride
from tests.runtime.kir_builders import TX, assign, binary, fconst, for_, global_1d, kernel, load, sym


@pytest.mark.parametrize("blocks", [1, 3, 4])
@pytest.mark.parametrize("n", [1, 300, 5000])
def test_grid_stride_loop_matches_numpy(n: int, blocks: int) -> None:
    sample = grid_stride(blocks)
    x = sample.make_inputs(n, np.random.default_rng(n))
    for seed in range(2):
        (y,) = simulate(sample.kernel, x, seed=seed)
        np.testing.assert_array_equal(y, sample.reference(*x)[0])


def doubling_loop(step: Val) -> object:
    a, out = global_1d("T0"), global_1d("T1")
    i = sym("i3")
    body = [for_("i3", TX, sym("i0"), [assign(out, i, binary("mul", load(a, i), fconst(2.0)))], step=step)]
    return kernel(body, [a], [out], (1,), (64,))


def test_step_may_use_builtins() -> None:
    x = np.arange(1000, dtype=np.float32)
    (y,) = simulate(doubling_loop(Val.symbol("blockDim.x")), [x])
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize(("step", "message"), [
    (Val.const(0), r"loop i3: loop i3 has step 0; steps are positive"),
    (Val.symbol("blockDim.x") - 64, r"step blockDim.x - 64 is 0; loop steps must be positive"),
    (TX + 1, r"step threadIdx.x \+ 1 differs between the threads of warp \d; a loop step must be the same"),
])
def test_step_must_be_positive_and_uniform(step: Val, message: str) -> None:
    with pytest.raises(SimulationError, match=message):
        simulate(doubling_loop(step), [np.zeros(100, np.float32)])
