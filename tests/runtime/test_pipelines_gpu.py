"""GPU tier: every pipeline schedule (TMA, cp.async, registers; stages 2..6 with every prefetch)
matches numpy on the GPU, and compute-sanitizer finds nothing in the seed and warp-specialized kernels."""

from __future__ import annotations

import pytest

from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.lowering.pipeline_cases import (
    SHORT_KINDS,
    pipeline_cases,
    short_pipeline,
    short_pipeline_shapes,
    short_trip_counts,
)
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean

pytestmark = pytest.mark.gpu

CASES = list(pipeline_cases())


@pytest.mark.parametrize("build,shapes", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_pipeline_on_gpu(build, shapes) -> None:
    for n, shape in enumerate(shapes):
        fusion = build()
        inputs = random_inputs(fusion, shape, seed=2000 + n)
        assert_matches(fusion, inputs, execute(lower(fusion), inputs))


@pytest.mark.parametrize("kind", SHORT_KINDS)
def test_a_pipeline_shorter_than_its_stages_runs_on_gpu(kind: str) -> None:
    """Every circular-buffer type at 1, 2, S - 1, S and S + 1 iterations of a symbolic loop."""
    fusion = short_pipeline(kind)
    kernel = lower(fusion)
    for trips in short_trip_counts():
        inputs = random_inputs(fusion, short_pipeline_shapes(kind, trips), seed=3000 + trips)
        assert_matches(fusion, inputs, execute(kernel, inputs))


def test_large_tma_add_on_gpu() -> None:
    import examples

    fusion = examples.load("tma_add").build()
    inputs = random_inputs(fusion, [(1_000_003,), (1_000_003,)], seed=5)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs))



@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("name", ["seed_double_buffer", "seed_circular_buffer", "tma_add", "ws_seed_copy", "ws_tma_pointwise",
                                  "ws_row_reduction", "ws_persistent_row_sum"])
def test_compute_sanitizer_is_clean(tool: str, name: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_example", name, timeout=300)
