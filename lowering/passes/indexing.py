"""Indexing and predicates: every TensorOp becomes statements with explicit indices.

Reads: tensor ops in the loop nest and the ``ids`` (loop groups, exact map), ``buffers``
(buffers and allocation axes), ``circular`` (stage offsets), ``tma`` (boxes, tensor maps) and
``mbarriers`` (the barrier each TMA copy completes on) analyses.
Writes: ``Assign`` / ``BlockReduce`` / ``CpAsync`` / ``TmaLoad`` nodes whose indices are functions
of loop indices, ``threadIdx``/``blockIdx`` and extents; ``IfThenElse`` predicates for
non-divisible splits, for thread indices past an axis's extent and for redundant writers of
shared and global memory; vectorized copies.
Guarantees: no TensorOp remains; an access never leaves its buffer when its predicate
holds; a consumer reads a producer's element through the same root position it computes, at
the circular-buffer stage of the loop index, through the buffer's swizzle.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.exprs import BinaryOp, BroadcastOp, CastOp, LoadStoreOp, MmaOp, ReductionOp, UnaryOp, load_kind
from fusion_ir.scalar import Val, all_of
from fusion_ir.types import DataType, LoadStoreOpType

from .. import index_math
from ..analysis import Analyses
from ..analysis.id_model import PARALLEL_LAUNCH
from ..errors import LoweringError
from ..kernel_ir import (
    Assign,
    AsyncCommit,
    AsyncKind,
    BinaryValue,
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
    MatrixDescriptor,
    Mma,
    Node,
    StMatrix,
    TensorOp,
    TensorOpKind,
    TmaLoad,
    TmaStore,
    UnaryValue,
    Value,
    children,
    substitute,
    walk,
)
from ..layout import swizzle_index


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


# ------------------------------------------------------------------ positions
def own_indices(a: Analyses, tv: TensorView) -> dict[IterDomain, Val]:
    """Root, logical and loop indices of tv at the point where it is computed."""
    idx: dict[IterDomain, Val] = {}
    for i in tv.loop:
        idx[i] = Val.const(0) if i.is_broadcast else a.ids.group(i).index
    return index_math.backward(tv, idx, a.ids.concrete_extent)


def write_index(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val], buffer: Buffer | None = None) -> Val:
    buf = buffer if buffer is not None else a.buffers.buffers[tv]
    if buf.is_param:
        return _param_index(tv, buf, idx)
    index = index_math.row_major(a.buffers.ids_of(tv, buf), idx) + a.circular.stage_offset(tv)
    return swizzle_index(index, buf.swizzle, buf.dtype.size)


def _param_index(tv: TensorView, buf: Buffer, idx: dict[IterDomain, Val]) -> Val:
    offset = Val.const(0)
    for logical, stride in zip(tv.shape_ids, buf.strides):
        if logical not in idx:
            raise LoweringError(f"internal: no index for {logical.label()} of T{tv.name}")
        offset = offset + idx[logical] * stride
    return offset


def read_index(a: Analyses, producer: TensorView, consumer: TensorView,
               c_idx: dict[IterDomain, Val], swizzled: bool = True) -> Val:
    """Where ``consumer`` (at indices ``c_idx``) finds its element of ``producer`` (its row-major
    position when not ``swizzled``: a wgmma descriptor's start, which the hardware swizzles)."""
    p_idx: dict[IterDomain, Val] = {}
    for c_root, p_logical in consumer.definition.root_map(producer).items():
        p_idx[p_logical] = Val.const(0) if p_logical.is_broadcast else c_idx[c_root]
    buf = a.buffers.buffers[producer]
    if buf.is_param:
        return _param_index(producer, buf, p_idx)
    # A producer axis that shares a loop with, or is exactly mapped to, a consumer loop axis
    # takes that loop's index directly: same value, simpler arithmetic. An exact class holding
    # several loop axes of the consumer or of the producer (one input reaching two axes, as in
    # ``x[:, None] / x[None, :]``) says nothing of which axis is which: those axes keep the index
    # the root map gives.
    ids = a.ids
    consumer_groups = {id(ids.group(i)) for i in consumer.loop}
    exact_class = ids.exact_class
    consumer_by_class = _loop_axis_by_class(consumer, exact_class)
    producer_by_class = _loop_axis_by_class(producer, exact_class)
    for i in producer.loop:
        if i.is_broadcast:
            p_idx[i] = Val.const(0)
        elif id(ids.group(i)) in consumer_groups:
            p_idx[i] = ids.group(i).index
        elif producer_by_class.get(exact_class.get(i)) is i and exact_class[i] in consumer_by_class:
            p_idx[i] = ids.group(consumer_by_class[exact_class[i]]).index
    from fusion_ir.replay import ancestors_transforms

    logical_cone = ancestors_transforms(producer, producer.logical) if producer.logical != producer.root else []
    p_idx = index_math.forward(producer, p_idx, skip=logical_cone, extent=ids.concrete_extent)
    fragment = a.buffers.fragments.get(producer)
    if fragment is not None:
        p_idx[fragment] = a.mma.register(producer, consumer, c_idx)
    axes = a.buffers.alloc_ids[producer]
    missing = [i.label() for i in axes if i not in p_idx]
    if missing:
        raise LoweringError(f"T{consumer.name} cannot locate its element of T{producer.name}: no index for "
                            f"{', '.join(missing)}")
    index = index_math.row_major(axes, p_idx) + a.circular.stage_offset(producer)
    return swizzle_index(index, buf.swizzle, buf.dtype.size) if swizzled else index


def _loop_axis_by_class(tv: TensorView, exact_class: dict) -> dict:
    """Each exact class holding exactly one non-broadcast loop axis of ``tv``, with that axis."""
    members: dict = {}
    for i in tv.loop:
        if not i.is_broadcast and i in exact_class:
            members.setdefault(exact_class[i], []).append(i)
    return {c: axes[0] for c, axes in members.items() if len(axes) == 1}


# ------------------------------------------------------------------ predicates
def predicate(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val], include_reduction: bool,
              memory: MemoryType) -> Val:
    conds: list[Val] = []
    need = index_math.roots_needing_predicate(tv)
    for r in tv.root:
        if r in need and not r.is_broadcast and (include_reduction or not r.is_reduction):
            conds.append(idx[r].lt(r.extent))
    for x in sorted(index_math.axes_needing_predicate(tv), key=lambda i: i.label()):
        if not x.is_broadcast and x in idx and (include_reduction or not x.is_reduction):
            conds.append(idx[x].lt(x.extent))
    used: set[ParallelType] = set()
    for i in tv.loop:
        g = a.ids.group(i)
        pt = g.parallel_type
        if not pt.is_grid_or_thread:
            continue
        used.add(pt)
        if i.is_reduction and not include_reduction:
            continue
        # A shared axis spans its group's (consumer's) extent: a broadcast merged into it is resolved.
        extent = g.extent if len(g.members) > 1 else i.extent
        if extent != a.ids.launch[pt] and not i.is_broadcast:
            conds.append(g.index.lt(extent))
    if memory in (MemoryType.Shared, MemoryType.Global):
        for pt in PARALLEL_LAUNCH:
            if pt in used or a.ids.launch[pt] == Val.const(1):
                continue
            if pt.is_block and memory is MemoryType.Shared:
                continue
            conds.append(Val.symbol(pt.cuda_index).eq(0))
    return all_of(conds)


def guarded(cond: Val, nodes: list[Node]) -> list[Node]:
    if cond.const_value() == 1:
        return nodes
    return [IfThenElse(cond, tuple(nodes))]


# ------------------------------------------------------------------ values
def _const(x: object, dtype: DataType) -> Const:
    return Const(x, dtype)  # type: ignore[arg-type]


def operand_value(a: Analyses, x: object, consumer: TensorView, c_idx: dict, dtype: DataType,
                  inlined: frozenset = frozenset()) -> Value:
    """``x`` as ``consumer`` reads it at ``c_idx``; a tensor in ``inlined`` (computed in the same loops)
    is computed right here instead of read from its buffer."""
    if isinstance(x, TensorView):
        if x in inlined:
            return _cast_to(compute_value(a, x, own_indices(a, x), inlined), x.dtype)
        return Load(a.buffers.buffers[x], read_index(a, x, consumer, c_idx))
    return _const(x, DataType.Float if isinstance(x, float) else dtype)


def _cast_to(value: Value, dtype: DataType) -> Value:
    return value if value_dtype(value) == dtype else CastValue(value, dtype)


def compute_value(a: Analyses, tv: TensorView, c_idx: dict, inlined: frozenset = frozenset()) -> Value:
    e = tv.definition
    ins = e.inputs

    def operand(x: object) -> Value:
        return operand_value(a, x, tv, c_idx, tv.dtype, inlined)

    if isinstance(e, (LoadStoreOp, BroadcastOp)):
        return operand(ins[0])
    if isinstance(e, UnaryOp):
        return UnaryValue(e.op, operand(ins[0]), tv.dtype)
    if isinstance(e, CastOp):
        return CastValue(operand(ins[0]), e.dtype)
    if isinstance(e, BinaryOp):
        return BinaryValue(e.op, operand(ins[0]), operand(ins[1]), tv.dtype)
    if isinstance(e, ReductionOp):
        return operand(ins[0])
    if isinstance(e, MmaOp):
        return BinaryValue("mul", CastValue(operand(ins[0]), DataType.Float), CastValue(operand(ins[1]), DataType.Float),
                           DataType.Float)
    raise LoweringError(f"T{tv.name}: no lowering for {type(e).__name__}")


def reduce_op_of(tv: TensorView) -> str:
    e = tv.definition
    if isinstance(e, MmaOp):
        return "add"
    return {"sum": "add", "max": "max"}[e.op]


def init_value(tv: TensorView) -> float:
    e = tv.definition
    return e.init if isinstance(e, ReductionOp) else 0.0


# ------------------------------------------------------------------ ops
def lower_op(op: TensorOp, a: Analyses) -> list[Node]:
    tv: TensorView = op.tv
    idx = own_indices(a, tv)
    if tv in a.mma.tiles:
        return _lower_mma(op, a, idx)
    if tv in a.mma.staged:
        return _lower_stmatrix(op, a)
    if a.mma.computed_by_stmatrix(tv):
        return []       # computed per stmatrix instruction (_lower_stmatrix)
    if tv in a.tma.stores:
        return [_tma_store(a, tv, idx)]
    acc = a.buffers.accumulators.get(tv)
    target = acc if acc is not None else a.buffers.buffers[tv]
    memory = target.memory
    if op.kind is TensorOpKind.Init:
        index = write_index(a, tv, idx, acc)
        return guarded(predicate(a, tv, idx, False, memory),
                       [Assign(target, index, _const(init_value(tv), target.dtype))])
    if op.kind is TensorOpKind.BlockReduce:
        assert acc is not None
        acc_index = write_index(a, tv, idx, acc)
        dims = tuple(a.ids.group(i).parallel_type for i in tv.loop
                     if i.is_reduction and a.ids.group(i).parallel_type.is_thread)
        reduce = BlockReduce(acc, acc_index, Load(acc, acc_index), reduce_op_of(tv), dims, init_value(tv),
                             a.buffers.workspace)  # type: ignore[arg-type]
        out_buf = a.buffers.buffers[tv]
        writer = all_of([predicate(a, tv, idx, False, out_buf.memory)] +
                        [Val.symbol(pt.cuda_index).eq(0) for pt in dims if out_buf.memory is not MemoryType.Local])
        value = _cast_to(Load(acc, acc_index), out_buf.dtype)
        return [reduce] + guarded(writer, [Assign(out_buf, write_index(a, tv, idx), value)])
    if op.kind is TensorOpKind.Finalize:
        assert acc is not None
        out_buf = a.buffers.buffers[tv]
        value = _cast_to(Load(acc, write_index(a, tv, idx, acc)), out_buf.dtype)
        return guarded(predicate(a, tv, idx, False, out_buf.memory), [Assign(out_buf, write_index(a, tv, idx), value)])
    value = compute_value(a, tv, idx)
    if op.kind is not TensorOpKind.Compute:
        raise LoweringError(f"internal: unknown op kind {op.kind!r}")
    if isinstance(tv.definition, (ReductionOp, MmaOp)):
        stmt = Assign(target, write_index(a, tv, idx, acc), _cast_to(value, target.dtype), reduce_op=reduce_op_of(tv))
        return guarded(predicate(a, tv, idx, True, memory), [stmt])
    value = _cast_to(value, tv.dtype)
    kind = load_kind(tv)
    if kind is LoadStoreOpType.TMA:
        return [_tma_load(a, tv, idx)]
    if kind is LoadStoreOpType.CpAsync:
        assert isinstance(value, Load)
        return guarded(predicate(a, tv, idx, False, memory),
                       [CpAsync(target, write_index(a, tv, idx), value.buffer, value.index)])
    return guarded(predicate(a, tv, idx, False, memory), [Assign(target, write_index(a, tv, idx), value)])


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


def _lower_mma(op: TensorOp, a: Analyses, idx: dict[IterDomain, Val]) -> list[Node]:
    """A wgmma accumulator: its init zeroes the thread's fragment registers; its compute is one
    ``Mma`` at the instruction's origin (every Mma axis index zero), with descriptors pointing at
    the operands' elements there. No predicate: TMA filled out-of-bounds operand elements with zeros."""
    tile = a.mma.tiles[op.tv]
    acc = a.buffers.buffers[op.tv]
    origin = {a.ids.group(i).index.name: Val.const(0) for i in (tile.m, tile.n, tile.k)}
    at = {i: v.substitute(origin) for i, v in idx.items()}
    if op.kind is TensorOpKind.Init:
        r = Val.symbol(f"r{tile.fragment_symbol}")
        at[tile.fragment] = r
        zero = Assign(acc, write_index(a, op.tv, at), _const(0.0, acc.dtype))
        return [ForLoop(r, Val.const(0), Val.const(tile.registers), (zero,), label="fragment", unroll=True)]
    if op.kind is not TensorOpKind.Compute:
        raise LoweringError(f"internal: T{op.tv.name} is a wgmma accumulator; no {op.kind.value} step")
    at[tile.fragment] = Val.const(0)

    def descriptor(layout) -> MatrixDescriptor:
        start = read_index(a, layout.tv, op.tv, at, swizzled=False)
        return MatrixDescriptor(a.buffers.buffers[layout.tv], start, layout.leading_bytes, layout.stride_bytes,
                                layout.swizzle, layout.mn_major)

    return [Mma(acc, write_index(a, op.tv, at), descriptor(tile.a), descriptor(tile.b), tile.shape, tile.dtype)]


def _lower_stmatrix(op: TensorOp, a: Analyses) -> list[Node]:
    """The shared tile written from its source's fragment registers: per 64-row piece and pair of 8-column
    blocks, one ``stmatrix.x4`` per warp. Its four matrices are the blocks (2 i2, 2 i2 + 1) x the row halves
    (j = 0, 1): registers ``4 i + 2 j + c`` of the fragment, 8 in a row from ``8 i2``. Lane ``l`` addresses
    row ``l % 8`` of matrix ``l / 8``: the row the thread ``32 warp + 4 (l % 8)`` holds, as the fragment
    layout says, at column pair 0."""
    staged = a.mma.staged[op.tv]
    source, read = staged.source, staged.fragment
    src_idx = own_indices(a, source)
    loops = []
    env: dict[str, Val] = {}
    for k, piece in enumerate(staged.pieces):
        sym = Val.symbol(f"p{source.name}_{k}")
        env[a.ids.group(piece).index.name] = sym
        loops.append((sym, piece.extent))
    pair = Val.symbol(f"q{source.name}")
    loops.append((pair, Val.const(read.i.extent.const_value() // 2)))
    sym_of = {ax: a.ids.group(ax).index.name for ax in (read.i, read.j, read.c)}

    def register(di: int, j: Val | int, c: int) -> dict[str, Val]:
        """The loop indices naming register ``4 (2 pair + di) + 2 j + c`` of the fragment."""
        return {**env, sym_of[read.i]: pair * 2 + di, sym_of[read.j]: Val.const(j) if isinstance(j, int) else j,
                sym_of[read.c]: Val.const(c)}

    def source_indices(at: dict[str, Val]) -> dict[IterDomain, Val]:
        return {i: v.substitute(at) for i, v in src_idx.items()}

    src_index = write_index(a, source, source_indices(register(0, 0, 0)))
    # lane l addresses row l % 8 of matrix l / 8 = (column block 2 pair + m / 2, row half m % 2)
    tid = Val.symbol(a.ids.group(staged.thread).index.name)
    lane = tid % 32
    matrix = lane // 8
    addressed = {**register(0, matrix % 2, 0), sym_of[read.i]: pair * 2 + matrix // 2,
                 tid.name: (tid // 32) * 32 + (lane % 8) * 4}
    row_col = source_indices(addressed)
    tile = op.tv
    t_idx = {c_root: row_col[p] for c_root, p in tile.definition.root_map(source).items()}
    dst_index = write_index(a, tile, index_math.forward(tile, t_idx, extent=a.ids.concrete_extent))
    body: list[Node] = []
    if staged.per_instruction:
        # the 8 registers this stmatrix stores, computed from the accumulators (and a fused epilogue's
        # tensors, inlined into the expression) right before it; an epilogue that reads global memory (a
        # bias) reads it only inside the tensor: the TMA store leaves out what lies outside
        reads_global = any(p.memory_type is MemoryType.Global for t in staged.inlined | {source}
                           for p in t.producers())
        for di in (0, 1):
            for j in (0, 1):
                for c in (0, 1):
                    at = register(di, j, c)
                    k_idx = source_indices(at)
                    # a producer read through a shared loop's index (the 64-row piece) sees it renamed too
                    value = substitute(_cast_to(compute_value(a, source, k_idx, staged.inlined), source.dtype), at)
                    assign = [Assign(a.buffers.buffers[source], write_index(a, source, k_idx), value)]
                    if reads_global:
                        assign = guarded(predicate(a, source, k_idx, False, MemoryType.Local).substitute(at), assign)
                    body.extend(assign)
    body.append(StMatrix(a.buffers.buffers[tile], dst_index, a.buffers.buffers[source], src_index, 4))
    inner: tuple[Node, ...] = tuple(body)
    for sym, extent in reversed(loops):
        inner = (ForLoop(sym, Val.const(0), extent, inner, label="stmatrix", unroll=True),)
    return list(inner)


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


def value_dtype(v: Value) -> DataType:
    return v.dtype


# ------------------------------------------------------------------ vectorize
def _copied(value: Value, dst: Buffer) -> Load | None:
    """The Load a vectorizable copy reads: the value itself, or under a cast to the destination type."""
    if isinstance(value, CastValue) and value.dtype == dst.dtype:
        value = value.x
    return value if isinstance(value, Load) else None


def _vectorize(loop: ForLoop, a: Analyses) -> list[Node]:
    """Collapse a vectorized copy loop into one vector access; other loops just unroll."""
    width = loop.stop.const_value()
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
        stmt: Node = replace(inner, dst_index=inner.dst_index.substitute(first),
                             src_index=inner.src_index.substitute(first), vector=width)
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


