"""What one ``--show`` produces, and how it is written out as text, SVG, JSON or Graphviz dot."""

from __future__ import annotations

import io
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType

FORMATS = ("text", "json", "dot", "svg")
DEFAULT_FILE_WIDTH = 100   # columns of text or SVG written to a file or a pipe when --width is not given


class UsageError(ValueError):
    """A flag combination that cannot work; the message says which and why."""


@dataclass
class View:
    """One show's content, rendered two ways: ``renderables`` for people, ``data`` for tools.

    ``data`` is JSON-serializable and holds the same facts as the renderables. ``dot`` is Graphviz
    text for shows that are graphs. ``exit_code`` lets a show report a finding (such as a deadlock)
    after rendering it.
    """

    show: str
    title: str
    renderables: list[RenderableType]
    data: dict[str, Any]
    dot: str | None = None
    exit_code: int = 0
    # printed with soft wrapping: code listings keep one source line per terminal line
    soft_wrap: bool = False


def make_console(*, no_color: bool, width: int | None, file: Any = None, record: bool = False) -> Console:
    """The console a format prints through.

    A terminal gets its own width and colours; a file gets plain text; a recording (SVG) gets
    truecolor. Without ``--width``, files, pipes (unless ``COLUMNS`` is set) and recordings are
    ``DEFAULT_FILE_WIDTH`` columns wide.
    """
    to_file = file is not None
    piped = file is None and not sys.stdout.isatty()
    if width is None and (to_file or record or (piped and "COLUMNS" not in os.environ)):
        width = DEFAULT_FILE_WIDTH
    if record:
        return Console(file=file, width=width, no_color=no_color, highlight=not no_color, force_terminal=True,
                       color_system="truecolor", record=True)
    plain = no_color or to_file
    return Console(file=file, width=width, no_color=plain, highlight=not plain,
                   force_terminal=False if plain else None)


def print_view(view: View, console: Console) -> None:
    for renderable in view.renderables:
        if isinstance(renderable, str):
            console.print(renderable, markup=False, soft_wrap=view.soft_wrap)
        else:
            console.print(renderable, soft_wrap=view.soft_wrap)


def print_views(views: list[View], console: Console) -> None:
    """One view as it is; several each under a rule naming it."""
    for view in views:
        if len(views) > 1:
            console.rule(f"--show {view.show}", style="dim")
        print_view(view, console)


def render_text(view: View | list[View], *, width: int = DEFAULT_FILE_WIDTH, no_color: bool = True) -> str:
    """The text a terminal of ``width`` columns would show (plain when ``no_color``)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=no_color, highlight=False,
                      force_terminal=not no_color, color_system=None if no_color else "truecolor")
    print_views(view if isinstance(view, list) else [view], console)
    return buffer.getvalue()


def render_svg(views: list[View], *, width: int | None, no_color: bool, title: str) -> str:
    console = make_console(no_color=no_color, width=width, file=io.StringIO(), record=True)
    print_views(views, console)
    return console.export_svg(title=title)


def view_json(view: View) -> dict[str, Any]:
    return {"show": view.show, **view.data}


def render_json(views: list[View]) -> str:
    """One view's object; for several, ``{"views": [...]}`` in the order asked."""
    doc = view_json(views[0]) if len(views) == 1 else {"views": [view_json(v) for v in views]}
    return json.dumps(doc, indent=2, default=str) + "\n"


def emit(views: list[View], fmt: str, *, output: str | None, no_color: bool, width: int | None,
         title: str) -> None:
    """Write ``views`` in ``fmt`` to the ``output`` file, or to stdout when there is none."""
    if fmt == "dot":
        graphs = [v for v in views if v.dot is not None]
        if len(views) != 1 or not graphs:
            shown = ", ".join(v.show for v in views)
            raise UsageError(f"--format dot is for one graph (--show dag); --show {shown} has text, svg and json")
    if fmt == "text":
        if output is None:
            print_views(views, make_console(no_color=no_color, width=width))
            return
        with open(output, "w", encoding="utf-8") as fh:
            print_views(views, make_console(no_color=True, width=width, file=fh))
        return
    if fmt == "svg":
        text = render_svg(views, width=width, no_color=no_color, title=title)
    elif fmt == "json":
        text = render_json(views)
    else:
        dot = views[0].dot or ""
        text = dot if dot.endswith("\n") else dot + "\n"
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        Path(output).write_text(text, encoding="utf-8")
