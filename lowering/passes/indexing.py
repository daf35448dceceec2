"""Indexing and predicates: every TensorOp becomes statements with explicit indices.

Reads: tensor ops in the loop nest and the ``ids`` (loop groups, exact map), ``buffers``
(buffers and allocation axes), ``circular`` (stage offsets), ``tma`` (boxes, tensor maps) and
``mbarriers`` (the barrier each TMA copy completes on) analyses. Index expressions come from
``indexing_exprs``; an op a tensor-core matmul owns lowers through ``tensor_core_ops``.
Writes: ``Assign`` / ``BlockReduce`` / ``CpAsync`` / ``TmaLoad`` nodes (and a grid reduction's statements,
``lowering/grid_reduction.py``; a lane-group reduction's ``WarpShuffleXor`` steps) whose indices are functions
of loop indices, ``threadIdx``/``blockIdx`` and extents; ``IfThenElse`` predicates for
non-divisible splits, for thread indices past an axis's extent and for redundant writers of
shared and global memory; vectorized copies; a scan's step on its carry and write, a rescaled sum's rescaled
total (``indexing_exprs.accumulation``), a pad's in-bounds read of its shifted input or its value; a cp.async or
plain-copy load of a view chain (``IdModel.views``) reads the chain's input through the views' index map
(``indexing_exprs.view_read``), each pad's value where the element is outside that pad's input.
A cp.async or plain-copy shared tile a tensor-core matmul reads is zero-filled past the tensor's bounds, as a TMA
box is (``CpAsync.pred``: zero source bytes; an else branch storing 0); only the threads that own an element
write it.
Guarantees: no TensorOp remains; an access never leaves its buffer when its predicate
holds; a consumer reads a producer's element through the same root position it computes, at
the circular-buffer stage of the loop index, through the buffer's swizzle.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import IterDomain, MemoryType, TensorView
from fusion_ir.exprs import PadOp, combine_op, load_kind, reduces, reduction_init, scans
from fusion_ir.scalar import Val, all_of
from fusion_ir.types import LoadStoreOpType, ParallelType

from .. import grid_reduction, index_math, stream_k, tensor_core_ops
from ..analysis import Analyses
from ..errors import LoweringError
from ..indexing_exprs import (
    accumulation,
    bounds_conditions,
    cast_to,
    compute_value,
    const,
    guarded,
    operand_value,
    own_indices,
    pad_inside,
    predicate,
    read_index,
    thread_conditions,
    view_read,
    write_index,
)
from ..kernel_ir import (
    Assign,
    AsyncCommit,
    AsyncKind,
    BlockReduce,
    Buffer,
    CastValue,
    Const,
    CpAsync,
    ElectSync,
    ForLoop,
    IfThenElse,
    Kernel,
    Load,
    Node,
    TensorOp,
    TensorOpKind,
    TmaLoad,
    TmaStore,
    Value,
    WarpShuffleXor,
    children,
    substitute,
    walk,
)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    body = _lower_body(kernel.body, a)
    for node in walk(body):
        if isinstance(node, CpAsync):
            _check_cp_async_bytes(node)
    return replace(kernel, body=body)


def _lower_body(body: tuple[Node, ...], a: Analyses) -> tuple[Node, ...]:
    out: list[Node] = []
    for node in body:
        if isinstance(node, TensorOp):
            nodes = lower_op(node, a)
            if node.shift:
                nodes = list(substitute(tuple(nodes), dict(node.shift)))
            out.extend(nodes)
            continue
        kids = children(node)
        if kids:
            node = replace(node, **{name: _lower_body(sub, a) for name, sub in kids})
            if isinstance(node, ForLoop) and not node.body:
                continue        # its ops were lowered elsewhere (a stmatrix source)
        if isinstance(node, ForLoop) and node.vectorize:
            out.extend(_vectorize(node, a))
            continue
        out.append(node)
    return tuple(out)


# ------------------------------------------------------------------ ops
def lower_op(op: TensorOp, a: Analyses) -> list[Node]:
    tv: TensorView = op.tv
    if op.kind is TensorOpKind.GridReduce:
        return grid_reduction.lower(tv, a)
    if op.kind is TensorOpKind.StreamKFixup:
        return stream_k.lower(tv, a)
    idx = own_indices(a, tv)
    statements = tensor_core_ops.lower(op, a, idx)
    if statements is not None:
        return statements
    if tv in a.tma.stores:
        return [_tma_store(a, tv, idx)]
    acc = a.buffers.accumulators.get(tv)
    target = acc if acc is not None else a.buffers.buffers[tv]
    memory = target.memory
    if op.kind is TensorOpKind.Init:
        index = write_index(a, tv, idx, acc)
        return guarded(predicate(a, tv, idx, False, memory),
                       [Assign(target, index, const(reduction_init(tv.definition), target.dtype))])
    if op.kind is TensorOpKind.BlockReduce:
        assert acc is not None
        acc_index = write_index(a, tv, idx, acc)
        dims = tuple(a.ids.group(i).parallel_type for i in tv.loop
                     if i.is_reduction and a.ids.group(i).parallel_type.is_thread)
        out_buf = a.buffers.buffers[tv]
        lane = a.ids.lane_reductions.get(tv)
        reduce: list[Node]
        if lane is not None:
            # the lanes of each group combine by butterfly shuffles; the first lane of a group writes memory
            reduce = [WarpShuffleXor(acc, acc_index, combine_op(tv.definition), mask) for mask in lane.lane_masks]
            first = [(Val.symbol(ParallelType.TIDx.cuda_index) % lane.lanes).eq(0)]
        else:
            reduce = [BlockReduce(acc, acc_index, Load(acc, acc_index), combine_op(tv.definition), dims,
                                  reduction_init(tv.definition),
                                  a.buffers.workspace)]  # type: ignore[arg-type]
            first = [Val.symbol(pt.cuda_index).eq(0) for pt in dims]
        writer = all_of([predicate(a, tv, idx, False, out_buf.memory)] +
                        (first if out_buf.memory is not MemoryType.Local else []))
        value = cast_to(Load(acc, acc_index), out_buf.dtype)
        return reduce + guarded(writer, [Assign(out_buf, write_index(a, tv, idx), value)])
    if op.kind is TensorOpKind.Finalize:
        assert acc is not None
        out_buf = a.buffers.buffers[tv]
        value = cast_to(Load(acc, write_index(a, tv, idx, acc)), out_buf.dtype)
        return guarded(predicate(a, tv, idx, False, out_buf.memory), [Assign(out_buf, write_index(a, tv, idx), value)])
    if op.kind is not TensorOpKind.Compute:
        raise LoweringError(f"internal: unknown op kind {op.kind!r}")
    if reduces(tv.definition):
        stmt = accumulation(a, tv, idx, target, write_index(a, tv, idx, acc))
        return guarded(predicate(a, tv, idx, True, memory), [stmt])
    if scans(tv.definition):
        assert acc is not None
        return _scan_step(a, tv, idx, acc)
    if isinstance(tv.definition, PadOp):
        return _pad(a, tv, idx)
    kind = load_kind(tv)
    if kind is LoadStoreOpType.TMA:
        return [_tma_load(a, tv, idx)]
    if any(x in a.ids.views for x in tv.definition.tensor_inputs()):
        return _view_load(a, tv, idx, target)
    value = cast_to(compute_value(a, tv, idx), tv.dtype)
    if zero_fills(a, tv):
        return _zero_filled_load(a, tv, idx, target, value)
    if kind is LoadStoreOpType.CpAsync:
        assert isinstance(value, Load)
        return guarded(predicate(a, tv, idx, False, memory),
                       [CpAsync(target, write_index(a, tv, idx), value.buffer, value.index)])
    return guarded(predicate(a, tv, idx, False, memory), [Assign(target, write_index(a, tv, idx), value)])


def _scan_step(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val], carry: Buffer) -> list[Node]:
    """One step of a scan: the carry takes the element in (``accumulation``) and the element is written from
    it, after the step when inclusive, before it when exclusive (its first element the init)."""
    at = write_index(a, tv, idx, carry)
    step = guarded(predicate(a, tv, idx, True, MemoryType.Local), [accumulation(a, tv, idx, carry, at)])
    out = a.buffers.buffers[tv]
    write = guarded(predicate(a, tv, idx, True, out.memory),
                    [Assign(out, write_index(a, tv, idx), cast_to(Load(carry, at), out.dtype))])
    return write + step if tv.definition.exclusive else step + write


def _pad(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val]) -> list[Node]:
    """A pad's element: its input's where the source index is in bounds, read only there, else the value."""
    out = a.buffers.buffers[tv]
    dst = write_index(a, tv, idx)
    source = cast_to(operand_value(a, tv.definition.inputs[0], tv, idx, tv.dtype), tv.dtype)
    fill = Assign(out, dst, const(tv.definition.value, out.dtype))
    inside = pad_inside(tv, idx)
    body: list[Node] = ([Assign(out, dst, source)] if inside.const_value() == 1
                        else [IfThenElse(inside, (Assign(out, dst, source),), (fill,))])
    return guarded(predicate(a, tv, idx, False, out.memory), body)


def _view_load(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val], target: Buffer) -> list[Node]:
    """A cp.async or plain-copy load of a view chain's end (``IdModel.views``): the element of the chain's source
    its indices map to where it is inside every pad's input, else the value of the outermost pad it is not inside
    (a cp.async of zero source bytes where every pad is by zero: ``CpAsync.pred``). A ``zero_fills`` tile is zero
    past its own bounds too."""
    view = tv.definition.inputs[0]
    load, fills = view_read(a, view, tv, idx)
    dst = write_index(a, tv, idx)
    cp_async = load_kind(tv) is LoadStoreOpType.CpAsync
    bounds = all_of(bounds_conditions(tv, idx, False)) if zero_fills(a, tv) else Val.const(1)
    if bounds.const_value() != 1:
        fills = [(bounds, 0)] + fills
    if cp_async and all(fill == 0 for _, fill in fills):
        inside = all_of([cond for cond, _ in fills])
        stmt: Node = CpAsync(target, dst, load.buffer, load.index,
                             pred=None if inside.const_value() == 1 else inside)
    else:
        stmt = (CpAsync(target, dst, load.buffer, load.index) if cp_async
                else Assign(target, dst, cast_to(load, target.dtype)))
        for cond, fill in reversed(fills):
            stmt = IfThenElse(cond, (stmt,), (Assign(target, dst, const(fill, target.dtype)),))
    if zero_fills(a, tv):
        return guarded(all_of(thread_conditions(a, tv, False, MemoryType.Shared)), [stmt])
    return guarded(predicate(a, tv, idx, False, target.memory), [stmt])


def zero_fills(a: Analyses, tv: TensorView) -> bool:
    """A shared tile a tensor-core matmul reads, loaded by cp.async or plain copies: its elements past the
    tensor's bounds are written as zeros, as a TMA load fills them (the K edge of a tile then adds nothing
    to the products, and garbage there could be NaN)."""
    if tv.memory_type is not MemoryType.Shared or load_kind(tv) not in (LoadStoreOpType.CpAsync, LoadStoreOpType.Set):
        return False
    return bool(a.tensor_cores.operand_of(tv))


def _zero_filled_load(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val], target: Buffer,
                      value: Value) -> list[Node]:
    """The load of a ``zero_fills`` tile: the threads that own the element write it, its value when it is inside
    the tensor and zero past its bounds (a cp.async copying zero source bytes: ``CpAsync.pred``)."""
    inside = all_of(bounds_conditions(tv, idx, False))
    owner = all_of(thread_conditions(a, tv, False, MemoryType.Shared))
    dst = write_index(a, tv, idx)
    if load_kind(tv) is LoadStoreOpType.CpAsync:
        assert isinstance(value, Load)
        pred = None if inside.const_value() == 1 else inside
        return guarded(owner, [CpAsync(target, dst, value.buffer, value.index, pred=pred)])
    store = Assign(target, dst, value)
    if inside.const_value() == 1:
        return guarded(owner, [store])
    zero = Assign(target, dst, const(0, target.dtype))
    return guarded(owner, [IfThenElse(inside, (store,), (zero,))])


def _tma_load(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val]) -> TmaLoad:
    """One ``TmaLoad`` of tv's box, completing on the barrier slot its copies complete on.

    The destination is the box origin's row-major position: the TMA unit (and the simulator)
    applies the buffer's swizzle to every byte it writes."""
    box = a.tma.boxes[tv]
    origin = box.origin(idx)
    buf = a.buffers.buffers[tv]
    dst = index_math.row_major(a.buffers.alloc_ids[tv], origin) + a.circular.stage_offset(tv)
    mbar, slot = a.mbarriers.slot(tv)
    return TmaLoad(buf, dst, a.tma.tensor_maps[tv], box.coords(origin), mbar, slot)


def _tma_store(a: Analyses, out: TensorView, idx: dict[IterDomain, Val]) -> Node:
    """One box of the output from its shared tile: an elected thread issues it and commits the bulk group.
    The same thread waits for the boxes' reads of the tile where the ``store_waits`` pass put the wait
    (after the boxes, or deferred to just before the tile is written again)."""
    box = a.tma.stores[out]
    origin = box.origin(idx)
    tile = box.shared
    box_start = {a.ids.group(b).index.name: Val.const(0) for b in box.bulk if b is not None}
    src = read_index(a, tile, out, origin, swizzled=False).substitute(box_start)
    store = TmaStore(a.buffers.buffers[tile], src, a.tma.tensor_maps[out], box.coords(origin))
    return ElectSync((store, AsyncCommit(AsyncKind.Bulk)), warp=box.issuer_warp)


CP_ASYNC_BYTES = (4, 8, 16)


def _check_cp_async_bytes(copy: CpAsync) -> None:
    nbytes = copy.vector * copy.dst.dtype.size
    if nbytes not in CP_ASYNC_BYTES:
        raise LoweringError(f"{copy.dst.name}: cp.async copies 4, 8 or 16 bytes; a copy of {copy.vector} x "
                            f"{copy.dst.dtype.short_name} is {nbytes} bytes (vectorize the innermost axis so it is)")


# ------------------------------------------------------------------ vectorize
def _copied(value: Value, dst: Buffer) -> Load | None:
    """The Load a vectorizable copy reads: the value itself, or under a cast to the destination type."""
    if isinstance(value, CastValue) and value.dtype == dst.dtype:
        value = value.x
    return value if isinstance(value, Load) else None


def _vectorize(loop: ForLoop, a: Analyses) -> list[Node]:
    """Collapse a vectorized copy loop into one vector access; other loops just unroll."""
    width = loop.stop.const_value()
    if loop.misaligned:
        return _misaligned_vector(loop, width)
    inner = loop.body[0] if len(loop.body) == 1 else None
    cond = Val.const(1)
    if isinstance(inner, IfThenElse) and len(inner.then_body) == 1 and not inner.else_body:
        cond, inner = inner.cond, inner.then_body[0]
    is_copy = isinstance(inner, CpAsync) or (isinstance(inner, Assign) and not inner.reduce_op
                                              and isinstance(_copied(inner.value, inner.buffer), Load))
    if width is None or not is_copy:
        return [replace(loop, vectorize=False, unroll=True)]
    first = {loop.index.name: Val.const(0)}
    last = {loop.index.name: Val.const(width - 1)}
    if isinstance(inner, CpAsync):
        # a zero-filling copy is inside the tensor as a whole exactly when its last element is
        stmt: Node = replace(inner, dst_index=inner.dst_index.substitute(first),
                             src_index=inner.src_index.substitute(first), vector=width,
                             pred=inner.pred.substitute(last) if inner.pred is not None else None)
        _check_cp_async_bytes(stmt)
    else:
        source = _copied(inner.value, inner.buffer)
        assert source is not None
        value: Value = Load(source.buffer, source.index.substitute(first))
        if isinstance(inner.value, CastValue):
            value = CastValue(value, inner.value.dtype)
        stmt = Assign(inner.buffer, inner.index.substitute(first), value, vector=width)
    # The whole vector is in range exactly when its last element is.
    return guarded(cond.substitute(last), [stmt])


def _misaligned_vector(loop: ForLoop, width: int | None) -> list[Node]:
    """A ``MisalignedVectorize`` copy loop as one ``Assign`` with a condition per element (``Assign.valid``): the
    conditions around the copy that do not depend on the loop's index guard the vector; those that do, and a
    zero-filling else (``zero_fills``), become the elements' conditions, each element written 0 where its
    condition fails (a misaligned vector writes its elements together)."""
    body = loop.body
    guards: list[Val] = []
    per_element: list[Val] = []
    index = loop.index.name
    while len(body) == 1 and isinstance(body[0], IfThenElse):
        branch = body[0]
        if branch.else_body and not _zero_fill_of(branch):
            break
        (per_element if index in branch.cond.symbols() or branch.else_body else guards).append(branch.cond)
        body = branch.then_body
    inner = body[0] if len(body) == 1 else None
    source = _copied(inner.value, inner.buffer) if isinstance(inner, Assign) and not inner.reduce_op else None
    if width is None or source is None:
        raise LoweringError(f"{loop.label}: a MisalignedVectorize loop must hold one plain copy of a fusion input "
                            f"(under its bounds conditions); this one holds {len(body)} statement(s)")
    assert isinstance(inner, Assign)
    first = {index: Val.const(0)}      # a plain copy keeps its dtype (verify refuses a converting one)
    value = Load(source.buffer, source.index.substitute(first))
    cond = all_of(per_element)
    valid = tuple(cond.substitute({index: Val.const(e)}) for e in range(width))
    stmt = Assign(inner.buffer, inner.index.substitute(first), value, vector=width, valid=valid)
    return guarded(all_of(guards), [stmt])


def _zero_fill_of(branch: IfThenElse) -> bool:
    """``if (c) x[i] = value; else x[i] = 0;``: a copy that writes zero where it reads nothing."""
    if len(branch.then_body) != 1 or len(branch.else_body) != 1:
        return False
    copy, zero = branch.then_body[0], branch.else_body[0]
    return (isinstance(copy, Assign) and isinstance(zero, Assign) and zero.buffer is copy.buffer
            and zero.index == copy.index and isinstance(zero.value, Const) and float(zero.value.value) == 0.0)
