"""Resolve a viz TARGET (an example name or a Python file) to a Fusion.

A file runs with its own folder on ``sys.path`` (so ``import mylib`` beside it works), at import and
while its ``build()`` runs. An exception its code raises becomes a ``UserCodeError`` that carries the
traceback's frames in the target's folder: where in the user's code it happened.
"""

from __future__ import annotations

import ast
import difflib
import importlib.util
import sys
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from fusion_ir import Fusion


class TargetError(ValueError):
    """The target could not be loaded; the message says why."""


class UserCodeError(TargetError):
    """The target's own code raised ``original`` (at import or in ``build()``); ``frames`` are the traceback's
    frames in the target's folder, outermost first, as ``"file, line N, in f"`` and the source line."""

    def __init__(self, target: str, original: BaseException, frames: list[tuple[str, str]]) -> None:
        self.target = target
        self.original = original
        self.frames = frames
        super().__init__(self.report())

    def report(self) -> str:
        lines = []
        for where, code in self.frames:
            lines.append(where)
            if code:
                lines.append(f"    {code}")
        lines.append(f"{type(self.original).__name__}: {self.original}")
        return "\n".join(lines)


@contextmanager
def user_code(target: str, path: Path, *, on_path: bool = True) -> Iterator[None]:
    """Run the code of the target file ``path``: its folder on ``sys.path`` (``on_path``), its exceptions
    ``UserCodeError``."""
    folder = str(path.resolve().parent)
    added = on_path and folder not in sys.path
    if added:
        sys.path.insert(0, folder)
    try:
        yield
    except TargetError:
        raise
    except Exception as e:  # noqa: BLE001 - any error of the user's code is reported with its place
        raise UserCodeError(target, e, _user_frames(e, path)) from e
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)


def _user_frames(error: BaseException, path: Path) -> list[tuple[str, str]]:
    """The traceback's frames in files of ``path``'s folder (the target and its siblings), outermost first;
    a syntax error's place too."""
    folder = path.resolve().parent
    frames = []
    for frame in traceback.extract_tb(error.__traceback__):
        file = Path(frame.filename)
        if file.is_absolute() and file.parent == folder:
            frames.append((f"{_shown(file, path)}, line {frame.lineno}, in {frame.name}", (frame.line or "").strip()))
    if isinstance(error, SyntaxError) and error.filename is not None:
        file = Path(error.filename).resolve()
        frames.append((f"{_shown(file, path)}, line {error.lineno}", (error.text or "").strip()))
    return frames


def _shown(file: Path, path: Path) -> str:
    """The file as the user named it (the target's path as given), a sibling by its path beside it."""
    return str(path) if file == path.resolve() else str(path.parent / file.name)


def load_module(target: str) -> ModuleType:
    path = Path(target)
    if path.suffix == ".py" or path.exists():
        if not path.exists():
            raise TargetError(f"no such file: {target}")
        if path.is_dir():
            raise TargetError(f"{target} is a directory; give a .py file that defines build()")
        _check_defines_a_fusion(path, target)
        return _import_file(path, target)
    import examples

    if target not in examples.names():
        close = difflib.get_close_matches(target, examples.names(), n=3, cutoff=0.6)
        hint = f"did you mean {' or '.join(close)}? " if close else ""
        raise TargetError(f"unknown example {target!r}; {hint}`viz --list` shows the examples")
    return examples.load(target)


def _import_file(path: Path, target: str) -> ModuleType:
    """Import the file as a module named after it, registered in ``sys.modules`` (so its dataclasses and pickling
    find it) unless a module other than an earlier target holds the name."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot import {target}")
    module = importlib.util.module_from_spec(spec)
    module.__viz_target__ = True  # type: ignore[attr-defined]
    existing = sys.modules.get(path.stem)
    taken = existing is not None and not getattr(existing, "__viz_target__", False)
    if not taken:
        sys.modules[path.stem] = module
    try:
        with user_code(target, path):
            spec.loader.exec_module(module)
    except BaseException:
        if not taken:
            sys.modules.pop(path.stem, None)
        raise
    return module


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
    """Call the module's ``build()`` (as user code: its folder on ``sys.path``, its errors with their place), or
    take its module-level ``fusion``."""
    if hasattr(module, "build"):
        file = Path(target) if Path(target).suffix == ".py" else Path(getattr(module, "__file__", None) or ".")
        with user_code(target, file, on_path=file == Path(target)):
            fusion = module.build()
    elif isinstance(getattr(module, "fusion", None), Fusion):
        fusion = module.fusion
    else:
        raise TargetError(f"{target} defines neither build() nor a module-level `fusion`")
    if not isinstance(fusion, Fusion):
        raise TargetError(f"{target}: build() returned {type(fusion).__name__}, not a Fusion")
    return fusion
