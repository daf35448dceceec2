"""sm_count without a GPU: an explicit default or a NoGpuError, never a guess."""

from __future__ import annotations

import pytest

from runtime import NoGpuError, sm_count
from runtime.driver import gpu_available
from runtime.sm_count import H100_SMS


@pytest.mark.skipif(gpu_available(), reason="checks the behaviour without a GPU")
def test_without_a_gpu_the_default_is_explicit() -> None:
    assert sm_count(default=H100_SMS) == 132
    with pytest.raises(NoGpuError, match="pass default="):
        sm_count()
