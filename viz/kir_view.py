"""``--show kir`` and ``--show passes``: the kernel IR after a pass, and what every pass cost and changed."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from lowering import kernel_ir as k

from .view import View


def kir_view(kernel: k.Kernel, *, after_pass: str, predicates: list[str] | tuple[str, ...] = ()) -> View:
    """``predicates``: the predicate-elimination lines (``PredicatePlan.describe``) once the indexing pass used
    them, shown below the listing."""
    text = str(kernel)
    from .loops import requirements_data

    data = {"after_pass": after_pass, "text": text, "lines": text.splitlines(),
            "launch_requirements": requirements_data(kernel), "predicates": list(predicates)}
    renderables: list[Any] = [text]
    if predicates:
        renderables.append(Text("\n".join(["", "predicate elimination (bounds conditions of register statements):"]
                                          + [f"  {line}" for line in predicates])))
    return View("kir", f"kernel IR after {after_pass}", renderables, data, soft_wrap=True)


@dataclass(frozen=True)
class PassChange:
    """One pass: its time and how its output's kernel IR listing differs from its input's."""

    name: str
    seconds: float
    lines: int
    nodes: int
    added: int
    removed: int
    diff: list[str]

    @property
    def changed(self) -> bool:
        return self.added > 0 or self.removed > 0


def pass_changes(records: list[Any], before: k.Kernel | None = None) -> list[PassChange]:
    """Compare each pass's kernel with the previous one (the first with ``before``, or an empty listing)."""
    previous = [] if before is None else str(before).splitlines()
    out = []
    for rec in records:
        lines = str(rec.kernel).splitlines()
        diff = list(difflib.unified_diff(previous, lines, "before", rec.name, n=1, lineterm=""))
        added = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
        removed = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
        nodes = sum(1 for _ in k.walk(rec.kernel.body))
        out.append(PassChange(rec.name, rec.seconds, len(lines), nodes, added, removed, diff))
        previous = lines
    return out


def passes_view(records: list[Any], *, detail: str | None = None) -> View:
    """The pass table; with ``detail`` (a pass name), that pass's diff below it."""
    changes = pass_changes(records)
    table = Table("pass", "time (ms)", "kernel IR lines", "+ added", "- removed", "nodes",
                  title="lowering passes (changes against the previous pass's kernel IR listing)")
    for c in changes:
        style = "" if c.changed else "dim"
        table.add_row(c.name, f"{c.seconds * 1e3:.2f}", str(c.lines),
                      Text(f"+{c.added}", style="green" if c.added else "dim"),
                      Text(f"-{c.removed}", style="red" if c.removed else "dim"), str(c.nodes),
                      style=style)
    total = sum(c.seconds for c in changes)
    renderables: list[Any] = [table, Text(f"total {total * 1e3:.2f} ms; "
                                          f"{sum(1 for c in changes if not c.changed)} passes left the listing "
                                          f"unchanged", style="dim")]
    data: dict[str, Any] = {"passes": [{"name": c.name, "ms": round(c.seconds * 1e3, 4), "lines": c.lines,
                                        "nodes": c.nodes, "added": c.added, "removed": c.removed,
                                        "changed": c.changed} for c in changes],
                            "total_ms": round(total * 1e3, 4)}
    if detail is not None:
        change = next(c for c in changes if c.name == detail)
        renderables.append(Text(f"\nwhat {detail} changed:", style="bold"))
        renderables.append(_diff_text(change.diff) if change.diff else Text("(nothing)", style="dim"))
        data["diff"] = {"pass": detail, "lines": change.diff}
    return View("passes", "lowering passes", renderables, data)


def _diff_text(diff: list[str]) -> Text:
    text = Text()
    for line in diff:
        style = ("bold" if line.startswith(("+++", "---")) else "green" if line.startswith("+")
                 else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else "")
        text.append(line + "\n", style=style)
    return text
