"""Resolve a viz TARGET (an example name or a Python file) to a Fusion."""

from __future__ import annotations

import ast
import difflib
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
        _check_defines_a_fusion(path, target)
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise TargetError(f"cannot import {target}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    import examples

    if target not in examples.names():
        close = difflib.get_close_matches(target, examples.names(), n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise TargetError(f"unknown example {target!r}; {hint}`viz --list` shows the examples")
    return examples.load(target)


def _check_defines_a_fusion(path: Path, target: str) -> None:
    """Refuse, without running it, a file whose top level visibly binds neither ``build`` nor ``fusion``.

    Where the file could bind them in ways the syntax does not show (``import *``, ``globals()``,
    ``exec``) it is run and checked afterwards, as before.
    """
    try:
        tree = ast.parse(path.read_text(), filename=str(path))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return  # importing it reports the problem with its own traceback
    bound: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        else:
            bound.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    if {"globals", "exec", "setattr", "vars"} & names:
        return
    if not {"build", "fusion"} & bound:
        raise TargetError(f"{target} defines neither build() nor a module-level `fusion` (checked without running "
                          f"it); define `def build() -> Fusion` or assign `fusion = Fusion()` at the top level")


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
