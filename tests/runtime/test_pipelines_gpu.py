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


@pytest.mark.parametrize("form", ["parity", "token"])
def test_unpipelined_tma_loads_on_gpu(form: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """tma_token's loads: every thread waiting on the phase parity of the column loop (the parity form, 1 to 8
    loads per block), or the elected thread's token wait and a block barrier (the token form)."""
    import examples
    from lowering.analysis import mbarriers

    if form == "token":
        monkeypatch.setattr(mbarriers, "issue_parity", lambda loops: None)
    build = examples.load("tma_token").build
    kernel = lower(build())
    for n, shape in enumerate([(1, 4), (37, 212), (64, 256), (1000, 36)]):
        fusion = build()
        inputs = random_inputs(fusion, [shape], seed=4000 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs))


def test_large_tma_add_on_gpu() -> None:
    import examples

    fusion = examples.load("tma_add").build()
    inputs = random_inputs(fusion, [(1_000_003,), (1_000_003,)], seed=5)
    assert_matches(fusion, inputs, execute(lower(fusion), inputs))



@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("name", ["seed_double_buffer", "seed_circular_buffer", "tma_add", "tma_token", "ws_seed_copy", "ws_tma_pointwise",
                                  "ws_row_reduction", "ws_persistent_row_sum"])
def test_compute_sanitizer_is_clean(tool: str, name: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_example", name, timeout=300)
