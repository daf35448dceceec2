"""Circular buffering: clone each circular-buffered loop into the stages of a pipeline.

Reads: the ``circular`` analysis (stages, prefetch, tensors, stage and parity of an iteration),
the ``mbarriers`` analysis (each loop's barrier array) and the loop nest.
Writes: for a loop ``for i in [0, n)`` with S stages and prefetch P,
- prologue ``for i in [0, P)``: issue the loads of iteration i;
- main ``for i in [0, n - P)``: issue the loads of iteration i + P, wait for stage(i), compute,
  release the stage;
- epilogue ``for i in [n - P, n)``: wait for stage(i), compute.
Issuing a TMA load: the elected thread (after waiting on the stage's "empty" barrier with
``uses_mbarrier_for_war``) arrives on its "full" barrier expecting every byte of the stage, then
issues each box. Waiting: parity(i) on full[stage(i)] (TMA), ``cp.async`` wait_group P then a
block sync (cp.async), a block sync (other shared-memory loads), nothing (registers). Releasing:
every thread arrives on empty[stage(i)], or a block sync closes the iteration, so a stage is not
refilled while another thread reads it. ``CircularLoop.stage``/``parity`` are the only place
those are computed; the indexing pass offsets the loop's tensors by the same stage.
Guarantees: the loads of iteration j are issued exactly once, before the wait that reads them;
no stage is written while a thread may still read it.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import MemoryType, TensorView
from fusion_ir.scalar import Val

from ..analysis import Analyses
from ..analysis.circular_buffer import CircularLoop
from ..kernel_ir import (
    Allocate,
    AsyncCommit,
    AsyncWait,
    BlockSync,
    ElectSync,
    ForLoop,
    Kernel,
    MBarrierArrive,
    MBarrierArriveExpectTx,
    MBarrierWaitParity,
    Node,
    Stage,
    TensorOp,
    rewrite,
)
from ..placement import computes


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not a.circular.loops:
        return kernel

    def expand(node: Node):
        if isinstance(node, ForLoop) and node.stage is None:
            loop = a.circular.loop_with_index(node.index.name)
            if loop is not None:
                return tuple(clone(a, node, loop))
        return None

    return replace(kernel, body=rewrite(kernel.body, expand))


def clone(a: Analyses, node: ForLoop, loop: CircularLoop) -> list[Node]:
    S, P = loop.stages, loop.prefetch
    i, n = node.index, node.stop
    mbar = a.mbarriers.array(loop) if loop.tma else None
    loads = [x for x in node.body if any(computes(x, tv) for tv in loop.tensors)]
    allocs = [x for x in node.body if isinstance(x, Allocate)]
    computes_ = [x for x in node.body if x not in loads and not isinstance(x, Allocate)]
    threads = a.ids.block_threads().const_value()
    many_threads = threads is None or threads > 1

    def issue(j: Val) -> list[Node]:
        """The loads of iteration ``j`` (the loop index shifted when j is not i)."""
        shift = () if j == i else ((i.name, j),)
        shifted = [_shift(x, shift) for x in loads]
        tma_items = [x for x in shifted if any(computes(x, tv) for tv in loop.tma)]
        other = [x for x in shifted if x not in tma_items]
        out: list[Node] = []
        if tma_items:
            assert mbar is not None
            elected: list[Node] = []
            if loop.war_mbarrier:
                elected.append(MBarrierWaitParity(mbar, loop.empty(loop.stage(j)), loop.parity(j)))
            elected.append(MBarrierArriveExpectTx(mbar, loop.full(loop.stage(j)), loop.tx_bytes))
            out.append(ElectSync(tuple(elected + tma_items)))
        out.extend(other)
        if loop.cp_async:
            out.append(AsyncCommit("cp.async"))
        return out

    def wait(pending: int) -> list[Node]:
        out: list[Node] = []
        if loop.tma:
            out.append(MBarrierWaitParity(mbar, loop.full(loop.stage(i)), loop.parity(i)))
        if loop.cp_async:
            out.append(AsyncWait("cp.async", pending))
        shared_sync = [tv for tv in loop.tensors if tv not in loop.tma and tv.memory_type is MemoryType.Shared]
        if shared_sync and many_threads and (loop.cp_async or pending == P):
            out.append(BlockSync(reason=f"RAW: stage {i} % {S} of {_names(shared_sync)} loaded by other threads"))
        return out

    release: list[Node] = []
    if loop.war_mbarrier:
        release.append(MBarrierArrive(mbar, loop.empty(loop.stage(i))))
    elif loop.shared and many_threads:
        release.append(BlockSync(reason=f"WAR: stage ({i} + {P}) % {S} is loaded again next iteration"))

    zero = Val.const(0)
    out: list[Node] = []
    if P > 0:
        out.append(replace(node, start=zero, stop=Val.const(P), body=tuple(issue(i)), stage=Stage.Prologue,
                           unroll=True))
    out.append(replace(node, start=zero, stop=n - P,
                       body=tuple(allocs + issue(i + P) + wait(P) + computes_ + release), stage=Stage.Main))
    if P > 0:
        out.append(replace(node, start=n - P, stop=n, body=tuple(allocs + wait(0) + computes_),
                           stage=Stage.Epilogue))
    return out


def _names(tvs: list[TensorView]) -> str:
    return ", ".join(f"T{tv.name}" for tv in tvs)


def _shift(node: Node, shift: tuple) -> Node:
    if not shift:
        return node

    def mark(x: Node):
        if isinstance(x, TensorOp):
            return replace(x, shift=shift)
        return None

    return rewrite((node,), mark)[0]
