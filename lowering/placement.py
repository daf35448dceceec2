"""Finding a tensor's statements in a kernel body by reference, and editing around them.

A tensor's ``compute`` TensorOp is found by the TensorView itself (identity), so a tensor whose
statements appear in two branches, or two tensors with similar names, are never confused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace

from fusion_ir import TensorView

from .errors import LoweringError
from .kernel_ir import ForLoop, Node, TensorOp, TensorOpKind, children, rewrite

Path = tuple    # a statement's place: indices and field names, (k0, "body", k1, "then_body", ..., k)


def op_paths(body: tuple[Node, ...], prefix: Path = ()) -> Iterator[tuple[TensorOp, Path]]:
    """Every tensor op under ``body`` with its path."""
    for k, node in enumerate(body):
        if isinstance(node, TensorOp):
            yield node, prefix + (k,)
        for name, sub in children(node):
            yield from op_paths(sub, prefix + (k, name))


def common_scope(w: Path, r: Path) -> tuple[Path, int | None, int]:
    """The innermost statement list holding the statements at ``w`` and ``r``, and the indices there of the
    statements holding each (``None, 0`` when one statement holds both)."""
    i = 0
    while i + 1 < min(len(w), len(r)) and w[i] == r[i] and w[i + 1] == r[i + 1]:
        i += 2
    if i >= len(w) or i >= len(r) or (w[i] == r[i]):
        return w[:i], None, 0
    return w[:i], w[i], r[i]


def body_at(body: tuple[Node, ...], path: Path) -> tuple[Node, ...]:
    """The statement list at ``path`` (a path ending in a field name)."""
    for k in range(0, len(path), 2):
        body = getattr(body[path[k]], path[k + 1])
    return body


def computes(node: Node, tv: TensorView) -> bool:
    """True when ``node`` is, or holds, the computation of ``tv``."""
    if isinstance(node, TensorOp):
        return node.tv is tv and node.kind is TensorOpKind.Compute
    return any(computes(c, tv) for _, sub in children(node) for c in sub)


def shifted(node: Node, shift: tuple) -> Node:
    """``node`` with every tensor op in it seeing the loop indices of ``shift`` shifted (``TensorOp.shift``, e.g.
    ``(("i3", i3 + 2),)``: a circular buffer's loads of a later iteration, a deferred matmul's of an earlier one)."""
    if not shift:
        return node

    def mark(x: Node):
        if isinstance(x, TensorOp):
            return replace(x, shift=shift)
        return None

    return rewrite((node,), mark)[0]


def reads(node: Node, tv: TensorView) -> bool:
    """True when ``node`` is, or holds, a tensor op that reads ``tv``."""
    if isinstance(node, TensorOp):
        return tv in node.expr.tensor_inputs()
    return any(reads(c, tv) for _, sub in children(node) for c in sub)


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
