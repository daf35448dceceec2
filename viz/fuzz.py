"""``viz fuzz``: fuzz random schedules against numpy, with a progress bar and coverage tables.

Runs the properties of the ``fuzz`` package (hypothesis strategies for fusions and schedules) on
``--examples`` fresh cases from ``--seed``: every scheduling call succeeds or raises
``ScheduleError``, ``lower`` succeeds or raises ``LoweringError``, and every kernel that lowers
matches numpy in the simulator (``--gpu``: on the GPU too; ``--nvcc-every K``: every K-th kernel
compiled for sm_90a). The ``matmul`` template draws ``MatmulParams`` (and suggested ones) for the
matmul scheduler, so one command fuzzes everything the product generates. ``--workers N`` runs N
processes, each on its own seed; their counts and failures are merged. On a failure the shrunk
case is printed as a runnable Python script and saved under ``--out``. The tables count each
primitive's calls, what each lowering pass did and the kernel IR the kernels contained.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.panel import Panel
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

TEMPLATES = ("guided", "tma", "reduction", "random", "matmul")
# worker i of --workers N fuzzes from seed ``seed * WORKER_SEED_STRIDE + i``: its own stream of cases
WORKER_SEED_STRIDE = 1000


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="viz fuzz", description="Fuzz random schedules of random fusions against numpy.")
    p.add_argument("--examples", type=int, default=200, help="how many cases to generate (default: 200)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default: 0)")
    p.add_argument("--gpu", action="store_true", help="also run every kernel that lowers on the GPU")
    p.add_argument("--nvcc-every", type=int, default=0, metavar="K",
                   help="compile every K-th kernel that lowers with nvcc for sm_90a (default: 0, never)")
    p.add_argument("--no-simulate", action="store_true", help="check the schedule API and lowering only")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="processes to fuzz in, each from its own seed (default: 1)")
    p.add_argument("--templates", default=",".join(TEMPLATES),
                   help=f"schedule templates to draw from (default: {','.join(TEMPLATES)})")
    p.add_argument("--match", default=None, metavar="REGEX",
                   help="stop only on failures whose message matches REGEX; count the others")
    p.add_argument("--no-shrink", action="store_true", help="report the first failing case as found")
    p.add_argument("--out", default="fuzz-failures", help="folder for reproducer scripts (default: fuzz-failures)")
    p.add_argument("--json", default=None, metavar="PATH", help="also write the counts as JSON")
    p.add_argument("--no-color", action="store_true", help="plain text")
    p.add_argument("--width", type=int, default=None, help="console width")
    return p


def _import_fuzz() -> Any:
    """The fuzz package: properties and strategies (its strategies need hypothesis)."""
    try:
        from fuzz import properties, strategies
    except ModuleNotFoundError as e:
        if e.name != "hypothesis":
            raise
        raise SystemExit("viz fuzz needs hypothesis: pip install hypothesis") from None
    return properties, strategies


class _Run:
    """State shared between the hypothesis test function and the command."""

    def __init__(self, args: argparse.Namespace, properties: Any) -> None:
        self.args = args
        self.properties = properties
        self.stats = properties.Stats()
        self.failure: Any = None
        self.shrinking = False
        self.shrink_steps = 0
        self.lowered = 0
        self.ignored: Counter = Counter()
        self.primitives: tuple[str, ...] = ()

    def one(self, case: Any) -> None:
        props = self.properties
        local = props.Stats()
        try:
            if not hasattr(case, "steps"):      # a MatmulCase (the matmul template)
                from fuzz.matmul import check_matmul

                check_matmul(case, local, simulate=not self.args.no_simulate)
                if not self.shrinking:
                    self.stats.merge(local)
                return
            fusion, outcomes = props.check_schedule(case, local)
            kernel = props.check_lowering(case, fusion, outcomes, local)
            if kernel is not None:
                if not self.shrinking:
                    self.lowered += 1
                if not self.args.no_simulate:
                    props.check_simulation(case, fusion, kernel, outcomes, local)
                k = self.args.nvcc_every
                if k > 0 and (self.shrinking or self.lowered % k == 0):
                    props.check_compiles(case, kernel, outcomes, local)
                if self.args.gpu:
                    props.check_gpu(case, fusion, kernel, outcomes, local)
        except props.PropertyFailure as e:
            if self.args.match is not None and not re.search(self.args.match, e.message):
                if not self.shrinking:
                    self.ignored[f"[{e.prop}] {e.message.splitlines()[0][:100]}"] += 1
                    self.stats.merge(local)
                return
            self.failure = e
            self.shrinking = True
            raise
        finally:
            if self.shrinking:
                self.shrink_steps += 1
        if not self.shrinking:
            self.stats.merge(local)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    console = Console(no_color=args.no_color, width=args.width, highlight=not args.no_color,
                      force_terminal=False if args.no_color else None)
    templates = tuple(t.strip() for t in args.templates.split(",") if t.strip())
    unknown = [t for t in templates if t not in TEMPLATES]
    if unknown or not templates:
        console.print(f"viz fuzz: unknown template(s) {unknown}; choose from {', '.join(TEMPLATES)}", markup=False)
        return 2
    if args.examples < 1:
        console.print("viz fuzz: --examples must be at least 1", markup=False)
        return 2
    if args.nvcc_every > 0:
        from codegen.nvcc import nvcc_available

        if not nvcc_available():
            console.print("viz fuzz: --nvcc-every needs nvcc on PATH", markup=False)
            return 2

    if args.workers < 1:
        console.print("viz fuzz: --workers must be at least 1", markup=False)
        return 2
    _import_fuzz()
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TextColumn("{task.fields[status]}"), console=console, transient=False)
    task = progress.add_task("fuzzing", total=args.examples, status="")
    start = time.perf_counter()
    with progress:
        if args.workers == 1:
            state, error = _fuzz(args, templates, args.seed, args.examples, progress, task)
            failures = [] if state.failure is None else [state.failure]
        else:
            state, failures, error = _fuzz_in_workers(args, templates, progress, task)
    seconds = time.perf_counter() - start

    print_tables(console, state, seconds)
    if args.json is not None:
        Path(args.json).write_text(json.dumps(counts(state, seconds), indent=2))
    if error is not None:
        console.print(Panel(error, title="the fuzzer itself failed", border_style="red"), markup=False)
        return 2
    if failures:
        paths = [_save(failure, Path(args.out)) for failure in failures]
        failure = failures[0]
        console.print(Panel(Syntax(failure.script, "python", line_numbers=False) if not args.no_color
                            else failure.script, title=f"property {failure.prop} fails; reproducer", expand=False))
        console.print(f"[{failure.prop}] {failure.message}", markup=False)
        for other in failures[1:]:
            console.print(f"also: [{other.prop}] {other.message.splitlines()[0]}", markup=False)
        console.print(f"reproducer{'s' if len(paths) > 1 else ''} saved to {', '.join(str(p) for p in paths)}",
                      markup=False)
        return 1
    seeds = f"seed {args.seed}" if args.workers == 1 else f"seed {args.seed}, {args.workers} workers"
    console.print(f"no failures in {state.stats.examples} examples ({seeds})", markup=False)
    return 0


def _strategy(strategies: Any, templates: tuple[str, ...]) -> Any:
    """Cases of the fusion templates and, with ``matmul`` among them, matmul cases, each template as likely."""
    from hypothesis import strategies as st

    fusion_templates = tuple(t for t in templates if t != "matmul")
    if "matmul" not in templates:
        return strategies.cases(templates=fusion_templates)
    from fuzz.matmul import matmul_cases

    if not fusion_templates:
        return matmul_cases()
    fusions = strategies.cases(templates=fusion_templates)
    return st.integers(0, len(templates) - 1).flatmap(
        lambda i: matmul_cases() if templates[i] == "matmul" else fusions)


def _fuzz(args: argparse.Namespace, templates: tuple[str, ...], seed: int, examples: int, progress: Any,
          task: Any) -> tuple[_Run, str | None]:
    """Run the properties on ``examples`` cases from ``seed``; ``progress`` gets ``update(task, ...)`` calls."""
    from hypothesis import HealthCheck, Phase, Verbosity, given, settings
    from hypothesis import seed as hypothesis_seed

    properties, strategies = _import_fuzz()
    state = _Run(args, properties)
    state.primitives = strategies.PRIMITIVES
    phases = [Phase.generate] if args.no_shrink else [Phase.generate, Phase.shrink]

    @hypothesis_seed(seed)
    @settings(max_examples=examples, database=None, deadline=None, derandomize=False, phases=phases,
              report_multiple_bugs=False, verbosity=Verbosity.quiet, suppress_health_check=list(HealthCheck))
    @given(case=_strategy(strategies, templates))
    def fuzz(case: Any) -> None:
        try:
            state.one(case)
        finally:
            if state.shrinking:
                progress.update(task, description="shrinking", status=f"{state.shrink_steps} tries")
            else:
                s = state.stats
                progress.update(task, advance=1, status=f"lowered {s.lowering['lowered']}, "
                                                        f"simulated {s.kernels_simulated}")

    error: str | None = None
    try:
        fuzz()
    except properties.PropertyFailure:
        pass
    except Exception as e:  # noqa: BLE001 - a failure of the fuzzer itself
        error = f"{type(e).__name__}: {e}"
    return state, error


@dataclass(frozen=True)
class Failure:
    """A property failure as plain data (what a worker process sends back)."""

    prop: str
    message: str
    script: str


class _QueueProgress:
    """Stands in for ``rich.progress.Progress`` in a worker: sends each advance to the parent."""

    def __init__(self, queue: Any) -> None:
        self.queue = queue

    def update(self, task: Any, advance: int = 0, **fields: Any) -> None:
        if advance:
            self.queue.put(advance)


def _worker(args: argparse.Namespace, templates: tuple[str, ...], seed: int, examples: int,
            queue: Any) -> tuple[Any, Counter, int, Failure | None, str | None]:
    state, error = _fuzz(args, templates, seed, examples, _QueueProgress(queue), None)
    failure = state.failure
    plain = None if failure is None else Failure(failure.prop, failure.message, failure.script)
    return state.stats, state.ignored, state.lowered, plain, error


def _fuzz_in_workers(args: argparse.Namespace, templates: tuple[str, ...], progress: Any,
                     task: Any) -> tuple[_Run, list[Failure], str | None]:
    """``--workers N``: N processes, worker i fuzzing ``examples / N`` cases from its own seed."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, wait

    properties, strategies = _import_fuzz()
    n = args.workers
    shares = [args.examples // n + (i < args.examples % n) for i in range(n)]
    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    state = _Run(args, properties)
    state.primitives = strategies.PRIMITIVES
    failures: list[Failure] = []
    errors: list[str] = []
    with context.Manager() as manager, ProcessPoolExecutor(max_workers=n, mp_context=context) as pool:
        queue = manager.Queue()
        futures = [pool.submit(_worker, args, templates, args.seed * WORKER_SEED_STRIDE + i, share, queue)
                   for i, share in enumerate(shares) if share > 0]
        pending = set(futures)
        while pending:
            _, pending = wait(pending, timeout=0.2)
            while not queue.empty():
                progress.update(task, advance=queue.get())
            progress.update(task, status=f"{n} workers, {len(futures) - len(pending)} done")
        for future in futures:
            stats, ignored, lowered, failure, error = future.result()
            state.stats.merge(stats)
            state.ignored.update(ignored)
            state.lowered += lowered
            if failure is not None:
                failures.append(failure)
            if error is not None:
                errors.append(error)
    return state, failures, "\n".join(errors) if errors else None


def _save(failure: Any, directory: Path) -> Path:
    import hashlib

    directory.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(failure.script.encode()).hexdigest()[:8]
    path = directory / f"fuzz_failure_{failure.prop.replace(' ', '_')}_{digest}.py"
    path.write_text(failure.script)
    return path


# ---------------------------------------------------------------- reporting
def counts(state: _Run, seconds: float) -> dict[str, Any]:
    s = state.stats
    primitives: dict[str, dict[str, int]] = {}
    for (kind, outcome), n in sorted(s.calls.items()):
        primitives.setdefault(kind, {})[outcome] = n
    for (variant, outcome), n in sorted(s.variants.items()):
        primitives.setdefault(variant, {})[outcome] = n
    passes: dict[str, dict[str, int]] = {}
    for (name, what), n in sorted(s.passes.items()):
        passes.setdefault(name, {})[what] = n
    return {
        "seed": state.args.seed, "seconds": round(seconds, 1), "examples": s.examples,
        "schedules": dict(s.schedules), "lowering": dict(s.lowering), "templates": dict(s.templates),
        "kernels_simulated": s.kernels_simulated, "kernels_compiled": s.kernels_compiled,
        "kernels_on_gpu": s.kernels_on_gpu, "runs": dict(s.runs), "primitives": primitives, "passes": passes,
        "kernel_ir_nodes": dict(s.nodes), "features": dict(s.features), "ignored_failures": dict(state.ignored),
    }


def print_tables(console: Console, state: _Run, seconds: float) -> None:
    from lowering.pipeline import PASS_NAMES

    s = state.stats
    summary = Table("what", "count", title="fuzz summary", title_justify="left")
    summary.add_row("examples run", str(s.examples))
    summary.add_row("  schedules with every call accepted", str(s.schedules["all calls ok"]))
    summary.add_row("  schedules with a rejected call (ScheduleError)", str(s.schedules["some call rejected"]))
    summary.add_row("  lowered", str(s.lowering["lowered"]))
    summary.add_row("  rejected by lower (LoweringError)", str(s.lowering["LoweringError"]))
    summary.add_row("kernels simulated", str(s.kernels_simulated))
    for outcome, n in sorted(s.runs.items()):
        summary.add_row(Text(f"  runs: {outcome}"), str(n))
    summary.add_row("kernels compiled with nvcc", str(s.kernels_compiled))
    summary.add_row("kernels run on the GPU", str(s.kernels_on_gpu))
    for template, n in sorted(s.templates.items()):
        summary.add_row(f"template {template}", str(n))
    summary.add_row("seconds", f"{seconds:.1f}")
    console.print(summary)

    prims = Table("primitive", "calls", "ok", "ScheduleError", title="primitive coverage", title_justify="left")
    kinds = list(state.primitives) + sorted({k for k, _ in s.calls} - set(state.primitives))
    for kind in kinds:
        ok, bad = s.calls[(kind, "ok")], s.calls[(kind, "ScheduleError")]
        prims.add_row(kind, str(ok + bad), str(ok), str(bad))
    for variant in sorted({v for v, _ in s.variants}):
        ok, bad = s.variants[(variant, "ok")], s.variants[(variant, "ScheduleError")]
        prims.add_row(Text(f"  {variant}"), str(ok + bad), str(ok), str(bad))
    console.print(prims)

    passes = Table("pass", "kernels through", "changed the IR", "LoweringError", title="pass coverage",
                   title_justify="left")
    for name in PASS_NAMES:
        passes.add_row(name, str(s.passes[(name, "ran")]), str(s.passes[(name, "changed")]),
                       str(s.passes[(name, "LoweringError")]))
    other = sorted({n for n, w in s.passes if n not in PASS_NAMES})
    for name in other:
        passes.add_row(name, "", "", str(s.passes[(name, "LoweringError")]))
    console.print(passes)

    features = Table("the cases held", "cases", title="case coverage", title_justify="left")
    for name, n in sorted(s.features.items()):
        features.add_row(Text(name), str(n))
    console.print(features)

    nodes = Table("kernel IR node", "count", title="kernel IR in lowered kernels", title_justify="left")
    for name, n in sorted(s.nodes.items(), key=lambda kv: (-kv[1], kv[0])):
        nodes.add_row(Text(name), str(n))
    console.print(nodes)

    if state.ignored:
        ignored = Table("failure (not matching --match)", "count", title="other failures", title_justify="left")
        for text, n in state.ignored.most_common():
            ignored.add_row(Text(text), str(n))
        console.print(ignored)


if __name__ == "__main__":
    sys.exit(main())
