"""Allocation: an ``Allocate`` for every buffer, at the top of the scope it is allocated in.

Reads: the ``buffers`` analysis (each tensor's buffers and allocation depth; the block-reduction
workspace, the grid reductions' global work buffers and semaphores) and the loop nest.
Writes: ``Allocate`` nodes ``depth`` loops down the path to each tensor's computation (its own
buffer, then its block-reduction partial), the workspace at the top of the kernel, and the
kernel's parameter buffers, and ``kernel.scratch``: the global buffers the kernel owns (a
grid reduction's partials and semaphores), parameters of their own after the outputs.
Guarantees: every non-parameter buffer is declared exactly once, in a scope enclosing every
statement that computes it.
"""

from __future__ import annotations

from dataclasses import replace

from ..analysis import Analyses
from ..kernel_ir import Allocate, Kernel
from ..placement import insert_at_scope


def run(kernel: Kernel, a: Analyses) -> Kernel:
    plan = a.buffers
    body = kernel.body
    for placement in reversed(plan.placements):
        body = insert_at_scope(body, placement.tv, placement.depth, tuple(Allocate(b) for b in placement.buffers))
    if plan.workspace is not None:
        body = (Allocate(plan.workspace),) + body
    return replace(kernel, body=body, inputs=plan.inputs, outputs=plan.outputs,
                   scratch=tuple(s for g in plan.grid_reductions.values() for s in (g.work, g.semaphores)))
