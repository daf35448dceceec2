"""The target the compiler is generating for now: ``current()``, ``H100`` unless ``use`` installs
another for a ``with`` block (per thread and per asyncio task, through a context variable)."""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

from .gpus import H100
from .model import Target

DEFAULT_TARGET = H100

_CURRENT: contextvars.ContextVar[Target] = contextvars.ContextVar("target", default=DEFAULT_TARGET)


def current() -> Target:
    """The target every layer reads its limits from."""
    return _CURRENT.get()


@contextlib.contextmanager
def use(target: Target) -> Iterator[Target]:
    """Make ``target`` the current one inside the ``with`` block (a test's made-up GPU, a device's SM count)."""
    if not isinstance(target, Target):
        raise TypeError(f"target.use: {target!r} is not a Target")
    token = _CURRENT.set(target)
    try:
        yield target
    finally:
        _CURRENT.reset(token)
