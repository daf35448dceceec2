"""``--show pipeline``: a circular-buffered loop as the simulator ran it, stage by stage.

The kernel runs in ``runtime.simulate`` on small random inputs with a trace; the view lists the
mbarrier and TMA events of block 0 in the order they happened, one column per buffer stage:
which stage each load fills, which stage each compute waits on, the arrivals and phase flips
between them. It shows the pipeline's start (pre-prologue, prologue, the first few iterations
of the main loop or of the AsyncWarp/ComputeWarp loops) and its drain (epilogue, post-epilogue).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields, is_dataclass, replace
from typing import Any

import numpy as np
from rich.table import Table
from rich.text import Text

from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k

from .elected import elected_warps
from .loops import STAGE_STYLE
from .view import View

SHOWN_ITERATIONS = 3          # iterations of the steady-state loop shown before the drain
DEFAULT_EXTENTS = (1000, 4096, 256)   # tried in order for symbolic extents when the target has no SIZES
SEED = 0
_STEADY = (k.Stage.Main, k.Stage.ComputeWarp)
_DRAIN = (k.Stage.Epilogue, k.Stage.PostEpilogue)
_EVENT_STYLE = {"tma.issue": "bright_blue", "mbarrier.arrive_expect_tx": "blue", "tma.land": "green",
                "mbarrier.phase_complete": "green", "mbarrier.wait_parity": "red", "mbarrier.wait": "red",
                "mbarrier.arrive": "yellow", "mbarrier.init": "magenta", "mbarrier.inval": "magenta",
                "tma_store.issue": "cyan"}


def has_pipeline(kernel: k.Kernel) -> bool:
    return any(isinstance(n, k.ForLoop) and n.stage in _STEADY + (k.Stage.AsyncWarp,) for n in k.walk(kernel.body))


def distinct_stage_indices(kernel: k.Kernel) -> tuple[k.Kernel, dict[str, tuple[str, k.Stage]]]:
    """The kernel with every stage clone's loop index renamed apart (``i1`` -> ``i1@main``), and a
    map from each new name to the original name and the stage.

    The prologue, main and epilogue clones of a loop usually share its index symbol; the trace
    names enclosing loops by symbol only, so renaming lets each event name its stage.
    """
    names: dict[str, tuple[str, k.Stage]] = {}

    def rename(node: k.Node) -> k.Node | None:
        if not isinstance(node, k.ForLoop) or node.stage is None:
            return None
        old = node.index.name
        new = f"{old}@{node.stage.value}"
        while new in names:
            new += "'"
        names[new] = (old, node.stage)
        return _substitute(node, {old: Val.symbol(new)})

    body = _rewrite_outer_first(kernel.body, rename)
    return replace(kernel, body=body), names


def _rewrite_outer_first(body: tuple[k.Node, ...], fn: Any) -> tuple[k.Node, ...]:
    out = []
    for node in body:
        new = fn(node)
        node = node if new is None else new
        kids = k.children(node)
        if kids:
            node = replace(node, **{name: _rewrite_outer_first(sub, fn) for name, sub in kids})
        out.append(node)
    return tuple(out)


def _substitute(obj: Any, mapping: dict[str, Val]) -> Any:
    """``obj`` with symbols replaced in every ``Val`` it holds, statements and values included."""
    if isinstance(obj, Val):
        return obj.substitute(mapping)
    if isinstance(obj, tuple):
        return tuple(_substitute(x, mapping) for x in obj)
    if is_dataclass(obj) and not isinstance(obj, (type, k.Buffer, k.TensorMapParam)):
        return replace(obj, **{f.name: _substitute(getattr(obj, f.name), mapping) for f in fields(obj) if f.init})
    return obj


@dataclass
class Run:
    """One traced simulation: the input shapes used, the trace, and the error it ended with, if any."""

    shapes: list[tuple[int, ...]]
    trace: list[dict[str, Any]]
    error: Exception | None


def candidate_shapes(kernel: k.Kernel, sizes: Sequence[Sequence[tuple[int, ...]]] | None) -> list[list[tuple]]:
    """Input shapes to try: the target's middle ``SIZES`` entry, then the largest, then the rest;
    without ``SIZES``, every symbolic extent set to each of ``DEFAULT_EXTENTS``."""
    if sizes:
        order = [len(sizes) // 2, len(sizes) - 1, *range(len(sizes))]
        seen: list[list[tuple]] = []
        for i in order:
            shapes = [tuple(s) for s in sizes[i]]
            if shapes not in seen:
                seen.append(shapes)
        return seen
    out = []
    for n in DEFAULT_EXTENTS:
        out.append([tuple(int(d.const_value()) if d.const_value() is not None else n for d in b.shape)
                    for b in kernel.inputs])
    return out


def random_inputs(kernel: k.Kernel, shapes: list[tuple], seed: int = SEED) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for buf, shape in zip(kernel.inputs, shapes):
        if buf.dtype.is_float:
            dtype = "float32" if buf.dtype is DataType.BFloat16 else buf.dtype.numpy_name
            out.append(rng.uniform(-2.0, 2.0, size=shape).astype(dtype))
        else:
            out.append(rng.integers(-8, 8, size=shape).astype(buf.dtype.numpy_name))
    return out


def traced_run(kernel: k.Kernel, sizes: Sequence[Sequence[tuple[int, ...]]] | None) -> Run:
    """Simulate on the first candidate shapes the kernel's runtime checks accept."""
    from runtime import simulate
    from runtime.errors import InputError, PipelineFillError, SimulationError

    rejected: list[str] = []
    for shapes in candidate_shapes(kernel, sizes):
        trace: list[dict[str, Any]] = []
        try:
            simulate(kernel, random_inputs(kernel, shapes), seed=SEED, trace=trace)
        except (PipelineFillError, InputError) as e:
            if trace:
                return Run(shapes, trace, e)
            rejected.append(f"{shapes}: {e}")
            continue
        except SimulationError as e:
            return Run(shapes, trace, e)
        return Run(shapes, trace, None)
    raise InputError("no input size passes the kernel's runtime checks:\n" + "\n".join(rejected))


# ---------------------------------------------------------------- events
@dataclass(frozen=True)
class Loc:
    """The innermost stage-clone loop an event ran in."""

    key: str          # the renamed index symbol: unique per clone
    name: str         # the kernel's index symbol
    value: int
    stage: k.Stage

    @property
    def where(self) -> str:
        return f"{self.stage.value} {self.name}={self.value}"


@dataclass(frozen=True)
class Row:
    step: int
    where: str                   # "main i7=2", or "" for the async proxy
    stage: k.Stage | None
    tasks: tuple[str, ...]       # the warps (tasks) that ran it; "async proxy" for landings
    slot: int | None             # the buffer stage the event is about; None for commit/wait groups
    kind: str
    text: str
    after_gap: bool = False      # the first row after the left-out iterations

    @property
    def task(self) -> str:
        return self.tasks[0] if len(self.tasks) == 1 else f"{self.tasks[0]} +{len(self.tasks) - 1}"


@dataclass(frozen=True)
class Timeline:
    rows: list[Row]
    omitted: int                 # trace events left out between the steady state and the drain
    barriers: list[str]          # the pipeline's mbarrier arrays
    stages: int                  # buffer stages (columns)
    buffers: list[str]           # the circular-buffered tensors the loads fill
    prefetch: int                # iterations of the prologue that load


Located = tuple[dict[str, Any], "Loc | None"]


def pipeline_timeline(kernel: k.Kernel, names: dict[str, tuple[str, k.Stage]], trace: list[dict[str, Any]],
                      iterations: int = SHOWN_ITERATIONS) -> Timeline:
    """The rows to show for a trace of ``kernel`` (whose stage loops ``names`` describes).

    Waits and arrives that several warps make for one iteration and stage share a row; a wait that
    had to block shows twice: when it started and when it passed. An mbarrier index past the
    stage count is the stage's WAR ("empty") barrier, as in nvFuser's arrays of 2 * stages.
    """
    located = [(ev, _location(ev, names)) for ev in trace]
    barriers = sorted({ev["barrier"] for ev, loc in located if loc is not None and "barrier" in ev})
    stages, elements = _stages(kernel, trace, barriers)
    several = len(barriers) > 1
    relevant = [(ev, loc) for ev, loc in located if loc is not None or ev.get("barrier") in barriers]
    kept = _window(relevant, iterations)
    omitted = len(relevant) - len(kept)
    gap_at = next((n for n, (_, loc) in enumerate(kept) if loc is not None and loc.stage in _DRAIN), len(kept))

    elected = elected_warps(kernel)   # the warp the CUDA elects, not the simulator's choice of task
    rows: list[Row] = []
    merged: dict[tuple, int] = {}
    waiting: dict[tuple, tuple[int, str]] = {}   # (task, barrier, index) -> (row, wait text)
    for n, (ev, loc) in enumerate(kept):
        kind = ev["kind"]
        where, stage = ("", None) if loc is None else (loc.where, loc.stage)
        task = "async proxy" if loc is None else elected.get(kind.removesuffix(".done"), ev.get("task", ""))
        index = ev.get("index")
        if kind == "cp_async.issue":
            per_stage = elements.get(ev["dst"])
            index = None if per_stage is None else (ev["dst_index"] // per_stage) % stages
        slot = None if index is None else index % stages
        key = (task, ev.get("barrier"), index)
        text = _event_text(ev, several)
        if index is not None and index >= stages:
            text = f"WAR {text}"
        if kind in ("mbarrier.wait_parity", "mbarrier.wait"):
            waiting[key] = (len(rows), text)
            text += " …"
        elif kind.endswith(".done"):
            at, wait_text = waiting.pop(key, (-1, "wait"))
            kind = kind[:-len(".done")]
            if at == len(rows) - 1 and rows[at].tasks == (task,):   # nothing happened while it waited
                rows.pop()
                text = f"{wait_text} ✓"
            else:
                text = f"{wait_text} passed"
        row = Row(ev["step"], where, stage, (task,), slot, kind, text, after_gap=omitted > 0 and n == gap_at)
        group = (where, slot, kind, text) if where and kind in _PER_WARP else None
        if group is not None and group in merged and not row.after_gap:
            at = merged[group]
            rows[at] = Row(rows[at].step, where, stage, rows[at].tasks + (task,), slot, kind, text, rows[at].after_gap)
            continue
        if group is not None:
            merged[group] = len(rows)
        rows.append(row)
    if omitted and gap_at == len(kept):
        rows.append(Row(rows[-1].step if rows else 0, "", None, (), None, "gap", "", after_gap=True))

    loads = sorted({ev["dst"] for ev, loc in relevant if ev["kind"] in ("tma.issue", "cp_async.issue")})
    prologue = {(loc.key, loc.value) for ev, loc in relevant if loc is not None and loc.stage is k.Stage.Prologue
                and ev["kind"] in ("tma.issue", "cp_async.issue")}
    return Timeline(rows, omitted, barriers, stages, loads, len(prologue))


_PER_WARP = ("mbarrier.wait_parity", "mbarrier.wait", "mbarrier.arrive", "cp_async.issue", "async.commit",
             "async.wait")


def _stages(kernel: k.Kernel, trace: list[dict[str, Any]], barriers: list[str]) -> tuple[int, dict[str, int]]:
    """The pipeline's buffer stages, and the elements per stage of each circular-buffered buffer.

    The stage count is the fusion's ``circular_buffer(stages)`` when the kernel knows its fusion,
    else the mbarrier slots the TMA loads complete on, else the size of the mbarrier arrays.
    """
    counts: dict[str, int] = {}
    fusion = getattr(kernel, "fusion", None)
    for tv in getattr(fusion, "tensors", []) or []:
        if tv.circular_buffer_options is not None:
            counts[f"T{tv.name}"] = tv.circular_buffer_options.stages
    sizes = {n.buffer.name: n.buffer.size.const_value() for n in k.walk(kernel.body) if isinstance(n, k.Allocate)}
    elements = {name: sizes[name] // s for name, s in counts.items() if sizes.get(name) is not None}
    if counts:
        return max(counts.values()), elements
    filled = {ev["index"] for ev in trace if ev["kind"] == "tma.issue" and ev.get("barrier") in barriers}
    if filled:
        return max(filled) + 1, elements
    known = [sizes[b] for b in barriers if sizes.get(b) is not None]
    return max(known, default=1), elements  # type: ignore[type-var]


def _window(events: list[Located], iterations: int) -> list[Located]:
    """The events of the first ``iterations`` iterations of each steady-state loop (main, AsyncWarp,
    ComputeWarp) and all others, with the landings and phase flips those events caused."""
    first: dict[str, int] = {}
    kept: list[Located] = []
    issued: dict[tuple, list[bool]] = {}   # (barrier, index) -> kept flag of each TMA issue not yet landed
    cause_kept = False
    for ev, loc in events:
        kind = ev["kind"]
        if loc is not None:
            first.setdefault(loc.key, loc.value)
            keep = loc.stage not in _STEADY + (k.Stage.AsyncWarp,) or loc.value - first[loc.key] < iterations
            if kind == "tma.issue":
                issued.setdefault((ev["barrier"], ev["index"]), []).append(keep)
        elif kind == "tma.land":
            pending = issued.get((ev["barrier"], ev["index"]), [])
            keep = pending.pop(0) if pending else True
        elif kind == "mbarrier.phase_complete":
            keep = cause_kept
        else:
            keep = True
        if kind != "mbarrier.phase_complete":
            cause_kept = keep
        if keep:
            kept.append((ev, loc))
    return kept


def _location(ev: dict[str, Any], names: dict[str, tuple[str, k.Stage]]) -> Loc | None:
    for key, value in reversed(list(ev.get("loops", {}).items())):
        if key in names:
            name, stage = names[key]
            return Loc(key, name, int(value), stage)
    return None


def _event_text(ev: dict[str, Any], several_barriers: bool) -> str:
    kind = ev["kind"]
    bar = f"{ev['barrier']}: " if several_barriers and "barrier" in ev else ""
    if kind == "tma.issue":
        coords = ", ".join(str(c) for c in ev.get("coords", []))
        return f"load {ev['dst']} <- ({coords})"
    if kind == "tma.land":
        return f"{ev['dst']} landed"
    if kind == "mbarrier.arrive_expect_tx":
        return f"{bar}expect {ev['tx_bytes']} B"
    if kind == "mbarrier.phase_complete":
        return f"{bar}phase {ev['phase'] - 1} complete"
    if kind == "mbarrier.wait_parity":
        return f"{bar}wait parity {ev['parity']}"
    if kind == "mbarrier.wait":
        return f"{bar}wait token {ev['token']}"
    if kind == "mbarrier.arrive":
        return f"{bar}arrive"
    if kind == "mbarrier.init":
        return f"{bar}init, count {ev['count']}"
    if kind == "mbarrier.inval":
        return f"{bar}inval"
    if kind == "tma_store.issue":
        return f"store {ev['src']}"
    if kind == "cp_async.issue":
        return f"cp.async {ev['dst']} <- {ev['src']}"
    if kind == "async.commit":
        return "commit"
    if kind == "async.wait":
        return f"wait_group({ev['pending']})"
    return kind


# ---------------------------------------------------------------- view
def pipeline_view(kernel: k.Kernel, sizes: Sequence[Sequence[tuple[int, ...]]] | None = None, *,
                  iterations: int = SHOWN_ITERATIONS) -> View:
    if not has_pipeline(kernel):
        message = ("no circular-buffered loop in this kernel: --show pipeline needs a tensor scheduled with "
                   "circular_buffer(stages, prefetch, type=Pipelined() or WarpSpecialized(...))")
        return View("pipeline", "pipeline", [Text(message, style="yellow")],
                    {"circular_buffered": False, "message": message})
    renamed, names = distinct_stage_indices(kernel)
    run = traced_run(renamed, sizes)
    tl = pipeline_timeline(renamed, names, run.trace, iterations)

    shapes = ", ".join(str(tuple(s)) for s in run.shapes)
    header = Text(f"{kernel.name}: ", style="bold")
    what = (f"{', '.join(tl.buffers)} through {tl.stages} buffer stages" if tl.buffers
            else f"{tl.stages} buffer stages, no asynchronous loads")
    header.append(f"{what}{f', prefetch {tl.prefetch}' if tl.prefetch else ''}; "
                  f"mbarriers {', '.join(tl.barriers) or 'none'}\n")
    header.append(f"block 0, inputs {shapes}, seed {SEED}; the first {iterations} iterations of the steady-state "
                  f"loop, then the drain", style="dim")
    if not tl.rows and run.error is None:
        message = ("the stage loops issue no asynchronous copies (TMA or cp.async) and use no mbarriers, so the "
                   "simulator traced no pipeline events: the circular buffer is filled by ordinary loads "
                   "(a register double buffer, say). --show loops shows its stage clones.")
        return View("pipeline", "pipeline", [header, Text(message, style="yellow")],
                    {"circular_buffered": True, "kernel": kernel.name, "inputs": [list(s) for s in run.shapes],
                     "seed": SEED, "stages": tl.stages, "events": [], "message": message, "error": None})
    other = any(r.slot is None and r.kind != "gap" for r in tl.rows)
    table = Table(title="pipeline timeline (simulator trace)")
    table.add_column("step", justify="right")
    table.add_column("where", no_wrap=True)
    table.add_column("task", no_wrap=True)
    for slot in range(tl.stages):
        table.add_column(f"stage {slot}")
    if other:
        table.add_column("async groups")
    columns = tl.stages + (1 if other else 0)
    for row in tl.rows:
        if row.after_gap:
            table.add_row("…", "…", "", *[""] * columns)
        if row.kind == "gap":
            continue
        where = Text(row.where, style=STAGE_STYLE[row.stage] if row.stage is not None else "dim")
        cells: list[Any] = [""] * columns
        cells[row.slot if row.slot is not None else columns - 1] = Text(row.text, style=_EVENT_STYLE.get(row.kind, ""))
        table.add_row(str(row.step), where, Text(row.task, style="dim"), *cells)
    if tl.omitted:
        table.caption = f"…: {tl.omitted} events of later iterations left out"
    renderables: list[Any] = [header, table]
    if run.error is not None:
        renderables.append(Text(f"{type(run.error).__name__}: {run.error}", style="bold red"))
    data = {
        "circular_buffered": True, "kernel": kernel.name, "inputs": [list(s) for s in run.shapes], "seed": SEED,
        "stages": tl.stages, "prefetch": tl.prefetch, "buffers": tl.buffers, "barriers": tl.barriers,
        "iterations_shown": iterations, "omitted_events": tl.omitted,
        "events": [{"step": r.step, "where": r.where, "stage": None if r.stage is None else r.stage.value,
                    "tasks": list(r.tasks), "slot": r.slot, "kind": r.kind, "text": r.text}
                   for r in tl.rows if r.kind != "gap"],
        "error": None if run.error is None else f"{type(run.error).__name__}: {run.error}",
    }
    return View("pipeline", "pipeline", renderables, data, exit_code=0 if run.error is None else 2)
