"""Loop nest: one ForLoop per loop group, shared where compute-at positions say so.

Reads: the ``ids`` analysis (loop groups), compute-at positions.
Writes: the kernel body as nested ``ForLoop``s holding ``TensorOp``s (compute, reduction
init and block-reduce steps).
A persistent loop (``ids.persistent``) starts with ``if (tile >= extent) continue;``. The tile and K loops of a
stream-K reduction (``ids.stream_k``) run the block's range of tiles and its segment's K tiles
(``fusion_ir/stream_k.py``), and the reduction's fix-up step (``lowering/stream_k.py``) follows its K loop.
Guarantees: Bulk, thread/block-parallel and broadcast axes are not loops; producers come
before consumers; a producer computed at position k shares exactly its consumers' first
k loops; a reduction's init (a scan's: of its carry) precedes its outermost serial running loop
(``running_axes``) and its block
reduction follows it, as does the write of a Half or BFloat16 serial reduction's result from its
float accumulator (``finalize``).
A rescaled sum that a tensor-core accumulator accumulates into in place (``TensorCores.accumulated_in``) takes
the place of the accumulator's init: its step (with the tensors computed in its loops) comes first in the loop
of its summed axis, before the matmul's loops, as the rescale of the registers the matmul then accumulates into.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fusion_ir import MemoryType, ParallelType, TensorView
from fusion_ir.exprs import reduces, reduction_init, scans
from fusion_ir.printer import expr_rhs
from fusion_ir.scalar import Val

from ..analysis import Analyses, IdModel
from ..analysis.buffers import accumulates_in_float, has_block_reduction, has_grid_reduction
from ..analysis.id_model import LoopGroup
from ..emission_order import emission_order
from ..errors import LoweringError
from ..kernel_ir import Continue, ForLoop, IfThenElse, Kernel, TensorOp, TensorOpKind
from ..running_axes import carries, runs_along
from ..uniform_index import uniform_index


@dataclass(eq=False)
class _Loop:
    group: LoopGroup
    items: list = field(default_factory=list)
    scope: list | None = None       # the statement list holding this loop


def run(kernel: Kernel, a: Analyses) -> Kernel:
    ids = a.ids
    root: list = []
    op_loops: dict[TensorView, list[_Loop]] = {}
    for tv in emission_order(ids.tensors):
        op_loops[tv] = _place(ids, root, tv)
    _check_sharing(ids, op_loops)
    for acc, total in a.tensor_cores.rescaled_in_place.items():
        _rescale_before_matmul(root, acc, total)
    from dataclasses import replace

    return replace(kernel, body=tuple(_freeze(ids, item) for item in root))


def skip_past_the_end(cond) -> IfThenElse:
    """``if (tile >= extent) continue;``: a persistent loop's tiles past the end are skipped."""
    return IfThenElse(cond, (Continue(),))


def is_reduction_like(tv: TensorView) -> bool:
    return reduces(tv.definition)


def _op(tv: TensorView, kind: TensorOpKind) -> TensorOp:
    if kind is TensorOpKind.Init:
        carry = "_carry" if scans(tv.definition) else ""
        text = f"T{tv.name}{carry} = {reduction_init(tv.definition)}"
    elif kind is TensorOpKind.BlockReduce:
        text = f"T{tv.name} = blockReduce(T{tv.name})"
    elif kind is TensorOpKind.GridReduce:
        text = f"T{tv.name} = gridReduce(T{tv.name})"
    elif kind is TensorOpKind.Finalize:
        text = f"T{tv.name} = T{tv.name}_acc"
    elif kind is TensorOpKind.StreamKFixup:
        text = f"T{tv.name} = streamKFixup(T{tv.name})"
    else:
        rhs = expr_rhs(tv.definition).replace("\n", " ")
        rhs = " ".join(rhs.split())
        op = "+=" if is_reduction_like(tv) else "="
        text = f"T{tv.name} {op} {rhs}"
    return TensorOp(tv=tv, kind=kind, text=text, expr=tv.definition)


def _place(ids: IdModel, root: list, tv: TensorView) -> list[_Loop]:
    path_ids = ids.loop_ids(tv)
    scope = root
    chain: list[_Loop] = []
    scopes: list[list] = []
    for i in path_ids:
        g = ids.group(i)
        if scope and isinstance(scope[-1], _Loop) and scope[-1].group is g:
            node = scope[-1]
        else:
            node = _Loop(g, scope=scope)
            scope.append(node)
        scopes.append(scope)
        chain.append(node)
        scope = node.items
    scope.append(_op(tv, TensorOpKind.Compute))
    if not carries(tv):
        return chain

    first_red = next((k for k, i in enumerate(path_ids) if runs_along(tv, i)), None)
    closing = _closing_kind(ids, tv)
    if first_red is None:
        scope.insert(len(scope) - 1, _op(tv, TensorOpKind.Init))
        if closing is TensorOpKind.GridReduce:
            _check_grid_reduction_scope(tv, chain)
        if closing is not None:
            scope.append(_op(tv, closing))
        if closing is TensorOpKind.GridReduce and _partial_apart(tv):
            scope.append(_op(tv, TensorOpKind.Finalize))
        return chain
    outer_scope = scopes[first_red]
    red_loop = chain[first_red]
    inner_iteration = [ids.group(i) for i in path_ids[first_red + 1:] if not runs_along(tv, i)]
    at = outer_scope.index(red_loop)
    outer_scope.insert(at, _nest(inner_iteration, _op(tv, TensorOpKind.Init)))
    if closing is TensorOpKind.GridReduce:
        # one step for the thread's whole partial (every register of it), right after the reduction loop; a
        # partial held apart from the tensor is then written to it, in the last block (the pass moves it there)
        _check_grid_reduction_scope(tv, chain[:first_red])
        at = outer_scope.index(red_loop) + 1
        outer_scope.insert(at, _op(tv, closing))
        if _partial_apart(tv):
            outer_scope.insert(at + 1, _nest(inner_iteration, _op(tv, TensorOpKind.Finalize)))
    elif closing is not None:
        at = outer_scope.index(red_loop)
        outer_scope.insert(at + 1, _nest(inner_iteration, _op(tv, closing)))
    if ids.stream_k is not None and red_loop.group is ids.stream_k.k:
        # the tile's partials summed across blocks, right after the segment's K loop (``lowering/stream_k.py``)
        if closing is not None:
            raise LoweringError(f"T{tv.name}: a stream-K reduction sums in its own registers; a block or grid "
                                f"reduction or a separate accumulator after it is not implemented")
        outer_scope.insert(outer_scope.index(red_loop) + 1, _op(tv, TensorOpKind.StreamKFixup))
    return chain


def _rescale_before_matmul(root: list, acc: TensorView, total: TensorView) -> None:
    """Put ``total``'s step (the nest of its loops inside the scope of ``acc``'s init) where ``acc``'s init is, with
    the statements of that scope between them that compute the scale (tensors ``total`` reads other than through
    ``acc``), in their order; the matmul's statements follow them."""
    scope = _scope_of(root, acc, TensorOpKind.Init)
    what = f"T{total.name} (the rescaled sum T{acc.name} accumulates into in place)"
    if scope is None:
        raise LoweringError(f"internal: {what}: no init of the accumulator in the loop nest")
    init_at = next(k for k, x in enumerate(scope) if _holds(x, acc, TensorOpKind.Init))
    step_at = next((k for k, x in enumerate(scope) if _holds(x, total, TensorOpKind.Compute)), None)
    if step_at is None or step_at < init_at:
        raise LoweringError(f"{what}: its step is not in the loop of its summed axis after the matmul; compute the "
                            f"matmul at that loop (compute_at) and keep the rescaled sum's other axes inside it")
    scale_side = {t for t in total.ancestors() if t is not acc and t not in acc.ancestors()} | {total}
    between = scope[init_at + 1:step_at + 1]
    moved = [x for x in between if set(_computed_in(x)) <= scale_side]
    if not any(x is scope[step_at] for x in moved):
        others = [t for t in _computed_in(scope[step_at]) if t not in scale_side]
        raise LoweringError(f"{what}: {', '.join(f'T{t.name}' for t in others)} is computed in the loops of its step, "
                            f"which run before the matmul (the rescale); compute only the rescaled sum and its scale "
                            f"there")
    kept = [x for x in between if not any(x is y for y in moved)]
    mixed = [t for x in kept for t in _computed_in(x) if t in scale_side]
    if mixed:
        raise LoweringError(f"{what}: T{mixed[0].name}, which its rescale reads, is computed in loops shared with the "
                            f"matmul, so it would come after the rescale; compute it apart from the matmul's loops")
    scope[init_at:step_at + 1] = moved + kept


def _scope_of(items: list, tv: TensorView, kind: TensorOpKind) -> list | None:
    """The statement list holding ``tv``'s op of ``kind``."""
    for x in items:
        if isinstance(x, TensorOp):
            if x.tv is tv and x.kind is kind:
                return items
            continue
        found = _scope_of(x.items, tv, kind)
        if found is not None:
            return found
    return None


def _holds(item, tv: TensorView, kind: TensorOpKind) -> bool:
    if isinstance(item, TensorOp):
        return item.tv is tv and item.kind is kind
    return any(_holds(x, tv, kind) for x in item.items)


def _closing_kind(ids: IdModel, tv: TensorView) -> TensorOpKind | None:
    """The step after a reduction's loops: ``block_reduce`` (threads' partials combined, then written),
    ``finalize`` (a float accumulator of a 16-bit serial reduction written to the tensor), or None
    (the reduction accumulated in the tensor itself)."""
    if has_grid_reduction(ids, tv):
        if has_block_reduction(ids, tv):
            raise LoweringError(f"T{tv.name} reduces over both a thread index and a block index; a block "
                                f"reduction followed by a grid reduction is not implemented: bind the reduction "
                                f"axes to the block index and serial loops only (or rfactor the thread part)")
        return TensorOpKind.GridReduce
    if has_block_reduction(ids, tv):
        return TensorOpKind.BlockReduce
    if accumulates_in_float(tv):
        return TensorOpKind.Finalize
    return None


def _partial_apart(tv: TensorView) -> bool:
    """A grid-reduced tensor that is not in registers (an output) accumulates in a Local partial of its own
    (``buffers``: ``T<n>_acc``), as does a 16-bit one (in float)."""
    return tv.memory_type is not MemoryType.Local or accumulates_in_float(tv)


def _check_grid_reduction_scope(tv: TensorView, enclosing: list[_Loop]) -> None:
    """A grid reduction runs once per launch: its blocks meet on one semaphore per output block, so no loop
    may enclose it (a second round would race the first one's reset)."""
    if enclosing:
        raise LoweringError(f"T{tv.name}: its grid reduction would run inside loop {enclosing[-1].group.label()}; "
                            f"a grid reduction runs once per launch (its semaphores count one arrival per block): "
                            f"bind the axes around it to block or thread indices, or move them inside the reduction")


def loop_stop(ids: IdModel, g: LoopGroup) -> Val:
    """The loop's stop: its extent, or the smaller per-block bound an axis of the group carries
    (``TensorView.bound_loop``: the iterations past it proved no-ops), ``min(extent, bound(blockIdx))``, or
    ``bound(tile)`` where the bound reads an axis merged into a persistent tile index (``uniform_index``)."""
    bounds = {i.trip_bound for i in g.members if i.trip_bound is not None}
    if not bounds:
        return g.extent
    if len(bounds) > 1:
        raise LoweringError(f"loop {g.label()} has {len(bounds)} different trip bounds "
                            f"({'; '.join(sorted(str(b) for b in bounds))}); bound it once")
    (bound,) = bounds
    if g.parallel_type is not ParallelType.Serial or g.number in ids.persistent:
        raise LoweringError(f"loop {g.label()} is bounded by {bound}, but it is {g.parallel_type.name}"
                            f"{' and persistent' if g.number in ids.persistent else ''}; only a serial loop stops "
                            f"early")
    member = next(i for i in g.members if i.trip_bound is bound)
    return bound.stop(uniform_index(ids, member, bound.outer, f"loop {g.label()}: its bound"), g.extent)


def _nest(groups: list[LoopGroup], op: TensorOp):
    item = op
    for g in reversed(groups):
        item = _Loop(g, [item])
    return item


def _check_sharing(ids: IdModel, op_loops: dict[TensorView, list[_Loop]]) -> None:
    for tv, loops in op_loops.items():
        shared_groups = [ids.group(i) for i in tv.loop[:tv.compute_at_pos] if ids.group(i).is_loop]
        for consumer in ids.consumers(tv):
            if consumer not in op_loops:
                continue
            theirs = op_loops[consumer]
            for k, g in enumerate(shared_groups):
                if k >= len(loops) or k >= len(theirs) or loops[k] is not theirs[k]:
                    between = _tensors_between(loops[k] if k < len(loops) else None,
                                               theirs[k] if k < len(theirs) else None)
                    who = (f"the loops of {', '.join(f'T{t.name}' for t in between)} sit between them" if between
                           else "another tensor's loops sit between them")
                    raise LoweringError(
                        f"T{tv.name} is computed at position {tv.compute_at_pos} of T{consumer.name}, but the loop "
                        f"nest cannot share loop {g.label()} between them ({who}, emitted after T{tv.name} and "
                        f"before T{consumer.name}); change the compute-at positions")


def _tensors_between(mine: _Loop | None, theirs: _Loop | None) -> list[TensorView]:
    """The tensors computed in the statements between a producer's loop and its consumer's loop of one scope."""
    if mine is None or theirs is None or mine.scope is not theirs.scope:
        return []
    scope = mine.scope
    a, b = scope.index(mine), scope.index(theirs)
    found: list[TensorView] = []
    for item in scope[a + 1:b]:
        for tv in _computed_in(item):
            if tv not in found:
                found.append(tv)
    return found


def _computed_in(item) -> list[TensorView]:
    if isinstance(item, TensorOp):
        return [item.tv]
    return [tv for x in item.items for tv in _computed_in(x)]


def _freeze(ids: IdModel, item) -> object:
    if isinstance(item, TensorOp):
        return item
    g = item.group
    body = tuple(_freeze(ids, x) for x in item.items)
    persistent = ids.persistent.get(g.number)
    if persistent is not None:
        body = (skip_past_the_end(persistent.past_the_end()),) + body
    start, stop = Val.const(0), loop_stop(ids, g)
    sk = ids.stream_k
    if sk is not None and g is sk.tiles:         # the tiles of the block's range
        start, stop = sk.tile_range()
    elif sk is not None and g is sk.k:           # the K tiles of the block's segment of its tile
        start, stop = sk.k_range()
    return ForLoop(index=g.index, start=start, stop=stop, body=body, label=g.label(),
                   unroll=g.parallel_type is ParallelType.Unroll,
                   vectorize=g.parallel_type.vectorizes,
                   misaligned=g.parallel_type is ParallelType.MisalignedVectorize, group=g.number)
