"""Progress of long work (a big simulation, a benchmark's configurations) as a ``rich.progress`` bar on stderr.

``progress`` arguments take one of: ``None`` (the default: a bar only when stderr is a terminal and the
work is long), ``True`` (always a bar), ``False`` (never), or a callable ``f(done, total)`` called as
the work advances (at the start with ``done = 0``). Bars go to stderr only, so stdout (tables, JSON)
stays machine-readable, and they are transient: the terminal keeps no trace of them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Union

ProgressCallback = Callable[[int, int], None]
ProgressArg = Union[bool, ProgressCallback, None]  # noqa: UP007 - a runtime alias


def wanted(progress: ProgressArg, *, long: bool) -> bool:
    """Whether ``progress`` asks for a bar: ``True``, or ``None`` for long work with stderr on a terminal."""
    if progress is None:
        return long and sys.stderr.isatty()
    return progress is True


@contextmanager
def reporting(progress: ProgressArg, total: int, what: str, *, long: bool = True) -> Iterator[Callable[[int], None]]:
    """Yield ``advance(n)``, which reports ``n`` more of ``total`` units of ``what`` done (a bar or the callback)."""
    done = 0
    if callable(progress) and not isinstance(progress, bool):
        callback = progress
        callback(0, total)

        def advance_callback(n: int = 1) -> None:
            nonlocal done
            done += n
            callback(done, total)

        yield advance_callback
        return
    if not wanted(progress, long=long):
        yield lambda n=1: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("eta"), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=total)
        yield lambda n=1: bar.advance(task, n)
