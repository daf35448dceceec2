"""wgmma groups: fence, commit and wait around each run of warpgroup MMAs.

Reads: the indexed kernel (``Mma`` nodes).
Writes: in every statement list, around each maximal run of statements that issue wgmma (an
``Mma``, or an unrolled loop that holds nothing but such runs): ``WgmmaFence`` before it, and
``AsyncCommit("wgmma")`` then ``AsyncWait("wgmma", 0)`` after it.
Guarantees: the fence orders every earlier register access (the accumulator's zero init, the
previous group's results) before the run; the accumulators are in registers when the statement
after the run executes, so whatever follows (the release of a circular-buffer stage the run
read, the epilogue that reads the accumulators) sees finished MMAs.
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import Analyses
from ..kernel_ir import AsyncCommit, AsyncWait, ForLoop, Kernel, Mma, Node, WgmmaFence, children, walk


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not a.mma.tiles:
        return kernel
    return replace(kernel, body=_group(kernel.body))


def _issues_only_wgmma(node: Node) -> bool:
    if isinstance(node, Mma):
        return True
    return isinstance(node, ForLoop) and node.unroll and bool(node.body) and all(_issues_only_wgmma(x)
                                                                                 for x in node.body)


def _group(body: tuple[Node, ...]) -> tuple[Node, ...]:
    out: list[Node] = []
    run: list[Node] = []

    def close() -> None:
        if run:
            out.extend([WgmmaFence(), *run, AsyncCommit("wgmma"), AsyncWait("wgmma", 0)])
            run.clear()

    for node in body:
        if _issues_only_wgmma(node):
            run.append(node)
            continue
        close()
        kids = children(node)
        if kids and any(isinstance(x, Mma) for _, sub in kids for x in walk(sub)):
            node = replace(node, **{name: _group(sub) for name, sub in kids})
        out.append(node)
    close()
    return tuple(out)
