"""Deferred matmuls: a tensor-core matmul issued one iteration late (``TensorView.defer``).

Reads: ``TensorView.deferred`` through the ``tensor_cores`` analysis (``TensorCores.deferred``: the matmuls deferred
in each loop group, and the rescaled sum a matmul accumulates into in place), the fusion's input extents and the loop
nest (not yet indexed).
Writes: in every loop of a deferring group, the matmul's statement ``X`` (a top-level statement of the loop's body
computing the matmul) leaves its place; ``X`` of iteration ``i - 1`` (``TensorOp.shift``) goes right after the
body's first other statement that issues a tensor-core matmul (the anchor; with none, after the body's
allocations), under ``if (i >= start + 1)`` (``wgmma_peel`` later splits that iteration off); ``X`` of the last
iteration follows the loop, with no branch where the loop provably runs (interval arithmetic, every symbolic extent at
least 1: a ``LaunchRequirement`` per extent that proof used, checked at launch), else under ``if (stop > start)``.
The allocations of its register operands move before the loop (they live from one iteration into the next). So iteration ``i`` issues ``q @ k_i^T``, then ``p_{i-1} @ v_{i-1}``, whose wgmmas run while
the softmax of block ``i`` computes: the ``wgmma_groups`` pass leaves their wait for the first statement that
touches what they read or write. Every loop of the group is rotated on its own (the circular-buffer pass clones it
later, and each clone's first iteration issues nothing deferred, its last issues its own after it).

Rules, raised as ``LoweringError`` naming the matmul: its statement sits right in the body of the deferring loop;
the statements it moves past keep their values: after the anchor's end (the old position's successors in the same
iteration, and the anchor with every statement before it in the next) none reads or writes the matmul's
accumulator, and none writes its operands, except stages of a circular buffer (the pipeline's release lag, 1 for
such a loop, keeps a stage until the deferred wgmmas are retired).
Guarantees: every iteration's matmul is issued exactly once, in iteration order, and every statement touching its
accumulator sees the same sequence of updates as before.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import TensorView
from fusion_ir.scalar import Val
from fusion_ir.types import INT32_INDEX_MAX

from ..analysis import Analyses
from ..effects import buffers_touched
from ..errors import LoweringError
from ..index_range import interval
from ..kernel_ir import (
    Allocate,
    ForLoop,
    IfThenElse,
    Kernel,
    LaunchRequirement,
    Node,
    TensorOp,
    TensorOpKind,
    map_bodies,
    walk,
)
from ..placement import computes, shifted


def run(kernel: Kernel, a: Analyses) -> Kernel:
    deferred = a.tensor_cores.deferred
    if not deferred:
        return kernel
    done: set[TensorView] = set()
    staged = {tv for tv in a.ids.tensors if tv.circular_buffer_options is not None}
    extents = _extents(a)
    needed: dict[str, LaunchRequirement] = {}

    def visit(body: tuple[Node, ...]) -> tuple[Node, ...]:
        out: list[Node] = []
        for node in body:
            node = map_bodies(node, visit)
            if isinstance(node, ForLoop) and node.group in deferred and node.stage is None:
                for tv in deferred[node.group]:
                    hoisted, node, after, used = _rotate(node, tv, a, staged, frozenset(extents))
                    for name in sorted(used):
                        needed.setdefault(name, _requirement(name, extents[name], tv))
                    done.add(tv)
                    out.extend(hoisted)
                    out.append(node)
                    node = after
            out.append(node)
        return tuple(out)

    body = visit(kernel.body)
    missing = [tv for tvs in deferred.values() for tv in tvs if tv not in done]
    if missing:
        tv = missing[0]
        raise LoweringError(f"T{tv.name}: deferred in loop {tv.deferred.label()}, which the kernel has no loop of; "
                            f"defer it in a serial loop around its computation")
    return replace(kernel, body=body, launch_requirements=kernel.launch_requirements + tuple(needed.values()))


def _rotate(loop: ForLoop, tv: TensorView, a: Analyses, staged: set[TensorView],
            extents: frozenset[str]) -> tuple[tuple[Node, ...], ForLoop, Node, frozenset[str]]:
    """``loop`` with ``tv``'s matmul issued an iteration late, the statement that issues the last one after it, and
    before it the allocations of the operands the loop's body held (read now in the next iteration and after the
    loop), and the extents assumed at least 1 to leave the last one unbranched."""
    body = loop.body
    at = [k for k, x in enumerate(body) if computes(x, tv)]
    if len(at) != 1:
        where = "nowhere" if not at else f"in {len(at)} places"
        raise LoweringError(f"T{tv.name}: deferred in loop {loop.label}, but its matmul sits {where} right in that "
                            f"loop's body; defer it in the loop whose iterations each compute it once (its "
                            f"compute-at loop)")
    x_at = at[0]
    x = body[x_at]
    rest = body[:x_at] + body[x_at + 1:]
    anchor = next((k for k, s in enumerate(rest) if _issues_matmul(s, a)), None)
    if anchor is None:
        anchor = next((k for k, s in enumerate(rest) if not isinstance(s, Allocate)), len(rest)) - 1
    if anchor >= x_at:
        raise LoweringError(f"T{tv.name}: deferred in loop {loop.label}, but the body's first other tensor-core "
                            f"matmul comes after it; a deferred matmul is issued after the one that starts the next "
                            f"iteration")
    acc = {f"T{tv.name}"}
    total = a.tensor_cores.accumulated_in(tv)
    if total is not None:
        acc.add(f"T{total.name}")
    operands = {f"T{x.name}" for x in tv.definition.tensor_inputs() if x not in staged}
    passed = list(body[x_at + 1:]) + list(rest[:anchor + 1])
    for s in passed:
        for e in (e for y in walk((s,)) for e in buffers_touched(y)):
            if e.name in acc or (e.is_write and e.name in operands):
                what = "its accumulator" if e.name in acc else f"its operand {e.name}"
                raise LoweringError(f"T{tv.name}: deferred in loop {loop.label}, its matmul would move past a "
                                    f"statement that {'writes' if e.is_write else 'reads'} {what} ({e.name}); only "
                                    f"statements independent of it may run before the next iteration issues it")
    i = loop.index
    late = IfThenElse(i.ge(loop.start + Val.const(1)), (shifted(x, ((i.name, i - Val.const(1)),)),))
    rotated = rest[:anchor + 1] + (late,) + rest[anchor + 1:]
    hoisted = tuple(s for s in rotated if isinstance(s, Allocate) and s.buffer.name in operands)
    rotated = tuple(s for s in rotated if s not in hoisted)
    last = shifted(x, ((i.name, loop.stop - Val.const(1)),))
    used = frozenset(extents & (loop.stop - loop.start).symbols())
    if not _runs(loop, extents):
        last, used = IfThenElse(loop.stop.gt(loop.start), (last,)), frozenset()
    return hoisted, replace(loop, body=rotated), last, used


def _runs(loop: ForLoop, extents: frozenset[str]) -> bool:
    """``loop`` runs at least once in every block, with every extent at least 1 (a tensor of an empty dimension has
    nothing to compute; the launch refuses one, ``_requirement``): then the last iteration's matmul needs no
    branch, which ptxas would take for a divergent path and serialize every wgmma of the kernel for."""
    n = loop.stop - loop.start
    ranges: dict[str, tuple[int, int]] = {}
    for name in n.symbols():
        if name.startswith(("blockIdx.", "threadIdx.")):
            ranges[name] = (0, INT32_INDEX_MAX)
        elif name in extents:
            ranges[name] = (1, INT32_INDEX_MAX)
    bounds = interval(n, ranges)
    return bounds is not None and bounds[0] >= 1


def _extents(a: Analyses) -> dict[str, tuple[str, int]]:
    """Each symbolic extent of the fusion's inputs: its symbol's name -> (the tensor, the axis)."""
    out: dict[str, tuple[str, int]] = {}
    for tv in a.fusion.inputs:
        if not isinstance(tv, TensorView):
            continue
        for k, i in enumerate(tv.logical):
            if i.extent.is_symbol:
                out.setdefault(str(i.extent.name), (f"T{tv.name}", k))
    return out


def _requirement(name: str, where: tuple[str, int], tv: TensorView) -> LaunchRequirement:
    tensor, axis = where
    return LaunchRequirement(tensor, f"axis {axis} must not be empty: T{tv.name}'s matmul, deferred an iteration, is "
                                     f"issued after a loop over it that must run at least once",
                             Val.symbol(name).ge(1), shown=(("its extent {}", Val.symbol(name)),))


def _issues_matmul(node: Node, a: Analyses) -> bool:
    return any(isinstance(x, TensorOp) and x.kind is TensorOpKind.Compute and a.tensor_cores.is_accumulator(x.tv)
               for x in walk((node,)))
