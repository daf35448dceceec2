"""Launch: grid and block dimensions and the runtime checks on arguments.

Reads: launch extents from the IterDomain graph, the fusion's extent constraints and the
checks other passes recorded.
Writes: ``kernel.grid``, ``kernel.block``, ``kernel.checks``, ``kernel.tensor_maps``.
Guarantees: every thread- or block-parallel axis fits its launch dimension (smaller ones
are predicated by the indexing pass); equal-extent requirements between operands are
checked before launch.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import ParallelType

from ..context import LoweringContext
from ..kernel_ir import Kernel, RuntimeCheck
from .indexing import vector_checks


def run(kernel: Kernel, ctx: LoweringContext) -> Kernel:
    L = ctx.launch
    grid = (L[ParallelType.BIDx], L[ParallelType.BIDy], L[ParallelType.BIDz])
    block = (L[ParallelType.TIDx], L[ParallelType.TIDy], L[ParallelType.TIDz])
    checks = [RuntimeCheck(a.eq(b), msg) for a, b, msg in ctx.fusion.extent_constraints]
    checks += vector_checks(ctx)
    checks += ctx.checks
    launch_bounds = None
    threads = (block[0] * block[1] * block[2]).const_value()
    if threads is not None:
        launch_bounds = threads
    return replace(kernel, grid=grid, block=block, checks=tuple(dict.fromkeys(checks)),
                   tensor_maps=tuple(ctx.tensor_maps.values()), launch_bounds=launch_bounds)
