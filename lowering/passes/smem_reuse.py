"""Shared-memory reuse: give every Shared buffer its byte offset.

Reads: the ``smem`` analysis (live intervals and offsets, built from this very kernel).
Writes: ``Allocate.offset`` for Shared buffers, ``kernel.smem_bytes``, and a ``BlockSync`` before
the statement holding the first write of a buffer that takes over memory of a dead buffer; when
both are declared in one loop body, also at the end of that body (the next iteration writes the
dead one again while the previous one may still read the memory; the ``syncs`` pass adds no
second barrier there).
Guarantees: live buffers never overlap; each offset is a multiple of the buffer's alignment; no
thread writes reused memory while another may still read its previous owner.
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import Analyses
from ..kernel_ir import Allocate, BlockSync, Kernel, Node, children


def run(kernel: Kernel, a: Analyses) -> Kernel:
    plan = a.smem
    lives = plan.lives
    reusers = plan.reusers()

    def rebuild(body: tuple[Node, ...]) -> tuple[Node, ...]:
        declared = [n.buffer.name for n in body if isinstance(n, Allocate) and n.buffer.name in reusers]
        out: list[Node] = []
        for node in body:
            lo, hi = plan.ranges.get(id(node), (-1, -1))
            for name in declared:
                if lo <= lives[name].start <= hi and lives[name].used:
                    out.append(BlockSync(reason=f"WAR: {name} reuses the memory of {reusers[name]}"))
            kids = children(node)
            if kids:
                node = replace(node, **{k: rebuild(sub) for k, sub in kids})
            if isinstance(node, Allocate) and node.buffer.name in lives:
                node = replace(node, offset=lives[node.buffer.name].offset)
            out.append(node)
        # buffers of this (loop) body whose memory a later one took: the next iteration takes it back
        back = [(d, name) for name in declared for d in lives[name].reuses_in_loop]
        if back:
            taken = ", ".join(f"{d} from {name}" for d, name in back)
            out.append(BlockSync(reason=f"WAR: next iteration takes back the memory of {taken}"))
        return tuple(out)

    return replace(kernel, body=rebuild(kernel.body), smem_bytes=plan.total)
