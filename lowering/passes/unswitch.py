"""Unswitch: a loop whose whole body is one branch on a condition the loop does not change becomes
that branch around the loop.

Reads: the kernel IR only.
Writes: ``FOR i { IF c { body } }`` becomes ``IF c { FOR i { body } }`` when ``c`` does not read ``i``
and the branch has no else; the same for an elected thread (``ElectSync``), whose warp the loop
does not change, so the producer of a warp-specialized pipeline elects its thread once per tile
instead of once per stage, and a TMA store's boxes are issued by one election.
Guarantees: the same statements run on the same threads in the same order: the condition is
evaluated once instead of on every iteration, and it reads nothing the loop writes (conditions
are index expressions over loop indices, thread and block indices and extents; the elected thread
is lane 0 of its warp every time).
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import Analyses
from ..kernel_ir import Comment, ElectSync, ForLoop, IfThenElse, Kernel, Node, rewrite


def run(kernel: Kernel, a: Analyses) -> Kernel:
    return replace(kernel, body=rewrite(kernel.body, _unswitched))


def _unswitched(node: Node) -> Node | None:
    """The loop with its only branch moved outside, or None to keep the node (``rewrite`` goes bottom-up,
    so a nest of such loops moves the branch out of all of them)."""
    if not isinstance(node, ForLoop):
        return None
    stmts = [n for n in node.body if not isinstance(n, Comment)]
    if len(stmts) != 1:
        return None
    branch = stmts[0]
    loop_index = node.index.name
    if isinstance(branch, ElectSync) and loop_index not in branch.warp.symbols():
        return replace(branch, body=(replace(node, body=_with_comments(node.body, branch.body)),))
    if (isinstance(branch, IfThenElse) and not branch.else_body and loop_index not in branch.cond.symbols()):
        return replace(branch, then_body=(replace(node, body=_with_comments(node.body, branch.then_body)),))
    return None


def _with_comments(loop_body: tuple[Node, ...], inner: tuple[Node, ...]) -> tuple[Node, ...]:
    """The branch's statements with the loop body's comments kept in front of them."""
    return tuple(n for n in loop_body if isinstance(n, Comment)) + inner
