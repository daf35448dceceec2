"""Circular buffering: clone each circular-buffered loop into the stages of a pipeline.

Reads: the ``circular`` analysis (stages, prefetch, tensors, stage and parity of an iteration),
the ``mbarriers`` analysis (each loop's barrier array) and the loop nest.
Writes: for a loop ``for i in [0, n)`` with S stages and prefetch P,
- prologue ``for i in [0, min(P, n))``: issue the loads of iteration i;
- main ``for i in [0, n - P)``: issue the loads of iteration i + P, wait for stage(i), compute,
  release the stage;
- epilogue ``for i in [max(n - P, 0), n)``: wait for stage(i), compute.
Issuing a TMA load: the elected thread (after waiting on the stage's "empty" barrier with
``uses_mbarrier_for_war``) arrives on its "full" barrier expecting every byte of the stage, then
issues each box. Waiting: parity(i) on full[stage(i)] (TMA), ``cp.async`` wait_group P then a
block sync (cp.async), a block sync (other shared-memory loads), nothing (registers). Releasing:
every thread arrives on empty[stage(i)], or a block sync closes the iteration, so a stage is not
refilled while another thread reads it. ``CircularLoop.stage``/``parity`` are the only place
those are computed; the indexing pass offsets the loop's tensors by the same stage.
A warp-specialized loop becomes ``if (threadIdx.<on> >= blockDim.<on> - pad)``: the producer
branch (``AsyncWarp``) keeps only the loads and the loops around them (``setmaxnreg.dec``; per
iteration one elected thread of the first producer warp waits on empty[stage], arrives on
full[stage] expecting the stage's bytes and issues the boxes; ``return``); the compute branch
(``ComputeWarp``) keeps everything else (``setmaxnreg.inc``; every compute thread pre-arrives on
each empty barrier; per iteration it waits on full[stage], computes and arrives on
empty[stage] after the stage's last read). Both walk the same loops in the same order, so the
stage is ``stage(iteration)`` in both, with the iteration linearized over the loops that
enclose the loads. An epilogue pipeline (``CircularLoop.companion_of``: warp-specialized loads no tensor-core
matmul reads, on the mainloop's loop or a loop after it) is issued by the same producer branch, between its
first ``stages`` iterations of the innermost loop and the rest; the compute branch waits on its "full" barrier
right before the first statement of the scope that reads the stage and arrives on its "empty" one right after
the last, and pre-arrives on its "empty" barriers with the mainloop's.
A phase wait right before the warp split (a load issued once before the loop, which the compute side reads) moves to
the start of the compute branch: the producer reads none of those tiles. Such a once-issued TMA load that the loop
itself reads (an operand of its matmuls beside the pipeline's tiles) is issued by the producer, first in its branch.
A loop read only by tensor-core matmuls, one of which sums over it (``CircularLoop.release_lag`` 1: the K loop of a
matmul, not a loop whose iterations each hold whole matmuls), releases stage(i - 1) instead, after the
wait that retires iteration i's MMAs, and a Pipelined main loop then issues the loads of i + P after that
release (its cp.async wait then waits for all but P - 1 groups: the group of i + P is not committed yet); at
prefetch 0 it issues iteration i's own loads first, as without a lag (their stage's last reader, iteration
i - S, was released in iteration i - S + 1 <= i - 1), since its wait needs them.
Without "empty" mbarriers such a loop needs loads of its own threads (cp.async or plain copies: each wait
ends in a block sync, the epilogue's too) and P <= S - 1 - lag (``CircularLoop.syncs_cover_lag``): the block
sync of iteration i follows every thread's retirement of the MMAs of i - 2, the last to read the stage
i + P fills. Those generic-proxy writes are read by the MMAs through the async proxy: every thread runs
``fence.proxy.async`` after its wait (or plain stores) and before that block sync. A loop may run fewer iterations than the prefetch distance (a constant or a run-time
extent): the prologue stops at ``min(P, n)``, the main loop then runs none, the epilogue
``[max(n - P, 0), n)``; plain shared-memory loads get the block sync the skipped main loop would
have given them (``if (n <= P) __syncthreads()``). A pipeline inside another serial loop runs again,
its prologue refilling the stages the epilogue read: without mbarrier WAR guards a block sync after the
epilogue orders the two. Warp-specialized loops need nothing: the producer issues exactly the
iterations the compute warps wait for.
Guarantees: the loads of iteration j are issued exactly once, before the wait that reads them;
no stage is written while a thread may still read it.
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace

from fusion_ir import LoadStoreOpType, MemoryType, TensorView
from fusion_ir.exprs import load_kind
from fusion_ir.scalar import Val, vmax, vmin

from ..analysis import Analyses
from ..analysis.circular_buffer import CircularLoop
from ..analysis.warp_specialization import WarpSpecialization
from ..errors import LoweringError
from ..kernel_ir import (
    Allocate,
    AsyncCommit,
    AsyncKind,
    AsyncWait,
    BlockSync,
    Buffer,
    Continue,
    ElectSync,
    FenceAsyncProxy,
    ForLoop,
    IfThenElse,
    Kernel,
    MBarrierArrive,
    MBarrierArriveExpectTx,
    MBarrierWaitParity,
    Node,
    Return,
    SetMaxNReg,
    Stage,
    TensorOp,
    children,
    map_bodies,
    rewrite,
    substitute,
    walk,
)
from ..placement import computes, reads, shifted


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not a.circular.loops:
        return kernel
    if a.circular.companions:
        kernel = replace(kernel, body=_epilogue_scope(kernel.body, a))

    splits: list[IfThenElse] = []

    def expand(node: Node):
        if isinstance(node, ForLoop) and node.stage is None:
            loop = a.circular.loop_for(node)
            if loop is not None and loop.warp_specialized is not None:
                assert a.warp_specialization is not None and a.warp_specialization.loop is loop
                splits.append(warp_specialize(a, node, a.warp_specialization))
                return splits[-1]
            if loop is not None:
                return tuple(clone(a, node, loop))
        return None

    body = rewrite(kernel.body, expand)
    if splits:
        pipelines = {a.mbarriers.array(lp).name for lp in a.circular.pipelines()}
        body = _waits_into_compute(body, splits, pipelines)
        body = _once_loads_into_producer(body, pipelines, a.warp_specialization)
    return replace(kernel, body=body)


def _once_loads_into_producer(body: tuple[Node, ...], pipelines: set[str],
                              ws: WarpSpecialization) -> tuple[Node, ...]:
    """A TMA load issued once before the warp split (an elected thread arrives on its own mbarrier expecting its bytes
    and issues its boxes: q's tile before the key blocks) that the warp-specialized loop's compute side reads (an
    operand of its matmuls, beside the pipeline's tiles) is issued by the producer instead, first in its branch, when
    nothing between the issue and the split reads or writes the tile or names its mbarrier: the producer issues
    every TMA load the loop reads, and the compute branch waits for it where it waited before. A tile read only
    after the loop (an epilogue's C, ``MatmulParams.epilogue_loads``) stays where the schedule put it."""
    out = list(body)
    for at, node in enumerate(body):
        if isinstance(node, IfThenElse) and node.branch_threads is not None and node.then_body and \
                any(isinstance(x, ForLoop) and x.stage is Stage.AsyncWarp for x in node.then_body):
            moved: list[Node] = []
            for j in range(at - 1, -1, -1):
                issue = out[j]
                tvs = _once_issue(issue, pipelines)
                if tvs is None:
                    continue
                compute_loops = [x for x in node.else_body if isinstance(x, ForLoop) and x.stage is Stage.ComputeWarp]
                if not all(any(reads(x, tv) for x in compute_loops) for tv in tvs):
                    continue        # a tile the loop does not read (an epilogue's, after it): loaded where it is
                between = out[j + 1:at]
                mbar = issue.body[0].mbar.name
                if any(_names_buffer(x, mbar) or any(reads(x, tv) or computes(x, tv) for tv in tvs)
                       for x in between):
                    continue
                moved.insert(0, replace(issue, warp=ws.producer_warp))
                out[j] = None
            if moved:
                first = 1 if isinstance(node.then_body[0], SetMaxNReg) else 0
                out[at] = replace(node, then_body=(*node.then_body[:first], *moved, *node.then_body[first:]))
            return tuple(x for x in out if x is not None)
    return tuple(map_bodies(x, lambda sub: _once_loads_into_producer(sub, pipelines, ws)) for x in body)


def _once_issue(node: Node, pipelines: set[str]) -> list[TensorView] | None:
    """The tensors a once-issued TMA load ``node`` computes (an ``ElectSync`` of an arrive expecting bytes on an
    mbarrier of no pipeline, then loops of the loads), or None for any other statement."""
    if not isinstance(node, ElectSync) or not node.body or not isinstance(node.body[0], MBarrierArriveExpectTx):
        return None
    if node.body[0].mbar.name in pipelines or node.body[0].token is not None:
        return None
    ops = [x for x in walk(node.body[1:]) if isinstance(x, TensorOp)]
    if not ops or any(not isinstance(x, (ForLoop, TensorOp)) for x in walk(node.body[1:])):
        return None
    if any(load_kind(x.tv) is not LoadStoreOpType.TMA for x in ops):
        return None
    return [x.tv for x in ops]


def _names_buffer(node: Node, name: str) -> bool:
    """Whether ``node`` (or a statement nested in it) names the buffer ``name`` (an mbarrier's wait, init, inval)."""
    def visit(x: object) -> bool:
        if isinstance(x, Buffer):
            return x.name == name
        if isinstance(x, tuple):
            return any(visit(y) for y in x)
        if not is_dataclass(x) or isinstance(x, type):
            return False
        return any(visit(getattr(x, f.name)) for f in fields(x))

    return visit(node)


def _waits_into_compute(body: tuple[Node, ...], splits: list[IfThenElse], pipelines: set[str]) -> tuple[Node, ...]:
    """The phase waits right before a warp split (a load issued once before the warp-specialized loop, such as a tile
    every iteration's MMAs read) move to the start of its compute branch: the producer branch only issues the
    pipeline's loads and reads none of them, so it starts its loads without waiting for those."""
    out: list[Node] = []
    for node in body:
        if not any(node is x for x in splits):
            node = map_bodies(node, lambda sub: _waits_into_compute(sub, splits, pipelines))
        if any(node is x for x in splits):
            moved: list[Node] = []
            while out and isinstance(out[-1], MBarrierWaitParity) and out[-1].mbar.name not in pipelines:
                moved.insert(0, out.pop())
            if moved:           # after the compute branch's setmaxnreg
                first = 1 if node.else_body and isinstance(node.else_body[0], SetMaxNReg) else 0
                node = replace(node, else_body=(*node.else_body[:first], *moved, *node.else_body[first:]))
        out.append(node)
    return tuple(out)


def clone(a: Analyses, node: ForLoop, loop: CircularLoop) -> list[Node]:
    S, P = loop.stages, loop.prefetch
    # A loop over [start, stop) (a stream-K segment's K tiles) runs its pipeline from 0: the iterations count
    # the stages and parities, and every tensor op reads the index shifted back by start.
    base = node.start
    if base != Val.const(0):
        node = replace(node, start=Val.const(0), stop=node.stop - base)
        loop = loop.rotated(base)
    i, n = node.index, node.stop
    # Skipping a persistent loop's tiles past the end would skip loads issued ahead that a later
    # iteration waits for; the pipelined loop runs them (TMA fills them with zeros, predicates
    # keep their results out).
    node = replace(node, body=tuple(x for x in node.body if not _is_skip(x)))
    mbar = a.mbarriers.array(loop) if loop.tma else None
    loads = [x for x in node.body if any(computes(x, tv) for tv in loop.tensors)]
    allocs = [x for x in node.body if isinstance(x, Allocate)]
    computes_ = [x for x in node.body if x not in loads and not isinstance(x, Allocate)]
    if base != Val.const(0):
        computes_ = [shifted(x, ((i.name, i + base),)) for x in computes_]
    threads = a.ids.block_threads().const_value()
    many_threads = threads is None or threads > 1

    def issue(j: Val) -> list[Node]:
        """The loads of iteration ``j`` (the loop index shifted when j is not i)."""
        shift = () if j == i and base == Val.const(0) else ((i.name, j + base),)
        moved = [shifted(x, shift) for x in loads]
        tma_items = [x for x in moved if any(computes(x, tv) for tv in loop.tma)]
        other = [x for x in moved if x not in tma_items]
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
            out.append(AsyncCommit(AsyncKind.CpAsync))
        return out

    def wait(pending: int) -> list[Node]:
        out: list[Node] = []
        if loop.tma:
            out.append(MBarrierWaitParity(mbar, loop.full(loop.stage(i)), loop.parity(i)))
        if loop.cp_async:
            # with a release lag the main loop issues iteration i + P after this wait: one group fewer is
            # committed here, so iteration i's group is the P - 1th from the last
            lagged = loop.release_lag and pending == P and not loop.war_mbarrier
            out.append(AsyncWait(AsyncKind.CpAsync, max(pending - 1, 0) if lagged else pending))
        shared_sync = loop.generic
        if shared_sync and (loop.cp_async or pending == P or loop.release_lag):
            if loop.async_read_of_generic_writes:
                # cp.async and plain stores are generic-proxy writes; the MMAs read through the async proxy
                out.append(FenceAsyncProxy())
            if many_threads:
                out.append(BlockSync(reason=f"RAW: stage {i} % {S} of {_names(shared_sync)} loaded by other "
                                            f"threads"))
        return out

    release: list[Node] = []
    if loop.release_lag and not loop.war_mbarrier and not loop.syncs_cover_lag:
        raise LoweringError(f"{loop.describe()}: the tensors of loop {node.label} are read by asynchronous MMAs, "
                            f"which release a stage one iteration late; guard their WAR with mbarriers "
                            f"(Pipelined(uses_mbarrier_for_war=True), TMA loads), or load them with cp.async or "
                            f"plain copies at a prefetch distance of 1 to stages - {1 + loop.release_lag} "
                            f"(here {P} of {S} stages), which the block sync of each iteration's wait then orders")
    if loop.war_mbarrier:
        release.append(_release(loop, mbar, i))
    elif loop.release_lag:
        pass    # ``syncs_cover_lag``: the next wait's block sync orders the retired MMAs before the next loads
    elif loop.shared and many_threads:
        release.append(BlockSync(reason=f"WAR: stage ({i} + {P}) % {S} is loaded again next iteration"))

    zero = Val.const(0)
    # A loop may have fewer iterations than the prefetch distance: the prologue issues those that
    # exist, the main loop runs none, the epilogue all of them.
    out: list[Node] = []
    if P > 0:
        # The prologue is unrolled, its stages' loads issued back to back, unless threads copy a stage through their
        # registers: unrolled, ptxas hoists every stage's loads at once and the registers overflow (the plain copies
        # of B at 1024 x 1001 x 1024: 255 registers and 456 bytes of spills; rolled, 238 registers and 1.13 of
        # cuBLAS against 0.98 on the H100, docs/matmul.md "Any K and any row stride")
        out.append(replace(node, start=zero, stop=vmin(Val.const(P), n), body=tuple(issue(i)),
                           stage=Stage.Prologue, unroll=not loop.copied))
    # A stage released late is free only after this iteration's compute: issue the next loads after it.
    # At prefetch 0 the loads are this iteration's own, which its wait needs: they come first, into the stage
    # released ``stages - 1`` iterations back, which ``release_lag`` < ``stages`` has already freed.
    main_body = (allocs + wait(P) + computes_ + release + issue(i + P) if loop.release_lag and P > 0
                 else allocs + issue(i + P) + wait(P) + computes_ + release)
    out.append(replace(node, start=zero, stop=n - P, body=tuple(main_body), stage=Stage.Main))
    if P > 0:
        out.extend(_short_loop_sync(loop, n, P, many_threads))
        out.append(replace(node, start=vmax(n - P, zero), stop=n, body=tuple(allocs + wait(0) + computes_),
                           stage=Stage.Epilogue))
        if loop.nested and loop.shared and many_threads and not loop.war_mbarrier:
            # the epilogue's stages are read by every thread and loaded again by the prologue of the
            # pipeline's next run (the next iteration of an enclosing loop): nothing else orders the two
            out.append(BlockSync(reason=f"WAR: the next run of the pipeline's prologue loads the stages of "
                                        f"{_names([tv for tv in loop.tensors if tv.memory_type is MemoryType.Shared])} "
                                        f"the epilogue read"))
    return out


def _short_loop_sync(loop: CircularLoop, n: Val, P: int, many_threads: bool) -> list[Node]:
    """Plain shared-memory loads of other threads are ordered by the main loop's block syncs, which
    do not run when the loop has at most ``P`` iterations: the epilogue's reads need one of their own
    then. (TMA and cp.async loads are waited for in the epilogue itself; registers need nothing.)"""
    plain = [tv for tv in loop.tensors if tv not in loop.tma and tv not in loop.cp_async
             and tv.memory_type is MemoryType.Shared]
    if not plain or not many_threads:
        return []
    short = n.le(P)
    known = short.const_value()
    if known is not None and not known:
        return []
    sync = BlockSync(reason=f"RAW: a loop of at most {P} iterations skips the main loop's syncs; "
                            f"{_names(plain)} loaded by other threads")
    return [sync] if known is not None else [IfThenElse(short, (sync,))]


def _epilogue_scope(body: tuple[Node, ...], a: Analyses) -> tuple[Node, ...]:
    """The scope holding the warp-specialized mainloop: its producer branch issues the loads of the epilogue
    pipelines found in the statements after it (a loop after the mainloop's), whose compute versions wait for them
    instead (``_split_epilogue``)."""
    ws = a.warp_specialization
    assert ws is not None
    for k, node in enumerate(body):
        if isinstance(node, ForLoop) and node.stage is None and a.circular.loop_for(node) is ws.loop:
            later: list[Node] = []
            after: list[Node] = []
            for x in body[k + 1:]:
                p, c = _split_epilogue(x, a, ws)
                later.extend(p)
                after.extend(c)
            return body[:k] + (warp_specialize(a, node, ws, later),) + tuple(after)
    out: list[Node] = []
    for node in body:
        kids = children(node)
        if kids:
            node = replace(node, **{name: _epilogue_scope(sub, a) for name, sub in kids})
        out.append(node)
    return tuple(out)


def _epilogue_tensors(a: Analyses) -> list[TensorView]:
    return [tv for c in a.circular.companions for tv in c.tensors]


def _split_epilogue(node: Node, a: Analyses, ws: WarpSpecialization) -> tuple[list[Node], list[Node]]:
    """(producer, compute) versions of a statement holding loads of epilogue pipelines: the producer keeps the
    loops around the loads and, where they are, one elected thread of its first warp waits for the stage's
    "empty" barrier, arrives on its "full" one expecting the stage's bytes and issues them; the compute version
    drops the loads, waits on the "full" barrier right before the first statement of that scope that reads the
    stage and arrives on the "empty" one right after the last. A statement without such loads: ``([], [node])``."""
    tensors = _epilogue_tensors(a)
    if not any(computes(node, tv) for tv in tensors):
        return [], [node]
    kids = children(node)
    assert kids, "a load of an epilogue pipeline outside any scope"
    producer: dict[str, tuple[Node, ...]] = {}
    compute: dict[str, tuple[Node, ...]] = {}
    for name, sub in kids:
        p, c = _split_epilogue_scope(sub, a, ws)
        producer[name], compute[name] = tuple(p), tuple(c)
    return [replace(node, **producer)], [replace(node, **compute)]


def _split_epilogue_scope(body: tuple[Node, ...], a: Analyses, ws: WarpSpecialization) -> tuple[list[Node],
                                                                                                  list[Node]]:
    tensors = _epilogue_tensors(a)

    def is_load(x: Node) -> bool:
        ops = [t for t in walk((x,)) if isinstance(t, TensorOp)]
        return bool(ops) and all(any(computes(t, tv) for tv in tensors) for t in ops)

    loads = [k for k, x in enumerate(body) if is_load(x)]
    if not loads:
        producer: list[Node] = []
        compute: list[Node] = []
        for x in body:
            p, c = _split_epilogue(x, a, ws)
            producer.extend(p)
            compute.extend(c)
        return producer, compute
    producer = []
    compute = [x for k, x in enumerate(body) if k not in loads]
    for lp in a.circular.companions:
        mine = [body[k] for k in loads if any(computes(body[k], tv) for tv in lp.tensors)]
        if not mine:
            continue
        mbar = a.mbarriers.array(lp)
        it = lp.iteration
        producer.append(ElectSync((MBarrierWaitParity(mbar, lp.empty(lp.stage(it)), lp.parity(it)),
                                   MBarrierArriveExpectTx(mbar, lp.full(lp.stage(it)), lp.tx_bytes), *mine),
                                  warp=ws.producer_warp))
        readers = [k for k, x in enumerate(compute) if _reads_any(x, lp.tensors, a)]
        if not readers:
            raise LoweringError(f"{lp.describe()}: the epilogue pipeline's stages are read nowhere in the scope of "
                                f"their loads; compute them in the scope that reads them")
        first, last = readers[0], readers[-1]
        compute = (compute[:first] + [MBarrierWaitParity(mbar, lp.full(lp.stage(it)), lp.parity(it))]
                   + compute[first:last + 1] + [MBarrierArrive(mbar, lp.empty(lp.stage(it)))] + compute[last + 1:])
    return producer, compute


def _reads_any(node: Node, tensors: list[TensorView], a: Analyses) -> bool:
    """``node`` reads one of ``tensors``, itself or through a stmatrix that computes its registers from them right
    before each instruction (``StagedStore.per_instruction``: the fused epilogue inlined into it)."""
    for op in walk((node,)):
        if not isinstance(op, TensorOp):
            continue
        if any(reads(op, tv) for tv in tensors):
            return True
        staged = a.mma.staged.get(op.tv) if a.mma is not None else None
        if staged is not None and staged.per_instruction and any(
                tv in p.producers() or tv is p for p in staged.inlined | {staged.source} for tv in tensors):
            return True
    return False


def _after_first_loads(loop_node: ForLoop, loop: CircularLoop, later: list[Node]) -> list[Node]:
    """The producer's innermost loop with the epilogue pipelines' loads ``later`` issued after its first
    ``stages`` iterations: the mainloop's first loads of the tile go out first, and the epilogue's loads then
    wait for their stages while the ring of the mainloop is full anyway."""
    if not later:
        return [loop_node]
    cut = vmin(Val.const(loop.stages), loop_node.stop)
    return [replace(loop_node, stop=cut), *later, replace(loop_node, start=cut)]


def warp_specialize(a: Analyses, node: ForLoop, ws: WarpSpecialization, later: list[Node] | None = None) -> IfThenElse:
    """``later``: producer versions of the statements after ``node`` that load epilogue pipelines."""
    loop = ws.loop
    mbar = a.mbarriers.array(loop)
    it = loop.iteration
    # the loop the loads sit in: the last loop of the pipeline (a turn index has no loop here)
    innermost = next((g for g in reversed(loop.inner) if g is not loop.turns), loop.group)
    turn = Val.symbol(f"w{loop.group.number}") if loop.turns is not None else None

    def split(body: tuple[Node, ...], groups: list, start: Val) -> tuple[list[Node], list[Node]]:
        """(producer, compute) statements of a scope that ``groups`` (the pipeline's inner loops) enclose
        the loads in; ``start``: the first index of the loop whose body it is."""
        producer: list[Node] = []
        compute: list[Node] = []
        skips = [x for x in body if _is_skip(x)]      # a persistent loop's tiles past the end: both skip
        body = tuple(x for x in body if not _is_skip(x))
        if groups and groups[0] is loop.turns:
            # the compute warp groups take turns: the producer walks the turns in a loop of its own,
            # each with the tile skip of its turn
            p, c = split(body, groups[1:], start)
            rename = {loop.turns.index.name: turn}
            producer.append(ForLoop(turn, Val.const(0), loop.turns.extent,
                                    tuple(shifted(substitute(x, rename), tuple(rename.items())) for x in skips + p),
                                    label=f"turns of the compute warp groups ({loop.turns.label()})"))
            return producer, skips + c
        producer.extend(skips)
        compute.extend(skips)
        if not groups:
            loads = [x for x in body if any(computes(x, tv) for tv in loop.tensors)]
            producer.append(ElectSync((MBarrierWaitParity(mbar, loop.empty(loop.stage(it)), loop.parity(it)),
                                       MBarrierArriveExpectTx(mbar, loop.full(loop.stage(it)), loop.tx_bytes),
                                       *loads), warp=ws.producer_warp))
            rest = [x for x in body if x not in loads]
            allocs = [x for x in rest if isinstance(x, Allocate)]
            compute.extend(allocs)
            compute.append(MBarrierWaitParity(mbar, loop.full(loop.stage(it)), loop.parity(it)))
            compute.extend(x for x in rest if not isinstance(x, Allocate))
            compute.append(_release(loop, mbar, it, innermost.index, start))
            return producer, compute
        epilogue: list[Node] = []      # the producer's loads of epilogue pipelines in this scope
        mainloop = len(producer)
        for x in body:
            if isinstance(x, ForLoop) and any(computes(x, tv) for tv in loop.tensors):
                p, c = split(x.body, groups[1:], x.start)
                mainloop = len(producer)
                producer.append(replace(x, body=tuple(p)))
                compute.append(replace(x, body=tuple(c)))
                if groups[0] is innermost:
                    compute.extend(_release_last(loop, mbar, it, innermost, x))
            elif groups[0] is innermost:
                p, c = _split_epilogue(x, a, ws)
                epilogue.extend(p)
                compute.extend(c)
            else:
                compute.append(x)
        if epilogue:
            first = producer[mainloop]
            assert isinstance(first, ForLoop)
            producer[mainloop:mainloop + 1] = _after_first_loads(first, loop, epilogue)
        return producer, compute

    producer, compute = split(node.body, loop.inner, node.start)
    # the loop itself is the innermost one: its last stages are released after it
    last = _release_last(loop, mbar, it, innermost, node) if not loop.inner else []
    compute_loop = [replace(node, body=tuple(compute), stage=Stage.ComputeWarp), *last]
    s = Val.symbol(f"s{loop.group.number}")
    then: list[Node] = []
    other: list[Node] = []
    if ws.registers is not None:
        then.append(SetMaxNReg(ws.registers[0], increase=False))
        other.append(SetMaxNReg(ws.registers[1], increase=True))
    producer_loop = replace(node, body=tuple(producer), stage=Stage.AsyncWarp)
    then += [*_after_first_loads(producer_loop, loop, later or []), Return()]
    empties: list[Node] = []
    for lp in [loop, *a.circular.companions_of(loop)]:
        lp_mbar = a.mbarriers.array(lp)
        empty: Node = ForLoop(s, Val.const(0), Val.const(lp.stages), (MBarrierArrive(lp_mbar, lp.empty(s)),),
                              label="every stage starts empty", stage=Stage.PrePrologue)
        if lp.turns is not None:      # a stage's readers are one warp group: the first takes the first turn
            empty = IfThenElse(lp.turns.index.eq(0), (empty,))
        empties.append(empty)
    other += [*empties, *compute_loop]
    return IfThenElse(ws.is_producer(), tuple(then), tuple(other),
                      branch_threads=(ws.producer_threads, ws.compute_threads))


def _release_last(loop: CircularLoop, mbar, it: Val, innermost, node: ForLoop) -> list[Node]:
    """After the innermost loop of a warp-specialized pipeline (``node``, the compute warps' loop): with a release
    lag, the stages of its last ``lag`` iterations (the wait after the loop retired their MMAs), counted from the
    loop's own bounds (a causal bound ends it before its group's extent)."""
    n = node.stop
    out: list[Node] = []
    for d in range(loop.release_lag, 0, -1):
        last = it.substitute({innermost.index.name: n - d})
        out.append(IfThenElse((n - d).ge(node.start), (MBarrierArrive(mbar, loop.empty(loop.stage(last))),)))
    return out


def _release(loop: CircularLoop, mbar, j: Val, k: Val | None = None, start: Val | None = None) -> Node:
    """Every reader's arrive on the "empty" barrier of the stage iteration ``j`` is done with; with a
    release lag the stage of iteration ``j - lag`` (the wait after this iteration's MMAs finished
    that one's), from iteration ``lag`` on. ``k``: the index of the innermost loop of a warp-specialized
    pipeline, which releases its own iterations only (``_release_last`` the rest after it), counted from ``start``,
    that loop's first index."""
    if not loop.release_lag:
        return MBarrierArrive(mbar, loop.empty(loop.stage(j)))
    previous = j - loop.release_lag
    first = (k if k is not None else j) - loop.release_lag
    # from the loop's own first iteration on (a stream-K segment's K loop starts where the block's range does)
    return IfThenElse(first.ge(start if start is not None else 0),
                      (MBarrierArrive(mbar, loop.empty(loop.stage(previous))),))


def _is_skip(node: Node) -> bool:
    """``if (tile >= extent) continue;`` at the top of a persistent loop (the loop-nest pass)."""
    return isinstance(node, IfThenElse) and len(node.then_body) == 1 and isinstance(node.then_body[0], Continue) \
        and not node.else_body


def _names(tvs: list[TensorView]) -> str:
    return ", ".join(f"T{tv.name}" for tv in tvs)
