"""Circular buffering: clone each circular-buffered loop into the stages of a pipeline.

Reads: ``ctx.notes['circular_loops']`` (from the mbarrier pass: stages, prefetch, the tensors
and the mbarrier array of each loop) and the loop nest.
Writes: for a loop ``for i in [0, n)`` with S stages and prefetch P,
- prologue ``for i in [0, P)``: issue the loads of iteration i;
- main ``for i in [0, n - P)``: issue the loads of iteration i + P, wait for stage i % S,
  compute, release the stage;
- epilogue ``for i in [n - P, n)``: wait for stage i % S, compute.
Issuing a TMA load: the elected thread (after waiting on the stage's "empty" barrier with
``uses_mbarrier_for_war``) arrives on ``full[s]`` expecting every byte of the stage, then
issues each box. Waiting: parity ``(i / S) % 2`` on ``full[i % S]`` (TMA), ``cp.async``
wait_group P then a block sync (cp.async), a block sync (other shared-memory loads),
nothing (registers). Releasing: every thread arrives on ``empty[i % S]``, or a block sync
closes the iteration, so stage (i + P) % S is not refilled while another thread reads it.
The loop's tensors are indexed at stage ``i % S``: ``ctx.notes['stage_offset']``.
Guarantees: stage offsets and parities are pure functions of the loop index; the loads of
iteration j are issued exactly once, before the wait that reads them; no stage is written
while a thread may still read it.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import MemoryType, TensorView
from fusion_ir.scalar import Val

from ..cb_info import CircularLoop, block_threads
from ..context import LoweringContext
from ..kernel_ir import (Allocate, AsyncCommit, AsyncWait, BlockSync, ElectSync, ForLoop, Kernel,
                         MBarrierArrive, MBarrierArriveExpectTx, MBarrierWaitParity, Node, Stage, TensorOp,
                         rewrite)
from .allocation import contains_op


def run(kernel: Kernel, ctx: LoweringContext) -> Kernel:
    loops: dict[int, CircularLoop] = ctx.notes.get("circular_loops", {})  # type: ignore[assignment]
    if not loops:
        return kernel
    by_index = {loop.index.name: loop for loop in loops.values()}
    ctx.notes["stage_offset"] = lambda tv, buf, side: stage_offset(ctx, by_index, tv)

    def expand(node: Node):
        if isinstance(node, ForLoop) and node.stage is None and node.index.name in by_index:
            return tuple(clone(ctx, node, by_index[node.index.name]))
        return None

    return replace(kernel, body=rewrite(kernel.body, expand))


def stage_offset(ctx: LoweringContext, by_index: dict[str, CircularLoop], tv: TensorView) -> Val:
    """Element offset of stage ``i % S`` of ``tv``'s buffer (the loop index is shifted for
    loads issued ahead)."""
    loop = next(lp for lp in by_index.values() if tv in lp.tensors)
    stage_size = Val.const(1)
    for i in ctx.alloc_ids[tv]:
        stage_size = stage_size * i.extent
    return (loop.index % loop.stages) * stage_size


def clone(ctx: LoweringContext, node: ForLoop, loop: CircularLoop) -> list[Node]:
    S, P = loop.stages, loop.prefetch
    i, n = node.index, node.stop
    names = [f"T{tv.name}" for tv in loop.tensors]
    loads = [x for x in node.body if any(contains_op(x, t) for t in names)]
    allocs = [x for x in node.body if isinstance(x, Allocate)]
    computes = [x for x in node.body if x not in loads and not isinstance(x, Allocate)]
    threads = block_threads(ctx).const_value()
    many_threads = threads is None or threads > 1

    def issue(j: Val) -> list[Node]:
        """The loads of iteration ``j`` (the loop index shifted when j is not i)."""
        shift = () if j == i else ((i.name, j),)
        shifted = [_shift(x, shift) for x in loads]
        tma_names = {f"T{tv.name}" for tv in loop.tma}
        tma_items = [x for x in shifted if any(contains_op(x, t) for t in tma_names)]
        other = [x for x in shifted if x not in tma_items]
        out: list[Node] = []
        if tma_items:
            assert loop.mbar is not None
            elected: list[Node] = []
            if loop.war_mbarrier:
                elected.append(MBarrierWaitParity(loop.mbar, j % S + S, (j // S) % 2))
            elected.append(MBarrierArriveExpectTx(loop.mbar, j % S, loop.tx_bytes))
            out.append(ElectSync(tuple(elected + tma_items)))
        out.extend(other)
        if loop.cp_async:
            out.append(AsyncCommit("cp.async"))
        return out

    def wait(pending: int) -> list[Node]:
        out: list[Node] = []
        if loop.tma:
            out.append(MBarrierWaitParity(loop.mbar, i % S, (i // S) % 2))
        if loop.cp_async:
            out.append(AsyncWait("cp.async", pending))
        shared_sync = [tv for tv in loop.tensors if tv not in loop.tma and tv.memory_type is MemoryType.Shared]
        if shared_sync and many_threads and (loop.cp_async or pending == P):
            out.append(BlockSync(reason=f"RAW: stage {i} % {S} of {_names(shared_sync)} loaded by other threads"))
        return out

    release: list[Node] = []
    if loop.war_mbarrier:
        release.append(MBarrierArrive(loop.mbar, i % S + S))
    elif loop.shared and many_threads:
        release.append(BlockSync(reason=f"WAR: stage ({i} + {P}) % {S} is loaded again next iteration"))

    zero = Val.const(0)
    out: list[Node] = []
    if P > 0:
        out.append(replace(node, start=zero, stop=Val.const(P), body=tuple(issue(i)), stage=Stage.Prologue,
                           unroll=True))
    out.append(replace(node, start=zero, stop=n - P,
                       body=tuple(allocs + issue(i + P) + wait(P) + computes + release), stage=Stage.Main))
    if P > 0:
        out.append(replace(node, start=n - P, stop=n, body=tuple(allocs + wait(0) + computes),
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
