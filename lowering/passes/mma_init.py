"""mma_init: a wgmma accumulator's zeroing folded into its first wgmmas (PTX's scale-d).

``tensor_core_ops`` zeroes a matmul's accumulators before its reduction loops (a nest of constant loops around
``acc[i] = 0``), and every ``Mma`` then adds ``A @ B`` to them. For a 256 x 128 tile that is 64 instructions per
warp, issued between a tile's epilogue and the next tile's first wgmma, while the tensor cores wait. A wgmma whose
scale-d is 0 writes ``A @ B`` without reading its accumulators, so the first wgmma of each register makes the
zeroing unnecessary (CUTLASS's ``ScaleOut::Zero`` on a tile's first k block).

Reads: the kernel IR after ``indexing``.
Writes: where the next statement after an accumulator's zeroing that touches the accumulator is a branch with
only one side touching it (a warp split's compute side), and nothing after the branch touches it or the other side
ends in ``return`` (a producer's), the zeroing moves to the start of that side, where it is then folded (else it
stays where it was). Then, where a statement list holds an accumulator's zeroing and, as the next statement that
touches the accumulator, a nest ``L`` whose only accesses of it are ``Mma`` s reached through ``ForLoop`` s alone, each of
those Mmas gets ``accumulate``: false in the first iteration of every loop around it (in ``L``) whose index its
registers do not depend on (its reduction loops: the k tiles and the k steps of one), true elsewhere. The zeroing
is left out where those loops are known to run at least once; otherwise it stays, under ``if`` one of them is
empty (no k tile: a split-K part with none), so the registers are zero then as before. A ``Discard`` of the
accumulator goes right before the nest, with that guarded zeroing: the old values are dead there (codegen: no
instruction, only the compiler told).
Guarantees: the Mmas of the reduction loops' first iteration write every register the zeroing wrote, each once
(both enumerated over their constant loops), before anything reads one; the Mmas after ``L`` are unchanged. Any
other form (a branch between ``L`` and an Mma, the accumulator read or written other than by an Mma in ``L``, a
reduction loop whose bounds depend on a loop inside ``L``, registers not covered) keeps the zeroing as it is.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

from fusion_ir.scalar import Val

from ..analysis import Analyses
from ..effects import buffers_touched
from ..kernel_ir import (Assign, Buffer, Const, Discard, ForLoop, IfThenElse, Kernel, Mma, Node, Return, map_bodies,
                         walk)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not any(isinstance(x, Mma) for x in walk(kernel.body)):
        return kernel

    def visit(body: tuple[Node, ...]) -> tuple[Node, ...]:
        out: list[Node | tuple[Node, ...] | None] = [map_bodies(node, visit) for node in body]
        for j in range(len(out)):
            acc = _zeroed(out[j]) if isinstance(out[j], ForLoop | Assign) else None
            if acc is None:
                continue
            # (only the statements up to j have been replaced or left out: those after it are nodes)
            after = next((k for k in range(j + 1, len(out)) if _touches(out[k], acc)), None)
            if after is None:
                continue
            node = out[after]
            if isinstance(node, IfThenElse):
                later = any(_touches(x, acc) for x in out[after + 1:])
                sunk = _sunk(out[j], node, acc, later)
                if sunk is not None:     # into the one branch that uses the accumulator (a warp split's compute side)
                    sunk = replace(sunk, then_body=visit(sunk.then_body), else_body=visit(sunk.else_body))
                    if out[j] not in (sunk.then_body + sunk.else_body):     # folded there (else it stays where it was)
                        out[j], out[after] = None, sunk
                continue
            folded = _folded(out[j], node, acc)
            if folded is not None:      # right before the nest: its bounds' symbols are bound there
                out[j], out[after] = None, (*folded[0], folded[1])
        return tuple(y for x in out if x is not None for y in (x if isinstance(x, tuple) else (x,)))

    return replace(kernel, body=visit(kernel.body))


def _sunk(zeroing: Node, branch: IfThenElse, acc: Buffer, later: bool) -> IfThenElse | None:
    """The branch with the zeroing first in the one body that touches ``acc`` (registers: the threads of the other
    body never read them), or None where both do, or where statements after the branch (``later``) touch ``acc``
    and the other body's threads reach them (it does not end in ``return``)."""
    then_uses = any(_touches(x, acc) for x in branch.then_body)
    else_uses = any(_touches(x, acc) for x in branch.else_body)
    if then_uses == else_uses:
        return None
    other = branch.else_body if then_uses else branch.then_body
    if later and not (other and isinstance(other[-1], Return)):
        return None
    if then_uses:
        return replace(branch, then_body=(zeroing, *branch.then_body))
    return replace(branch, else_body=(zeroing, *branch.else_body))


@dataclass(frozen=True)
class _Site:
    """One Mma in the nest and the loops around it, outermost first."""

    mma: Mma
    loops: tuple[ForLoop, ...]

    def reduction_loops(self) -> tuple[ForLoop, ...]:
        used = self.mma.acc_index.symbols()
        return tuple(loop for loop in self.loops if loop.index.name not in used)


def _zeroed(node: Node) -> Buffer | None:
    """The Local buffer a nest of constant loops around one ``buf[i] = 0`` zeroes, else None."""
    while isinstance(node, ForLoop) and len(node.body) == 1:
        if not _constant(node):
            return None
        node = node.body[0]
    if (isinstance(node, Assign) and node.reduce_op is None and node.vector == 1 and isinstance(node.value, Const)
            and node.value.value == 0):
        return node.buffer
    return None


def _constant(loop: ForLoop) -> bool:
    return all(v.const_value() is not None for v in (loop.start, loop.stop, loop.step)) and loop.step.const_value() > 0


def _touches(node: Node, buf: Buffer) -> bool:
    return any(e.name == buf.name for x in walk((node,)) for e in buffers_touched(x))


def _folded(zeroing: Node, nest: Node, acc: Buffer) -> tuple[tuple[Node, ...], Node] | None:
    """What replaces the zeroing (``Discard``, and the zeroing under ``if`` a loop may be empty) and the nest with its
    first-iteration Mmas writing instead of adding; None to keep both."""
    sites = _sites(nest, (), acc)
    if not sites:
        return None
    inner = {loop.index.name for s in sites for loop in s.loops}
    reduction = {id(loop): loop for s in sites for loop in s.reduction_loops()}.values()
    if any((loop.start.symbols() | loop.stop.symbols()) & inner for loop in reduction):
        return None     # a bound set inside the nest: no condition before it says whether the loop runs
    if _registers(zeroing) != _first_writes(sites):
        return None
    nest = _with_accumulate(nest, {id(s.mma): _accumulate(s) for s in sites})
    empty = [loop.stop.le(loop.start) for loop in reduction]
    empty = [c for c in empty if c.const_value() != 0]
    if not empty:
        return (Discard(acc),), nest
    cond = empty[0]
    for c in empty[1:]:
        cond = cond.logical_or(c)
    return (Discard(acc), IfThenElse(cond, (zeroing,))), nest


def _sites(node: Node, loops: tuple[ForLoop, ...], acc: Buffer) -> list[_Site] | None:
    """Every Mma into ``acc`` in ``node`` with its loops; None where ``acc`` is touched otherwise or an Mma sits
    under anything but loops."""
    if isinstance(node, Mma):
        return [_Site(node, loops)] if node.acc.name == acc.name else []
    if isinstance(node, ForLoop):
        found: list[_Site] = []
        for sub in node.body:
            more = _sites(sub, (*loops, node), acc)
            if more is None:
                return None
            found += more
        return found
    return None if _touches(node, acc) else []


def _registers(zeroing: Node) -> list[int]:
    """The registers the zeroing writes, in order (a constant nest: ``_zeroed``)."""
    loops: list[ForLoop] = []
    node = zeroing
    while isinstance(node, ForLoop):
        loops.append(node)
        node = node.body[0]
    return sorted(_enumerate(loops, lambda env: [int(node.index.evaluate(env))]))


def _first_writes(sites: list[_Site]) -> list[int] | None:
    """The registers the Mmas write in their reduction loops' first iteration (every register once), or None where
    a register index depends on a loop that is not constant or on anything but loops."""
    found: list[int] = []
    for s in sites:
        reduction = {id(loop) for loop in s.reduction_loops()}
        spread = [loop for loop in s.loops if id(loop) not in reduction]
        names = {loop.index.name for loop in spread}
        if not s.mma.acc_index.symbols() <= names:
            return None
        if not all(_constant(loop) for loop in spread):
            return None
        width = s.mma.shape[1] // 2
        found += _enumerate(spread, lambda env: list(range(int(s.mma.acc_index.evaluate(env)),
                                                           int(s.mma.acc_index.evaluate(env)) + width)))
    return sorted(found) if len(set(found)) == len(found) else None


def _enumerate(loops: list[ForLoop], values) -> list[int]:
    """``values(env)`` over every iteration of the constant ``loops``."""
    out: list[int] = []
    ranges = [range(loop.start.const_value(), loop.stop.const_value(), loop.step.const_value()) for loop in loops]
    for point in itertools.product(*ranges):
        out += values({loop.index.name: v for loop, v in zip(loops, point)})
    return out


def _accumulate(site: _Site) -> Val:
    """True except in the first iteration of every reduction loop around the Mma."""
    cond = Val.const(0)
    for loop in site.reduction_loops():
        cond = cond.logical_or(loop.index.ne(loop.start))
    return cond


def _with_accumulate(node: Node, conds: dict[int, Val]) -> Node:
    if isinstance(node, Mma):
        return replace(node, accumulate=conds[id(node)])
    if isinstance(node, ForLoop):
        return replace(node, body=tuple(_with_accumulate(x, conds) for x in node.body))
    return node
