"""Shared pytest configuration.

Tests marked ``@pytest.mark.gpu`` need an NVIDIA GPU with a working driver (the GPU tier, run on an
H100 with ``pytest -m gpu``); they are skipped when ``cuInit`` fails or cuda-python is missing.
"""

from __future__ import annotations

import functools

import pytest


@functools.cache
def gpu_available() -> bool:
    try:
        from runtime.driver import gpu_available as driver_gpu_available
    except ImportError:
        return False
    return driver_gpu_available()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items or gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU and driver (cuInit failed or cuda-python is missing)")
    for item in gpu_items:
        item.add_marker(skip)
