"""Scheduled example fusions, one per module, each with ``build() -> Fusion``.

Each module also defines ``DESCRIPTION`` (one line) and ``SIZES``: for each test size, the
list of input shapes; optionally ``TOLERANCE``, the relative error its tests accept (1e-5 unless
a result is rounded to bf16 or fp16).
"""

import importlib
import pkgutil
from types import ModuleType


def names() -> list[str]:
    import examples

    return sorted(m.name for m in pkgutil.iter_modules(examples.__path__) if not m.name.startswith("_"))


def load(name: str) -> ModuleType:
    return importlib.import_module(f"examples.{name}")
