"""Grid reduction: a grid-reduced tensor's consumers run in the block that arrives last.

Reads: the kernel IR (each ``SemaphoreArrive`` and the last block's branch right after it, which the
indexing pass wrote from ``lowering/grid_reduction.py``), and ``lowering.effects``.
Writes: every later statement of the arrival's scope that reads what the last block computed (the
reduced partial, then whatever is computed from it, transitively) or writes a kernel output is moved
into an ``if (last_T<n>)`` branch; runs of such statements share one branch, and the statements between
them (barriers, mbarrier teardown, waits) stay where they are for every block.
Guarantees: only the last block reads the reduced values and writes the outputs computed from them; the
statements keep their order; a block-wide barrier stays outside the branches or inside a branch every
thread of the block takes alike (the condition is the same in the whole block).
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import Analyses
from ..effects import buffers_touched
from ..kernel_ir import IfThenElse, Kernel, MemoryType, Node, SemaphoreArrive, children, walk


def run(kernel: Kernel, a: Analyses) -> Kernel:
    scratch = {s.buffer.name for s in kernel.scratch}
    outputs = {b.name for b in kernel.outputs}
    return replace(kernel, body=_body(kernel.body, scratch, outputs))


def _body(body: tuple[Node, ...], scratch: set[str], outputs: set[str], nested: bool = True) -> tuple[Node, ...]:
    if nested:
        body = tuple(_nested(node, scratch, outputs) for node in body)
    arrival = next((k for k, node in enumerate(body) if isinstance(node, SemaphoreArrive)), None)
    if arrival is None:
        return body
    last = body[arrival + 1]
    assert isinstance(last, IfThenElse), "the indexing pass puts the last block's sum right after its arrival"
    reduced = _written(last.then_body)
    out: list[Node] = list(body[:arrival + 1])
    run_of: list[Node] = list(last.then_body)
    rest = body[arrival + 2:]
    for k, node in enumerate(rest):
        if isinstance(node, SemaphoreArrive):        # another grid reduction: its own consumers after it
            if run_of:
                out.append(replace(last, then_body=tuple(run_of)))
                run_of = []
            out.extend(_body(rest[k:], scratch, outputs, nested=False))
            break
        if _depends(node, reduced, outputs):
            reduced |= _written((node,))
            run_of.append(node)
            continue
        if run_of:
            out.append(replace(last, then_body=tuple(run_of)))
            run_of = []
        out.append(node)
    if run_of:
        out.append(replace(last, then_body=tuple(run_of)))
    return tuple(out)


def _nested(node: Node, scratch: set[str], outputs: set[str]) -> Node:
    kids = children(node)
    if not kids:
        return node
    return replace(node, **{name: _body(sub, scratch, outputs) for name, sub in kids})


def _written(nodes: tuple[Node, ...]) -> set[str]:
    return {e.name for n in nodes for sub in walk((n,)) for e in buffers_touched(sub)
            if e.is_write and (e.buffer is None or e.buffer.memory is not MemoryType.Global)}


def _depends(node: Node, reduced: set[str], outputs: set[str]) -> bool:
    """``node`` (or a statement nested in it) reads or writes what the last block computed, or writes an output."""
    for sub in walk((node,)):
        for e in buffers_touched(sub):
            if e.name in reduced or (e.is_write and e.name in outputs):
                return True
    return False
