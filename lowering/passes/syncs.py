"""Syncs: barriers for shared-memory RAW and WAR hazards between tensor ops.

Reads: the loop nest with tensor ops; which buffers are Shared; the ``circular`` analysis; the ``tma``
analysis (a TMA store's wait, ``TmaBox.wait``).
Writes: ``BlockSync`` nodes before the first reader of a shared buffer, or of a fusion output,
that another op wrote (RAW), and at the end of a loop body in which a shared buffer is written
and then read, before the next iteration overwrites it (WAR). When the reader is a TMA store whose
wait is deferred (``TensorView.set_store_wait("deferred")``), the WAR barrier goes right before the
statement that writes the tile instead: the ``store_waits`` pass puts the issuing thread's wait for
the previous iteration's stores before it, and the barrier then orders that wait before every
thread's write (the guard).
A TMA store reads through the async proxy: before the barrier that precedes it, every thread runs
``fence.proxy.async`` so its ordinary (or stmatrix) writes of the tile are visible to the copy. So do
tensor-core MMAs reading an operand tile the threads wrote (cp.async, waited for right after it, or plain
copies) outside a circular buffer (whose pass fences its own stages).
A barrier whose writer and reader share a thread-bound loop (each index there has its own part of
the buffer, read by the threads of that index, or takes its turn on one buffer: warp groups taking
turns on a tensor-core epilogue's tile, one at a time, ``TensorCores.shared_turn_axis``) says so in
``BlockSync.per``.
Guarantees: every cross-thread shared-memory dependency between tensor ops is ordered by a
barrier every thread reaches (syncs are never placed under a predicate; inside a warp-split
branch the ``branch_barriers`` pass narrows them to the branch's threads). Buffers filled by
circular-buffered loads are skipped: the circular-buffer pass orders them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from fusion_ir import MemoryType, TensorView
from fusion_ir.exprs import load_kind
from fusion_ir.types import LoadStoreOpType

from ..analysis import Analyses
from ..kernel_ir import BlockSync, FenceAsyncProxy, ForLoop, Kernel, Node, TensorOpKind, children
from ..placement import Path, body_at, common_scope, op_paths


@dataclass(frozen=True)
class _Hazard:
    """A barrier a hazard needs before statement ``index`` of a statement list (``len`` of it: at its end).

    ``async_reader``: the reader is a TMA store or tensor-core MMAs, which read through the async proxy: the
    writers make their writes visible to it (``fence.proxy.async``) before the barrier. ``per``: as ``BlockSync.per``."""

    index: int
    reason: str
    per: tuple = ()
    async_reader: bool = False
    fence_only: bool = False     # a barrier is already there (at ``index``): only the fence goes before it

    def order(self) -> tuple:
        """A defined order (hazards are kept in a set): position, plain before async readers, reason, then
        the thread dimensions by name."""
        return (self.index, self.async_reader, self.reason, tuple(d.name for d in self.per))


def run(kernel: Kernel, a: Analyses) -> Kernel:
    ops = list(op_paths(kernel.body))
    inserts: dict[Path, set[_Hazard]] = {}
    for w_op, w_path in ops:
        tv = w_op.tv
        if w_op.kind is not TensorOpKind.Compute or not _guarded_by_syncs(tv, a):
            continue
        for r_op, r_path in ops:
            if r_op.kind is not TensorOpKind.Compute or tv not in r_op.expr.tensor_inputs():
                continue
            body_path, i, j = common_scope(w_path, r_path)
            if i is None:
                continue
            body = body_at(kernel.body, body_path)
            per = _independent_dims(tv, r_op.tv, a)
            barriers = [k for k in range(i + 1, j) if isinstance(body[k], BlockSync)]
            if i < j and barriers and _read_by_tensor_cores(tv, r_op.tv, a):
                # another hazard's barrier (a TMA token wait's) orders the writes; they still need the fence
                inserts.setdefault(body_path, set()).add(
                    _Hazard(barriers[0], f"T{tv.name} read by tensor-core MMAs", per, True, fence_only=True))
            if i < j and not barriers and not _waited_by_every_thread(tv, a):
                if load_kind(r_op.tv) is LoadStoreOpType.TMAStore:
                    hazard = _Hazard(j, f"RAW: T{tv.name} written, then read by a TMA store", per, async_reader=True)
                elif _read_by_tensor_cores(tv, r_op.tv, a):
                    hazard = _Hazard(j, f"RAW: T{tv.name} written, then read by tensor-core MMAs", per,
                                     async_reader=True)
                else:
                    hazard = _Hazard(j, f"RAW: T{tv.name} written, then read", per)
                inserts.setdefault(body_path, set()).add(hazard)
            if tv.is_output:
                continue  # each output element is written once: no write-after-read
            if _deferred_store(a, r_op.tv):
                if body_path and _is_loop_body(kernel.body, body_path):
                    inserts.setdefault(body_path, set()).add(
                        _Hazard(i, f"WAR: T{tv.name} is rewritten here, after its TMA stores' wait", per))
                continue
            written_first = i < j
            war = _war_scope(kernel.body, body_path, i, j)
            if war is None:
                continue
            body_path, i, j = war
            body = body_at(kernel.body, body_path)
            if written_first and any(isinstance(body[k], BlockSync) and set(body[k].per) <= set(per)
                                     for k in range(j + 1, len(body))):
                # a barrier after the reads (shared-memory reuse's) orders them before everything the next iteration
                # writes; one before the write would not order an aliasing buffer's writes before it
                continue
            inserts.setdefault(body_path, set()).add(_Hazard(len(body), f"WAR: T{tv.name} is rewritten next iteration",
                                                             per))
    return replace(kernel, body=_apply(kernel.body, (), inserts))


def _war_scope(root: tuple[Node, ...], path: Path, i: int, j: int) -> tuple[Path, int, int] | None:
    """Where the WAR barrier of a buffer written at statement ``i`` and read at ``j`` of the statement list at
    ``path`` goes: the body of the loop whose next iteration writes it again, with the indices there of the
    statements holding the write and the read. A loop that runs once has no next iteration: the next write comes
    with the next iteration of the loop around it (None when no loop is around it: never written again)."""
    while path and _is_loop_body(root, path):
        loop = body_at(root, path[:-2])[path[-2]]
        start, stop, step = loop.start.const_value(), loop.stop.const_value(), loop.step.const_value()
        if start is None or stop is None or step != 1 or stop - start > 1:
            return path, i, j
        outer = path[:-2]
        if outer and not _is_loop_body(root, outer):
            return path, i, j       # a branch around the loop: the barrier stays in the loop
        i = j = path[-2]
        path = outer
    return None


def _waited_by_every_thread(tv: TensorView, a: Analyses) -> bool:
    """A TMA load outside pipelines whose mbarrier phase every thread waits on (the parity form)."""
    token = a.mbarriers.tokens.get(tv)
    return token is not None and token.parity is not None


def _read_by_tensor_cores(tv: TensorView, reader: TensorView, a: Analyses) -> bool:
    """``reader`` is a tensor-core matmul's accumulator reading ``tv`` as an operand, through the async proxy,
    and the threads wrote ``tv`` (not TMA, itself the async proxy)."""
    if load_kind(tv) is LoadStoreOpType.TMA:
        return False
    return any(m.accumulator is reader for m, _ in a.tensor_cores.operand_of(tv))


def _deferred_store(a: Analyses, tv: TensorView) -> bool:
    """``tv`` is a TMA-store output whose issuer waits for its reads only before the tile is written again."""
    box = a.tma.stores.get(tv)
    return box is not None and box.wait.defers


def _independent_dims(writer: TensorView, reader: TensorView, a: Analyses) -> tuple:
    """Thread dimensions of loops the writer shares with the reader (left of its compute-at position):
    the writer's buffer has a part per index there (or the indices take turns on it, ordered by
    mbarriers: ``TensorCores.shared_turn_axis``), and a thread reads only what its index wrote."""
    theirs = {a.ids.group(i).number for i in reader.loop}
    dims = []
    for i in writer.loop[:writer.compute_at_pos]:
        g = a.ids.group(i)
        if g.parallel_type.is_thread and g.number in theirs and not i.is_broadcast:
            dims.append(g.parallel_type)
    return tuple(dims)


def _guarded_by_syncs(tv: TensorView, a: Analyses) -> bool:
    if tv.is_output:
        # A fusion output read by a later op of the kernel: other threads of the block may have
        # written the elements a reader needs (readers in other blocks are a LoweringError).
        return bool(a.ids.consumers(tv))
    if tv.memory_type is not MemoryType.Shared:
        return False
    # A circular-buffered tensor's stages are ordered by the circular-buffer pass (mbarriers,
    # wait_group and its own syncs); a TMA load outside one is ordered by its token wait and the
    # block sync after it, which this pass sees as the sync before the first reader.
    return not a.circular.is_buffered(tv)


def _is_loop_body(body: tuple[Node, ...], path: Path) -> bool:
    parent = body_at(body, path[:-2])[path[-2]]
    return isinstance(parent, ForLoop)


def _apply(body: tuple[Node, ...], path: Path, inserts: dict[Path, set[_Hazard]]) -> tuple[Node, ...]:
    out: list[Node] = []
    by_index: dict[int, _Hazard] = {}
    for hazard in sorted(inserts.get(path, set()), key=_Hazard.order):
        first = by_index.get(hazard.index)
        if first is None:
            by_index[hazard.index] = hazard
        else:   # one barrier for several hazards: independent only along common dims, fenced if any reader is async
            by_index[hazard.index] = replace(first, per=tuple(d for d in first.per if d in hazard.per),
                                             async_reader=first.async_reader or hazard.async_reader,
                                             fence_only=first.fence_only and hazard.fence_only)
    for k, node in enumerate(body):
        if k in by_index and by_index[k].fence_only:
            if not (out and isinstance(out[-1], FenceAsyncProxy)):
                out.append(FenceAsyncProxy())
        elif k in by_index and not (out and isinstance(out[-1], BlockSync)):
            out.extend(_barrier(by_index[k]))
        kids = children(node)
        if kids:
            node = replace(node, **{name: _apply(sub, path + (k, name), inserts) for name, sub in kids})
        out.append(node)
    if len(body) in by_index and not (out and isinstance(out[-1], BlockSync)):
        out.extend(_barrier(by_index[len(body)]))
    return tuple(out)


def _barrier(hazard: _Hazard) -> list[Node]:
    """The barrier; before a TMA store reads what ordinary stores wrote, every writer first makes its
    writes visible to the async proxy (``fence.proxy.async``), then the barrier orders them."""
    sync = BlockSync(reason=hazard.reason, per=hazard.per)
    return [FenceAsyncProxy(), sync] if hazard.async_reader else [sync]
