"""The loop nest as a rich tree: one line per loop, stages coloured, allocations and syncs in place."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from rich.tree import Tree

from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering.kir_printer import node_lines

from .view import View

# Program order of a Pipelined loop's clones, then the two branches of a warp-specialized one.
STAGE_ORDER = (k.Stage.PrePrologue, k.Stage.Prologue, k.Stage.Main, k.Stage.Epilogue, k.Stage.PostEpilogue,
               k.Stage.AsyncWarp, k.Stage.ComputeWarp)
STAGE_STYLE = {
    k.Stage.PrePrologue: "magenta", k.Stage.Prologue: "cyan", k.Stage.Main: "green",
    k.Stage.Epilogue: "yellow", k.Stage.PostEpilogue: "bright_magenta",
    k.Stage.AsyncWarp: "bright_blue", k.Stage.ComputeWarp: "bright_red",
}
_SYNC = (k.BlockSync, k.MBarrierWaitParity, k.MBarrierWait, k.AsyncWait)
_BARRIER_OPS = (k.MBarrierInit, k.MBarrierInval, k.MBarrierArrive, k.MBarrierArriveExpectTx)
_ASYNC_COPIES = (k.TmaLoad, k.TmaStore, k.CpAsync)


def loops_view(kernel: k.Kernel, *, after_pass: str | None = None) -> View:
    title = "loop nest" if after_pass is None else f"loop nest after {after_pass}"
    data = {"kernel": kernel.name, "grid": [str(g) for g in kernel.grid], "block": [str(b) for b in kernel.block],
            "smem_bytes": str(kernel.smem_bytes), "after_pass": after_pass,
            "launch_requirements": requirements_data(kernel), "body": _body_data(kernel.body)}
    return View("loops", title, [loop_tree(kernel)], data)


def requirements_data(kernel: k.Kernel) -> list[dict[str, str]]:
    """The rules on the arguments lowering recorded and every launch checks (``Kernel.launch_requirements``)."""
    return [{"tensor": r.tensor, "rule": r.rule, "holds": str(r.holds)} for r in kernel.launch_requirements]


def loop_tree(kernel: k.Kernel) -> Tree:
    grid = ", ".join(str(g) for g in kernel.grid)
    block = ", ".join(str(b) for b in kernel.block)
    root = Tree(Text(f"{kernel.name}  grid ({grid})  block ({block})  smem {kernel.smem_bytes} B", style="bold"))
    for r in kernel.launch_requirements:
        root.add(Text(f"requires {r.tensor}: {r.rule}  ({r.holds})", style="yellow"))
    for s in kernel.scratch:
        zeroed = ", zeroed" if s.zeroed else ""
        root.add(Text(f"scratch {s.buffer.name}: global {s.buffer.dtype.short_name}[{s.buffer.size}]{zeroed}  "
                      f"({s.purpose})", style="magenta"))
    _add(root, kernel.body)
    return root


def loop_kind(loop: k.ForLoop) -> str:
    """The loop's parallel type as a word: serial, unroll (or ``unroll N``) or vectorize."""
    if loop.vectorize:
        return "vectorize"
    if loop.unroll is True:
        return "unroll"
    if loop.unroll:
        return f"unroll {loop.unroll}"
    return "serial"


def loop_label(loop: k.ForLoop) -> Text:
    step = f" step {loop.step}" if loop.step != Val.const(1) else ""
    label = Text(f"for {loop.index} in [{loop.start}, {loop.stop}){step}", style="bold")
    kind = loop_kind(loop)
    label.append(f"  {kind}", style="dim" if kind == "serial" else "blue")
    if loop.label:
        label.append(f"  {loop.label}", style="dim")
    if loop.stage is not None:
        label.append(f"  {loop.stage.value}", style=f"bold {STAGE_STYLE[loop.stage]}")
    return label


def statement_style(node: k.Node) -> str:
    if isinstance(node, _SYNC):
        return "red"
    if isinstance(node, k.Allocate):
        return "cyan"
    if isinstance(node, _BARRIER_OPS):
        return "yellow"
    if isinstance(node, _ASYNC_COPIES):
        return "bright_blue"
    return ""


def _add(tree: Tree, body: tuple[k.Node, ...]) -> None:
    for node in body:
        if isinstance(node, k.ForLoop):
            _add(tree.add(loop_label(node)), node.body)
        elif isinstance(node, k.IfThenElse):
            _add(tree.add(Text(f"if {node.cond}", style="italic")), node.then_body)
            if node.else_body:
                _add(tree.add(Text("else", style="italic")), node.else_body)
        elif isinstance(node, k.ElectSync):
            _add(tree.add(Text("if elect_sync()", style="italic")), node.body)
        else:
            tree.add(Text(node_lines(node)[0].strip(), style=statement_style(node)))


def _body_data(body: tuple[k.Node, ...]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for node in body:
        if isinstance(node, k.ForLoop):
            out.append({"node": "for", "index": str(node.index), "start": str(node.start), "stop": str(node.stop),
                        "step": str(node.step), "parallel": loop_kind(node), "iter_domain": node.label,
                        "stage": None if node.stage is None else node.stage.value, "body": _body_data(node.body)})
        elif isinstance(node, k.IfThenElse):
            out.append({"node": "if", "cond": str(node.cond), "then": _body_data(node.then_body),
                        "else": _body_data(node.else_body)})
        elif isinstance(node, k.ElectSync):
            out.append({"node": "elect_sync", "body": _body_data(node.body)})
        else:
            out.append({"node": type(node).__name__, "text": node_lines(node)[0].strip()})
    return out
