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
from ..kernel_ir import Allocate, BlockSync, Buffer, Kernel, Node, children


def run(kernel: Kernel, a: Analyses) -> Kernel:
    plan = a.smem
    lives = plan.lives
    reusers = plan.reusers()

    def rebuild(body: tuple[Node, ...]) -> tuple[Node, ...]:
        declared = [n.buffer for n in body if isinstance(n, Allocate) and n.buffer in reusers]
        out: list[Node] = []
        for node in body:
            lo, hi = plan.ranges.get(node, (-1, -1))
            for buf in declared:
                if lo <= lives[buf].start <= hi and lives[buf].used:
                    out.append(BlockSync(reason=f"WAR: {buf.name} reuses the memory of {_names(reusers[buf])}"))
            kids = children(node)
            if kids:
                node = replace(node, **{k: rebuild(sub) for k, sub in kids})
            if isinstance(node, Allocate) and node.buffer in lives:
                node = replace(node, offset=lives[node.buffer].offset)
            out.append(node)
        # buffers of this (loop) body whose memory a later one took: the next iteration takes it back
        back = [(d, buf) for buf in declared for d in lives[buf].reuses_in_loop]
        if back:
            taken = ", ".join(f"{d.name} from {buf.name}" for d, buf in back)
            out.append(BlockSync(reason=f"WAR: next iteration takes back the memory of {taken}"))
        return tuple(out)

    return replace(kernel, body=rebuild(kernel.body), smem_bytes=plan.total)


def _names(buffers: tuple[Buffer, ...]) -> str:
    return ", ".join(b.name for b in buffers)
