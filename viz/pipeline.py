"""``--show pipeline``: a circular-buffered loop as the simulator ran it, stage by stage.

The kernel runs in ``runtime.simulate`` on small random inputs with a trace; the view lists the
mbarrier and TMA events of block 0 in the order they happened, one column per buffer stage:
which stage each load fills, which stage each compute waits on, the arrivals and phase flips
between them. It shows the pipeline's start (pre-prologue, prologue, the first few iterations
of the main loop or of the AsyncWarp/ComputeWarp loops) and its drain (epilogue, post-epilogue).

A warp-specialized kernel names the role of each task (``producer``, ``compute wg0``, ... from
``warp_roles``); the ordering barriers of compute warp groups that take turns on tiles
(ping-pong, ``T4_order``) have a column of their own, ``turn``; an epilogue pipeline (the producer loading the
epilogue's inputs, ``T15_epilogue_mbar``) has columns of its own, ``epilogue 0``, ...; when the ComputeWarp loop runs
over tiles (a persistent kernel) the view shows the first tiles of each compute warp group,
on inputs large enough that block 0 runs them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from typing import Any

import numpy as np
from rich.table import Table
from rich.text import Text

from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k
from lowering.analysis.mbarriers import EPILOGUE_SUFFIX

from .elected import elected_warps
from .loops import STAGE_STYLE
from .smem import store_rings
from .view import View
from .warp_roles import WarpRoles, short_role, split_loops, warp_roles

SHOWN_ITERATIONS = 3          # iterations of the steady-state loop shown before the drain
SHOWN_TILES = 2               # tiles of each compute warp group shown when the ComputeWarp loop runs over tiles
DEFAULT_EXTENTS = (1000, 4096, 256)   # tried in order for symbolic extents when the target has no SIZES
SEED = 0
_STEADY = (k.Stage.Main, k.Stage.ComputeWarp)
_DRAIN = (k.Stage.Epilogue, k.Stage.PostEpilogue)
_SPLIT = (k.Stage.AsyncWarp, k.Stage.ComputeWarp)
_EVENT_STYLE = {"tma.issue": "bright_blue", "mbarrier.arrive_expect_tx": "blue", "tma.land": "green",
                "mbarrier.phase_complete": "green", "mbarrier.wait_parity": "red", "mbarrier.wait": "red",
                "mbarrier.arrive": "yellow", "mbarrier.init": "magenta", "mbarrier.inval": "magenta",
                "tma_store.issue": "cyan", "wgmma.issue": "bright_cyan"}


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
        return k.substitute(node, {old: Val.symbol(new)})

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


@dataclass
class Run:
    """One traced simulation: the input shapes used, the trace, the error it ended with, if any, the
    block's thread extents, and the candidate shapes these grew from (``more_tiles``), if they did."""

    shapes: list[tuple[int, ...]]
    trace: list[dict[str, Any]]
    error: Exception | None
    block: tuple[int, int, int] | None = None
    grown_from: list[tuple[int, ...]] | None = None


def candidate_shapes(kernel: k.Kernel, sizes: Sequence[Sequence[tuple[int, ...]]] | None) -> list[list[tuple]]:
    """Input shapes to try: the target's middle ``SIZES`` entry, then the largest, then the rest;
    without ``SIZES``, every symbolic extent set to each of ``DEFAULT_EXTENTS``."""
    if sizes:
        order = [len(sizes) // 2, len(sizes) - 1, *range(len(sizes))]
        seen: list[list[tuple]] = []
        scalars = set(kernel.scalar_positions)
        for i in order:
            # the tensors' shapes: a scalar input's () is no buffer's (its value comes from with_scalars)
            shapes = [tuple(s) for n, s in enumerate(sizes[i]) if n not in scalars]
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


def with_scalars(kernel: k.Kernel, arrays: list[np.ndarray]) -> list:
    """``arrays`` (one per tensor input) with a value for each scalar input at its place: 1.5, or 2 for an integer."""
    out: list = list(arrays)
    for position, scalar in zip(kernel.scalar_positions, kernel.scalars):
        out.insert(position, 1.5 if scalar.dtype.is_float else 2)
    return out


def traced_run(kernel: k.Kernel, sizes: Sequence[Sequence[tuple[int, ...]]] | None,
               enough: Callable[[Run], bool] | None = None) -> Run:
    """Simulate on the first candidate shapes the kernel's runtime checks accept.

    With ``enough``, a run it refuses is only a fallback: the other candidates are tried, then each
    candidate with its output extents doubled (``more_tiles``), and the first run ``enough`` accepts
    is taken.
    """
    from runtime import simulate
    from runtime.errors import InputError, SimulationError

    candidates = candidate_shapes(kernel, sizes)
    grown: list[tuple[list[tuple], list[tuple]]] = []     # (shapes, the candidate they grew from)
    if enough is not None:
        for shapes in candidates:
            more = more_tiles(kernel, shapes)
            if more != shapes and more not in candidates and more not in [g for g, _ in grown]:
                grown.append((more, shapes))
    rejected: list[str] = []
    fallback: Run | None = None
    for shapes, origin in [(s, None) for s in candidates] + grown:
        trace: list[dict[str, Any]] = []
        arrays = random_inputs(kernel, shapes)
        try:
            simulate(kernel, with_scalars(kernel, arrays), seed=SEED, trace=trace)
        except InputError as e:
            if trace and fallback is None:
                return Run(shapes, trace, e, _block(kernel, arrays))
            if origin is None:
                rejected.append(f"{shapes}: {e}")
            continue
        except SimulationError as e:
            if fallback is not None:
                continue
            return Run(shapes, trace, e, _block(kernel, arrays))
        run = Run(shapes, trace, None, _block(kernel, arrays), origin)
        if enough is None or enough(run):
            return run
        fallback = fallback or run
    if fallback is not None:
        return fallback
    raise InputError("no input size passes the kernel's runtime checks:\n" + "\n".join(rejected))


def more_tiles(kernel: k.Kernel, shapes: list[tuple]) -> list[tuple]:
    """``shapes`` with every extent that the outputs have too doubled: more output tiles, the same
    work per tile (a matmul's M and N double, its K stays)."""
    out = {d.name for b in kernel.outputs for d in b.shape if d.op == "sym"}
    return [tuple(2 * n if d.op == "sym" and d.name in out else n for d, n in zip(b.shape, shape))
            for b, shape in zip(kernel.inputs, shapes)]


def _block(kernel: k.Kernel, arrays: list[np.ndarray]) -> tuple[int, int, int] | None:
    """The block's thread extents for these inputs."""
    try:
        env = kernel.symbol_env(arrays)
        x, y, z = (int(np.asarray(v.evaluate(env))) for v in kernel.block)
    except (KeyError, TypeError, ValueError):
        return None
    return x, y, z


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
    where: str                   # "main i7=2"; "i4=0 i7=2" in a warp-specialized kernel; "" outside stage loops
    stage: k.Stage | None
    tasks: tuple[str, ...]       # the warps (tasks) that ran it; "async proxy" for landings
    slot: int | None             # the buffer stage the event is about; None for turns and commit/wait groups
    kind: str
    text: str
    after_gap: bool = False      # the first row after the left-out iterations
    role: str | None = None      # "producer", "compute wg0", ... in a warp-specialized kernel
    column: str = ""             # "turn" for the ordering barrier of compute warp groups

    @property
    def task(self) -> str:
        if not self.tasks:
            return ""
        warps = self.tasks[0] if len(self.tasks) == 1 else f"{self.tasks[0]} +{len(self.tasks) - 1}"
        return f"{short_role(self.role)} {warps}" if self.role else warps


@dataclass(frozen=True)
class Timeline:
    rows: list[Row]
    omitted: int                 # trace events left out between the steady state and the drain
    barriers: list[str]          # the pipeline's mbarrier arrays
    stages: int                  # buffer stages (columns)
    buffers: list[str]           # the circular-buffered tensors the loads fill
    prefetch: int                # iterations of the prologue that load
    turn_barriers: list[str] = field(default_factory=list)   # ping-pong: the compute warp groups' turns
    tile_loop: str | None = None     # the ComputeWarp loop over tiles, when the window counts tiles
    tiles: dict[str, int] = field(default_factory=dict)      # compute role -> tiles it ran in block 0
    # an epilogue pipeline's barriers (``*_epilogue_mbar``: the producer loads the epilogue's inputs) and its stages,
    # shown in columns of their own after the mainloop's stages
    epilogue_barriers: list[str] = field(default_factory=list)
    epilogue_stages: int = 0


Located = tuple[dict[str, Any], "Loc | None"]


def pipeline_timeline(kernel: k.Kernel, names: dict[str, tuple[str, k.Stage]], trace: list[dict[str, Any]],
                      iterations: int = SHOWN_ITERATIONS, *, roles: WarpRoles | None = None,
                      tiles: int = SHOWN_TILES, depths: Mapping[str, int] | None = None) -> Timeline:
    """The rows to show for a trace of ``kernel`` (whose stage loops ``names`` describes).

    Waits and arrives that several warps make for one iteration and stage share a row; a wait that
    had to block shows twice: when it started and when it passed. An mbarrier index past the
    stage count is the stage's WAR ("empty") barrier, as in nvFuser's arrays of 2 * stages.
    With ``roles`` (a warp-specialized kernel) each row names its task's role; the ordering
    barriers of compute warp groups that take turns (``*_order``) get a column of their own; when
    the ComputeWarp loop runs over tiles, the window is the first ``tiles`` tiles of each group.
    ``depths``: the stages of each circular-buffered buffer the lowering picked (``stages="auto"``).
    """
    located = [(ev, _location(ev, names)) for ev in trace]
    every = sorted({ev["barrier"] for ev, loc in located if loc is not None and "barrier" in ev})
    turn_barriers = [b for b in every if roles is not None and b.endswith(_TURN_SUFFIX)]
    # ping-pong: a load each compute warp group issues at its tile's start (C, a bias) completes on a token barrier
    # of its own, outside the pipeline's stages: its events go in the turn column
    own_loads = _token_barriers(kernel) if turn_barriers else set()
    epilogue_barriers = [b for b in every if b.endswith(EPILOGUE_SUFFIX)]
    barriers = [b for b in every if b not in turn_barriers and b not in epilogue_barriers]
    stages, elements = _stages(kernel, trace, barriers, depths or {})
    # the epilogue pipelines' stages, in columns after the mainloop's (one range of columns per array)
    epilogue_at: dict[str, tuple[int, int]] = {}
    for b in epilogue_barriers:
        count = max(_array_size(kernel, b) // 2, 1)
        epilogue_at[b] = (stages + sum(n for _, n in epilogue_at.values()), count)
    epilogue_stages = sum(n for _, n in epilogue_at.values())
    several = len(barriers) > 1
    relevant = [(ev, loc) for ev, loc in located if loc is not None or ev.get("barrier") in every]
    tile = _tile_loop(kernel) if roles is not None else None
    tiles_run: dict[str, int] = {}
    if tile is not None and roles is not None:
        kept, tiles_run = _window_tiles(relevant, tile.index.name, roles, tiles)
    else:
        kept = _window(relevant, iterations)
    omitted = len(relevant) - len(kept)
    gap_at = next((n for n, (_, loc) in enumerate(kept) if loc is not None and loc.stage in _DRAIN), len(kept))
    takers = {b: max(_array_size(kernel, b) // 2, 1) for b in turn_barriers}
    serial = _serial_loops(kernel) if tile is not None else set()

    in_split = split_loops(kernel)    # a warp has its role in the producer/compute branch only
    elected = elected_warps(kernel)   # the warp the CUDA elects, not the simulator's choice of task
    rows: list[Row] = []
    merged: dict[tuple, int] = {}
    waiting: dict[tuple, str] = {}               # (task, barrier, index) -> the text of the wait it started
    at_once = {id(e) for w, d in pairwise(trace) if _passes_at_once(w, d) for e in (w, d)}
    blocked: dict[int, bool] = {}                # a wait's row -> whether one of its warps had to block
    folds: dict[tuple, _Fold] = {}               # (where, role, fold) -> the row it accumulates into
    last_full: dict[str, int] = {}               # task -> the stage it last waited full: what its wgmma reads
    for n, (ev, loc) in enumerate(kept):
        kind = ev["kind"]
        stage = None if loc is None else loc.stage
        where = _where(ev, loc, roles is not None, serial)
        task = elected.get(kind.removesuffix(".done"), ev["task"]) if "task" in ev else "async proxy"
        role = roles.of(task) if roles is not None and (loc is None or loc.key in in_split) else None
        after_gap = omitted > 0 and n == gap_at
        barrier = ev.get("barrier")
        turn = barrier in turn_barriers
        index = ev.get("index")
        if kind == "cp_async.issue":
            per_stage = elements.get(ev["dst"])
            index = None if per_stage is None else (ev["dst_index"] // per_stage) % stages
        own = barrier in own_loads
        epilogue = epilogue_at.get(barrier)
        slot = None if index is None or turn or own else index % stages
        if epilogue is not None and index is not None:
            slot = epilogue[0] + index % epilogue[1]
        column = "turn" if turn or own else ""
        if kind in _WAITS and not turn and not own and epilogue is None and index is not None and index < stages:
            last_full[task] = index
        fold = _fold_kind(ev)
        if fold is not None:
            if fold == "wgmma":
                slot = last_full.get(task)
            elif fold == "store":
                column = "turn" if turn_barriers else ""
            if fold == "land":
                fkey: tuple = (fold, barrier, index, ev["step"])
            elif where or role:
                fkey = (fold, where, role, slot, column, task if fold == "load" else None)
            else:
                fkey = (fold, n)
            acc = folds.get(fkey)
            if acc is None or after_gap:
                acc = folds[fkey] = _Fold(fold, len(rows), _event_text(ev, several))
                rows.append(Row(ev["step"], where, stage, (), slot, kind, "", after_gap, role, column))
            acc.add(ev, task)
            rows[acc.row] = replace(rows[acc.row], tasks=tuple(acc.tasks), text=acc.text())
            continue
        key = (task, barrier, index)
        text = _turn_text(ev, role, takers[barrier]) if turn else _event_text(ev, several)
        if not turn and not own and index is not None and index >= (stages if epilogue is None else epilogue[1]):
            text = f"WAR {text}"
        suffix = ""
        if kind in _WAITS:
            if id(ev) in at_once:
                suffix = " ✓"
            else:
                waiting[key] = text
                suffix = " …"
        elif kind.endswith(".done"):
            if id(ev) in at_once:
                continue
            kind = kind[:-len(".done")]
            text = f"{waiting.pop(key, 'wait')} passed"
        row = Row(ev["step"], where, stage, (task,), slot, kind, text + suffix, after_gap, role, column)
        group = (where, role, column, slot, kind, text) if kind in _PER_WARP and (where or role) else None
        if group is not None and group in merged and not row.after_gap:
            # the warps of one iteration share a row; a wait's row says "…" when one of them had to block
            at = merged[group]
            blocked[at] = blocked.get(at, False) or suffix == " …"
            rows[at] = replace(rows[at], tasks=rows[at].tasks + (task,),
                               text=text + (" …" if blocked[at] else suffix))
            continue
        if group is not None:
            merged[group] = len(rows)
            blocked[len(rows)] = suffix == " …"
        rows.append(row)
    if omitted and gap_at == len(kept):
        rows.append(Row(rows[-1].step if rows else 0, "", None, (), None, "gap", "", after_gap=True))

    loads = sorted({ev["dst"] for ev, loc in relevant if ev["kind"] in ("tma.issue", "cp_async.issue")
                    and ev.get("barrier") not in epilogue_barriers})
    prologue = {(loc.key, loc.value) for ev, loc in relevant if loc is not None and loc.stage is k.Stage.Prologue
                and ev["kind"] in ("tma.issue", "cp_async.issue")}
    return Timeline(rows, omitted, barriers, stages, loads, len(prologue), turn_barriers,
                    None if tile is None else names[tile.index.name][0], tiles_run, epilogue_barriers, epilogue_stages)


_WAITS = ("mbarrier.wait_parity", "mbarrier.wait")


def _passes_at_once(wait: dict[str, Any], following: dict[str, Any]) -> bool:
    """Whether a wait ended right away: the next event of the trace is its end (nothing, not even a
    landing it forced, happened in between)."""
    return wait["kind"] in _WAITS and following["kind"] == f"{wait['kind']}.done" and all(
        following.get(key) == wait.get(key) for key in ("task", "barrier", "index"))


_PER_WARP = ("mbarrier.wait_parity", "mbarrier.wait", "mbarrier.arrive", "cp_async.issue", "async.commit",
             "async.wait")
_TURN_SUFFIX = "_order"      # the ordering barriers of compute warp groups that take turns (ping-pong)


@dataclass
class _Fold:
    """Events of one kind that share a row: the TMA loads of one stage and iteration, the landings
    that complete one stage at once, the wgmma of one warp group and iteration (issues, commit,
    wait), one epilogue's TMA stores (issues, bulk commit and wait)."""

    kind: str                    # "load", "land", "wgmma" or "store"
    row: int
    first: str                   # the text of the first event: a fold of one load keeps it
    tasks: list[str] = field(default_factory=list)
    names: dict[str, int] = field(default_factory=dict)    # loaded or landed tensor -> copies
    issues: dict[str, int] = field(default_factory=dict)   # task -> wgmma or store issues
    what: str = ""
    wait: int | None = None

    def add(self, ev: dict[str, Any], task: str) -> None:
        if task not in self.tasks:
            self.tasks.append(task)
        kind = ev["kind"]
        if kind in ("tma.issue", "tma.land"):
            self.names[ev["dst"]] = self.names.get(ev["dst"], 0) + 1
        elif kind in ("wgmma.issue", "tma_store.issue"):
            self.issues[task] = self.issues.get(task, 0) + 1
            self.what = "wgmma" if kind == "wgmma.issue" else f"store {ev['src']}"
        elif kind == "async.wait":
            self.wait = ev["pending"]

    def text(self) -> str:
        names = ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in self.names.items())
        if self.kind == "load":
            return self.first if sum(self.names.values()) == 1 else f"load {names}"
        if self.kind == "land":
            return f"{names} landed"
        parts = [f"{self.what} ×{max(self.issues.values())}"] if self.issues else []
        if self.wait is not None:
            parts.append(f"wait_group {self.wait}")
        return ", ".join(parts) or "commit"


def _fold_kind(ev: dict[str, Any]) -> str | None:
    kind = ev["kind"]
    if kind == "tma.issue":
        return "load"
    if kind == "tma.land":
        return "land"
    if kind == "wgmma.issue" or (kind in ("async.commit", "async.wait") and ev.get("group") == "wgmma"):
        return "wgmma"
    if kind == "tma_store.issue" or (kind in ("async.commit", "async.wait") and ev.get("group") == "bulk"):
        return "store"
    return None


def _stages(kernel: k.Kernel, trace: list[dict[str, Any]], barriers: list[str],
            depths: Mapping[str, int]) -> tuple[int, dict[str, int]]:
    """The pipeline's buffer stages, and the elements per stage of each circular-buffered buffer.

    The stage count is the fusion's ``circular_buffer(stages)`` when the kernel knows its fusion
    (for ``stages="auto"``, the depth the lowering picked, from ``depths``), else the mbarrier slots
    the TMA loads complete on, else the size of the mbarrier arrays.
    """
    counts: dict[str, int] = {}
    fusion = getattr(kernel, "fusion", None)
    for tv in getattr(fusion, "tensors", []) or []:
        opts = tv.circular_buffer_options
        if opts is not None and not opts.is_auto:
            counts[f"T{tv.name}"] = int(opts.stages)
        elif opts is not None and f"T{tv.name}" in depths:
            counts[f"T{tv.name}"] = depths[f"T{tv.name}"]
    sizes = {n.buffer.name: n.buffer.size.const_value() for n in k.walk(kernel.body) if isinstance(n, k.Allocate)}
    elements = {name: sizes[name] // s for name, s in counts.items() if sizes.get(name) is not None}
    if counts:
        return max(counts.values()), elements
    filled = {ev["index"] for ev in trace if ev["kind"] == "tma.issue" and ev.get("barrier") in barriers}
    if filled:
        return max(filled) + 1, elements
    known = [sizes[b] for b in barriers if sizes.get(b) is not None]
    return max(known, default=1), elements  # type: ignore[type-var]


def _token_barriers(kernel: k.Kernel) -> set[str]:
    """The mbarriers of unpipelined TMA loads (waited on with a token, or with the parity of their loop): those of
    loads issued outside a pipeline's producing loops (prologue, main, epilogue, the AsyncWarp branch)."""
    pipelined = (k.Stage.Prologue, k.Stage.Main, k.Stage.Epilogue, k.Stage.AsyncWarp)
    found: set[str] = set()

    def visit(body: tuple[k.Node, ...], inside: bool) -> None:
        for node in body:
            if isinstance(node, k.TmaLoad) and not inside:
                found.add(node.mbar.name)
            staged = inside or (isinstance(node, k.ForLoop) and node.stage in pipelined)
            for _, sub in k.children(node):
                visit(sub, staged)

    visit(kernel.body, False)
    return found


def _array_size(kernel: k.Kernel, name: str) -> int:
    for n in k.walk(kernel.body):
        if isinstance(n, k.Allocate) and n.buffer.name == name and n.buffer.size.const_value() is not None:
            return int(n.buffer.size.const_value())  # type: ignore[arg-type]
    return 0


def _tile_loop(kernel: k.Kernel) -> k.ForLoop | None:
    """The ComputeWarp loop when it runs over tiles (a persistent kernel): a serial loop inside it
    waits on the pipeline, so one iteration is a whole tile, not one stage."""
    for node in k.walk(kernel.body):
        if isinstance(node, k.ForLoop) and node.stage is k.Stage.ComputeWarp:
            for inner in k.walk(node.body):
                if isinstance(inner, k.ForLoop) and not inner.unroll and any(
                        isinstance(n, _WAIT_NODES) for n in k.walk(inner.body)):
                    return node
    return None


_WAIT_NODES = (k.MBarrierWaitParity, k.MBarrierWait)


def _serial_loops(kernel: k.Kernel) -> set[str]:
    return {n.index.name for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and not n.unroll
            and not n.vectorize and n.stage is None}


def tiles_per_group(trace: list[dict[str, Any]], tile_key: str, roles: WarpRoles) -> dict[str, int]:
    """Compute role -> the tiles (iterations of the loop ``tile_key``) its warps ran."""
    seen: dict[str, set[int]] = {role: set() for role in roles.compute_groups}
    for ev in trace:
        value = ev.get("loops", {}).get(tile_key)
        role = roles.of(ev.get("task", ""))
        if value is not None and role in seen:
            seen[role].add(value)
    return {role: len(values) for role, values in seen.items()}


def _window(events: list[Located], iterations: int) -> list[Located]:
    """The events of the first ``iterations`` iterations of each steady-state loop (main, AsyncWarp,
    ComputeWarp) and all others, with the landings and phase flips those events caused."""
    keeps = []
    first: dict[str, int] = {}
    for _, loc in events:
        if loc is None:
            keeps.append(None)
            continue
        first.setdefault(loc.key, loc.value)
        keeps.append(loc.stage not in _STEADY + (k.Stage.AsyncWarp,) or loc.value - first[loc.key] < iterations)
    return _with_effects(events, keeps)


def _window_tiles(events: list[Located], tile_key: str, roles: WarpRoles,
                  tiles: int) -> tuple[list[Located], dict[str, int]]:
    """The events of the first ``tiles`` tiles each compute warp group ran (iterations of the loop
    ``tile_key``), the producer's up to the last of them, all others, and the landings and phase flips
    those events caused; and the tiles each group ran."""
    seen: dict[str, list[int]] = {role: [] for role in roles.compute_groups}
    ordinal: list[int | None] = []
    for ev, _ in events:
        value = ev.get("loops", {}).get(tile_key)
        role = roles.of(ev.get("task", ""))
        if value is None or role not in seen:
            ordinal.append(None)
            continue
        if value not in seen[role]:
            seen[role].append(value)
        ordinal.append(seen[role].index(value))
    shown = [ev["step"] for (ev, _), o in zip(events, ordinal) if o is not None and o < tiles]
    cutoff = max(shown, default=-1)
    keeps: list[bool | None] = []
    for (ev, loc), o in zip(events, ordinal):
        if o is not None:
            keeps.append(o < tiles)
        elif loc is not None and loc.stage is k.Stage.AsyncWarp:
            keeps.append(ev["step"] <= cutoff)
        else:
            keeps.append(True if loc is not None or "task" in ev else None)
    return _with_effects(events, keeps), {role: len(values) for role, values in seen.items()}


def _with_effects(events: list[Located], keeps: list[bool | None]) -> list[Located]:
    """The events whose keep flag is set; a landing (flag None) goes with the TMA issue it completes,
    a phase flip with the event that caused it."""
    kept: list[Located] = []
    issued: dict[tuple, list[bool]] = {}   # (barrier, index) -> kept flag of each TMA issue not yet landed
    cause_kept = False
    for (ev, loc), keep in zip(events, keeps):
        kind = ev["kind"]
        if keep is not None:
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


def _where(ev: dict[str, Any], loc: Loc | None, roles: bool, serial: set[str]) -> str:
    """``main i7=2``; in a warp-specialized kernel the role names the AsyncWarp or ComputeWarp loop,
    so it is left out (``i4=0``), and in a loop over tiles the serial loops inside follow (``i4=0 i7=2``)."""
    if loc is None:
        return ""
    if not roles or loc.stage not in _SPLIT:
        return loc.where
    parts = [f"{loc.name}={loc.value}"]
    inside = False
    for key, value in ev.get("loops", {}).items():
        if inside and key in serial:
            parts.append(f"{key}={value}")
        inside = inside or key == loc.key
    return " ".join(parts)


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


def _turn_text(ev: dict[str, Any], role: str | None, takers: int) -> str:
    """An event on the ordering barriers: slot ``w`` is the mainloop turn of compute warp group ``w``,
    slot ``takers + w`` its epilogue turn."""
    index = ev["index"]
    whose = f"wg{index % takers}"
    what = "mainloop" if index < takers else "epilogue"
    me = short_role(role) or "?"
    kind = ev["kind"]
    if kind == "mbarrier.arrive":
        return f"{me} {what} turn -> {whose}"
    if kind == "mbarrier.wait_parity":
        return f"{me} waits {'its' if me == whose else whose + chr(39) + 's'} {what} turn (parity {ev['parity']})"
    return f"{whose} {what} turn: {_event_text(ev, False)}"


# ---------------------------------------------------------------- view
def pipeline_view(kernel: k.Kernel, sizes: Sequence[Sequence[tuple[int, ...]]] | None = None, *,
                  iterations: int = SHOWN_ITERATIONS, tiles: int = SHOWN_TILES,
                  depths: Mapping[str, int] | None = None) -> View:
    if not has_pipeline(kernel):
        message = ("no circular-buffered loop in this kernel: --show pipeline needs a tensor scheduled with "
                   "circular_buffer(stages, prefetch, type=Pipelined() or WarpSpecialized(...))")
        return View("pipeline", "pipeline", [Text(message, style="yellow")],
                    {"circular_buffered": False, "message": message})
    renamed, names = distinct_stage_indices(kernel)
    tile = _tile_loop(renamed)

    def roles_of(run: Run) -> WarpRoles | None:
        return None if run.block is None else warp_roles(renamed, run.block)

    def enough(run: Run) -> bool:
        roles = roles_of(run)
        return tile is None or roles is None or all(
            n >= tiles for n in tiles_per_group(run.trace, tile.index.name, roles).values())

    run = traced_run(renamed, sizes, enough if tile is not None else None)
    roles = roles_of(run)
    tl = pipeline_timeline(renamed, names, run.trace, iterations, roles=roles, tiles=tiles, depths=depths)

    shapes = ", ".join(str(tuple(s)) for s in run.shapes)
    header = Text(f"{kernel.name}: ", style="bold")
    what = (f"{', '.join(tl.buffers)} through {tl.stages} buffer stages" if tl.buffers
            else f"{tl.stages} buffer stages, no asynchronous loads")
    turns = (f"; the compute warp groups take turns on {', '.join(tl.turn_barriers)} (column turn)"
             if tl.turn_barriers else "")
    epilogue = (f"; the producer loads the epilogue's inputs through {tl.epilogue_stages} stages of their own on "
                f"{', '.join(tl.epilogue_barriers)} (columns epilogue 0-{tl.epilogue_stages - 1})"
                if tl.epilogue_barriers else "")
    header.append(f"{what}{f', prefetch {tl.prefetch}' if tl.prefetch else ''}; "
                  f"mbarriers {', '.join(tl.barriers) or 'none'}{turns}{epilogue}\n")
    inputs = f"inputs {shapes}"
    if run.grown_from is not None:
        inputs += (f" (the output extents of {', '.join(str(tuple(s)) for s in run.grown_from)} doubled, so that "
                   f"each compute warp group of block 0 runs {tiles} tiles)")
    if tl.tile_loop is not None:
        shown = (f"the first {tiles} tiles ({tl.tile_loop} iterations) of each compute warp group, the producer "
                 f"until then, then the drain")
        short = [f"{role} {n}" for role, n in tl.tiles.items() if n < tiles]
        if short:
            shown += f"; at these inputs block 0 runs only {', '.join(short)} tile{'s' if len(short) > 1 else ''}"
    else:
        shown = f"the first {iterations} iterations of the steady-state loop, then the drain"
    header.append(f"block 0, {inputs}, seed {SEED}; {shown}", style="dim")
    if roles is not None:
        header.append(f"\ntasks: {roles.legend()}", style="dim")
    if not tl.rows and run.error is None:
        message = ("the stage loops issue no asynchronous copies (TMA or cp.async) and use no mbarriers, so the "
                   "simulator traced no pipeline events: the circular buffer is filled by ordinary loads "
                   "(a register double buffer, say). --show loops shows its stage clones.")
        return View("pipeline", "pipeline", [header, Text(message, style="yellow")],
                    {"circular_buffered": True, "kernel": kernel.name, "inputs": [list(s) for s in run.shapes],
                     "seed": SEED, "stages": tl.stages, "events": [], "message": message, "error": None})
    other = any(r.slot is None and not r.column and r.kind != "gap" for r in tl.rows)
    headers = ["step", "where", "task", *(f"stage {s}" for s in range(tl.stages)),
               *(f"epilogue {s}" for s in range(tl.epilogue_stages)),
               *(["turn"] if tl.turn_barriers else []), *(["async groups"] if other else [])]
    turn_at = tl.stages + tl.epilogue_stages
    columns = len(headers) - 3
    cells_of_rows: list[list[Any]] = []
    for row in tl.rows:
        if row.after_gap:
            cells_of_rows.append(["…", "…", "", *[""] * columns])
        if row.kind == "gap":
            continue
        where = Text(row.where, style=STAGE_STYLE[row.stage] if row.stage is not None else "dim")
        cells: list[Any] = [""] * columns
        at = row.slot if row.slot is not None else turn_at if row.column == "turn" else columns - 1
        cells[at] = Text(row.text, style=_EVENT_STYLE.get(row.kind, ""))
        cells_of_rows.append([str(row.step), where, Text(row.task, style="dim"), *cells])
    caption = None
    if tl.omitted:
        caption = f"…: {tl.omitted} events of later {'tiles' if tl.tile_loop is not None else 'iterations'} left out"
    # stacked, the where and task of a producer or compute task keep one line each; a pre-prologue's wraps
    meta = max([len(r.task) for r in tl.rows] + [len(r.where) for r in tl.rows if r.stage in _SPLIT], default=0)
    table = TimelineTable("pipeline timeline (simulator trace)", caption, headers, cells_of_rows,
                          turn=turn_at + 3 if tl.turn_barriers and not other else None, fit=roles is not None,
                          meta_width=meta)
    renderables: list[Any] = [header, table]
    ring = store_ring(renamed, run.trace)
    if ring is not None:
        renderables.append(ring_table(ring))
    if run.error is not None:
        renderables.append(Text(f"{type(run.error).__name__}: {run.error}", style="bold red"))
    data = {
        "circular_buffered": True, "kernel": kernel.name, "inputs": [list(s) for s in run.shapes], "seed": SEED,
        "stages": tl.stages, "prefetch": tl.prefetch, "buffers": tl.buffers, "barriers": tl.barriers,
        "turn_barriers": tl.turn_barriers, "iterations_shown": iterations, "omitted_events": tl.omitted,
        "epilogue_barriers": tl.epilogue_barriers, "epilogue_stages": tl.epilogue_stages,
        "roles": _roles_data(roles), "tile_loop": tl.tile_loop, "tiles_run": tl.tiles,
        "tiles_shown": tiles if tl.tile_loop is not None else None,
        "events": [{"step": r.step, "where": r.where, "stage": None if r.stage is None else r.stage.value,
                    "tasks": list(r.tasks), "role": r.role, "slot": r.slot,
                    "column": _column_name(r, tl.stages), "kind": r.kind, "text": r.text}
                   for r in tl.rows if r.kind != "gap"],
        "error": None if run.error is None else f"{type(run.error).__name__}: {run.error}",
        "store_ring": None if ring is None else {"buffer": ring.buffer, "stages": ring.stages, "rows": ring.rows},
    }
    return View("pipeline", "pipeline", renderables, data, exit_code=0 if run.error is None else 2)


@dataclass(frozen=True)
class StoreRing:
    """A sub-tiled epilogue's ring of staging tiles as the simulator ran it: block 0's first warp that stores, its
    first tile's sub-tiles (``rows``: step, sub-tile, slot, what)."""

    buffer: str
    stages: int
    loop: str
    rows: list[dict[str, Any]]


def store_ring(kernel: k.Kernel, trace: list[dict[str, Any]]) -> StoreRing | None:
    """The ring of a kernel whose TMA stores rotate through several staging tiles (a bulk wait that leaves groups
    in flight; each tile one box of the store), read off the trace; None for any other kernel."""
    rings = store_rings(kernel.body)
    stores = [n for n in k.walk(kernel.body) if isinstance(n, k.TmaStore) and n.src.name in rings]
    if not stores:
        return None
    src = stores[0].src
    stages = rings[src.name]
    events = [ev for ev in trace if ev["kind"] == "tma_store.issue"
              or (ev["kind"] in ("async.wait", "async.commit") and ev.get("group") == "bulk")]
    if not events:
        return None
    task = events[0].get("task")
    loop = next((name for name in events[0].get("loops", {}) if f"{name} % {stages}" in str(stores[0].src_index)), "")
    rows: list[dict[str, Any]] = []
    for ev in events:
        if ev.get("task") != task:
            continue
        index = ev.get("loops", {}).get(loop)
        if rows and index is None:          # the wait after the sub-tiles: the first tile is done
            rows.append({"step": ev["step"], "sub_tile": "after", "slot": "", "what": "wait until no store reads"})
            break
        slot = "" if index is None else index % stages
        if ev["kind"] == "async.wait":
            what = f"wait until at most {ev['pending']} store{'s' if ev['pending'] != 1 else ''} read (then a barrier)"
        elif ev["kind"] == "tma_store.issue":
            what = f"stmatrix done: TMA store of slot {slot}"
        else:
            what = "commit its bulk group"
        rows.append({"step": ev["step"], "sub_tile": "" if index is None else index, "slot": slot, "what": what})
    return StoreRing(src.name, stages, loop, rows)


def ring_table(ring: StoreRing) -> Table:
    table = Table(title=f"epilogue store ring: {ring.buffer} holds {ring.stages} staging tiles (sub-tile s writes slot "
                        f"s % {ring.stages}), block 0, first tile")
    for head in ("step", f"sub-tile ({ring.loop})", "slot", "what"):
        table.add_column(head, justify="right" if head == "step" else "left")
    for row in ring.rows:
        table.add_row(str(row["step"]), str(row["sub_tile"]), str(row["slot"]), row["what"])
    return table


_TURN_WEIGHT = 1.15      # the turn column's share of the width against a stage column's: its texts are longer


class TimelineTable:
    """The timeline: columns step, where, task, then the stage columns (and turn, async groups).

    As one table with a column each for where and task when that fits the console (or when not
    ``fit``: rich wraps the cells); else, with the task under the loop in one column and the
    other columns sharing what is left (the turn column a larger share, its texts are longer),
    without the outer edge, so that the stage columns keep room for two-line cells.
    """

    def __init__(self, title: str, caption: str | None, headers: list[str], rows: list[list[Any]], *,
                 turn: int | None, fit: bool, meta_width: int = 0) -> None:
        self.title, self.caption, self.headers, self.rows = title, caption, headers, rows
        self.turn, self.fit, self.meta_width = turn, fit, meta_width

    def __rich_console__(self, console: Any, options: Any) -> Any:
        natural = [max([len(head)] + [_cell_width(cells[n]) for cells in self.rows])
                   for n, head in enumerate(self.headers)]
        if not self.fit or sum(natural) + 3 * len(natural) + 1 <= options.max_width:
            table = Table(title=self.title, caption=self.caption)
            for n, head in enumerate(self.headers):
                table.add_column(head, justify="right" if n == 0 else "left", no_wrap=n in (1, 2))
            for cells in self.rows:
                table.add_row(*cells)
            yield table
            return
        rows = [[cells[0], Text("\n").join([Text(cells[1]) if isinstance(cells[1], str) else cells[1], cells[2]])
                 if _cell_width(cells[1]) and _cell_width(cells[2]) else cells[1] or cells[2], *cells[3:]]
                for cells in self.rows]
        headers = ["step", "where, task", *self.headers[3:]]
        weights = {} if self.turn is None else {self.turn - 1: _TURN_WEIGHT}
        table = Table(title=self.title, caption=self.caption, show_edge=False, pad_edge=False)
        room = options.max_width - 3 * (len(headers) - 1)
        widths = _fit_widths(headers, rows, room, {0: natural[0], 1: max(self.meta_width, len(headers[1]))}, weights)
        longest = max(_cell_width(cells[1]) for cells in rows)     # room left: no wrapped pre-prologue
        widths[1] = max(widths[1], min(longest, widths[1] + room - sum(widths)))
        for n, (head, width) in enumerate(zip(headers, widths)):
            table.add_column(head, justify="right" if n == 0 else "left", width=width)
        for cells in rows:
            table.add_row(*cells)
        yield table


def _fit_widths(headers: list[str], rows: list[list[Any]], width: int, fixed: dict[int, int],
                weights: dict[int, float]) -> list[int]:
    """Column widths that sum to ``width``: the ``fixed`` ones as given, the others sharing the rest by
    ``weights`` (1 unless given), none wider than its content nor narrower than its longest word."""
    natural = [max([len(head)] + [_cell_width(cells[n]) for cells in rows]) for n, head in enumerate(headers)]
    least = [max([len(head)] + [_cell_width(cells[n], longest_word=True) for cells in rows])
             for n, head in enumerate(headers)]
    widths = list(natural)
    for n, w in fixed.items():
        widths[n] = w
    free = [n for n in range(len(headers)) if n not in fixed]
    budget = width - sum(fixed.values())
    while free:
        total = sum(weights.get(n, 1.0) for n in free)
        fits = [n for n in free if natural[n] <= budget * weights.get(n, 1.0) / total]
        if not fits:
            shares = {n: int(budget * weights.get(n, 1.0) / total) for n in free}
            heavy = [n for n in free if weights.get(n, 1.0) > 1]   # the rest to it, so that the stages stay even
            for i in range(budget - sum(shares.values())):
                shares[heavy[0] if heavy else free[i % len(free)]] += 1
            for n in free:
                widths[n] = max(least[n], shares[n])
            break
        for n in fits:
            budget -= natural[n]
            free.remove(n)
    return widths


def _cell_width(cell: Any, longest_word: bool = False) -> int:
    text = cell.plain if isinstance(cell, Text) else str(cell)
    parts = text.split() if longest_word else text.splitlines()
    return max((Text(p).cell_len for p in parts), default=0)


def _roles_data(roles: WarpRoles | None) -> dict[str, list[int]] | None:
    if roles is None:
        return None
    out: dict[str, list[int]] = {}
    for warp, role in sorted(roles.roles.items()):
        out.setdefault(role, []).append(warp)
    return out


def _column_name(row: Row, stages: int) -> str:
    if row.column:
        return row.column
    if row.slot is not None and row.slot >= stages:
        return f"epilogue {row.slot - stages}"
    return f"stage {row.slot}" if row.slot is not None else "async groups"
