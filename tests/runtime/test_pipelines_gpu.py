"""GPU tier: every pipeline schedule (TMA, cp.async, registers; stages 2..6 with every prefetch)
matches numpy on the GPU, and compute-sanitizer finds nothing in the seed and warp-specialized kernels."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.lowering.pipeline_cases import (SHORT_KINDS, pipeline_cases, short_pipeline, short_pipeline_shapes,
                                           short_trip_counts)

pytestmark = pytest.mark.gpu

CASES = list(pipeline_cases())
ROOT = Path(__file__).resolve().parents[2]


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


SANITIZER = shutil.which("compute-sanitizer") or next(
    (str(p) for p in Path("/usr/local").glob("cuda*/bin/compute-sanitizer") if p.exists()), None)


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
@pytest.mark.parametrize("name", ["seed_double_buffer", "seed_circular_buffer", "tma_add", "ws_seed_copy", "ws_tma_pointwise",
                                  "ws_row_reduction", "ws_persistent_row_sum"])
def test_compute_sanitizer_is_clean(tool: str, name: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([SANITIZER, "--tool", tool, "--error-exitcode", "3", sys.executable, "-m",
                           "tests.runtime.run_example", name], capture_output=True, text=True, cwd=ROOT, env=env,
                          timeout=300, check=False)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-4000:]
    # memcheck and synccheck print "ERROR SUMMARY: 0 errors"; racecheck "... hazards displayed (0 errors, ..."
    assert "ERROR SUMMARY: 0 errors" in log or "(0 errors, 0 warnings)" in log, log[-4000:]
    assert "matches numpy" in log
