"""Index expressions: where a tensor op reads and writes each element, under which predicate, and the
value it computes, written in loop indices, thread and block indices and extents.

The indexing pass and the tensor-core statements (``tensor_core_ops``) build their statements from
these. A consumer reads a producer's element through the same root position it computes, at the
circular-buffer stage of the loop index, through the buffer's swizzle.
"""

from __future__ import annotations

from collections.abc import Mapping

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.exprs import (
    BinaryOp,
    BroadcastOp,
    CastOp,
    FullOp,
    IotaOp,
    LoadStoreOp,
    PadOp,
    UnaryOp,
    ViewOp,
    WhereOp,
    combine_op,
    reduces,
    rescales,
    scans,
    sums_products,
)
from fusion_ir.iter_domain import lane_group, made_from, spans_broadcast
from fusion_ir.op_core import COMPARE_OPS, LOGICAL_OPS
from fusion_ir.scalar import Val, all_of
from fusion_ir.scalar_input import ScalarInput
from fusion_ir.types import DataType

from . import index_math
from .analysis import Analyses
from .analysis.id_model import PARALLEL_LAUNCH
from .errors import LoweringError
from .kernel_ir import (
    Assign,
    BinaryValue,
    Buffer,
    CastValue,
    CompareValue,
    Const,
    IfThenElse,
    Load,
    Node,
    ScalarParam,
    ScalarValue,
    SelectValue,
    UnaryValue,
    Value,
)
from .layout import swizzle_index
from .precision import op_for
from .running_axes import runs_along


# ------------------------------------------------------------------ positions
def own_indices(a: Analyses, tv: TensorView) -> dict[IterDomain, Val]:
    """Root, logical and loop indices of tv at the point where it is computed."""
    idx: dict[IterDomain, Val] = {}
    for i in tv.loop:
        idx[i] = Val.const(0) if i.is_broadcast else a.ids.group(i).index
    return index_math.backward(tv, idx, a.ids.index_extent(tv))


def write_index(a: Analyses, tv: TensorView, idx: dict[IterDomain, Val], buffer: Buffer | None = None) -> Val:
    buf = buffer if buffer is not None else a.buffers.buffers[tv]
    if buf.is_param:
        return param_index(tv, buf, idx)
    index = index_math.row_major(a.buffers.ids_of(tv, buf), idx) + a.circular.stage_offset(tv)
    return swizzle_index(index, buf.swizzle, buf.dtype.size)


def param_index(tv: TensorView, buf: Buffer, idx: dict[IterDomain, Val]) -> Val:
    offset = Val.const(0)
    for logical, stride in zip(tv.shape_ids, buf.strides):
        if logical not in idx:
            raise LoweringError(f"internal: no index for {logical.label()} of T{tv.name}")
        offset = offset + idx[logical] * stride
    return offset


def read_index(a: Analyses, producer: TensorView, consumer: TensorView,
               c_idx: dict[IterDomain, Val], swizzled: bool = True) -> Val:
    """Where ``consumer`` (at indices ``c_idx``) finds its element of ``producer`` (its row-major
    position when not ``swizzled``: a matrix descriptor's start, which the hardware swizzles)."""
    p_idx: dict[IterDomain, Val] = {}
    offsets = read_offsets(consumer)
    shifted: set[IterDomain] = set()
    for c_root, p_logical in consumer.definition.root_map(producer).items():
        p_idx[p_logical] = Val.const(0) if p_logical.is_broadcast else c_idx[c_root]
        if c_root in offsets:
            p_idx[p_logical] = p_idx[p_logical] - offsets[c_root]
            shifted.add(p_logical)
    if any(lane_group(i) is not None for i in producer.loop):
        # a lane-group reduction's result in shared memory: the first lane of each group wrote it
        for p_logical in producer.logical:
            if p_logical.is_reduction and p_logical not in p_idx:
                p_idx[p_logical] = Val.const(0)
    buf = a.buffers.buffers[producer]
    if buf.is_param:
        return param_index(producer, buf, p_idx)
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
        elif lane_group(i) is not None:
            continue            # a lane group's result is at its first lane: forward from the rows, lanes 0
        elif shifted and made_from(i, lambda x: x in shifted):
            continue            # the consumer's index of it is shifted: forward from the logical index
        elif id(ids.group(i)) in consumer_groups:
            p_idx[i] = ids.group(i).index
        elif (producer_by_class.get(exact_class.get(i)) is i and exact_class[i] in consumer_by_class
              and not spans_broadcast(i)):
            p_idx[i] = ids.group(consumer_by_class[exact_class[i]]).index
    from fusion_ir.replay import ancestors_transforms

    logical_cone = ancestors_transforms(producer, producer.logical) if producer.logical != producer.root else []
    p_idx = index_math.forward(producer, p_idx, skip=logical_cone, extent=ids.index_extent(producer))
    fragment = a.buffers.fragments.get(producer)
    if fragment is not None:     # a tensor-core accumulator: the register of the fragment the consumer reads
        p_idx[fragment] = a.mma.register(producer, consumer, c_idx)
    axes = a.buffers.alloc_ids[producer]
    missing = [i.label() for i in axes if i not in p_idx]
    if missing:
        raise LoweringError(f"T{consumer.name} cannot locate its element of T{producer.name}: no index for "
                            f"{', '.join(missing)}")
    index = index_math.row_major(axes, p_idx) + a.circular.stage_offset(producer)
    return swizzle_index(index, buf.swizzle, buf.dtype.size) if swizzled else index


def view_read(a: Analyses, view: TensorView, consumer: TensorView,
              c_idx: dict[IterDomain, Val]) -> tuple[Load, list[tuple[Val, float | int | bool]]]:
    """Where ``consumer`` (at ``c_idx``) reads its element of ``view``, a view the kernel reads through
    (``IdModel.views``): the element of the chain's source its indices map back to, with the pads it passes (each
    pad's condition that the element is inside its input and its value where it is not, the outermost first)."""
    chain = a.ids.views[view]
    end = {p: c_idx[c] for c, p in consumer.definition.root_map(view).items()}
    buf = a.buffers.buffers[chain.source]
    return Load(buf, param_index(chain.source, buf, chain.source_indices(end))), chain.fills(end)


def read_offsets(consumer: TensorView) -> dict[IterDomain, Val]:
    """The root axes of ``consumer`` whose element ``i`` reads its input's element ``i - offset`` (a pad's axes
    with a width before them), with their offsets."""
    e = consumer.definition
    if not isinstance(e, PadOp):
        return {}
    return {r: before for r, (before, _) in zip(consumer.root, e.pads) if before.const_value() != 0}


def pad_inside(tv: TensorView, c_idx: dict[IterDomain, Val]) -> Val:
    """The element of pad ``tv`` at ``c_idx`` is its input's (every padded axis's source index is in bounds);
    elsewhere it is the pad's value."""
    e = tv.definition
    x = e.inputs[0]
    conds: list[Val] = []
    for r, (before, after), source in zip(tv.root, e.pads, x.shape_ids):
        if before.const_value() == 0 and after.const_value() == 0:
            continue
        at = c_idx[r] - before
        if before.const_value() != 0:
            conds.append(at.ge(0))
        if after.const_value() != 0:
            conds.append(at.lt(source.extent))
    return all_of(conds)


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
    """``include_reduction``: the running axes (``running_axes``) count too (not at a total's init, outside
    their loops). A statement writing registers (``memory`` Local) leaves out the bounds conditions the
    ``predicates`` analysis found it needs not (``predicate_elimination``)."""
    left_out = a.predicates.left_out(tv) if memory is MemoryType.Local else frozenset()
    return all_of(bounds_conditions(tv, idx, include_reduction, a.ids.pad_bounded.get(tv, ()), left_out)
                  + thread_conditions(a, tv, include_reduction, memory))


def bounds_conditions(tv: TensorView, idx: dict[IterDomain, Val], include_reduction: bool,
                      loop_past_extent: tuple = (), left_out: frozenset[IterDomain] = frozenset()) -> list[Val]:
    """The element is inside the tensor: the index of every root (and inner split) axis a non-divisible split
    may push past its extent is below it, as is that of every root axis in ``loop_past_extent`` (a pad's
    producer computed in the pad's longer loops: ``IdModel.pad_bounded``), except the axes in ``left_out``."""
    conds: list[Val] = []
    need = (set(index_math.roots_needing_predicate(tv)) | set(loop_past_extent)) - left_out
    for r in tv.root:
        if r in need and not r.is_broadcast and (include_reduction or not runs_along(tv, r)):
            conds.append(idx[r].lt(r.extent))
    for x in sorted(index_math.axes_needing_predicate(tv), key=lambda i: i.label()):
        if not x.is_broadcast and x in idx and x not in left_out and (include_reduction or not runs_along(tv, x)):
            conds.append(idx[x].lt(x.extent))
    return conds


def thread_conditions(a: Analyses, tv: TensorView, include_reduction: bool, memory: MemoryType) -> list[Val]:
    """This thread and block compute the element: thread and block axes shorter than the launch, and one
    thread (block) of each launch dimension the tensor is not parallel on writes shared (global) memory."""
    conds: list[Val] = []
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
            if pt is ParallelType.BIDz and a.buffers.after_grid_reduction(tv):
                continue        # only the last block of the grid reduction computes it: one writer already
            if pt is ParallelType.BIDx and a.ids.stream_k is not None and _in_stream_k_tiles(a, tv):
                continue        # the stream-K tile loop deals the tiles out to the blocks: one writer already
            conds.append(Val.symbol(pt.cuda_index).eq(0))
    return conds


def _in_stream_k_tiles(a: Analyses, tv: TensorView) -> bool:
    """``tv`` is computed inside the stream-K tile loop, whose per-block ranges do not overlap."""
    sk = a.ids.stream_k
    return sk is not None and any(a.ids.group(i) is sk.tiles for i in tv.loop)


def guarded(cond: Val, nodes: list[Node]) -> list[Node]:
    if cond.const_value() == 1:
        return nodes
    return [IfThenElse(cond, tuple(nodes))]


# ------------------------------------------------------------------ values
def const(x: object, dtype: DataType) -> Const:
    return Const(x, dtype)  # type: ignore[arg-type]


def operand_value(a: Analyses, x: object, consumer: TensorView, c_idx: dict, dtype: DataType,
                  inlined: frozenset = frozenset(), loaded: Mapping[TensorView, Value] | None = None) -> Value:
    """``x`` as ``consumer`` reads it at ``c_idx``; a tensor in ``inlined`` (computed in the same loops)
    is computed right here instead of read from its buffer, and one in ``loaded`` is that value (the element,
    already in a register)."""
    if isinstance(x, TensorView):
        if loaded and x in loaded:
            return loaded[x]
        if x in inlined:
            return cast_to(compute_value(a, x, own_indices(a, x), inlined, loaded), x.dtype)
        if x in a.ids.views:
            load, fills = view_read(a, x, consumer, c_idx)
            value: Value = load
            for cond, fill in reversed(fills):
                value = SelectValue(cond, value, const(fill, x.dtype), x.dtype)
            return value
        return Load(a.buffers.buffers[x], read_index(a, x, consumer, c_idx))
    if isinstance(x, ScalarInput):  # a kernel parameter by value, read where it is used
        return ScalarParam(x.param_name, x.dtype)
    if isinstance(x, Val):          # an extent (``tv.size(d)``): a constant, or a symbol bound at launch
        c = x.const_value()
        return const(c, DataType.Int64) if c is not None else ScalarValue(x, DataType.Int64)
    if isinstance(x, bool):
        return const(x, DataType.Bool)
    return const(x, DataType.Float if isinstance(x, float) else dtype)


def cast_to(value: Value, dtype: DataType) -> Value:
    return value if value_dtype(value) == dtype else CastValue(value, dtype)


def compute_value(a: Analyses, tv: TensorView, c_idx: dict, inlined: frozenset = frozenset(),
                  loaded: Mapping[TensorView, Value] | None = None) -> Value:
    e = tv.definition
    ins = e.inputs

    def operand(x: object, dtype: DataType = tv.dtype) -> Value:
        return operand_value(a, x, tv, c_idx, dtype, inlined, loaded)

    if isinstance(e, (LoadStoreOp, BroadcastOp, ViewOp)):
        return operand(ins[0])
    if isinstance(e, UnaryOp) and e.op == "logical_not":
        return UnaryValue(e.op, cast_to(operand(ins[0]), DataType.Bool), DataType.Bool)
    if isinstance(e, UnaryOp):
        return UnaryValue(op_for(tv, e.op), operand(ins[0]), tv.dtype)
    if isinstance(e, CastOp):
        return CastValue(operand(ins[0]), e.dtype)
    if isinstance(e, BinaryOp) and e.op in COMPARE_OPS:
        compute = _operand_type(ins)
        return CompareValue(e.op, operand(ins[0], compute), operand(ins[1], compute), compute)
    if isinstance(e, BinaryOp) and e.op in LOGICAL_OPS:
        x, y = (cast_to(operand(v, DataType.Bool), DataType.Bool) for v in ins)
        return BinaryValue(e.op, x, y, DataType.Bool)
    if isinstance(e, BinaryOp):
        return BinaryValue(e.op, operand(ins[0]), operand(ins[1]), tv.dtype)
    if isinstance(e, WhereOp):
        return SelectValue(cast_to(operand(ins[0], DataType.Bool), DataType.Bool), operand(ins[1]), operand(ins[2]),
                           tv.dtype)
    if isinstance(e, FullOp):
        return const(e.value, tv.dtype)
    if isinstance(e, IotaOp):
        return _iota_value(e, c_idx[tv.root[0]], tv.dtype)
    if isinstance(e, PadOp):
        return SelectValue(pad_inside(tv, c_idx), operand(ins[0]), const(e.value, tv.dtype), tv.dtype)
    if reduces(e) and sums_products(e):
        return BinaryValue("mul", CastValue(operand(ins[0]), DataType.Float), CastValue(operand(ins[1]), DataType.Float),
                           DataType.Float)
    if reduces(e) or scans(e):
        return operand(ins[0])
    raise LoweringError(f"T{tv.name}: no lowering for {type(e).__name__}")


def accumulation(a: Analyses, tv: TensorView, c_idx: dict, total: Buffer, index: Val) -> Assign:
    """The statement adding ``tv``'s term at ``c_idx`` to its running total ``total[index]``: combined with
    ``reduce_op``, or, for a rescaled sum, ``total = total * scale + term``."""
    e = tv.definition
    term = cast_to(compute_value(a, tv, c_idx), total.dtype)
    if not rescales(e):
        return Assign(total, index, term, reduce_op=combine_op(e))
    scale = cast_to(operand_value(a, e.inputs[1], tv, c_idx, tv.dtype), total.dtype)
    rescaled = BinaryValue("mul", Load(total, index), scale, total.dtype)
    return Assign(total, index, BinaryValue("add", rescaled, term, total.dtype))


def rescale(a: Analyses, tv: TensorView, c_idx: dict, total: Buffer, index: Val) -> Assign:
    """A rescaled sum's running total multiplied by its scale at ``c_idx``, its term left out: the step of one
    whose term a tensor-core matmul accumulates into ``total`` itself (``TensorCores.accumulated_in``)."""
    scale = cast_to(operand_value(a, tv.definition.inputs[1], tv, c_idx, tv.dtype), total.dtype)
    return Assign(total, index, BinaryValue("mul", Load(total, index), scale, total.dtype))


def _operand_type(ins: list) -> DataType:
    """The type a comparison computes in: its operands' promoted type (``fusion_ir.op_core``)."""
    from fusion_ir.op_core import operand_dtype
    from fusion_ir.types import promote

    return promote(operand_dtype(ins[0]), operand_dtype(ins[1]))


def _iota_value(e: IotaOp, index: Val, dtype: DataType) -> Value:
    """``start + index * step`` in ``dtype``: the index is the position along the iota's one axis."""
    value: Value = cast_to(ScalarValue(index, DataType.Int64), dtype)
    if e.step != 1:
        value = BinaryValue("mul", value, const(e.step, dtype), dtype)
    if e.start != 0:
        value = BinaryValue("add", const(e.start, dtype), value, dtype)
    return value


def value_dtype(v: Value) -> DataType:
    return v.dtype
