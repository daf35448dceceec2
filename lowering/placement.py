"""Finding a tensor's statements in a kernel body by reference, and editing around them.

A tensor's ``compute`` TensorOp is found by the TensorView itself (identity), so a tensor whose
statements appear in two branches, or two tensors with similar names, are never confused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from fusion_ir import TensorView

from .errors import LoweringError
from .kernel_ir import ForLoop, Node, TensorOp, children


def computes(node: Node, tv: TensorView) -> bool:
    """True when ``node`` is, or holds, the computation of ``tv``."""
    if isinstance(node, TensorOp):
        return node.tv is tv and node.kind == "compute"
    return any(computes(c, tv) for _, sub in children(node) for c in sub)


def insert_at_scope(body: tuple[Node, ...], tv: TensorView, depth: int, nodes: tuple[Node, ...]) -> tuple[Node, ...]:
    """Insert ``nodes`` at the top of the scope ``depth`` loops down the path to ``tv``'s computation."""
    if depth == 0:
        return nodes + body
    out = list(body)
    for k, node in enumerate(out):
        if isinstance(node, ForLoop) and computes(node, tv):
            out[k] = replace(node, body=insert_at_scope(node.body, tv, depth - 1, nodes))
            return tuple(out)
    raise LoweringError(f"internal: no loop {depth} deep holds the computation of T{tv.name}")


def replace_at(body: tuple[Node, ...], tv: TensorView, depth: int,
               fn: Callable[[Node], tuple[Node, ...]]) -> tuple[Node, ...]:
    """Replace the statement ``depth`` loops down the path to ``tv``'s computation with ``fn(statement)``."""
    return edit_scope(body, tv, depth, lambda scope, k: scope[:k] + tuple(fn(scope[k])) + scope[k + 1:])


def edit_scope(body: tuple[Node, ...], tv: TensorView, depth: int,
               fn: Callable[[tuple[Node, ...], int], tuple[Node, ...]]) -> tuple[Node, ...]:
    """Replace the scope that holds the statement ``depth`` loops down the path to ``tv``'s computation
    with ``fn(scope, index of that statement)``."""
    out = list(body)
    for k, node in enumerate(out):
        if not computes(node, tv):
            continue
        if depth == 0:
            return tuple(fn(tuple(out), k))
        if isinstance(node, ForLoop):
            out[k] = replace(node, body=edit_scope(node.body, tv, depth - 1, fn))
            return tuple(out)
        kids = children(node)
        out[k] = replace(node, **{name: edit_scope(sub, tv, depth, fn) if any(computes(x, tv) for x in sub)
                                  else sub for name, sub in kids})
        return tuple(out)
    raise LoweringError(f"internal: no statement {depth} loops deep computes T{tv.name}")
