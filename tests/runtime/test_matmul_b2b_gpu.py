"""GPU tier: the back-to-back matmul (examples/matmul_b2b), whose second wgmma reads its A operand from the first
one's registers, on the H100 against numpy at ragged sizes, and compute-sanitizer memcheck, racecheck and synccheck
on it."""

from __future__ import annotations

import pytest

from tests.runtime.run_matmul_b2b import SIZES, main
from tests.runtime.sanitizer import SANITIZER, assert_sanitizer_clean

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("size", SIZES, ids=["x".join(map(str, s)) for s in SIZES])
def test_matches_numpy(size: tuple[int, int, int, int]) -> None:
    main([size])


@pytest.mark.skipif(SANITIZER is None, reason="compute-sanitizer is not installed")
@pytest.mark.parametrize("tool", ["memcheck", "racecheck", "synccheck"])
def test_compute_sanitizer_is_clean(tool: str) -> None:
    assert_sanitizer_clean(tool, "tests.runtime.run_matmul_b2b")
