"""``viz TARGET [--show WHAT] [--pass NAME] [--format FMT]``: see a fusion at any stage of lowering."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable

from rich.console import Console
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from .subject import Subject
from .target import TargetError, UserCodeError
from .view import FORMATS, UsageError, View, emit

SHOWS: dict[str, str] = {
    "fusion": "expressions and TensorViews in nvFuser notation",
    "transforms": "each tensor's split/merge history",
    "loops": "the loop nest: loops, stages, allocations and syncs (default)",
    "kir": "the kernel IR after the last pass, or after --pass NAME",
    "passes": "every pass with its time and how much it changed the kernel IR (--pass NAME: its diff)",
    "cuda": "the generated CUDA source",
    "resources": "ptxas registers, shared memory, stack and spills; a wgmma kernel's descriptor moves (needs nvcc)",
    "dag": "the dataflow graph with its load and compute sub-DAGs (--format dot: Graphviz)",
    "smem": "shared-memory buffers, mbarriers and tokens: offset, size, alignment, live range, sharing",
    "pipeline": "a circular-buffered loop's first iterations as the simulator ran them",
    "heuristics": "the scheduler's parameters and why: the rule behind each, its tuning-cache entry, or given",
}
# --show all: every show above, in this order
PASS_SHOWS = ("kir", "loops", "passes")

EPILOG = """\
formats (--format) and where they go:
  text  what the terminal shows (default); colour only on a terminal
  svg   the same picture as an SVG image, for docs and issues
  json  the same content as JSON, for tools
  dot   Graphviz text; --show dag only
  Every format goes to stdout, or to FILE with --output FILE (then nothing else is printed).
  Files, pipes and SVGs are 100 columns wide unless --width says otherwise.

exit status:
  0  shown. --show pipeline without a circular-buffered loop and --show smem without
     shared memory print a note and exit 0 (so does --show heuristics of a hand-scheduled
     fusion, among other shows).
  2  an error, shown as a short red panel on stderr (the whole traceback only with --debug): a
     missing file, a file without build(), a schedule or lowering error, an unknown --show or
     --pass, nvcc missing for --show resources, a simulation error (deadlock) for --show pipeline.
     An exception of the target file's own code (at import or in build()) shows its lines in that
     file, then the exception; a malformed SIZES shows the form expected. --show heuristics alone, of
     a fusion that no scheduler (schedule(), schedule_matmul) scheduled.

target files:
  A file defines build() -> Fusion (or a module-level `fusion`) and optionally SIZES, a list of
  test sizes, each a list of one shape per fusion input: SIZES = [[(M, K), (K, N)], ...]. Its
  folder is on sys.path while it runs, so modules beside it import. docs/viz.md says more.

examples:
  viz --list
  viz seed_circular_buffer --show pipeline
  viz my_fusion.py --show kir --pass allocation
  viz pointwise_2d --show dag --format dot --output dag.dot
  viz smem_staging --show smem --format svg --output smem.svg
"""


def build_parser() -> argparse.ArgumentParser:
    shows = "\n".join(f"  {name:<11} {what}" for name, what in SHOWS.items())
    p = argparse.ArgumentParser(prog="viz", description=f"See how a scheduled fusion lowers to a CUDA kernel.\n\n"
                                f"--show WHAT:\n{shows}", epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("target", nargs="?", help="an example name (see --list) or a Python file that defines "
                   "build() -> Fusion or a module-level `fusion`")
    p.add_argument("--show", default="loops", metavar="WHAT",
                   help="what to show (default: loops); several as a comma-separated list, or all")
    p.add_argument("--pass", dest="pass_name", default=None, metavar="NAME",
                   help="with --show kir or loops: stop after this pass; with --show passes: show its diff")
    p.add_argument("--format", dest="fmt", default="text", metavar="FMT", help=f"{' | '.join(FORMATS)} "
                   "(default: text)")
    p.add_argument("-o", "--output", default=None, metavar="FILE", help="write to FILE instead of stdout")
    p.add_argument("--list", action="store_true", help="list the examples")
    p.add_argument("--no-color", action="store_true", help="plain text")
    p.add_argument("--width", type=int, default=None, metavar="N", help="columns (default: the terminal's)")
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "fuzz" and importlib.util.find_spec("viz.fuzz") is not None:
        from . import fuzz  # type: ignore[attr-defined]

        return int(fuzz.main(argv[1:]) or 0)
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except Exception as e:  # every failure becomes a short message
        if args.debug:
            if isinstance(e, UserCodeError):
                raise e.original   # the whole traceback of the user's code
            raise
        error_panel(e, no_color=args.no_color)
        return 2


def error_panel(error: BaseException, *, no_color: bool) -> None:
    """The error as a short red panel on stderr; an error of the target's own code with its place in that code."""
    text = error.report() if isinstance(error, UserCodeError) else f"{type(error).__name__}: {error}"
    Console(stderr=True, no_color=no_color, highlight=False).print(
        Panel(Text(text), title="viz", border_style="red", expand=False))


def run(args: argparse.Namespace) -> int:
    if args.fmt not in FORMATS:
        raise UsageError(f"unknown --format {args.fmt!r}; choose one of {', '.join(FORMATS)}")
    if args.width is not None and args.width < 20:
        raise UsageError(f"--width {args.width} is too narrow; give 20 columns or more")
    if args.list:
        views = [list_view()]
    else:
        if args.target is None:
            raise TargetError("give a TARGET (an example name or a .py file), or --list")
        shows = parse_shows(args.show)
        if args.pass_name is not None:
            check_pass(args.pass_name, shows)
        subject = Subject(args.target)
        views = [make_view(subject, show, pass_name=args.pass_name, no_color=args.no_color,
                           strict=len(shows) == 1) for show in shows]
    title = "viz --list" if args.list else f"viz {args.target} --show {args.show}"
    emit(views, args.fmt, output=args.output, no_color=args.no_color, width=args.width, title=title)
    return max(v.exit_code for v in views)


def parse_shows(text: str) -> list[str]:
    """``loops``, ``loops,smem`` or ``all`` as a list of show names."""
    if text == "all":
        return list(SHOWS)
    shows = [s.strip() for s in text.split(",")]
    for show in shows:
        if show not in SHOWS:
            raise UsageError(f"unknown --show {show!r}; choose one of {', '.join(SHOWS)} (or all)")
    return shows


def check_pass(name: str, shows: list[str]) -> None:
    from lowering.pipeline import PASS_NAMES

    if not any(show in PASS_SHOWS for show in shows):
        raise UsageError(f"--pass applies to --show {', '.join(PASS_SHOWS)}, not --show {', '.join(shows)}")
    if name not in PASS_NAMES:
        raise UsageError(f"unknown --pass {name!r}; passes are {', '.join(PASS_NAMES)}")


def make_view(subject: Subject, show: str, *, pass_name: str | None = None, no_color: bool = True,
              strict: bool = True) -> View:
    """The view of one ``--show`` of ``subject``; ``pass_name`` matters to kir, loops and passes; ``strict``
    (the only show asked for): a show that does not apply is an error rather than a note (heuristics)."""
    builders: dict[str, Callable[[], View]] = {
        "fusion": lambda: _fusion(subject),
        "transforms": lambda: _transforms(subject),
        "loops": lambda: _loops(subject, pass_name),
        "kir": lambda: _kir(subject, pass_name),
        "passes": lambda: _passes(subject, pass_name),
        "cuda": lambda: _cuda(subject, no_color),
        "resources": lambda: _resources(subject),
        "dag": lambda: _dag(subject),
        "smem": lambda: _smem(subject),
        "pipeline": lambda: _pipeline(subject),
        "heuristics": lambda: _heuristics(subject, strict),
    }
    if show not in builders:
        raise UsageError(f"unknown --show {show!r}; choose one of {', '.join(SHOWS)}")
    view = builders[show]()
    view.data = {"target": subject.target, **view.data}
    if subject.auto_note is not None:
        view.renderables = [Text(subject.auto_note, style="yellow"), *view.renderables]
        view.data["auto_schedule"] = subject.auto_note
    return view


def _fusion(subject: Subject) -> View:
    from .fusion_view import fusion_view

    return fusion_view(subject.fusion)


def _transforms(subject: Subject) -> View:
    from .fusion_view import transforms_view

    return transforms_view(subject.fusion)


def _loops(subject: Subject, pass_name: str | None) -> View:
    from .loops import loops_view

    kernel = subject.lowered.after(pass_name) if pass_name is not None else subject.kernel
    return loops_view(kernel, after_pass=pass_name)


def _kir(subject: Subject, pass_name: str | None) -> View:
    from .kir_view import kir_view

    name = pass_name if pass_name is not None else subject.lowered.passes[-1].name
    names = [record.name for record in subject.lowered.passes]
    analyses = subject.lowered.analyses
    predicates: list[str] = []
    if analyses is not None and "indexing" in names and names.index(name) >= names.index("indexing"):
        predicates = analyses.predicates.describe()
    return kir_view(subject.lowered.after(name), after_pass=name, predicates=predicates)


def _passes(subject: Subject, pass_name: str | None) -> View:
    from .kir_view import passes_view

    return passes_view(subject.lowered.passes, detail=pass_name)


def _cuda(subject: Subject, no_color: bool) -> View:
    from .cuda_view import cuda_view

    return cuda_view(subject.cuda, no_color=no_color)


def _resources(subject: Subject) -> View:
    from .cuda_view import resources_view

    return resources_view(subject.kernel, subject.cuda)


def _dag(subject: Subject) -> View:
    from .dag import dag_view

    return dag_view(subject.fusion)


def _smem(subject: Subject) -> View:
    from .smem import smem_view

    return smem_view(subject.kernel, depths=subject.lowered.analyses.depths)


def _pipeline(subject: Subject) -> View:
    from .pipeline import pipeline_view

    depths = subject.lowered.analyses.depths
    return pipeline_view(subject.kernel, subject.sizes,
                         depths={f"T{tv.name}": depths.stages(tv) for tv in depths.resolved})


def _heuristics(subject: Subject, strict: bool) -> View:
    from .heuristics import heuristics_view

    return heuristics_view(subject.fusion, subject.target, strict=strict)


def list_view() -> View:
    import examples

    rows = [(name, getattr(examples.load(name), "DESCRIPTION", "")) for name in examples.names()]
    table = Table("example", "description", title="examples (viz NAME)")
    for name, description in rows:
        table.add_row(Text(name), Text(description))   # descriptions hold brackets: never markup
    return View("list", "examples", [table], {"examples": [{"name": n, "description": d} for n, d in rows]})


if __name__ == "__main__":
    sys.exit(main())
