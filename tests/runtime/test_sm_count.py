"""sm_count without a GPU: an explicit default or a NoGpuError, never a guess; with a GPU, the
device's count, which device_target puts into the current target."""

from __future__ import annotations

import pytest

import target
from runtime import NoGpuError, device_target, sm_count
from runtime.driver import gpu_available


@pytest.mark.skipif(gpu_available(), reason="checks the behaviour without a GPU")
def test_without_a_gpu_the_default_is_explicit() -> None:
    assert sm_count(default=target.current().sm_count) == 132
    with pytest.raises(NoGpuError, match="pass default="):
        sm_count()
    with pytest.raises(NoGpuError):
        device_target()


@pytest.mark.gpu
def test_the_device_target_has_the_devices_sm_count() -> None:
    made_up = target.H100.with_sm_count(7)
    with target.use(made_up):
        found = device_target()
    assert found.sm_count == sm_count() and found.smem_per_block == target.H100.smem_per_block
