"""GPU tier (``pytest -m gpu``): loads of blocked keys (pad, reshape, permute of ``k``) by TMA, cp.async and plain
copies match numpy on the H100; the TMA box reads ``k``'s own tensor map, zero-filled past the key axis, and
compute-sanitizer's memcheck finds no access outside ``k``."""

from __future__ import annotations

import pytest

from lowering import lower
from runtime import execute
from tests.helpers import assert_matches, random_inputs
from tests.lowering.view_load_cases import view_load_cases
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean

pytestmark = pytest.mark.gpu

CASES = list(view_load_cases())


@pytest.mark.parametrize("build,shapes", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_a_view_load_on_gpu(build, shapes) -> None:
    kernel = lower(build())
    for n, shape in enumerate(shapes):
        fusion = build()
        inputs = random_inputs(fusion, shape, seed=4000 + n)
        assert_matches(fusion, inputs, execute(kernel, inputs))


MEMCHECKED = ["keys_attention_tma_symbolic", "keys_2d_cpasync_symbolic"]     # names of view_load_cases


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("name", MEMCHECKED)
def test_a_view_load_is_memcheck_clean(name: str) -> None:
    assert_sanitizer_clean("memcheck", "tests.runtime.run_view_load", name)
