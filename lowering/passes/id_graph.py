"""IterDomain graph: exact and loop maps between producer and consumer domains.

Reads: the scheduled fusion.
Writes: ``ctx.tensors`` (live tensors in topological order), ``ctx.exprs``, the loop groups
(``ctx.groups``, ``ctx.group_of``) with their parallel type, extent and index symbol, the
exact-map graph in ``ctx.notes['exact_graph']`` and the launch extents in ``ctx.launch``.
Guarantees: every producer's first ``ca_pos`` loop axes map exactly onto its consumers'
axes at the same positions; each loop group has at most one parallel binding (a shared
axis takes its consumer's binding); no tensor binds one thread or block index twice.
"""

from __future__ import annotations

import networkx as nx

from fusion_ir import IterDomain, MemoryType, ParallelType, Split
from fusion_ir.replay import loop_map
from fusion_ir.scalar import Val, vmax

from ..context import PARALLEL_LAUNCH, LoopGroup, LoweringContext
from ..errors import LoweringError
from ..kernel_ir import Kernel


def run(kernel: Kernel, ctx: LoweringContext) -> Kernel:
    fusion = ctx.fusion
    ctx.tensors = fusion.used_tensors()
    computed = [tv for tv in ctx.tensors if not tv.is_input]
    ctx.exprs = [tv.definition for tv in computed]
    ctx.loop_symbol_base = fusion._next_scalar

    exact = nx.Graph()
    loops = nx.Graph()
    order = {tv: k for k, tv in enumerate(ctx.tensors)}
    owner: dict[IterDomain, object] = {}
    for tv in computed:
        for i in tv.loop:
            loops.add_node(i)
            owner[i] = tv
        exact.add_nodes_from(tv.loop)
    for consumer in computed:
        for producer in consumer.producers():
            if producer.is_input:
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
    ctx.notes["exact_graph"] = exact
    ctx.notes["exact_class"] = {i: k for k, comp in enumerate(nx.connected_components(exact)) for i in comp}

    for number, component in enumerate(sorted(nx.connected_components(loops),
                                               key=lambda c: min(order[owner[i]] * 1000 + owner[i].loop.index(i)
                                                                 for i in c))):
        members = sorted(component, key=lambda i: (order[owner[i]], owner[i].loop.index(i)))
        pt = _group_parallel_type(members, owner)
        # a broadcast axis shares the loop of the concrete axes it is resolved with
        extent = ([i for i in members if not i.is_broadcast] or members)[-1].extent
        if pt in (ParallelType.Serial, ParallelType.Unroll, ParallelType.Vectorize):
            index = Val.symbol(f"i{ctx.loop_symbol_base + number}")
        elif pt.is_grid_or_thread:
            index = Val.symbol(pt.cuda_index)
        else:
            index = Val.symbol(f"i{ctx.loop_symbol_base + number}")
        if pt.is_block:
            reductions = [i for i in members if i.is_reduction]
            if reductions:
                # A producer's block binding reaches a consumer's reduction axis through a shared loop.
                raise LoweringError(f"reduction axis {reductions[0].label()} of T{owner[reductions[0]].name} shares "
                                    f"its loop with an axis bound to {pt.name} "
                                    f"({', '.join(f'T{owner[i].name} {i.label()}' for i in members)}); grid "
                                    f"reductions are not supported: do not inline producers into a reduction axis "
                                    f"that another tensor binds to a block index")
        group = LoopGroup(number, members, pt, extent, index)
        if group.is_broadcast:
            group.index = Val.const(0)
        ctx.groups.append(group)
        for i in members:
            ctx.group_of[i] = group

    for tv in computed:
        seen: dict[ParallelType, IterDomain] = {}
        for i in tv.loop:
            pt = ctx.group(i).parallel_type
            if pt.is_grid_or_thread:
                if pt in seen:
                    raise LoweringError(f"T{tv.name}: axes {seen[pt].label()} and {i.label()} are both bound to "
                                        f"{pt.name} after parallel types propagate across compute_at")
                seen[pt] = i

    _check_cross_thread_reads(ctx, computed)
    _check_vectorized_axes_are_contiguous(computed)

    for pt in PARALLEL_LAUNCH:
        extents: list[Val] = []
        for g in ctx.groups:
            if g.parallel_type is pt and not g.is_broadcast and g.extent not in extents:
                extents.append(g.extent)
        dim = Val.const(1)
        for e in extents:
            dim = e if dim == Val.const(1) else vmax(dim, e)
        ctx.launch[pt] = dim
    _check_cross_block_reads_of_outputs(ctx, computed)
    return kernel


def _check_cross_thread_reads(ctx: LoweringContext, computed: list) -> None:
    """A consumer reads a producer element written by another thread or block only through memory they share.

    A producer axis bound to a thread index that does not share its IterDomain (and binding) with a
    consumer axis is written by one thread and read by others: the producer must be in Shared (or,
    for a fusion output, Global) memory. Across blocks no memory is shared without a grid sync, so a
    block binding must be shared.
    """
    for consumer in computed:
        for producer in consumer.producers():
            if producer.is_input:
                continue
            mapping = loop_map(producer, consumer)
            for p in producer.loop:
                group = ctx.group(p)
                pt = group.parallel_type
                if not pt.is_grid_or_thread or group.is_broadcast or p.is_reduction:
                    continue  # a block reduction leaves its result in every thread
                c = mapping.get(p)
                if c is not None and c in consumer.loop and ctx.group(c).parallel_type is pt:
                    continue
                if pt.is_thread and producer.memory_type in (MemoryType.Shared, MemoryType.Global):
                    continue  # the syncs pass orders the block's threads
                where = "the same block" if pt.is_block else "a thread of the same block"
                fix = ("bind the consumer's matching axis to the same index (e.g. parallelize_like) or do not "
                       "bind this axis" if pt.is_block else "put the producer in Shared memory or bind the "
                       "consumer's matching axis to the same index")
                raise LoweringError(f"T{producer.name} axis {p.label()} is bound to {pt.name}, but consumer "
                                    f"T{consumer.name} has no axis mapped to it with the same binding, so it reads "
                                    f"elements that {where} did not write ({producer.memory_type.name} memory of "
                                    f"T{producer.name}); {fix}")


def _check_cross_block_reads_of_outputs(ctx: LoweringContext, computed: list) -> None:
    """A fusion output read inside the kernel is read only by the block that wrote the element.

    An output not bound to a launched block index is written by the blocks with that index 0 alone
    (the others are predicated off), so a consumer in any other block would read it unwritten:
    there is no grid-wide sync to wait for block 0.
    """
    for consumer in computed:
        for producer in consumer.producers():
            if producer.is_input or producer.memory_type is not MemoryType.Global:
                continue
            mapping = loop_map(producer, consumer)
            for pt in (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz):
                if ctx.launch[pt] == Val.const(1):
                    continue
                if any(ctx.group(p).parallel_type is pt and mapping.get(p) in consumer.loop
                       and ctx.group(mapping[p]).parallel_type is pt for p in producer.loop):
                    continue
                raise LoweringError(f"T{producer.name} is a fusion output that T{consumer.name} reads, but no axis "
                                    f"of T{producer.name} bound to {pt.name} is shared with T{consumer.name}: only "
                                    f"blocks with {pt.cuda_index} == 0 write T{producer.name}, and blocks cannot wait "
                                    f"for each other; bind T{producer.name} like its consumer (parallelize_like)")


def _check_vectorized_axes_are_contiguous(computed: list) -> None:
    """A Vectorize axis covers consecutive elements: inner splits of the tensor's innermost axis only."""
    for tv in computed:
        materialized = [i for i in tv.logical if not i.is_reduction and not i.is_broadcast]
        innermost = materialized[-1] if materialized else None
        for i in tv.loop:
            if i.parallel_type is not ParallelType.Vectorize:
                continue
            x = i
            while x is not innermost and isinstance(x.definition, Split) and x is x.definition.inner:
                split = x.definition
                parent, width = split.input.extent.const_value(), x.extent.const_value()
                if split.input is not innermost and (parent is None or width is None or parent % width != 0):
                    raise LoweringError(f"T{tv.name}: Vectorize axis {i.label()} comes from splitting "
                                        f"{split.input.label()} into pieces of {x.extent}, which do not divide it: "
                                        f"a vector would run past its end")
                x = split.input
            if x is not innermost:
                raise LoweringError(f"T{tv.name}: Vectorize axis {i.label()} does not cover consecutive elements; "
                                    f"vectorize only the inner part of splits of the innermost axis "
                                    f"{innermost.label() if innermost is not None else '(none)'}")


def _group_parallel_type(members: list[IterDomain], owner: dict) -> ParallelType:
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
