"""``--show smem``: shared-memory buffers, mbarriers and tokens over the kernel's timeline.

The timeline is the kernel IR listing (``viz --show kir``): position N is its line N. A buffer is
live from the first statement that touches it to the last; a touch inside a loop that does not
also hold the buffer's ``Allocate`` keeps it live for that whole loop, since the loop runs the
statement again. An mbarrier array is therefore live from its init loop to its inval loop.
Offsets are the kernel's (``Allocate.offset``, or codegen's placement of unplaced buffers).
Given the lowering's ``depths`` analysis, a circular-buffered loop scheduled with
``stages="auto"`` also shows the depth picked and what limited it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from rich.table import Table
from rich.text import Text

from fusion_ir.scalar import Val
from fusion_ir.types import MemoryType
from lowering import kernel_ir as k
from lowering.analysis.mbarriers import EPILOGUE_SUFFIX
from lowering.analysis.pipeline_depth import DepthChoice, PipelineDepths
from lowering.effects import Completion, Proxy, Role, buffers_touched
from lowering.kir_printer import node_lines

from .loops import STAGE_ORDER, STAGE_STYLE
from .view import View

BAR_WIDTH = 40
KIND_STYLE = {"tma store ring": "bright_cyan", "epilogue loads": "bright_cyan", "mbarrier epilogue full+empty": "yellow", "mbarrier": "yellow", "mbarrier full+empty": "yellow", "token": "magenta", "tma": "bright_blue",
              "cp.async": "blue", "workspace": "cyan", "data": "green"}
STAGE_MARK = {k.Stage.PrePrologue: "<", k.Stage.Prologue: "P", k.Stage.Main: "M", k.Stage.Epilogue: "E",
              k.Stage.PostEpilogue: ">", k.Stage.AsyncWarp: "A", k.Stage.ComputeWarp: "C"}


@dataclass(frozen=True)
class SmemBuffer:
    """One shared buffer, mbarrier array or token array and its place in memory and time."""

    name: str
    kind: str           # data, tma, cp.async, workspace, mbarrier or token
    memory: str         # Shared, or Local for a register token
    dtype: str
    elements: Val
    nbytes: Val
    align: int
    offset: Val | None  # None for Local tokens
    allocated_at: int   # listing line of its Allocate
    live: tuple[int, int] | None   # listing lines; None when nothing touches it
    shares: tuple[str, ...]        # buffers whose bytes overlap this one's

    @property
    def aligned(self) -> bool | None:
        off = self.offset.const_value() if self.offset is not None else None
        return None if off is None else off % self.align == 0


@dataclass(frozen=True)
class StageSpan:
    stage: k.Stage
    loop: str
    start: int
    end: int


@dataclass(frozen=True)
class SmemChart:
    buffers: list[SmemBuffer]
    stages: list[StageSpan]
    length: int              # lines in the kernel IR listing
    smem_bytes: Val          # the kernel's dynamic shared memory
    auto_depths: tuple[DepthChoice, ...] = ()   # loops given stages="auto": the depth picked and why

    def conflicts(self) -> list[tuple[str, str]]:
        """Pairs that share bytes while both are live: what shared-memory reuse must never produce."""
        by_name = {b.name: b for b in self.buffers}
        out = []
        for b in self.buffers:
            for other in b.shares:
                o = by_name[other]
                if b.name < other and b.live is not None and o.live is not None and _overlap(b.live, o.live):
                    out.append((b.name, other))
        return out


# ---------------------------------------------------------------- analysis
@dataclass
class _OpenLoop:
    node: k.ForLoop
    start: int
    end: int = 0


def smem_chart(kernel: k.Kernel, depths: PipelineDepths | None = None) -> SmemChart:
    from codegen.smem_layout import shared_memory_layout

    roles = _roles(kernel.body)
    allocs: dict[str, tuple[k.Allocate, int, tuple[_OpenLoop, ...]]] = {}
    touches: dict[str, list[tuple[int, int, tuple[_OpenLoop, ...]]]] = {}
    stages: list[StageSpan] = []
    line = 2 + len(kernel.checks) + len(kernel.launch_requirements) + len(kernel.scratch)   # the listing's header lines

    def visit(body: tuple[k.Node, ...], loops: tuple[_OpenLoop, ...]) -> None:
        nonlocal line
        for node in body:
            line += 1
            start = line
            if isinstance(node, k.ForLoop):
                loop = _OpenLoop(node, start)
                visit(node.body, loops + (loop,))
                loop.end = line
                if node.stage is not None and all(lp.node.stage is None for lp in loops):
                    stages.append(StageSpan(node.stage, str(node.index), start, line))
            elif isinstance(node, k.IfThenElse):
                visit(node.then_body, loops)
                if node.else_body:
                    line += 1
                    visit(node.else_body, loops)
            elif isinstance(node, k.ElectSync):
                visit(node.body, loops)
            elif isinstance(node, k.Allocate):
                b = node.buffer
                if (b.memory is MemoryType.Shared or b.name in roles) and b.name not in allocs:
                    allocs[b.name] = (node, start, loops)
            else:
                line += len(node_lines(node)) - 1
                for name in referenced_buffers(node):
                    touches.setdefault(name, []).append((start, line, loops))

    visit(kernel.body, ())
    offsets = shared_memory_layout(kernel).offsets
    placed = {name: (offsets.get(name), node.buffer.nbytes) for name, (node, _, _) in allocs.items()
              if node.buffer.memory is MemoryType.Shared}
    buffers = []
    for name, (node, at, alloc_loops) in allocs.items():
        b = node.buffer
        offset = offsets.get(name) if b.memory is MemoryType.Shared else None
        shares = tuple(o for o in placed if o != name and name in placed and _same_bytes(placed[name], placed[o]))
        buffers.append(SmemBuffer(name, roles.get(name, "data"), b.memory.name, b.dtype.short_name, b.size,
                                  b.nbytes, b.align, offset, at, _live(touches.get(name, []), alloc_loops), shares))
    auto = tuple(depths.chosen.values()) if depths is not None else ()
    return SmemChart(buffers, stages, line, kernel.smem_bytes, auto)


def _live(touches: list[tuple[int, int, tuple[_OpenLoop, ...]]],
          alloc_loops: tuple[_OpenLoop, ...]) -> tuple[int, int] | None:
    """First to last touch, each widened to the outermost enclosing loop the Allocate is not in."""
    lo: int | None = None
    hi = 0
    for start, end, loops in touches:
        outer = next((lp for lp in loops if all(lp is not a for a in alloc_loops)), None)
        if outer is not None:
            start, end = outer.start, outer.end
        lo = start if lo is None else min(lo, start)
        hi = max(hi, end)
    return None if lo is None else (lo, hi)


def referenced_buffers(node: k.Node) -> set[str]:
    """Names of the non-parameter buffers a statement reads or writes (its own effects; nested statements
    not included)."""
    return {e.name for e in buffers_touched(node) if e.buffer is None or not e.buffer.is_param}


def _roles(body: tuple[k.Node, ...]) -> dict[str, str]:
    """What each special buffer is for, read off the effects of the statements that use it."""
    roles: dict[str, str] = {}
    for node in k.walk(body):
        for e in buffers_touched(node):
            if e.role is Role.MBarrier:
                roles[e.name] = "mbarrier"
            elif e.role is Role.Token:
                roles[e.name] = "token"
            elif e.role is Role.Workspace:
                roles.setdefault(e.name, "workspace")
            elif e.buffer is not None and e.buffer.is_param:
                continue
            elif e.proxy is Proxy.AsyncTma:
                roles.setdefault(e.name, "tma")
            elif e.is_write and e.completes is Completion.CpAsyncGroup:
                roles.setdefault(e.name, "cp.async")
    # An array whose readers arrive on it holds "full" barriers (TMA completes them) and then as many
    # "empty" ones (readers release a stage): Pipelined with mbarrier WAR, and warp specialization.
    for node in k.walk(body):
        if isinstance(node, k.MBarrierArrive) and roles.get(node.mbar.name) == "mbarrier":
            roles[node.mbar.name] = "mbarrier full+empty"
    for name, stages in store_rings(body).items():
        roles[name] = f"tma store ring x{stages}"
    # the stages of an epilogue pipeline: the producer TMA-loads the epilogue's inputs, completing on its own array
    for node in k.walk(body):
        if isinstance(node, k.TmaLoad) and node.mbar.name.endswith(EPILOGUE_SUFFIX):
            slots = node.mbar.size.const_value()
            roles[node.dst.name] = f"epilogue loads x{slots // 2}" if slots is not None else "epilogue loads"
            roles[node.mbar.name] = "mbarrier epilogue full+empty"
    return roles


def store_rings(body: tuple[k.Node, ...]) -> dict[str, int]:
    """The staging tiles TMA stores rotate through (a sub-tiled epilogue's ring): each buffer a store reads, with
    its tiles of one box each, where a bulk wait leaves stores in flight."""
    nodes = list(k.walk(body))
    if not any(isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Bulk and n.pending > 0 for n in nodes):
        return {}
    rings: dict[str, int] = {}
    for n in nodes:
        if isinstance(n, k.TmaStore):
            size, box = n.src.size.const_value(), math.prod(n.tensor_map.box)
            if size is not None and size // box > 1:
                rings[n.src.name] = size // box
    return rings


def _same_bytes(a: tuple[Val | None, Val], b: tuple[Val | None, Val]) -> bool:
    (oa, na), (ob, nb) = a, b
    if oa is None or ob is None:
        return False
    ca, cb, sa, sb = oa.const_value(), ob.const_value(), na.const_value(), nb.const_value()
    if None in (ca, cb, sa, sb):
        return str(oa) == str(ob)
    return ca < cb + sb and cb < ca + sa and sa > 0 and sb > 0  # type: ignore[operator]


def _overlap(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


# ---------------------------------------------------------------- rendering
def smem_view(kernel: k.Kernel, *, width: int = BAR_WIDTH, depths: PipelineDepths | None = None) -> View:
    chart = smem_chart(kernel, depths)
    data = chart_data(chart)
    if not chart.buffers:
        return View("smem", "shared memory", [Text("no shared memory, mbarriers or tokens in this kernel",
                                                   style="dim")], data)
    layout = Table(title=f"shared memory of {kernel.name}: {kernel.smem_bytes} B dynamic")
    for header in ("buffer", "kind", "type", "offset", "bytes", "align", "shares space with"):
        layout.add_column(header, overflow="fold")
    chart_table = Table(title="live ranges")
    chart_table.add_column("buffer")
    chart_table.add_column("live", no_wrap=True)
    chart_table.add_column("timeline", no_wrap=True, min_width=width)
    if chart.stages:
        chart_table.add_row("", Text("stages", style="dim"), _stage_band(chart, width))
    conflicts = {n for pair in chart.conflicts() for n in pair}
    for b in chart.buffers:
        style = KIND_STYLE.get(b.kind.split(" x")[0], "")
        name = Text(b.name, style=f"bold {style}")
        offset = "-" if b.offset is None else f"+{b.offset}"
        align = Text(str(b.align))
        if b.aligned is False:
            align.append(" misaligned", style="bold red")
        shares = Text(", ".join(b.shares), style="bold red" if b.name in conflicts else "")
        if b.memory != "Shared":
            shares = Text(f"({b.memory} memory)", style="dim")
        layout.add_row(name, Text(b.kind, style=style), Text(f"{b.dtype}[{b.elements}]"), Text(offset),
                       Text(f"{b.nbytes}"), align, shares)
        live = "never used" if b.live is None else f"{b.live[0]}-{b.live[1]}"
        chart_table.add_row(name, live, _bar(b.live, chart.length, width, style))
    legend = Text(f"live: lines of the kernel IR listing (viz --show kir); the timeline spans its {chart.length} "
                  f"lines in {width} columns", style="dim")
    for span in chart.stages:
        legend.append(f"\n  {STAGE_MARK[span.stage]} {span.stage.value} ({span.loop}): lines {span.start}-{span.end}",
                      style=STAGE_STYLE[span.stage])
    out: list[Any] = [layout, chart_table, legend]
    if chart.auto_depths:
        out.insert(1, _auto_depth_table(chart.auto_depths))
    if chart.conflicts():
        out.append(Text("live buffers share bytes: " + ", ".join(f"{a} and {b}" for a, b in chart.conflicts()),
                        style="bold red"))
    return View("smem", "shared memory", out, data)


def chart_data(chart: SmemChart) -> dict[str, Any]:
    return {
        "smem_bytes": str(chart.smem_bytes),
        "timeline_lines": chart.length,
        "stages": [{"stage": s.stage.value, "loop": s.loop, "start": s.start, "end": s.end} for s in chart.stages],
        "buffers": [{"name": b.name, "kind": b.kind, "memory": b.memory, "dtype": b.dtype,
                     "elements": str(b.elements), "bytes": str(b.nbytes), "align": b.align,
                     "offset": None if b.offset is None else str(b.offset), "aligned": b.aligned,
                     "allocated_at": b.allocated_at, "live": None if b.live is None else list(b.live),
                     "shares": list(b.shares)} for b in chart.buffers],
        "conflicts": [list(p) for p in chart.conflicts()],
        "auto_stages": [{"loop": d.loop, "tensors": list(d.tensors), "stages": d.stages, "prefetch": d.prefetch,
                         "limited_by": d.limited_by.value, "reason": d.reason, "stage_bytes": d.stage_bytes,
                         "left_bytes": d.left_bytes, "trip_count": d.trip_count} for d in chart.auto_depths],
    }


def _auto_depth_table(choices: tuple[DepthChoice, ...]) -> Table:
    table = Table(title='circular-buffer depth picked for stages="auto"')
    for header in ("loop", "tensors", "stages", "prefetch", "limited by"):
        table.add_column(header, overflow="fold")
    for d in choices:
        table.add_row(Text(d.loop), Text(", ".join(d.tensors), style="bold bright_blue"), Text(str(d.stages)),
                      Text(str(d.prefetch)), Text(d.reason))
    return table


def _column(line: int, length: int, width: int) -> int:
    return min(width - 1, (line - 1) * width // max(length, 1))


def _bar(live: tuple[int, int] | None, length: int, width: int, style: str) -> Text:
    if live is None:
        return Text("·" * width, style="dim")
    lo, hi = _column(live[0], length, width), _column(live[1], length, width)
    bar = Text("·" * lo, style="dim")
    bar.append("█" * (hi - lo + 1), style=style)
    bar.append("·" * (width - hi - 1), style="dim")
    return bar


def _stage_band(chart: SmemChart, width: int) -> Text:
    marks: list[tuple[str, str]] = [(" ", "")] * width
    for span in sorted(chart.stages, key=lambda s: STAGE_ORDER.index(s.stage)):
        lo, hi = _column(span.start, chart.length, width), _column(span.end, chart.length, width)
        for col in range(lo, hi + 1):
            marks[col] = (STAGE_MARK[span.stage], STAGE_STYLE[span.stage])
    band = Text()
    for ch, style in marks:
        band.append(ch, style=style)
    return band
