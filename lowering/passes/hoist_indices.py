"""Hoist indices: an index expression with a division that a loop does not change is computed once,
before the loop, as a named ``Let``.

Reads: the kernel IR only.
Writes: for each loop, every largest subexpression of the statements inside it that divides (``/``,
``%``, ``ceilDiv``) and reads no symbol bound inside the loop (its index, the indices of loops nested
in it, a ``Let`` there) nor the index of an unrolled loop becomes a symbol ``h<n>``, bound by ``Let``
right before the outermost such loop it does not change in. A persistent matmul's tile coordinates
(``(tile / 8) % ceilDiv(N, 128) * 128``) are then divided once per tile instead of once per k tile in
the producer, and the stage arithmetic's ``tile * k_tiles`` once per tile. An unrolled loop takes,
in front of it, the subexpressions that divide by a value that is not a constant (nvcc unrolls the
loop but keeps such a division in each copy that an ``asm volatile`` or a barrier separates: the
grouped walk's tile row, divided by the last group's row count, was computed once per epilogue
sub-tile by the thread that issues its TMA store, 3-8 % of an H100 persistent matmul's time).
Guarantees: the kernel computes the same values (index expressions are pure); a register
index stays a constant once unrolled loops are unrolled, since no hoisted expression reads an
unrolled loop's index; a value the host evaluates too (``host_evaluated``: a shared buffer's
``Allocate.offset``, from which the launch lays out shared memory) is left as it is, in terms of
the kernel's parameters, since the host has no ``Let`` values.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from fusion_ir.scalar import Val

from ..analysis import Analyses
from ..kernel_ir import Allocate, ForLoop, Kernel, Let, Node, children, map_vals, rewrite, substitute, walk

DIVIDING = frozenset({"div", "mod", "ceilDiv"})
# ops a hoisted value may have at its root: integer arithmetic (a comparison stays where it is)
ARITHMETIC = frozenset({"add", "sub", "mul", "div", "mod", "ceilDiv", "min", "max", "xor", "shl"})
PREFIX = "h"


def run(kernel: Kernel, a: Analyses) -> Kernel:
    taken = {node.name for node in walk(kernel.body) if isinstance(node, Let)}
    names = _Names(taken)
    return replace(kernel, body=_scope(kernel.body, (), names))


@dataclass
class _Names:
    taken: set[str]
    next: int = 0

    def fresh(self) -> str:
        while f"{PREFIX}{self.next}" in self.taken:
            self.next += 1
        name = f"{PREFIX}{self.next}"
        self.taken.add(name)
        return name


@dataclass
class _Target:
    """A loop that hoisted values can go in front of, with the symbols bound at or inside it."""

    bound: frozenset[str]
    unrolled: bool = False          # an unrolled loop: only a division by a value that is not a constant goes before it
    lets: dict[Val, str] = field(default_factory=dict)


def _scope(body: tuple[Node, ...], targets: tuple[_Target, ...], names: _Names,
           pinned: frozenset[str] = frozenset()) -> tuple[Node, ...]:
    """Rebuild a statement list whose enclosing hoisting targets are ``targets`` (outermost first);
    ``pinned``: the indices of the unrolled loops around it, which nothing hoisted may read."""
    out: list[Node] = []
    for node in body:
        if isinstance(node, ForLoop):
            target = _Target(_bound_in(node), unrolled=not _runs_as_loop(node))
            header = _vals(replace(node, body=()), targets, names, pinned)
            inner = pinned | {node.index.name} if target.unrolled else pinned
            loop = replace(header, body=_scope(node.body, targets + (target,), names, inner))
            # the loop's own Lets stand in this scope: their values may go further out
            out.extend(_vals(Let(name, value), targets, names, pinned) for value, name in target.lets.items())
            out.append(loop)
            continue
        if host_evaluated(node):
            out.append(node)
            continue
        node = _vals(node, targets, names, pinned)
        kids = children(node)
        if kids:
            inner = pinned | {node.index.name} if isinstance(node, ForLoop) else pinned
            node = replace(node, **{name: _scope(sub, targets, names, inner) for name, sub in kids})
        out.append(node)
    return tuple(out)


def host_evaluated(node: Node) -> bool:
    """``node``'s values are evaluated by the host before launch as well as by the kernel: an ``Allocate``
    (its offset and its buffer's size lay out dynamic shared memory; ``lowering.host_sizes``)."""
    return isinstance(node, Allocate)


def _runs_as_loop(loop: ForLoop) -> bool:
    """Not unrolled: no pragma (``unroll`` False) or ``#pragma unroll 1``."""
    return loop.unroll is False or (loop.unroll is not True and loop.unroll == 1)


def _bound_in(loop: ForLoop) -> frozenset[str]:
    """Symbols a loop binds: its index, the indices of loops inside it and the Lets inside it."""
    bound = {loop.index.name}
    for node in walk(loop.body):
        if isinstance(node, ForLoop):
            bound.add(node.index.name)
        elif isinstance(node, Let):
            bound.add(node.name)
    return frozenset(bound)


def _vals(obj: Any, targets: tuple[_Target, ...], names: _Names, pinned: frozenset[str]) -> Any:
    """``obj`` (a node without its statement lists, which ``_scope`` rebuilds) with its index expressions
    hoisted where they can be."""
    return map_vals(obj, lambda v: _hoist(v, targets, names, pinned), into_bodies=False)


def _hoist(v: Val, targets: tuple[_Target, ...], names: _Names, pinned: frozenset[str]) -> Val:
    if v.op in ("const", "sym") or not targets:
        return v
    syms = v.symbols()
    if v.op in ARITHMETIC and _divides(v) and not syms & pinned:
        for t in targets:              # outermost first: the farthest a value can go
            if not syms & t.bound and (not t.unrolled or _divides_by_variable(v)):
                name = t.lets.get(v)
                if name is None:
                    name = t.lets[v] = names.fresh()
                return Val.symbol(name)
    args = [_hoist(a, targets, names, pinned) for a in v.args]
    if all(x is y for x, y in zip(args, v.args)):
        return v
    return Val(v.op, tuple(args), v.value, v.name)


def _divides(v: Val) -> bool:
    return v.op in DIVIDING or any(_divides(a) for a in v.args)


def _divides_by_variable(v: Val) -> bool:
    """``v`` divides by a value that is not a constant (a runtime division, dozens of instructions; nvcc turns a
    division by a constant into a multiply and a shift)."""
    if v.op in DIVIDING and v.args[1].const_value() is None:
        return True
    return any(_divides_by_variable(a) for a in v.args)


def inline_lets(kernel: Kernel) -> Kernel:
    """The kernel with each ``Let``'s value written back where its name is read and the ``Let`` gone: what
    the pass was given, for reading index expressions (tests, mutations) without the hoisted names."""
    values: dict[str, Val] = {}
    for node in walk(kernel.body):
        if isinstance(node, Let):
            values[node.name] = node.value.substitute(values)
    body = rewrite(kernel.body, lambda node: () if isinstance(node, Let) else None)
    return replace(kernel, body=substitute(body, values))
