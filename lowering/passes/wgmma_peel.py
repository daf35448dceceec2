"""wgmma peel: no wgmma under a branch on a loop index; the loop is split where the branch's condition turns true.

ptxas serializes every wgmma of a kernel (each waits for the one before it) when one of them sits in a branch it
cannot prove uniform; a branch on a loop index inside the loop is one. A deferred matmul (``defer_matmuls``) issues
its wgmmas of iteration ``i - 1`` under ``if (i >= c)``, true from the loop's second iteration on.

Reads: the kernel IR after ``wgmma_groups`` (fence and commit sit around the branch, which holds only wgmmas).
Writes: a loop ``for i in [s, e)`` whose body holds, at its top level, ``if (i >= c) {wgmmas}`` (no else; ``c`` free of
``i``) becomes ``for i in [s, p)`` without the branch, then ``for i in [p, e)`` with its body in place of the branch,
``p = min(max(c, s), e)``; a part known empty is left out. Each part keeps the loop's group, stage and unroll, so later
passes (``loop_versions``) see two loops of the group.
Guarantees: every iteration runs once, in order, with the same statements as before but the branch resolved; the
fence and commit around the branch stay in both parts (a commit with no wgmma is an empty group).
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir.scalar import Val, vmax, vmin

from ..analysis import Analyses
from ..kernel_ir import ForLoop, IfThenElse, Kernel, Mma, Node, map_bodies, walk


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not any(isinstance(x, Mma) for x in walk(kernel.body)):
        return kernel

    def visit(body: tuple[Node, ...]) -> tuple[Node, ...]:
        out: list[Node] = []
        for node in body:
            node = map_bodies(node, visit)
            out.extend(_peeled(node) if isinstance(node, ForLoop) else (node,))
        return tuple(out)

    return replace(kernel, body=visit(kernel.body))


def _guard_start(node: Node, index: Val) -> Val | None:
    """``c`` of ``if (index >= c) {wgmmas}``, or None for any other statement."""
    if not isinstance(node, IfThenElse) or node.else_body or not node.then_body:
        return None
    cond = node.cond
    if cond.op != "ge" or cond.args[0] != index or index.name in cond.args[1].symbols():
        return None
    if not any(isinstance(x, Mma) for x in walk(node.then_body)):
        return None
    return cond.args[1]


def _peeled(loop: ForLoop) -> tuple[Node, ...]:
    at = [(k, c) for k, x in enumerate(loop.body) if (c := _guard_start(x, loop.index)) is not None]
    if not at or loop.step != Val.const(1):
        return (loop,)
    k, c = at[0]
    guard = loop.body[k]
    split = vmin(vmax(c, loop.start), loop.stop)
    before = replace(loop, stop=split, body=loop.body[:k] + loop.body[k + 1:])
    after = replace(loop, start=split, body=loop.body[:k] + guard.then_body + loop.body[k + 1:])
    parts = [p for p in (before, after) if (p.stop - p.start).const_value() is None
             or (p.stop - p.start).const_value() > 0]
    return tuple(x for p in parts for x in _peeled(p))
