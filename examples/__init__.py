"""Example fusions, one per module, each with ``build() -> Fusion``: scheduled, but for ``UNSCHEDULED``.

Each module also defines ``DESCRIPTION`` (one line) and ``SIZES``: for each test size, the
list of input shapes; optionally ``TOLERANCE``, the relative error its tests accept (1e-5 unless
a result is rounded to bf16 or fp16).

``UNSCHEDULED`` names the examples whose ``build()`` returns a fusion no registered scheduler takes yet: ``lower``
runs it on one thread (with an ``AutoScheduleWarning``), too slow to simulate at the example's size and no kernel
to run on a GPU, pin as golden CUDA or time. The tests that run, show or time every example's kernel iterate over
``scheduled_names()``; the others (building, printing, verifying, compiling) keep every example.
"""

import importlib
import pkgutil
from types import ModuleType


def names() -> list[str]:
    import examples

    return sorted(m.name for m in pkgutil.iter_modules(examples.__path__) if not m.name.startswith("_"))


# example: why no scheduler takes it yet
UNSCHEDULED: dict[str, str] = {}


def scheduled_names() -> list[str]:
    """``names()`` less ``UNSCHEDULED``: the examples whose ``lower`` gives a scheduled kernel."""
    return [name for name in names() if name not in UNSCHEDULED]


def load(name: str) -> ModuleType:
    return importlib.import_module(f"examples.{name}")
