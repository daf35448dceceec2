"""``--show heuristics``: which scheduler chose the fusion's parameters, each parameter's value and why: the
rule that decided it, the tuning-cache entry it came from, or the caller who gave it
(``fusion.scheduler_choice``, recorded by ``schedule`` for every scheduler and by ``schedule_matmul``)."""

from __future__ import annotations

import enum
from dataclasses import fields
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from fusion_ir import Fusion, MmaOp, ScheduleError
from fusion_ir.schedulers import HeuristicParams, MatmulHeuristic, MatmulParams
from fusion_ir.schedulers.matmul_choice import MatmulChoice
from fusion_ir.schedulers.matmul_why import field_values, params_name
from fusion_ir.schedulers.suggest import rule_params

from .view import UsageError, View

SOURCE_STYLE = {"rule": "cyan", "tuned": "green", "given": "yellow"}


def heuristics_view(fusion: Fusion, target: str, *, strict: bool = True) -> View:
    """The view of ``fusion``'s scheduler choice. Without one: a ``UsageError`` (``strict``), or a note."""
    choice = fusion.scheduler_choice
    if isinstance(choice, MatmulHeuristic) and choice.choice is not None:
        return _matmul_view(choice.choice, via="schedule")
    if isinstance(choice, HeuristicParams):
        return _params_view(choice)
    if not isinstance(choice, MatmulChoice):
        has_matmul = any(isinstance(e, MmaOp) for e in fusion.exprs)
        why = (f"--show heuristics: the matmul of {target} was scheduled by hand, not by schedule_matmul; there are "
               f"no scheduler parameters to show" if has_matmul else
               f"--show heuristics: {target} was scheduled by hand; it shows the parameters a scheduler "
               f"(schedule(), schedule_matmul) chose")
        if strict:
            raise UsageError(why)
        return View("heuristics", "heuristics", [Text(why, style="dim")], {"scheduler": None, "note": why})
    return _matmul_view(choice)


def _params_view(params: HeuristicParams) -> View:
    """Any scheduler's ``HeuristicParams``: its name, then each field's value and the rule behind it."""
    header = Text()
    header.append(f"scheduler: {params.scheduler} (schedule)\n", style="bold")
    table = Table("parameter", "value", "why", title=type(params).__name__, title_justify="left")
    rows = []
    for f in fields(params):
        if f.name in ("scheduler", "why"):
            continue
        value = _value_text(getattr(params, f.name))
        reason = params.why.get(f.name, "")
        rows.append({"name": f.name, "value": value, "reason": reason})
        table.add_row(Text(f.name), Text(value, style="bold"), Text(reason))
    data = {"scheduler": params.scheduler, "params": type(params).__name__, "fields": rows}
    return View("heuristics", "heuristics", [Group(header, table)], data)


def _value_text(value: Any) -> str:
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, tuple) and all(isinstance(v, int) for v in value):
        return " x ".join(str(v) for v in value)
    return str(value)


def _matmul_view(choice: MatmulChoice, via: str | None = None) -> View:
    why = choice.why
    style = SOURCE_STYLE.get(why.source, "")
    header = Text()
    header.append(f"scheduler: {choice.scheduler}" + (f" (matmul, by {via})" if via else "") + "\n", style="bold")
    header.append(f"problem:   {choice.key}\n")
    header.append("source:    ")
    header.append(why.source, style=f"bold {style}")
    header.append(f": {why.summary}")
    rules = _rules(choice.problem) if why.source != "rule" else None
    rule_values = {} if not isinstance(rules, MatmulParams) else dict(field_values(rules))
    table = Table("parameter", "value", "why", title=f"MatmulParams: {params_name(choice.params)}",
                  title_justify="left")
    reasons = []
    for f in why.fields:
        reason = f.reason
        if f.name in rule_values:
            reason += " (the rules agree)" if rule_values[f.name] == f.value else f" (the rules: {rule_values[f.name]})"
        reasons.append(reason)
        table.add_row(Text(f.name), Text(f.value, style="bold"), Text(reason))
    renderables: list[Any] = [header, table]
    data: dict[str, Any] = {
        "scheduler": choice.scheduler, "key": choice.key, "source": why.source, "summary": why.summary,
        "params": params_name(choice.params),
        "fields": [{"name": f.name, "value": f.value, "reason": r} for f, r in zip(why.fields, reasons)],
    }
    if why.tuned is not None:
        renderables.append(_tried_table(why.tuned))
        data["tuned"] = why.tuned.to_json()
    if rules is not None:
        note = (f"the rules refuse this problem: {rules}" if isinstance(rules, ScheduleError) else
                f"the rules would choose {params_name(rules)}: {rules.why.summary}")
        renderables.append(Text(note, style="dim"))
        data["rules"] = note
    return View("heuristics", "heuristics", [Group(*renderables)], data)


def _tried_table(entry: Any) -> Table:
    table = Table("candidate", "ms", "TFLOP/s", "", title=f"candidates tried on {entry.device} ({entry.date})",
                  title_justify="left")
    for t in entry.tried:
        won = t.ms == entry.ms and t.error is None
        table.add_row(Text(t.name), Text("" if t.ms is None else f"{t.ms:.4f}"),
                      Text("" if t.tflops is None else f"{t.tflops:.1f}"),
                      Text("winner" if won else (t.error or ""), style="green" if won else "dim"))
    return table


def _rules(problem: Any) -> MatmulParams | ScheduleError:
    """What the rules choose for ``problem`` (on the current target), or why they refuse it."""
    try:
        return rule_params(problem)
    except ScheduleError as e:
        return e
