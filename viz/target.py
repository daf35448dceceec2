"""Resolve a viz TARGET (an example name or a Python file) to a Fusion."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

from fusion_ir import Fusion


class TargetError(ValueError):
    """The target could not be loaded; the message says why."""


def load_module(target: str) -> ModuleType:
    path = Path(target)
    if path.suffix == ".py" or path.exists():
        if not path.exists():
            raise TargetError(f"no such file: {target}")
        if path.is_dir():
            raise TargetError(f"{target} is a directory; give a .py file that defines build()")
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise TargetError(f"cannot import {target}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    import examples

    if target not in examples.names():
        raise TargetError(f"unknown example {target!r}; `viz --list` shows the examples")
    return examples.load(target)


def load_fusion(target: str) -> Fusion:
    return load_fusion_from(load_module(target), target)


def load_fusion_from(module: ModuleType, target: str) -> Fusion:
    """Call the module's ``build()``, or take its module-level ``fusion``."""
    if hasattr(module, "build"):
        fusion = module.build()
    elif isinstance(getattr(module, "fusion", None), Fusion):
        fusion = module.fusion
    else:
        raise TargetError(f"{target} defines neither build() nor a module-level `fusion`")
    if not isinstance(fusion, Fusion):
        raise TargetError(f"{target}: build() returned {type(fusion).__name__}, not a Fusion")
    return fusion
