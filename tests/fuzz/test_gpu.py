"""Property 4 (GPU tier, ``pytest -m gpu``): every kernel that lowers gives numpy's result on the H100."""

import pytest
from hypothesis import given, settings

from .profiles import budget
from .properties import run_case
from .strategies import cases

pytestmark = pytest.mark.gpu


@settings(max_examples=budget("gpu"))
@given(case=cases())
def test_lowered_kernels_match_numpy_on_the_gpu(case) -> None:
    run_case(case, simulate=False, gpu=True)
