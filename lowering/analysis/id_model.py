"""The IterDomain graph: exact and loop maps between producer and consumer domains.

Built from the scheduled fusion before any pass runs. Holds the live tensors in topological
order, the loop groups (IterDomains that share one loop or one thread/block index) with their
parallel type, extent and index symbol, the exact-map classes, and the launch extents.
Guarantees, raised as ``LoweringError`` otherwise: every producer's first ``ca_pos`` loop axes map
exactly onto its consumers' axes at the same positions; each loop group has at most one parallel
binding (a shared axis takes its consumer's binding); no tensor binds one thread or block index
twice; a TMA store writes a fusion output and stmatrix shared memory.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import networkx as nx

from fusion_ir import Fusion, IterDomain, MemoryType, Merge, ParallelType, Split, TensorView, WarpSpecialized
from fusion_ir.exprs import Expr, LoadStoreOp, load_kind
from fusion_ir.iter_domain import lane_group, spans_broadcast
from fusion_ir.replay import loop_map
from fusion_ir.scalar import Val, ceil_div, vmax
from fusion_ir.stream_k import StreamK, StreamKSpace
from fusion_ir.types import LoadStoreOpType
from fusion_ir.views import ViewChain, seen_through
from target import current as current_target

from ..errors import LoweringError
from ..running_axes import check_order
from . import broadcast_loops, lane_reductions
from .lane_reductions import LaneReduction
from .padded_loops import pad_bounded_roots

PARALLEL_LAUNCH = (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz,
                   ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)
THREAD_DIMS = (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)


@dataclass
class LoopGroup:
    """IterDomains that share one loop (or one thread/block index)."""

    number: int
    members: list[IterDomain]
    parallel_type: ParallelType
    extent: Val
    index: Val

    @property
    def is_broadcast(self) -> bool:
        return all(i.is_broadcast for i in self.members)

    @property
    def is_loop(self) -> bool:
        """True when the group becomes a ForLoop (serial, unrolled or vectorized)."""
        if self.is_broadcast:
            return False
        return self.parallel_type in (ParallelType.Serial, ParallelType.Unroll) or self.parallel_type.vectorizes

    def label(self) -> str:
        return self.members[-1].label()


@dataclass(frozen=True)
class PersistentLoop:
    """A serial loop over the outer part of an axis whose inner part is a block index: each block
    walks tiles ``tile = i * blocks + blockIdx``; a tile past ``extent`` is skipped."""

    group: LoopGroup
    tile: Val
    extent: Val

    def past_the_end(self) -> Val:
        return self.tile.ge(self.extent)


@dataclass
class IdModel:
    fusion: Fusion
    tensors: list[TensorView]                       # live tensors, topological order
    exprs: list[Expr]                               # their definitions
    groups: list[LoopGroup]
    group_of: dict[IterDomain, LoopGroup]
    exact: nx.Graph                                 # exact map: same index everywhere
    exact_class: dict[IterDomain, int]
    launch: dict[ParallelType, Val] = field(default_factory=dict)
    persistent: dict[int, PersistentLoop] = field(default_factory=dict)   # by loop-group number
    # producers computed in a pad's longer loops: the root axes predicated on their own extent (``padded_loops``)
    pad_bounded: dict[TensorView, tuple[IterDomain, ...]] = field(default_factory=dict)
    # views a load reads through (``fusion_ir.views.seen_through``): index maps of an input, never computed,
    # left out of ``tensors``; each with its chain
    views: dict[TensorView, ViewChain] = field(default_factory=dict)
    # reductions across lane groups of TIDx, by warp shuffles (``merge_lanes``)
    lane_reductions: dict[TensorView, LaneReduction] = field(default_factory=dict)
    # a reduction run as stream-K (``TensorView.stream_k``): its tile and K loop groups
    stream_k: StreamKLoops | None = None
    _concrete: dict[IterDomain, Val] = field(default_factory=dict)

    def group(self, i: IterDomain) -> LoopGroup:
        return self.group_of[i]

    def computed_producers(self, tv: TensorView) -> list[TensorView]:
        """The tensors ``tv`` reads that the kernel computes: not fusion inputs, nor views it reads through."""
        return [p for p in tv.producers() if not p.is_input and p not in self.views]

    def consumers(self, tv: TensorView) -> list[TensorView]:
        """The live tensors computed from ``tv``, in the fusion's expression order, each once.

        Lowering ignores dead tensors (those on no path to an output): ``TensorView.consumers``
        still lists them, so every lowering question about readers asks this instead."""
        out: list[TensorView] = []
        for e in self.exprs:
            if tv in e.inputs and e.output not in out:
                out.append(e.output)
        return out

    def loop_ids(self, tv: TensorView) -> list[IterDomain]:
        """tv's loop axes that become ForLoops, outermost first."""
        return [i for i in tv.loop if self.group(i).is_loop]

    def depth(self, tv: TensorView, pos: int) -> int:
        """How many ForLoops enclose position ``pos`` of tv's loop domain."""
        return len([i for i in tv.loop[:pos] if self.group(i).is_loop])

    def block_threads(self) -> Val:
        """Threads of the block the tensors are bound to (the compute threads of a warp-specialized kernel)."""
        return self.launch[ParallelType.TIDx] * self.launch[ParallelType.TIDy] * self.launch[ParallelType.TIDz]

    def launched_threads(self) -> Val:
        """Threads of the launched block: ``block_threads`` plus, when a load is warp-specialized, the
        producer warp group padded onto its ``on`` dimension (the warp_specialization analysis checks
        the padding's rules)."""
        ws = next((tv.circular_buffer_options.type for tv in self.tensors if tv.circular_buffer_options is not None
                   and isinstance(tv.circular_buffer_options.type, WarpSpecialized)), None)
        if ws is None:
            return self.block_threads()
        others = Val.const(1)
        for pt in THREAD_DIMS:
            if pt is not ws.on:
                others = others * self.launch[pt]
        n = others.const_value()
        group = current_target().warp_group_size
        if n is None or n > group or group % n:
            return self.block_threads()     # not paddable: the warp_specialization analysis raises
        return self.block_threads() + group

    def index_extent(self, tv: TensorView) -> Callable[[IterDomain], Val]:
        """The extents ``tv``'s indices are computed with: a broadcast axis inside one of its inlined loop
        axes (left of its compute-at position, a loop shared with the consumer that resolves it) spans its
        concrete extent there (``concrete_extent``); everywhere else an axis spans its own extent (a
        broadcast, 1), as ``tv``'s own loops and its allocation do."""
        inlined: set[IterDomain] = set()
        stack = list(tv.loop[:tv.compute_at_pos])
        while stack:
            x = stack.pop()
            if x in inlined:
                continue
            inlined.add(x)
            if x.definition is not None:
                stack.extend(x.definition.inputs)
        if not any(x.is_broadcast for x in inlined):
            return _own_extent
        return lambda i: self.concrete_extent(i) if i in inlined else i.extent

    def concrete_extent(self, i: IterDomain) -> Val:
        """Extent an axis spans in the loops: a broadcast axis takes the extent of the concrete
        axis it is exactly mapped to (the consumer axis that resolves it), and so does an axis made of one
        (a merge of a loop broadcast: a batched matmul operand's tile index, whose batch is merged outside)."""
        if i not in self.exact or not spans_broadcast(i):
            return i.extent
        if i not in self._concrete:
            # the first created of them (a component is a set: its order is not the same from run to run)
            concrete = sorted((j for j in nx.node_connected_component(self.exact, i)
                               if not spans_broadcast(j)), key=lambda j: j.name)
            self._concrete[i] = concrete[0].extent if concrete else i.extent
        return self._concrete[i]


def _own_extent(i: IterDomain) -> Val:
    return i.extent


def build(fusion: Fusion) -> IdModel:
    live = fusion.used_tensors()
    live_set = set(live)
    views = seen_through(live, lambda tv: [c for c in tv.consumers() if c in live_set])
    tensors = [tv for tv in live if tv not in views]
    computed = [tv for tv in tensors if not tv.is_input]
    _check_stores(computed)
    symbol_base = fusion._next_scalar

    exact = nx.Graph()
    loops = nx.Graph()
    order = {tv: k for k, tv in enumerate(tensors)}
    owner: dict[IterDomain, TensorView] = {}
    for tv in computed:
        for i in tv.loop:
            loops.add_node(i)
            owner[i] = tv
        exact.add_nodes_from(tv.loop)
    for consumer in computed:
        for producer in consumer.producers():
            if producer.is_input or producer in views:
                continue
            mapping = loop_map(producer, consumer)
            for p, c in mapping.items():
                exact.add_edge(p, c)
            for k in range(producer.compute_at_pos):
                p_id = producer.loop[k]
                c_id = mapping.get(p_id)
                if k >= consumer.ndim or c_id is not consumer.loop[k]:
                    target = consumer.loop[k].label() if k < consumer.ndim else "nothing"
                    raise LoweringError(
                        f"T{producer.name} is computed at position {producer.compute_at_pos} but its axis {k} "
                        f"({p_id.label()}) does not map to axis {k} of consumer T{consumer.name} ({target}); "
                        f"use compute_at to replay the consumer's transforms")
                loops.add_edge(p_id, c_id)
    exact_class = {i: k for k, comp in enumerate(nx.connected_components(exact)) for i in comp}

    groups: list[LoopGroup] = []
    group_of: dict[IterDomain, LoopGroup] = {}
    for number, component in enumerate(sorted(nx.connected_components(loops),
                                               key=lambda c: min(order[owner[i]] * 1000 + owner[i].loop.index(i)
                                                                 for i in c))):
        members = sorted(component, key=lambda i: (order[owner[i]], owner[i].loop.index(i)))
        pt = _group_parallel_type(members, owner)
        # a broadcast axis shares the loop of the concrete axes it is resolved with
        extent = ([i for i in members if not i.is_broadcast] or members)[-1].extent
        if pt.is_grid_or_thread:
            index = Val.symbol(pt.cuda_index)
        else:
            index = Val.symbol(f"i{symbol_base + number}")
        if pt.is_block and pt is not ParallelType.BIDz:   # BIDz: a grid reduction (``lowering/grid_reduction.py``)
            reductions = [i for i in members if i.is_reduction]
            if reductions:
                # A producer's block binding reaches a consumer's reduction axis through a shared loop.
                raise LoweringError(f"reduction axis {reductions[0].label()} of T{owner[reductions[0]].name} shares "
                                    f"its loop with an axis bound to {pt.name} "
                                    f"({', '.join(f'T{owner[i].name} {i.label()}' for i in members)}); grid "
                                    f"reductions are not supported on {pt.name} (only on BIDz): do not inline "
                                    f"producers into a reduction axis that another tensor binds to a block index")
        group = LoopGroup(number, members, pt, extent, index)
        if group.is_broadcast:
            group.index = Val.const(0)
        groups.append(group)
        for i in members:
            group_of[i] = group
    model = IdModel(fusion, tensors, [tv.definition for tv in computed], groups, group_of, exact, exact_class,
                    views=views)

    for tv in computed:
        seen: dict[ParallelType, IterDomain] = {}
        for i in tv.loop:
            pt = model.group(i).parallel_type
            if pt.is_grid_or_thread:
                if pt in seen:
                    raise LoweringError(f"T{tv.name}: axes {seen[pt].label()} and {i.label()} are both bound to "
                                        f"{pt.name} after parallel types propagate across compute_at")
                seen[pt] = i

    for tv in computed:
        check_order(tv, lambda i: model.group(i).parallel_type)
    model.lane_reductions = lane_reductions.find(computed, lambda i: model.group(i).parallel_type)
    broadcast_loops.check(computed, lambda i: model.group(i).parallel_type)
    _check_cross_thread_reads(model, computed)
    _check_vectorized_axes_are_contiguous(computed, views)

    for pt in PARALLEL_LAUNCH:
        extents: list[Val] = []
        for g in groups:
            if g.parallel_type is pt and not g.is_broadcast and g.extent not in extents:
                extents.append(g.extent)
        dim = Val.const(1)
        for e in extents:
            dim = e if dim == Val.const(1) else vmax(dim, e)
        if extents and any(_has_work_without(model, tv, pt) for tv in computed if tv.is_output):
            # an output with no iteration axis bound here still has elements when these extents are 0 (the
            # index-0 threads or blocks write it; a reduction over an empty axis writes its init): at least
            # one index is launched, and the empty axes are predicated off
            dim = vmax(Val.const(1), dim)
        model.launch[pt] = _whole_clusters(fusion, pt, dim)
    model.stream_k = _stream_k_loops(model, fusion)
    _check_cross_block_reads_of_outputs(model, computed)
    lane_reductions.check_whole_warps(model.lane_reductions, model.launch[ParallelType.TIDx])
    model.persistent = _persistent_loops(model)
    model.pad_bounded = pad_bounded_roots(model.tensors, model.group)
    return model


@dataclass(frozen=True)
class StreamKLoops:
    """A stream-K decomposition's loop groups: ``tiles`` and ``k`` run per-block ranges (``fusion_ir/stream_k.py``);
    the grid along blockIdx.x is its ``blocks``."""

    plan: StreamK
    tiles: LoopGroup
    k: LoopGroup

    def space(self) -> StreamKSpace:
        return self.plan.space(self.tiles.extent, self.k.extent)

    def tile_range(self) -> tuple[Val, Val]:
        sk, b = self.space(), Val.symbol("blockIdx.x")
        return sk.tile_begin(b), sk.tile_end(b)

    def k_range(self) -> tuple[Val, Val]:
        sk, b = self.space(), Val.symbol("blockIdx.x")
        return sk.k_begin(b, self.tiles.index), sk.k_end(b, self.tiles.index)


def _stream_k_loops(model: IdModel, fusion: Fusion) -> StreamKLoops | None:
    """The loops of ``fusion.stream_k``; its blocks become the launch's blockIdx.x."""
    plan = fusion.stream_k
    if plan is None:
        return None
    tiles, k = model.group_of.get(plan.tiles), model.group_of.get(plan.k)
    if tiles is None or k is None or not tiles.is_loop or not k.is_loop:
        raise LoweringError(f"T{plan.tensor_name}: its stream-K axes {plan.tiles.label()} and {plan.k.label()} are "
                            f"not both loops of the kernel")
    others = [pt.name for pt in (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz)
              if model.launch[pt].const_value() != 1]
    if others:
        raise LoweringError(f"T{plan.tensor_name}: stream-K deals its iterations out along blockIdx.x, but a tensor "
                            f"binds an axis to {', '.join(others)}: bind no axis to a block index")
    model.launch[ParallelType.BIDx] = Val.const(plan.blocks)
    return StreamKLoops(plan, tiles, k)


def _whole_clusters(fusion: Fusion, pt: ParallelType, dim: Val) -> Val:
    """A grid dimension rounded up to a multiple of the fusion's cluster along it (``Fusion.set_cluster_dims``):
    a cluster launch takes whole clusters. The blocks past the axis's extent are then predicated off like any
    launch padding (their tiles are out of bounds), but still take their part in the cluster's multicasts."""
    if not pt.is_block:
        return dim
    n = fusion.cluster_dims[(ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz).index(pt)]
    return dim if n == 1 else ceil_div(dim, n) * n


def _has_work_without(model: IdModel, tv: TensorView, pt: ParallelType) -> bool:
    """``tv`` binds no iteration axis to ``pt``: its elements do not depend on that launch extent."""
    return not any(model.group(i).parallel_type is pt and not i.is_reduction and not i.is_broadcast
                   for i in tv.loop)


def _persistent_loops(model: IdModel) -> dict[int, PersistentLoop]:
    """Serial loops over the outer part of a split whose inner part is bound to a block index and
    that may not divide its input: tiles past the end exist and are skipped."""
    found: dict[int, PersistentLoop] = {}
    for g in model.groups:
        if not g.is_loop or g.number in found:
            continue
        # the consumer-most member first: a producer's copy of the axis may come from a loop broadcast
        # (a matmul operand lacks one of the tile's dimensions), whose extent is not the tile count
        for i in reversed(g.members):
            tile = _tile_of(model, i, g.index)
            if tile is DIVIDES:          # the consumer's tiles divide among the blocks: none past the end
                break
            if tile is not None:
                found[g.number] = PersistentLoop(g, *tile)
                break
    return found


DIVIDES = ("divides",)   # _tile_of: a block split that divides its input (no tile past the end)


def _tile_of(model: IdModel, i: IterDomain, index: Val, exact: bool = False) -> tuple[Val, Val] | tuple[str] | None:
    """The tile of outer split part ``i`` (at ``index``) when the splits below it end in a block index:
    ``[T / B, B (BIDx)]``, or ``[T / B / W, W (a thread index), B (BIDx)]`` where each index of a thread
    dimension that warp groups are specialized on takes its own tiles (they take turns), and the block's
    first thread's tile stands for the block's otherwise: the tile index and the tile count; None when
    there is none, ``DIVIDES`` when every split divides (a producer's broadcast copy of the axis further
    on must not stand in for it: its extent is not the tile count). ``exact``: a split above this one does not
    divide (``T / B`` tiles per block dealt to ``W`` warp groups leave slots past the end even where ``B``
    divides ``T``), so the tile is returned whether the block split divides or not."""
    split = i.definition
    if not isinstance(split, Split) or i is not split.outer:
        return None
    inner = model.group_of.get(split.inner)
    if inner is None:
        return None
    tile = index * split.inner.extent + inner.index
    n, width = split.input.extent.const_value(), split.inner.extent.const_value()
    divides = n is not None and width is not None and n % width == 0
    if inner.parallel_type.is_block:
        return DIVIDES if divides and not exact else (tile, split.input.extent)
    if inner.parallel_type.is_thread:
        if inner.parallel_type not in _warp_group_turns(model):
            # the block's threads walk the tiles together (they meet at block barriers): the block skips a
            # tile when its first thread's is past the end, the others' elements are predicated off
            tile = index * split.inner.extent
        return _tile_of(model, split.input, tile, exact or not divides)
    return None


def _warp_group_turns(model: IdModel) -> set[ParallelType]:
    """The thread dimensions warp-specialized loads are specialized on: their compute warp groups take turns
    (each index its own tiles) and synchronize per index, never as a whole block."""
    return {tv.circular_buffer_options.type.on for tv in model.tensors
            if tv.circular_buffer_options is not None and isinstance(tv.circular_buffer_options.type, WarpSpecialized)}


def _check_stores(computed: list[TensorView]) -> None:
    """A TMA store writes a fusion output; stmatrix, cp.async and TMA loads write shared memory."""
    for tv in computed:
        kind = load_kind(tv)
        if kind is LoadStoreOpType.TMAStore and not tv.is_output:
            raise LoweringError(f"T{tv.name} is written by a TMA store, which writes a fusion output in global "
                                f"memory; T{tv.name} is an intermediate")
        if kind is LoadStoreOpType.StMatrix and tv.memory_type is not MemoryType.Shared:
            raise LoweringError(f"T{tv.name} is written by stmatrix, which stores to shared memory; T{tv.name} is "
                                f"in {tv.memory_type.name} memory")
        if kind in (LoadStoreOpType.CpAsync, LoadStoreOpType.TMA) and tv.memory_type is not MemoryType.Shared:
            raise LoweringError(f"T{tv.name} is loaded by {kind.name}, which copies global memory into shared "
                                f"memory; T{tv.name} is in {tv.memory_type.name} memory (a cache_before of a loaded "
                                f"tensor takes its load): set_memory_type(MemoryType.Shared) or load it with Set")


def _check_cross_thread_reads(model: IdModel, computed: list[TensorView]) -> None:
    """A consumer reads a producer element written by another thread or block only through memory they share.

    A producer axis bound to a thread index that does not share its IterDomain (and binding) with a
    consumer axis is written by one thread and read by others: the producer must be in Shared (or,
    for a fusion output, Global) memory. Across blocks no memory is shared without a grid sync, so a
    block binding must be shared.
    """
    for consumer in computed:
        if load_kind(consumer) is LoadStoreOpType.StMatrix:
            continue   # stmatrix moves registers between the lanes of a warp: the instruction does the exchange
        # a tensor-core instruction reads a register operand from every lane of the warp group that issues it
        # (the ``mma`` analysis checks that the operand is laid out as its fragment)
        register_operand = any(model.group(i).parallel_type is ParallelType.Mma for i in consumer.loop)
        for producer in model.computed_producers(consumer):
            mapping = loop_map(producer, consumer)
            for p in producer.loop:
                group = model.group(p)
                pt = group.parallel_type
                if not pt.is_grid_or_thread or group.is_broadcast:
                    continue
                if p.is_reduction:
                    # in Shared memory, each group's result is read by any thread after the block's barrier
                    if lane_group(p) is not None and producer.memory_type is MemoryType.Local:
                        _check_lane_group_read(model, producer, consumer, p, mapping)
                    continue  # a block reduction leaves its result in every thread (of its lane group)
                c = mapping.get(p)
                if c is not None and c in consumer.loop and model.group(c).parallel_type is pt:
                    _check_resolved_broadcast(model, producer, consumer, p, c, pt)
                    continue
                if pt.is_thread and producer.memory_type in (MemoryType.Shared, MemoryType.Global):
                    continue  # the syncs pass orders the block's threads
                if pt.is_thread and broadcast_loops.same_thread(producer, consumer, p, mapping,
                                                                lambda i: model.group(i).parallel_type):
                    continue  # every thread of a loop broadcast holds the value in its registers
                if register_operand and pt is ParallelType.TIDx and producer.memory_type is MemoryType.Local:
                    continue
                where = "the same block" if pt.is_block else "a thread of the same block"
                fix = ("bind the consumer's matching axis to the same index (e.g. parallelize_like) or do not "
                       "bind this axis" if pt.is_block else "put the producer in Shared memory or bind the "
                       "consumer's matching axis to the same index")
                raise LoweringError(f"T{producer.name} axis {p.label()} is bound to {pt.name}, but consumer "
                                    f"T{consumer.name} has no axis mapped to it with the same binding, so it reads "
                                    f"elements that {where} did not write ({producer.memory_type.name} memory of "
                                    f"T{producer.name}); {fix}{broadcast_loops.describe(producer, p)}")


def _check_lane_group_read(model: IdModel, producer: TensorView, consumer: TensorView, p: IterDomain,
                           mapping: dict[IterDomain, IterDomain]) -> None:
    """A lane-group reduction (``merge_lanes``) leaves its result in the lanes of each group only: the consumer's
    thread index must merge the same row axes with as many lanes (its columns, or a broadcast of them), so thread
    ``t`` reads the group of ``t``."""
    merge = p.definition
    assert isinstance(merge, Merge)
    rows = mapping.get(merge.outer)
    for c in consumer.loop:
        d = c.definition
        if (model.group(c).parallel_type is model.group(p).parallel_type and isinstance(d, Merge)
                and rows is not None and d.outer is rows and d.inner.extent == merge.inner.extent):
            return
    raise LoweringError(f"T{consumer.name} reads T{producer.name}, a reduction across lane groups ({p.label()}: "
                        f"{merge.outer.label()} merged with {merge.inner.extent} lanes), which leaves each row's "
                        f"result in the lanes of its group only; bind T{consumer.name}'s "
                        f"{model.group(p).parallel_type.name} to the same rows merged with "
                        f"{merge.inner.extent} lanes (schedule_mma_fragment, or transform_like the reduction's "
                        f"layout)")


def _check_resolved_broadcast(model: IdModel, producer: TensorView, consumer: TensorView, p: IterDomain,
                              c: IterDomain, pt: ParallelType) -> None:
    """``p`` and ``c`` share a binding, but ``p`` is made from a broadcast that ``c`` resolves: outside the
    consumer's loops ``p``'s indices span its own extent, so the thread or block with index ``k`` of ``c`` is
    not the one that computed the element it reads. Through shared memory another thread of the block has
    it; in registers, or across blocks, no one does."""
    if model.group(p) is model.group(c) or not spans_broadcast(p) or p.extent == model.group(c).extent:
        return
    if pt.is_thread and producer.memory_type is not MemoryType.Local:
        return
    raise LoweringError(f"T{producer.name} axis {p.label()} is bound to {pt.name} and made from a broadcast that "
                        f"consumer T{consumer.name} resolves ({c.label()}, in a loop of {model.group(c).extent}): computed outside T{consumer.name}'s "
                        f"loops, index k of {pt.name} holds element k of {p.extent} elements of "
                        f"T{producer.name}, not the element T{consumer.name} reads there "
                        f"({producer.memory_type.name} memory); compute T{producer.name} inside that axis "
                        f"(compute_at past it, inline_most) or bind the axis only where the broadcast is resolved")


def _check_cross_block_reads_of_outputs(model: IdModel, computed: list[TensorView]) -> None:
    """A fusion output read inside the kernel is read only by the block that wrote the element.

    An output not bound to a launched block index is written by the blocks with that index 0 alone
    (the others are predicated off), so a consumer in any other block would read it unwritten:
    there is no grid-wide sync to wait for block 0.
    """
    for consumer in computed:
        for producer in model.computed_producers(consumer):
            if producer.memory_type is not MemoryType.Global:
                continue
            mapping = loop_map(producer, consumer)
            for pt in (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz):
                if model.launch[pt] == Val.const(1):
                    continue
                if any(model.group(p).parallel_type is pt and mapping.get(p) in consumer.loop
                       and model.group(mapping[p]).parallel_type is pt for p in producer.loop):
                    continue
                raise LoweringError(f"T{producer.name} is a fusion output that T{consumer.name} reads, but no axis "
                                    f"of T{producer.name} bound to {pt.name} is shared with T{consumer.name}: only "
                                    f"blocks with {pt.cuda_index} == 0 write T{producer.name}, and blocks cannot wait "
                                    f"for each other; bind T{producer.name} like its consumer (parallelize_like)")


def _check_vectorized_axes_are_contiguous(computed: list[TensorView], views: dict[TensorView, ViewChain]) -> None:
    """A Vectorize axis covers consecutive elements: inner splits of the tensor's innermost axis only. A
    MisalignedVectorize one too, and its elements are predicated one by one, so its pieces need not divide what
    they split; it reads a fusion input itself, not a view of one."""
    for tv in computed:
        innermost = _contiguous_axis(tv)
        for i in tv.loop:
            if not i.parallel_type.vectorizes:
                continue
            misaligned = i.parallel_type is ParallelType.MisalignedVectorize
            if misaligned and tv.memory_type is not MemoryType.Shared:
                raise LoweringError(f"T{tv.name}: MisalignedVectorize axis {i.label()} copies into "
                                    f"{tv.memory_type.name} memory; a misaligned vector is stored whole into shared "
                                    f"memory (set_memory_type(MemoryType.Shared), or Vectorize an aligned copy)")
            if misaligned and tv.definition.inputs[0] in views:
                raise LoweringError(f"T{tv.name}: MisalignedVectorize axis {i.label()} copies a view "
                                    f"(T{tv.definition.inputs[0].name}) of a fusion input; a misaligned vector copies "
                                    f"the input itself (use Vectorize, or plain copies, for a view)")
            x = i
            while x is not innermost and isinstance(x.definition, Split) and x is x.definition.inner:
                split = x.definition
                parent, width = split.input.extent.const_value(), x.extent.const_value()
                if not misaligned and split.input is not innermost and \
                        (parent is None or width is None or parent % width != 0):
                    raise LoweringError(f"T{tv.name}: Vectorize axis {i.label()} comes from splitting "
                                        f"{split.input.label()} into pieces of {x.extent}, which do not divide it: "
                                        f"a vector would run past its end")
                x = split.input
            if x is not innermost:
                raise LoweringError(f"T{tv.name}: Vectorize axis {i.label()} does not cover consecutive elements; "
                                    f"vectorize only the inner part of splits of the innermost axis "
                                    f"{innermost.label() if innermost is not None else '(none)'}")
            _check_vector_source_is_contiguous(tv, i, innermost)
            _check_vector_of_a_view(tv, i, innermost, views)


def _contiguous_axis(tv: TensorView) -> IterDomain | None:
    """The logical axis along which consecutive elements of ``tv``'s source lie: its innermost, or for a permuted
    copy of a fusion input (read in place), the axis that input's innermost maps to."""
    materialized = [i for i in tv.logical if not i.is_reduction and not i.is_broadcast]
    innermost = materialized[-1] if materialized else None
    d = tv.definition
    if not isinstance(d, LoadStoreOp) or d.permutation is None or tv.memory_type is not MemoryType.Shared:
        return innermost
    (source,) = d.tensor_inputs()
    dims = [i for i in source.logical if not i.is_reduction and not i.is_broadcast]
    if not source.is_input or not dims:
        return innermost
    return next((c for c, p in d.root_map(source).items() if p is dims[-1]), innermost)


def _check_vector_source_is_contiguous(tv: TensorView, axis: IterDomain, innermost: IterDomain | None) -> None:
    """A permuted copy reads its input's element at the permuted position: a vector of it is a vector of the input
    only when its innermost axis is the input's innermost."""
    d = tv.definition
    if not isinstance(d, LoadStoreOp) or d.permutation is None or innermost is None:
        return
    (source,) = d.tensor_inputs()
    dims = [i for i in source.logical if not i.is_reduction and not i.is_broadcast]
    read = d.root_map(source).get(innermost)
    if read is None or (dims and read is dims[-1]):
        return
    raise LoweringError(f"T{tv.name}: Vectorize axis {axis.label()} runs along {innermost.label()}, which permutes "
                        f"axis {source.logical.index(read)} ({read.label()}) of T{source.name}, not its innermost "
                        f"axis: consecutive elements of T{tv.name} are strided in T{source.name}; vectorize a tensor "
                        f"whose innermost axis is the innermost of what it reads")


def _check_vector_of_a_view(tv: TensorView, axis: IterDomain, innermost: IterDomain | None,
                            views: dict[TensorView, ViewChain]) -> None:
    """A load of a view chain reads its source through the views: a vector of it is a vector of the source only
    when its elements are consecutive along the source's innermost dimension (``ViewChain.span``), which no pad
    pads (a vector is inside a pad's input whole or not at all only when it is not padded along)."""
    d = tv.definition
    if not isinstance(d, LoadStoreOp) or innermost is None or d.inputs[0] not in views:
        return
    chain = views[d.inputs[0]]
    end_axis = d.root_map(chain.end)[innermost]
    width = axis.extent.const_value() or 1
    span = chain.span(end_axis, width)
    last = chain.source.shape_ids[-1]
    if isinstance(span, str) or [dim for dim, _ in span] not in ([], [last]):
        why = span if isinstance(span, str) else f"they run along {', '.join(x.label() for x, _ in span)}"
        raise LoweringError(f"T{tv.name}: Vectorize axis {axis.label()} reads {width} consecutive elements of "
                            f"{end_axis.label()} of T{chain.end.name}, a view of T{chain.source.name}, which are not "
                            f"consecutive along T{chain.source.name}'s innermost dimension {last.label()}: {why}")
    for pad in chain.pads:
        x = pad.inputs[0]
        for (before, after), i in zip(pad.pads, x.shape_ids):
            if (before.const_value(), after.const_value()) != (0, 0) and chain.source_axis(x, i) is last:
                raise LoweringError(f"T{tv.name}: Vectorize axis {axis.label()} runs along {last.label()} of "
                                    f"T{chain.source.name}, which T{pad.output.name} pads: a vector could be partly "
                                    f"padding; vectorize along an axis no pad pads")


def _group_parallel_type(members: list[IterDomain], owner: dict[IterDomain, TensorView]) -> ParallelType:
    bound: dict[ParallelType, IterDomain] = {}
    for i in members:
        if i.parallel_type is not ParallelType.Serial:
            bound.setdefault(i.parallel_type, i)
    if len(bound) > 1:
        desc = ", ".join(f"T{owner[i].name} {i.label()} is {pt.name}" for pt, i in bound.items())
        raise LoweringError(f"conflicting parallel bindings on one shared loop: {desc}")
    if not bound:
        return ParallelType.Serial
    return next(iter(bound))
