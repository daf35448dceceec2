"""runtime/simulator.py on big launches: ranges of blocks one after another (``CHUNK_LANES``), the blocks
simulated reported through ``progress``, and a fusion taken as well as a kernel."""

from __future__ import annotations

import numpy as np
import pytest

import examples
import runtime.simulator as simulator
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, positive_inputs, random_inputs

POSITIVE = {"register_cache"}


# an example of examples.UNSCHEDULED (none today) would run on one thread: minutes at its size
@pytest.mark.parametrize("name", examples.scheduled_names())
def test_every_example_matches_numpy_a_few_blocks_at_a_time(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ranges of one or two blocks, every example's largest size still matches numpy (blocks share nothing)."""
    module = examples.load(name)
    fusion = module.build()
    kernel = lower(fusion)
    shapes = module.SIZES[-1]
    inputs = (positive_inputs if name in POSITIVE else random_inputs)(fusion, shapes, seed=3)
    monkeypatch.setattr(simulator, "CHUNK_LANES", 1)
    seen: list[tuple[int, int]] = []
    outputs = simulate(kernel, inputs, seed=1, progress=lambda done, total: seen.append((done, total)))
    assert_matches(fusion, inputs, outputs, tol=getattr(module, "TOLERANCE", 1e-5))
    total = seen[0][1]
    assert seen[0] == (0, total) and seen[-1] == (total, total)
    if kernel.scratch or kernel.cluster_dims != (1, 1, 1):   # blocks sharing scratch or a cluster: one range
        assert len(seen) == 2
        return
    assert len(seen) == total + 1 or total == 0   # one range per block


def test_a_cluster_launch_is_one_range() -> None:
    kernel = lower(examples.load("matmul_cluster").build())
    assert simulator.block_ranges(kernel, (200, 200, 1), (128, 3, 1)) == [range(40000)]


def test_a_small_launch_is_one_range_and_a_big_one_several() -> None:
    kernel = lower(examples.load("pointwise_1d").build())
    assert simulator.block_ranges(kernel, (8, 1, 1), (128, 1, 1)) == [range(8)]
    ranges = simulator.block_ranges(kernel, (20000, 1, 1), (128, 1, 1))
    assert len(ranges) == 3 and ranges[0] == range(8192) and ranges[-1] == range(16384, 20000)


def test_progress_reports_blocks_of_a_big_simulation() -> None:
    module = examples.load("pointwise_1d")
    fusion = module.build()
    n = (simulator.CHUNK_LANES * 5) // 2
    inputs = random_inputs(fusion, [(n,), (n,)], seed=0)
    seen: list[tuple[int, int]] = []
    outputs = simulate(fusion, inputs, progress=lambda done, total: seen.append((done, total)))
    assert_matches(fusion, inputs, outputs)
    blocks = seen[-1][1]
    assert len(seen) == 4 and [d for d, _ in seen][-1] == blocks and seen[0] == (0, blocks)


def test_simulate_takes_a_fusion_like_execute() -> None:
    module = examples.load("pointwise_2d")
    fusion = module.build()
    inputs = random_inputs(fusion, module.SIZES[1], seed=0)
    assert_matches(fusion, inputs, simulate(fusion, inputs))
    np.testing.assert_array_equal(simulate(fusion, inputs)[0], simulate(lower(module.build()), inputs)[0])


def test_simulate_refuses_other_things_by_name() -> None:
    with pytest.raises(TypeError, match="simulate runs a Kernel .* or a Fusion .*, not str"):
        simulate("pointwise_2d", [])
