"""The loop nest as a rich tree: one line per loop, stages coloured, allocations and syncs in place."""

from __future__ import annotations

from rich.text import Text
from rich.tree import Tree

from lowering import kernel_ir as k
from lowering.kir_printer import node_lines

STAGE_STYLE = {
    k.Stage.PrePrologue: "magenta", k.Stage.Prologue: "cyan", k.Stage.Main: "green",
    k.Stage.Epilogue: "yellow", k.Stage.PostEpilogue: "magenta",
    k.Stage.AsyncWarp: "bright_blue", k.Stage.ComputeWarp: "bright_red",
}


def loop_tree(kernel: k.Kernel) -> Tree:
    grid = ", ".join(str(g) for g in kernel.grid)
    block = ", ".join(str(b) for b in kernel.block)
    root = Tree(Text(f"kernel  grid ({grid})  block ({block})  smem {kernel.smem_bytes} B", style="bold"))
    _add(root, kernel.body)
    return root


def _add(tree: Tree, body: tuple[k.Node, ...]) -> None:
    for node in body:
        if isinstance(node, k.ForLoop):
            label = Text(f"for {node.index} in [{node.start}, {node.stop})", style="bold")
            label.append(f"  {node.label}", style="dim")
            if node.unroll:
                label.append("  unroll", style="blue")
            if node.vectorize:
                label.append("  vectorize", style="blue")
            if node.stage is not None:
                label.append(f"  [{node.stage.value}]", style=STAGE_STYLE[node.stage])
            _add(tree.add(label), node.body)
        elif isinstance(node, k.IfThenElse):
            branch = tree.add(Text(f"if {node.cond}", style="italic"))
            _add(branch, node.then_body)
            if node.else_body:
                _add(tree.add(Text("else", style="italic")), node.else_body)
        elif isinstance(node, k.ElectSync):
            _add(tree.add(Text("if elect_sync()", style="italic")), node.body)
        elif isinstance(node, (k.BlockSync, k.MBarrierWaitParity, k.MBarrierWait)):
            tree.add(Text(node_lines(node)[0].strip(), style="red"))
        elif isinstance(node, k.Allocate):
            tree.add(Text(node_lines(node)[0].strip(), style="cyan"))
        else:
            tree.add(Text(node_lines(node)[0].strip()))
