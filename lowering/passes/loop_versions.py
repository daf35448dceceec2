"""Loop versions: a serial loop whose wheres are known true in its first iterations runs in two ranges.

Reads: the ``ids`` analysis (a loop group's ``IterDomain.known_true``: ``TensorView.version_loop``), the
``circular`` analysis (the clones of a circular-buffered loop), the indexed kernel IR.
Writes: ``FOR i in [start, stop) body`` becomes ``FOR i in [start, split) body'`` then ``FOR i in [split, stop)
body``, where ``split = min(stop, max(start, the smallest known-true bound))`` (one value per block) and ``body'`` is
``body`` with each known-true where's select replaced by its value branch and, then, every statement that writes a
register or shared buffer allocated in the body that nothing in ``body'`` reads any more left out (the mask's
conditions and what only they read), with the allocations and the loops and branches left empty.
A circular-buffered loop's clones (``circular_buffer``: prologue, main, epilogue; the producer's and the compute
warps' loops) are split each on its own: a clone's stage, parity, loads issued ahead and releases are functions of
the loop index alone, so two ranges of it run the same pipeline; a clone computing none of the wheres (the prologue,
the producer branch) stays whole.
Guarantees: each iteration runs in exactly one of the two loops, in order, with the same index, the same
statements (less dead ones) and the same barriers and waits, so the syncs, the mbarrier tokens, the pipeline's
barriers and the wgmma groups placed before stay right; a buffer left out was allocated in the body (nothing after
the loop reads it).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

from fusion_ir import ParallelType
from fusion_ir.scalar import Val, vmax, vmin

from ..analysis import Analyses
from ..errors import LoweringError
from ..kernel_ir import (
    Allocate,
    Assign,
    Buffer,
    CastValue,
    Comment,
    ForLoop,
    IfThenElse,
    Kernel,
    Node,
    SelectValue,
    children,
    rewrite,
)
from ..uniform_index import uniform_index


def run(kernel: Kernel, a: Analyses) -> Kernel:
    by_group = {g.number: g for g in a.ids.groups}

    def versioned(node: Node) -> tuple[Node, ...] | None:
        if not isinstance(node, ForLoop) or node.group is None:
            return None
        g = by_group.get(node.group)
        known = [] if g is None else [k for i in g.members for k in i.known_true]
        if not known:
            return None
        return _split(node, g, known, a)

    return replace(kernel, body=rewrite(kernel.body, versioned))


def _split(loop: ForLoop, g, known: list, a: Analyses) -> tuple[Node, ...] | None:
    if g.parallel_type is not ParallelType.Serial:
        raise LoweringError(f"loop {g.label()} runs in two ranges (wheres known true in its first iterations), but "
                            f"it is {g.parallel_type.name}; only a serial loop is split")
    names = {}
    bounds: list[Val] = []
    for k in known:
        names[f"T{k.where.name}"] = k
        outer = None
        if k.outer is not None:
            member = next(i for i in g.members if k in i.known_true)
            outer = uniform_index(a.ids, member, k.outer,
                                  f"loop {g.label()}: the range where T{k.where.name} is known true")
        bounds.append(k.below(outer))
    split = bounds[0]
    for b in bounds[1:]:
        split = vmin(split, b)
    if loop.start.const_value() != 0:         # the bounds are never negative
        split = vmax(loop.start, split)
    split = vmin(loop.stop, split)
    body, found = _known_true(loop.body, set(names))
    if not found and loop.group in a.circular.loops:
        return None             # a clone of a pipeline that computes nothing (its prologue, its producer branch)
    missing = sorted(set(names) - found)
    if missing:
        raise LoweringError(f"loop {g.label()}: {', '.join(missing)} (a where known true in its first iterations) is "
                            f"not computed in it as a select; compute it in the loop")
    first = replace(loop, stop=split, body=_without_dead(body))
    rest = replace(loop, start=split)
    note = Comment(f"{g.label()}: the first {split} iterations with {', '.join(sorted(names))} known true")
    return (note, first, rest)


def _known_true(body: tuple[Node, ...], names: set[str]) -> tuple[tuple[Node, ...], set[str]]:
    found: set[str] = set()

    def value_branch(node: Node) -> Node | None:
        if isinstance(node, Assign) and node.buffer.name in names and isinstance(node.value, SelectValue):
            found.add(node.buffer.name)
            sel = node.value
            a = sel.a if getattr(sel.a, "dtype", None) == sel.dtype else CastValue(sel.a, sel.dtype)
            return replace(node, value=a)
        return None

    return rewrite(body, value_branch), found


def _without_dead(body: tuple[Node, ...]) -> tuple[Node, ...]:
    """``body`` less the writes of the buffers allocated in it that nothing reads, until none is left."""
    while True:
        allocated = {n.buffer.name for n in _walk(body) if isinstance(n, Allocate)}
        read = _read_buffers(body)
        dead = allocated - read
        if not dead:
            return body
        body = _pruned(body, dead)


def _walk(body: tuple[Node, ...]):
    for node in body:
        yield node
        for _, sub in children(node):
            yield from _walk(sub)


def _read_buffers(body: tuple[Node, ...]) -> set[str]:
    """The buffers any statement of ``body`` reads or names, other than as the target of an ``Assign`` or an
    ``Allocate`` (every other mention counts as a read: a copy, a wgmma, a barrier)."""
    out: set[str] = set()

    def visit(x: object) -> None:
        if isinstance(x, Buffer):
            out.add(x.name)
            return
        if isinstance(x, tuple):
            for y in x:
                visit(y)
            return
        if isinstance(x, Allocate) or not is_dataclass(x) or isinstance(x, type):
            return
        for f in fields(x):
            if isinstance(x, Assign) and f.name == "buffer":
                continue            # the target (a reduction reads it too, for itself only)
            visit(getattr(x, f.name))

    visit(body)
    return out


def _pruned(body: tuple[Node, ...], dead: set[str]) -> tuple[Node, ...]:
    def drop(node: Node) -> Node | tuple[Node, ...] | None:
        if isinstance(node, (Assign, Allocate)) and node.buffer.name in dead:
            return ()
        if isinstance(node, ForLoop) and not any(not isinstance(n, Comment) for n in node.body):
            return ()
        if isinstance(node, IfThenElse) and not node.then_body and not node.else_body:
            return ()
        return None

    return rewrite(body, drop)
