"""Launch: grid and block dimensions, tensor maps and the runtime checks on arguments.

Reads: the ``ids`` analysis (launch extents), ``warp_specialization`` (thread padding), the
``tma`` analysis (tensor maps), the ``buffers`` analysis (parameters of vectorized accesses) and
the fusion's extent constraints.
Writes: ``kernel.grid``, ``kernel.block``, ``kernel.checks``, ``kernel.tensor_maps``,
``kernel.launch_requirements`` (the TMA stride rule of each tensor map's tensor), ``kernel.launch_bounds``,
``kernel.min_blocks_per_sm`` (the fusion's, checked against the block size).
Guarantees: every thread- or block-parallel axis fits its launch dimension, the warp-specialized
dimension padded by one producer warp group (smaller ones
are predicated by the indexing pass); equal-extent requirements between operands, vectorized
extents and contiguity are checked before launch.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import ParallelType
from target import current as current_target

from .. import index_math
from ..analysis import Analyses
from ..errors import LoweringError
from ..kernel_ir import InputRule, Kernel, RuntimeCheck


def run(kernel: Kernel, a: Analyses) -> Kernel:
    L = a.ids.launch
    grid = (L[ParallelType.BIDx], L[ParallelType.BIDy], L[ParallelType.BIDz])
    ws = a.warp_specialization
    block = tuple(ws.padded(L[pt]) if ws is not None and pt is ws.on else L[pt]
                  for pt in (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz))
    checks = [RuntimeCheck(c.a.eq(c.b), c.message, InputRule.EQUAL_EXTENTS, c.subject)
              for c in a.fusion.extent_constraints]
    checks += vector_checks(a)
    launch_bounds = None
    threads = (block[0] * block[1] * block[2]).const_value()
    if threads is not None:
        launch_bounds = threads
    blocks = a.fusion.min_blocks_per_sm
    _check_min_blocks(blocks, threads)
    return replace(kernel, grid=grid, block=block, checks=tuple(dict.fromkeys(checks)),
                   tensor_maps=tuple(a.tma.tensor_maps.values()),
                   launch_requirements=kernel.launch_requirements + a.tma.requirements(),
                   launch_bounds=launch_bounds, min_blocks_per_sm=blocks)


def _check_min_blocks(blocks: int, threads: int | None) -> None:
    """``Fusion.set_min_blocks_per_sm`` needs a constant block size that many blocks of fit on an SM."""
    if blocks == 1:
        return
    if threads is None:
        raise LoweringError(f"Fusion.set_min_blocks_per_sm({blocks}) needs a constant number of threads per block "
                            f"(__launch_bounds__ names it); bind thread axes of constant extents")
    limit = current_target().max_threads_per_sm
    if blocks * threads > limit:
        raise LoweringError(f"Fusion.set_min_blocks_per_sm({blocks}): {blocks} blocks of {threads} threads exceed "
                            f"the {limit} threads an SM holds")


def vector_checks(a: Analyses) -> list[RuntimeCheck]:
    checks = []
    for tv in a.ids.tensors:
        for i in tv.loop:
            if not i.parallel_type.vectorizes:
                continue
            width = i.extent.const_value()
            root = next(iter(index_math._root_ancestors(tv, i)), None)
            if root is None or width is None:
                continue
            if i.parallel_type is ParallelType.Vectorize:    # a misaligned vector predicates each element
                checks.append(RuntimeCheck((root.extent % width).eq(0),
                                           f"T{tv.name}: the vectorized axis {i.label()} needs extent {root.extent} "
                                           f"to be a multiple of {width}", InputRule.VECTOR_DIVISIBLE,
                                           f"T{tv.name}"))
            views = a.ids.views
            for p in [tv] + [views[p].source if p in views else p for p in tv.producers()]:
                buf = a.buffers.buffers.get(p)
                if buf is not None and buf.is_param and buf.strides:
                    checks.append(RuntimeCheck(buf.strides[-1].eq(1),
                                               f"T{p.name}: vectorized access needs a contiguous innermost axis",
                                               InputRule.VECTOR_CONTIGUOUS, f"T{p.name}"))
    return checks
