"""Circular-buffer facts: which loop each circular-buffered tensor is pipelined on, what each such
loop holds, and the one place where a stage index and a barrier parity are computed.

Built after allocation from the IterDomain graph, the buffers, the TMA boxes and the pipeline
depths (``stages="auto"`` resolved by the ``pipeline_depth`` analysis). For a loop with
S stages, iteration ``j`` uses stage ``j % S`` and waits for the phase of parity ``(j / S) % 2``
(``CircularLoop.stage`` and ``CircularLoop.parity``); a buffered tensor's stage starts at
``stage(i) * stage_size`` elements (``CircularBufferInfo.stage_offset``).
A warp-specialized loop is the outermost serial loop left of its loads' compute-at position; its
pipeline runs across that loop and the loops inside it up to the loads, so its stage comes from
the linearized iteration count of all of them (``CircularLoop.iteration``). When one of those
axes is bound to the ``on`` thread dimension (``pipeline_axes.turn_axis``), the compute warp
groups take turns (``CircularLoop.turns``): its index, the warp group's, is part of the iteration,
so each stage is read by one group, whose threads alone release it. The ``tensor_cores`` analysis
says how long a stage stays in use after its iteration (``CircularLoop.release_lag``) and whether
the groups take their turns in order (``CircularLoop.ordered_turns``).
Of several warp-specialized pipelines, those no tensor-core matmul reads are epilogue pipelines
(``CircularBufferInfo.companions``) whose loads the mainloop's producer branch issues (``_companions`` says the
rules). Rules, raised as ``LoweringError``: a circular-buffered tensor reads fusion inputs only; tensors
pipelined on one loop agree on stages, prefetch and type; mbarrier WAR guards TMA loads only; a
warp-specialized loop pipelines TMA loads only, is not inside a Pipelined one, and is the only one
of its kernel (at most 4 exist on the hardware; one is lowered). A loop may have fewer iterations
than stages, constant or at run time: the circular-buffer pass clamps the prologue to them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from fusion_ir import MemoryType, Pipelined, TensorView, WarpSpecialized
from fusion_ir.exprs import load_kind
from fusion_ir.scalar import Val
from fusion_ir.types import LoadStoreOpType

from ..errors import LoweringError
from ..kernel_ir import ForLoop
from .buffers import BufferPlan
from .id_model import IdModel, LoopGroup
from .pipeline_axes import cb_axis, pipeline_loops, turn_axis
from .pipeline_depth import PipelineDepths
from .tensor_cores import TensorCores
from .tma import TmaInfo


@dataclass
class CircularLoop:
    """One circular-buffered loop and the loads it pipelines."""

    group: LoopGroup
    stages: int
    prefetch: int
    tensors: list[TensorView]
    war_mbarrier: bool                    # "empty" barriers guard WAR: Pipelined(uses_mbarrier_for_war) or WS
    tx_bytes: Val = field(default_factory=lambda: Val.const(0))   # bytes every stage's TMA copies bring
    warp_specialized: WarpSpecialized | None = None
    inner: list[LoopGroup] = field(default_factory=list)   # WS: the loops inside this one that enclose the loads
    # iterations a stage stays in use after its own (``TensorCores.release_lag``): 1 when only tensor-core
    # matmuls read the loop's tensors and one of them sums over the pipeline's loops, whose MMAs of iteration i
    # may still read their stage while iteration i + 1 issues its own
    release_lag: int = 0
    # WS: the loop group of the loads' ``turn_axis`` (bound to the ``on`` dimension): the compute warp
    # groups take turns, group w consuming the iterations whose index there is w; None when they
    # share every iteration
    turns: LoopGroup | None = None
    # the groups take their turns in order (``TensorCores.takes_turns``): their mainloops and epilogues
    # alternate, kept by ordering barriers (``mbarriers.OrderingBarriers``)
    ordered_turns: bool = False
    # a serial loop encloses this one: the whole pipeline runs again, its prologue refilling stages
    nested: bool = False
    # a loop over [start, stop) run from 0 (a stream-K segment's K tiles): its stages are those of j + start
    rotation: Val = field(default_factory=lambda: Val.const(0))
    # WS: subtracted from the linearized iteration so the block's first one is 0 (a warp-specialized stream-K
    # kernel: its blocks walk contiguous ranges of tile x K-tile iterations from ``StreamKSpace.start(block)``)
    offset: Val = field(default_factory=lambda: Val.const(0))
    # tensor-core matmuls (the async proxy) read a stage that threads write with cp.async or plain stores
    # (the generic proxy): each writer runs fence.proxy.async after its writes, before the barrier
    async_read_of_generic_writes: bool = False
    # an epilogue pipeline: the warp-specialized loop whose producer issues this pipeline's loads too (the
    # mainloop's, read by tensor-core matmuls); None for a loop of its own
    companion_of: CircularLoop | None = None

    @property
    def number(self) -> str:
        """A name of the pipeline unique in its kernel (an epilogue pipeline may share its loop with the mainloop's)."""
        return f"{self.group.number}e" if self.companion_of is not None else f"{self.group.number}"

    @property
    def loops(self) -> list[LoopGroup]:
        """The loop groups the pipeline iterates over, outermost first."""
        return [self.group, *self.inner]

    @property
    def takers(self) -> int:
        """How many compute warp groups take turns on the iterations (1: they share each one)."""
        if self.turns is None:
            return 1
        n = self.turns.extent.const_value()
        assert n is not None
        return n

    def readers(self, compute_threads: Val) -> Val:
        """Threads that read each stage and arrive on its "empty" barrier."""
        return compute_threads // self.takers

    @property
    def iteration(self) -> Val:
        """The pipeline's iteration count: the loop index, linearized with the inner loops (WS) and
        the turn index (the compute branch's thread index; the producer's own loop over it)."""
        it = self.group.index
        for g in self.inner:
            it = it * g.extent + g.index
        return it - self.offset if self.offset != Val.const(0) else it

    @property
    def index(self) -> Val:
        return self.group.index

    @property
    def extent(self) -> Val:
        return self.group.extent

    def stage(self, j: Val) -> Val:
        """The stage iteration ``j`` uses (a loop run from its start, ``rotated``: the stage of ``j + start``)."""
        if self.rotation != Val.const(0):
            return (j + self.rotation) % self.stages
        return j % self.stages

    def rotated(self, start: Val) -> CircularLoop:
        """This pipeline for a loop over ``[start, stop)`` run as iterations ``j`` from 0 (``lowering/passes/
        circular_buffer.py``): its tensor ops index stages by ``j + start``, so the mbarriers of a stage do too,
        while the phase parities count the loop's own iterations (the mbarriers start each run of it afresh)."""
        return replace(self, rotation=start)

    def parity(self, j: Val) -> Val:
        """The parity of the barrier phase that completes iteration ``j``'s stage."""
        return (j // self.stages) % 2

    def full(self, stage: Val) -> Val:
        """The barrier TMA copies into ``stage`` complete on ("full"): slots [0, S) of the array."""
        return stage

    def empty(self, stage: Val) -> Val:
        """The barrier readers of ``stage`` arrive on when done with it ("empty"): slots [S, 2S)."""
        return stage + self.stages

    @property
    def slots(self) -> int:
        return 2 * self.stages if self.war_mbarrier else self.stages

    @property
    def tma(self) -> list[TensorView]:
        return [tv for tv in self.tensors if load_kind(tv) is LoadStoreOpType.TMA]

    @property
    def cp_async(self) -> list[TensorView]:
        return [tv for tv in self.tensors if load_kind(tv) is LoadStoreOpType.CpAsync]

    @property
    def generic(self) -> list[TensorView]:
        """Shared tensors the loop's threads write themselves (cp.async or plain copies), not TMA."""
        return [tv for tv in self.tensors if tv not in self.tma and tv.memory_type is MemoryType.Shared]

    @property
    def copied(self) -> list[TensorView]:
        """Shared tensors the loop's threads copy through their own registers (plain copies: neither TMA nor
        cp.async), each vector held from its load to its store."""
        return [tv for tv in self.generic if tv not in self.cp_async]

    @property
    def syncs_cover_lag(self) -> bool:
        """Without "empty" mbarriers, a stage read by MMAs that retire ``release_lag`` iterations late is safe to
        load again: every iteration's wait ends in a block sync (the loop has loads of its own threads), which
        every thread reaches only after retiring the MMAs of all but its last ``release_lag`` iterations; so
        loads issued after it, ``prefetch`` ahead, into stages read at least ``release_lag + 1`` iterations
        before, overwrite nothing still read."""
        return bool(self.generic) and 1 <= self.prefetch <= self.stages - 1 - self.release_lag

    @property
    def shared(self) -> bool:
        return any(tv.memory_type is MemoryType.Shared for tv in self.tensors)

    def describe(self) -> str:
        return ", ".join(f"T{tv.name}" for tv in self.tensors)


@dataclass
class CircularBufferInfo:
    loops: dict[int, CircularLoop] = field(default_factory=dict)      # by loop-group number
    loop_of: dict[TensorView, CircularLoop] = field(default_factory=dict)
    stage_sizes: dict[TensorView, Val] = field(default_factory=dict)
    # the shared tile of a deferred TMA store rotating over several tiles (``BufferPlan.rings``): its loop and tiles
    rings: dict[TensorView, tuple[LoopGroup, int]] = field(default_factory=dict)
    # epilogue pipelines (``CircularLoop.companion_of``): warp-specialized loads that no tensor-core matmul reads,
    # issued by the producer branch of the mainloop's pipeline; not in ``loops`` (their loop, or its clone, is the
    # mainloop's or one the compute branch runs after it)
    companions: list[CircularLoop] = field(default_factory=list)

    def is_buffered(self, tv: TensorView) -> bool:
        return tv in self.loop_of

    def loop_for(self, node: ForLoop) -> CircularLoop | None:
        """The circular-buffered loop a kernel loop (or a clone of it) iterates; None for any other loop."""
        if node.group is None:
            return None
        return self.loops.get(node.group)

    def stage_offset(self, tv: TensorView) -> Val:
        """Element offset of the stage tv's loop is at (zero when tv is not circular-buffered).

        Written in the loop index; a load issued ahead sees the index shifted."""
        ring = self.rings.get(tv)
        if ring is not None:           # a store ring: iteration i of its loop writes (and stores) tile i % stages
            group, stages = ring
            return (group.index % stages) * self.stage_sizes[tv]
        loop = self.loop_of.get(tv)
        if loop is None:
            return Val.const(0)
        return loop.stage(loop.iteration) * self.stage_sizes[tv]

    def warp_specialized(self) -> list[CircularLoop]:
        return [loop for loop in self.loops.values() if loop.warp_specialized is not None]

    def companions_of(self, loop: CircularLoop) -> list[CircularLoop]:
        """The epilogue pipelines whose loads ``loop``'s producer branch issues."""
        return [c for c in self.companions if c.companion_of is loop]

    def pipelines(self) -> list[CircularLoop]:
        """Every pipeline, epilogue pipelines last."""
        return [*self.loops.values(), *self.companions]


def build(ids: IdModel, tc: TensorCores, buffers: BufferPlan, tma: TmaInfo,
          depths: PipelineDepths) -> CircularBufferInfo:
    """Circular-buffered loops by loop-group number, with their options checked for agreement."""
    info = CircularBufferInfo()
    loops = info.loops
    for tv in ids.tensors:
        opts = depths.options(tv)
        if opts is None:
            continue
        if tv.memory_type is MemoryType.Global:
            raise LoweringError(f"T{tv.name} is circular-buffered but lives in Global memory; a circular buffer is "
                                f"a Shared or Local cache (cache_after) whose stages the loop rotates through")
        ws = opts.type if isinstance(opts.type, WarpSpecialized) else None
        axis = cb_axis(ids, tv)
        g = ids.group(tv.loop[axis])
        turn = turn_axis(ids, tv)
        if turn is not None and ids.group(turn).extent.const_value() is None:
            raise LoweringError(f"T{tv.name}: its compute warp groups take turns on axis {turn.label()}, whose "
                                f"extent {turn.extent} must be a constant (the number of warp groups)")
        inner = pipeline_loops(ids, tv)[1:]
        if ws is not None and load_kind(tv) is not LoadStoreOpType.TMA:
            kind = load_kind(tv)
            raise LoweringError(f"T{tv.name}: warp-specialized circular buffering pipelines TMA loads, which the "
                                f"producer warps issue and mbarriers complete; T{tv.name} is loaded by "
                                f"{kind.name if kind is not None else type(tv.definition).__name__}")
        for p in ids.computed_producers(tv):
            raise LoweringError(f"T{tv.name} is circular-buffered, so its loads are issued ahead of the loop "
                                f"body, but it reads T{p.name}, which is computed by the kernel; circular "
                                f"buffering prefetches loads of fusion inputs (and views of them)")
        war = opts.war_mbarrier
        if ws is None and opts.type.uses_mbarrier_for_war and load_kind(tv) is not LoadStoreOpType.TMA:
            raise LoweringError(f"T{tv.name}: Pipelined(uses_mbarrier_for_war=True) guards TMA loads; T{tv.name} "
                                f"is loaded by {load_kind(tv).name}")
        loop = loops.get(g.number)
        if loop is not None and ws is not None and loop.warp_specialized is not None and inner != loop.inner:
            # a second warp-specialized pipeline on the same loop (an epilogue's loads beside the mainloop's):
            # kept apart until ``_companions`` decides which pipeline the other's producer serves
            loop = next((c for c in info.companions if c.group is g and c.inner == inner), None)
            if loop is None:
                info.companions.append(CircularLoop(g, opts.stages, opts.prefetch, [tv], war, warp_specialized=ws,
                                                    inner=inner, turns=ids.group(turn) if turn is not None else None))
                continue
        if loop is None:
            nested = any(ids.group(i).is_loop and not i.is_broadcast for i in tv.loop[:axis])
            loops[g.number] = CircularLoop(g, opts.stages, opts.prefetch, [tv], war, warp_specialized=ws,
                                           inner=inner, turns=ids.group(turn) if turn is not None else None,
                                           nested=nested)
            continue
        first = loop.tensors[0]
        if (opts.stages, opts.prefetch) != (loop.stages, loop.prefetch):
            raise LoweringError(f"T{tv.name} and T{first.name} are circular-buffered on the same loop "
                                f"{g.label()} with different options ({opts.stages} stages, prefetch {opts.prefetch} "
                                f"vs {loop.stages} stages, prefetch {loop.prefetch}); one loop has one pipeline")
        if opts.type != (loop.warp_specialized or Pipelined(loop.war_mbarrier)):
            raise LoweringError(f"T{tv.name} and T{first.name} share the circular-buffer loop {g.label()} with "
                                f"different types ({opts.type} vs {first.circular_buffer_options.type}); use the "
                                f"same type for both")
        if inner != loop.inner:
            raise LoweringError(f"T{tv.name} and T{first.name} are warp-specialized on the loop {g.label()} but "
                                f"computed inside different loops ({_labels(inner)} vs {_labels(loop.inner)}); "
                                f"compute them at the same position")
        loop.tensors.append(tv)
    _companions(ids, tc, info)
    _check_warp_specialized(ids, loops)
    for tv, (axis, stages) in buffers.rings.items():
        info.rings[tv] = (ids.group(axis), stages)
        info.stage_sizes[tv] = buffers.stage_size(tv)
    for loop in info.pipelines():
        loop.release_lag = tc.release_lag(loop.tensors, {g.number for g in loop.loops})
        sk = ids.stream_k
        if loop.warp_specialized is not None and sk is not None and {sk.tiles.number, sk.k.number} <= {
                g.number for g in loop.loops}:
            # the block's range of tile x K-tile iterations, walked in order: its stages count from its first one
            loop.offset = sk.space().start(Val.symbol("blockIdx.x"))
        # an epilogue pipeline's turns are the mainloop's, whose ordering barriers keep them
        loop.ordered_turns = (loop.turns is not None and loop.companion_of is None
                              and tc.takes_turns(loop.turns.number))
        loop.async_read_of_generic_writes = any(tc.is_accumulator(c) for tv in loop.generic
                                                for c in ids.consumers(tv))
        tx = Val.const(0)
        for tv in loop.tma:
            tx = tx + tma.boxes[tv].tx_bytes()
        loop.tx_bytes = tx
        for tv in loop.tensors:
            info.loop_of[tv] = loop
            info.stage_sizes[tv] = buffers.stage_size(tv)
    return info


MAX_WARP_SPECIALIZED = 4    # one async warp each, on the hardware


def _companions(ids: IdModel, tc: TensorCores, info: CircularBufferInfo) -> None:
    """Of several warp-specialized pipelines, the ones no tensor-core matmul reads become epilogue pipelines of the
    one that MMAs read (the mainloop): its producer branch issues their loads too, after the mainloop's first loads
    of each of its outer iterations (``CircularLoop.companion_of``). Rules, raised as ``LoweringError``: one
    mainloop; an epilogue pipeline runs on the mainloop's outer loop or on a loop after it (never inside its
    innermost loop), shares its type (``on``, registers) and its turns, and has at least as many stages as it
    has iterations per iteration of the loops it shares with the mainloop: the producer issues them before the
    rest of the mainloop's loads that the epilogue reading them waits for."""
    ws = [lp for lp in info.loops.values() if lp.warp_specialized is not None] + info.companions
    if len(ws) < 2:
        for lp in info.companions:        # a lone pipeline of a loop the mainloop does not pipeline
            info.loops.setdefault(lp.group.number, lp)
        info.companions.clear()
        return
    mains = [lp for lp in ws if any(tc.is_accumulator(c) for tv in lp.tensors for c in ids.consumers(tv))]
    if len(mains) != 1:
        which = ", ".join(lp.describe() for lp in ws)
        if len(ws) > MAX_WARP_SPECIALIZED:
            raise LoweringError(f"{len(ws)} warp-specialized circular-buffer loops ({which}); a kernel has at most "
                                f"{MAX_WARP_SPECIALIZED}")
        raise LoweringError(f"{len(ws)} warp-specialized circular-buffer loops ({which}), {len(mains)} of them read "
                            f"by tensor-core matmuls; this lowering builds one producer branch per kernel: "
                            f"warp-specialize one loop, or one mainloop that tensor-core matmuls read beside "
                            f"epilogue pipelines that none reads")
    (main,) = mains
    companions = [lp for lp in ws if lp is not main]
    for lp in companions:
        if info.loops.get(lp.group.number) is lp:
            del info.loops[lp.group.number]
        _check_companion(lp, main)
        lp.companion_of = main
    if info.loops.get(main.group.number) is not main:
        info.loops[main.group.number] = main
    info.companions[:] = companions


def _check_companion(lp: CircularLoop, main: CircularLoop) -> None:
    if lp.warp_specialized != main.warp_specialized:
        raise LoweringError(f"{lp.describe()}: an epilogue pipeline's loads are issued by the producer branch of "
                            f"{main.describe()}, so its type must be the same ({lp.warp_specialized} vs "
                            f"{main.warp_specialized})")
    inner = main.inner[-1] if main.inner else main.group
    mine = {g.number for g in lp.loops}
    theirs = {g.number for g in main.loops}
    if inner.number in mine or (lp.group is not main.group and (lp.group.number in theirs
                                                                or main.group.number in mine)):
        raise LoweringError(f"{lp.describe()}: an epilogue pipeline runs on the loop of the mainloop's pipeline "
                            f"({main.describe()}, on {main.group.label()}) or on a loop after it, never inside or "
                            f"around its loop {inner.label()}; its loops are {_labels(lp.loops)}")
    if (lp.turns is None) != (main.turns is None) or (lp.turns is not None and lp.turns is not main.turns):
        raise LoweringError(f"{lp.describe()}: the compute warp groups take turns on the mainloop's iterations "
                            f"({main.describe()}) or on none; an epilogue pipeline takes the same turns")
    per = 1
    for g in lp.loops:
        if g.number in theirs or g is lp.turns:
            continue
        n = g.extent.const_value()
        if n is None:
            raise LoweringError(f"{lp.describe()}: the epilogue pipeline's loop {g.label()} has extent {g.extent}; "
                                f"its stages are counted against its iterations, which must be a constant")
        per *= n
    if lp.stages < per:
        raise LoweringError(f"{lp.describe()}: an epilogue pipeline of {lp.stages} stages for {per} iterations per "
                            f"iteration of the loops it shares with the mainloop ({main.describe()}); the producer "
                            f"issues them before the rest of that iteration's mainloop loads, which the epilogue "
                            f"freeing its stages waits for: give it at least {per} stages")


def _check_warp_specialized(ids: IdModel, loops: dict[int, CircularLoop]) -> None:
    ws = [loop for loop in loops.values() if loop.warp_specialized is not None]
    which = ", ".join(lp.describe() for lp in ws)
    if len(ws) > MAX_WARP_SPECIALIZED:
        raise LoweringError(f"{len(ws)} warp-specialized circular-buffer loops ({which}); a kernel has at most "
                            f"{MAX_WARP_SPECIALIZED}")
    if len(ws) > 1:
        raise LoweringError(f"{len(ws)} warp-specialized circular-buffer loops ({which}); this lowering builds one "
                            f"producer branch per kernel: warp-specialize one loop")
    for loop in ws:
        for tv in loop.tensors:
            around = {ids.group(i).number for i in tv.loop[:cb_axis(ids, tv)]}
            for other in loops.values():
                if other.warp_specialized is None and other.group.number in around:
                    raise LoweringError(f"the Pipelined circular-buffer loop {other.group.label()} of "
                                        f"{other.describe()} encloses the warp-specialized loop "
                                        f"{loop.group.label()} of {loop.describe()}; a Pipelined loop may sit "
                                        f"inside a warp-specialized one, not around it")


def _labels(groups: list[LoopGroup]) -> str:
    return "[" + ", ".join(g.label() for g in groups) + "]"
