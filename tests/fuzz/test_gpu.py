"""Property 4 (GPU tier, ``pytest -m gpu``): every kernel that lowers gives numpy's result on the H100.

Kernels run in a child process (``properties.GpuWorker``) so that one that faults cannot take the
test process's CUDA context down with it, and the shrunk case still runs on a working GPU.
"""

import pytest
from hypothesis import given, settings

from fuzz.properties import GpuWorker, run_case
from fuzz.strategies import cases

from .profiles import budget

pytestmark = pytest.mark.gpu


@pytest.fixture(scope="module", autouse=True)
def _gpu_worker():
    yield
    GpuWorker.close()


@settings(max_examples=budget("gpu"))
@given(case=cases())
def test_lowered_kernels_match_numpy_on_the_gpu(case) -> None:
    run_case(case, simulate=False, gpu=True)


@settings(max_examples=budget("gpu_circular_buffer"))
@given(case=cases(templates=("tma",), max_random_steps=2))
def test_tma_and_circular_buffered_kernels_match_numpy_on_the_gpu(case) -> None:
    run_case(case, simulate=False, gpu=True)
