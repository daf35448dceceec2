"""Allocation: place each buffer at its allocation point and size it.

Reads: loop nest, compute-at positions, memory types, circular-buffer options.
Writes: ``ctx.buffers`` (every tensor's Buffer: parameters for fusion inputs and outputs),
``ctx.alloc_ids`` (the axes a buffer spans, in order), ``ctx.accumulators`` (per-thread
partials of block reductions), ``ctx.workspace``; ``Allocate`` nodes at the top of the
scope of each buffer's allocation position.
Guarantees: Local buffers exclude thread- and block-parallel axes and have constant
size; Shared buffers include thread-parallel axes (even left of the compute-at position)
and exclude block-parallel ones; reduction and broadcast axes are never allocated;
circular-buffered buffers are allocated outside their circular-buffer loop and sized
times the stage count.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.exprs import LoadStoreOp
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, LoadStoreOpType

from ..cb_info import cb_axis
from ..context import LoweringContext
from ..errors import LoweringError
from ..kernel_ir import Allocate, Buffer, ForLoop, Kernel, Node, TensorOp, children

TMA_ALIGN = 128


def param_buffer(tv: TensorView) -> Buffer:
    shape = tuple(i.extent for i in tv.shape_ids)
    strides = tuple(Val.symbol(f"T{tv.name}_stride{k}") for k in range(len(shape)))
    size = Val.const(1)
    for s in shape:
        size = size * s
    return Buffer(f"T{tv.name}", tv.dtype, MemoryType.Global, size, shape, strides, is_param=True)


def alloc_position(ctx: LoweringContext, tv: TensorView) -> int:
    if tv.circular_buffer_options is not None:
        return cb_axis(ctx, tv)
    return tv.compute_at_pos


def allocation_ids(ctx: LoweringContext, tv: TensorView, memory: MemoryType, pos: int) -> list[IterDomain]:
    out = []
    for k, i in enumerate(tv.loop):
        if i.is_reduction or i.is_broadcast:
            continue
        pt = ctx.group(i).parallel_type
        if k < pos:
            if memory is MemoryType.Shared and pt.is_thread:
                out.append(i)
            continue
        if memory is MemoryType.Local and pt.is_grid_or_thread:
            continue
        if memory is MemoryType.Shared and pt.is_block:
            continue
        out.append(i)
    return out


def _size(ids: list[IterDomain]) -> Val:
    size = Val.const(1)
    for i in ids:
        size = size * i.extent
    return size


def run(kernel: Kernel, ctx: LoweringContext) -> Kernel:
    fusion = ctx.fusion
    inputs = tuple(param_buffer(tv) for tv in fusion.inputs)
    outputs = tuple(param_buffer(tv) for tv in fusion.outputs)
    for tv, b in zip(list(fusion.inputs) + list(fusion.outputs), inputs + outputs):
        ctx.buffers[tv] = b

    placements: list[tuple[TensorView, int, list[Node]]] = []
    for tv in ctx.tensors:
        if tv.is_input:
            continue
        pos = alloc_position(ctx, tv)
        nodes: list[Node] = []
        if not tv.is_output:
            if tv.memory_type is MemoryType.Global:
                raise LoweringError(f"T{tv.name} is a Global intermediate; only fusion inputs and outputs may live "
                                    f"in Global memory (use Local or Shared)")
            # A circular-buffered tensor is allocated outside its circular-buffer loop but holds one
            # compute-at iteration per stage: its axes are those right of the compute-at position.
            ids = allocation_ids(ctx, tv, tv.memory_type, tv.compute_at_pos)
            size = _size(ids)
            if tv.memory_type is MemoryType.Local and size.const_value() is None:
                raise LoweringError(f"T{tv.name} is in Local memory but its allocation "
                                    f"[{', '.join(i.label() for i in ids)}] has a symbolic size {size}; "
                                    f"split the axis by a constant or compute it at a deeper position")
            stages = tv.circular_buffer_options.stages if tv.circular_buffer_options is not None else 1
            align = TMA_ALIGN if _is_tma_load(tv) else 16
            buf = Buffer(f"T{tv.name}", tv.dtype, tv.memory_type, size * stages, align=align)
            ctx.buffers[tv] = buf
            ctx.alloc_ids[tv] = ids
            nodes.append(Allocate(buf))
        if _needs_accumulator(ctx, tv):
            ids = allocation_ids(ctx, tv, MemoryType.Local, tv.compute_at_pos)
            size = _size(ids)
            if size.const_value() is None:
                raise LoweringError(f"T{tv.name}: the per-thread partial of its block reduction has a symbolic "
                                    f"size {size}; split its iteration axes by constants")
            acc_dtype = DataType.Float if tv.dtype in (DataType.Half, DataType.BFloat16) else tv.dtype
            acc = Buffer(f"T{tv.name}_acc", acc_dtype, MemoryType.Local, size)
            ctx.accumulators[tv] = acc
            ctx.alloc_ids.setdefault(tv, ids)
            ctx.notes.setdefault("acc_ids", {})[tv] = ids
            nodes.append(Allocate(acc))
        if nodes:
            placements.append((tv, pos, nodes))

    body = kernel.body
    for tv, pos, nodes in reversed(placements):
        depth = len([i for i in tv.loop[:pos] if ctx.group(i).is_loop])
        body = insert_in_scope(body, f"T{tv.name}", depth, tuple(nodes))

    if ctx.accumulators:
        threads = ctx.launch[ParallelType.TIDx] * ctx.launch[ParallelType.TIDy] * ctx.launch[ParallelType.TIDz]
        ctx.workspace = Buffer("block_workspace", DataType.Int64, MemoryType.Shared, threads, align=16)
        body = (Allocate(ctx.workspace),) + body
    return replace(kernel, body=body, inputs=inputs, outputs=outputs)


def _is_tma_load(tv: TensorView) -> bool:
    d = tv.definition
    return isinstance(d, LoadStoreOp) and d.op_type is LoadStoreOpType.TMA


def _needs_accumulator(ctx: LoweringContext, tv: TensorView) -> bool:
    return any(i.is_reduction and ctx.group(i).parallel_type.is_thread for i in tv.loop)


def contains_op(node: Node, tensor: str) -> bool:
    if isinstance(node, TensorOp):
        return node.tensor == tensor and node.kind == "compute"
    return any(contains_op(c, tensor) for _, sub in children(node) for c in sub)


def insert_in_scope(body: tuple[Node, ...], tensor: str, depth: int, nodes: tuple[Node, ...]) -> tuple[Node, ...]:
    """Insert ``nodes`` at the top of the scope ``depth`` loops down the path to ``tensor``'s compute op."""
    if depth == 0:
        return nodes + body
    out = list(body)
    for k, node in enumerate(out):
        if isinstance(node, ForLoop) and contains_op(node, tensor):
            out[k] = replace(node, body=insert_in_scope(node.body, tensor, depth - 1, nodes))
            return tuple(out)
    raise LoweringError(f"internal: no loop {depth} deep holds the computation of {tensor}")
