"""A long run of the ``schedule()`` property (``fuzz.schedulers.check``) that counts every outcome by fusion class
instead of stopping at the first failure:

    python -m fuzz.scheduler_campaign --examples 500 --seed 1 [--classes reduction normalization] [--out DIR]

prints, per class, how many cases matched numpy (by the scheduler that took them and the features of its params),
were refused with a ScheduleError (by reason, numbers and tensor names blurred so that one rule is one line; a
ScheduleError after a scheduler's ``decline()`` took the fusion is counted apart: a missed decline rule) or failed
(a wrong result or any other error: a bug). Each failure's ``SchedulerCase.script()`` is written under ``--out``.
"""

from __future__ import annotations

import argparse
import contextlib
import collections
import re
import sys
import time
import traceback
from pathlib import Path

from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st

from fusion_ir.schedulers.registry import decline_reasons
from target import use

from .schedulers import (
    SchedulerCase,
    check,
    normalization_cases,
    pointwise_cases,
    reduction_cases,
    transpose_cases,
)

STRATEGIES = {"pointwise": pointwise_cases, "transpose": transpose_cases, "reduction": reduction_cases,
              "normalization": normalization_cases}


def blur(reason: str) -> str:
    """One line per rule: tensor names and numbers replaced."""
    reason = re.sub(r"\bT\d+\b", "T", reason)
    reason = re.sub(r"\d+", "N", reason)
    return reason[:160]


def shape_of(params: object) -> str:
    """The params' features that pick different code: the kind, grid splits, rows per block, vectors, memory."""
    parts = [str(getattr(params, "kind", ""))]
    if getattr(params, "grid_splits", 1) > 1:
        parts.append("grid")
    if getattr(params, "threads_y", 1) > 1:
        parts.append("ty")
    if getattr(params, "vectorize", 1) > 1:
        parts.append("vec")
    if getattr(params, "unroll", 1) > 1:
        parts.append("unroll")
    memory = getattr(params, "persistent_memory", None)
    if memory is not None:
        parts.append(str(memory))
    return " ".join(p for p in parts if p)


def refusal_reason(case: SchedulerCase, outcome: str) -> str:
    first = outcome.removeprefix("declined: ")
    if not first.startswith("schedule: no scheduler takes this fusion"):
        return blur(first)
    with use(case.gpu.target()) if case.gpu is not None else contextlib.nullcontext():
        reasons = decline_reasons(case.build(), case.input_shapes())
    own = reasons.get(case.kind) or "?"
    if case.kind == "reduction" and "normalization" in own:   # a reduction that is not one: the other's reason
        return f"normalization: {blur(reasons.get('normalization') or '?')}"
    return f"{case.kind}: {blur(own)}"


def run(examples: int, start: int, classes: list[str], out: Path | None) -> collections.Counter:
    counts: collections.Counter = collections.Counter()
    failures = 0
    strategy = st.one_of(*(STRATEGIES[c]() for c in classes))

    @seed(start)
    @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
              suppress_health_check=list(HealthCheck))
    @given(case=strategy)
    def one(case: SchedulerCase) -> None:
        nonlocal failures
        seen: list[object] = []
        try:
            outcome = check(case, seen.append)
        except Exception as e:   # noqa: BLE001 - every other outcome is a bug, counted and kept
            failures += 1
            head = str(e).splitlines()[0] if str(e) else ""
            counts[(case.kind, "bug", f"{type(e).__name__}: {blur(head)}")] += 1
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                (out / f"failure_{start}_{failures}.txt").write_text(
                    f"{case.script()}\n\n{traceback.format_exc()}")
            return
        if outcome.startswith("declined: schedule: no scheduler takes this fusion"):
            counts[(case.kind, "ScheduleError", refusal_reason(case, outcome))] += 1
        elif outcome.startswith("declined: "):
            # a scheduler took the fusion, then its suggest or apply refused: a decline() that missed a rule
            counts[(case.kind, "ScheduleError after decline() took it", refusal_reason(case, outcome))] += 1
        else:
            counts[(case.kind, "matched numpy", f"{outcome} {shape_of(seen[0])}")] += 1

    one()
    return counts


def report(counts: collections.Counter) -> str:
    lines = []
    by_class: collections.Counter = collections.Counter()
    for (kind, outcome, _), n in counts.items():
        by_class[(kind, outcome)] += n
    for (kind, outcome), n in sorted(by_class.items()):
        lines.append(f"{kind:14s} {outcome:14s} {n}")
    lines.append("")
    for (kind, outcome, detail), n in sorted(counts.items()):
        lines.append(f"{n:6d}  {kind} / {outcome} / {detail}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz.scheduler_campaign", description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--classes", nargs="+", choices=list(STRATEGIES), default=list(STRATEGIES))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    t0 = time.time()
    counts = run(args.examples, args.seed, args.classes, args.out)
    print(report(counts))
    print(f"\n{sum(counts.values())} cases in {time.time() - t0:.0f} s")
    return 1 if any(k[1] == "bug" for k in counts) else 0


if __name__ == "__main__":
    sys.exit(main())
