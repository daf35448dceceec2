"""Shared pytest configuration.

Tests marked ``@pytest.mark.gpu`` need an NVIDIA GPU with a working driver (the GPU tier, run on an
H100 with ``pytest -m gpu``); they are skipped when ``cuInit`` fails or cuda-python is missing.

When pytest-xdist is installed (the ``test`` extra installs it), a run spreads its tests over one
worker per CPU core (``-n auto``) unless it says otherwise: ``-n 0`` (or ``-p no:xdist``) runs in one
process, ``-n 4`` or ``--dist``/``--tx`` choose for themselves. Runs that stay in one process on their
own: ``--pdb``, ``UPDATE_GOLDEN`` (golden files rewritten one test at a time) and the GPU tier
(``-m gpu``: one GPU, and timings against torch, are not shared between workers).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Generator

import pytest


@functools.cache
def gpu_available() -> bool:
    try:
        from runtime.driver import gpu_available as driver_gpu_available
    except ImportError:
        return False
    return driver_gpu_available()


def pytest_sessionstart(session: pytest.Session) -> None:
    """With a GPU, torch (where installed) is imported before any test runs: on the H100 image, a first import of
    torch after kernels ran through the runtime with numpy arrays failed inside torch (its custom-op schema parser,
    ``annotate(strtag) -> ()``), so GPU tests that import torch lazily failed after such tests in one process."""
    if gpu_available():
        try:
            import torch  # noqa: F401
        except ImportError:
            pass


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    gpu_items = [item for item in items if "gpu" in item.keywords]
    if not gpu_items or gpu_available():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU and driver (cuInit failed or cuda-python is missing)")
    for item in gpu_items:
        item.add_marker(skip)


def parallel_by_default(config: pytest.Config) -> bool:
    option = config.option
    if not hasattr(option, "numprocesses") or hasattr(config, "workerinput"):
        return False                      # no xdist, or this process is already one of its workers
    if option.numprocesses is not None or option.dist != "no" or option.tx:
        return False                      # the command line chose (-n 0 included)
    if option.usepdb or option.collectonly or os.environ.get("UPDATE_GOLDEN"):
        return False
    return "gpu" not in (option.markexpr or "")


@pytest.hookimpl(wrapper=True)
def pytest_cmdline_main(config: pytest.Config) -> Generator[None, object, object]:
    # A wrapper runs before every plain implementation, so xdist's own pytest_cmdline_main sees
    # -n auto as if it had been typed.
    if parallel_by_default(config):
        config.option.numprocesses = "auto"
    return (yield)


@pytest.fixture(autouse=True)
def _no_tuning_device(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests schedule from the rules whatever the machine has tuned: no device named by the environment
    (``fusion_ir.schedulers.tuning_cache``); a test that wants a tuned winner installs one with ``use``."""
    monkeypatch.delenv("FUSION_TUNING_DEVICE", raising=False)
