"""mbarriers and tokens: the barriers that TMA loads complete on, and their lifetime.

Reads: TMA-loaded and cp.async tensors, circular-buffer options, the loop nest.
Writes: ``ctx.notes['tma']`` (each TMA tensor's box), ``ctx.tensor_maps``,
``ctx.notes['circular_loops']``, ``ctx.notes['tma_mbar']`` (the barrier and slot each TMA
copy completes on) and the ``tma_lowering`` hook the indexing pass calls; in the kernel IR:
- a TMA load outside any circular-buffered loop takes the token form: one mbarrier and one
  token, allocated and initialized at the top of the kernel and invalidated at its end; at
  the load, the elected thread arrives with the expected bytes (getting the token), issues
  the copies and waits on the token, then the block syncs;
- a circular-buffered loop with TMA loads gets one mbarrier array for all of them
  (``stages`` "full" barriers, plus ``stages`` "empty" ones with ``uses_mbarrier_for_war``):
  its allocation, the init loop and a block sync just before the loop (pre-prologue; all
  threads pre-arrive on the empty barriers), a block sync and the inval loop just after it
  (post-epilogue). The circular-buffer pass then clones the loop itself;
- a cp.async load outside any circular-buffered loop is committed and waited for right after
  the statement that issues it.
Guarantees: every mbarrier is initialized before its first use and invalidated after its last,
with a block sync on both sides, so shared-memory reuse sees init as its first write and inval
as its last read.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import MemoryType, TensorView
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, LoadStoreOpType

from .. import tma
from ..cb_info import CircularLoop, block_threads, circular_loops, load_kind
from ..context import LoweringContext
from ..errors import LoweringError
from ..kernel_ir import (AsyncCommit, AsyncWait, Allocate, BlockSync, Buffer, ElectSync, ForLoop, Kernel,
                         MBarrierArrive, MBarrierArriveExpectTx, MBarrierInit, MBarrierInval, MBarrierWait, Node,
                         RuntimeCheck, Stage, TensorOp, TmaLoad, children)
from .allocation import contains_op

MBAR_ALIGN = 8


def run(kernel: Kernel, ctx: LoweringContext) -> Kernel:
    boxes = {tv: tma.analyze(ctx, tv) for tv in ctx.tensors if tma.is_tma_load(tv)}
    for info in boxes.values():
        tma.tensor_map(ctx, info)
    ctx.notes["tma"] = boxes
    ctx.notes["tma_mbar"] = {}
    loops = circular_loops(ctx)
    ctx.notes["circular_loops"] = loops
    ctx.notes["tma_lowering"] = lambda op, idx: lower_tma(ctx, op, idx)

    body = kernel.body
    buffered = {tv for loop in loops.values() for tv in loop.tensors}
    for tv, info in boxes.items():
        if tv not in buffered:
            body = _token_form(ctx, body, info)
    for loop in loops.values():
        if loop.extent.const_value() is None:
            ctx.checks.append(_fill_check(loop))
        if loop.tma:
            body = _guard_loop(ctx, body, loop)
    for tv in ctx.tensors:
        if load_kind(tv) is LoadStoreOpType.CpAsync and tv not in buffered:
            body = at_item(body, f"T{tv.name}", _depth(ctx, tv, tv.compute_at_pos),
                           lambda item: (item, AsyncCommit("cp.async"), AsyncWait("cp.async", 0)))
    return replace(kernel, body=body)


# ------------------------------------------------------------------ token form
def _token_form(ctx: LoweringContext, body: tuple[Node, ...], info: tma.TmaBox) -> tuple[Node, ...]:
    tv = info.tv
    mbar = Buffer(f"T{tv.name}_mbar", DataType.Int64, MemoryType.Shared, Val.const(1), align=MBAR_ALIGN)
    token = Buffer(f"T{tv.name}_token", DataType.Int64, MemoryType.Local, Val.const(1))
    zero = Val.const(0)
    ctx.notes["tma_mbar"][tv] = (mbar, zero)

    def issue(item: Node) -> tuple[Node, ...]:
        return (ElectSync((MBarrierArriveExpectTx(mbar, zero, info.tx_bytes(), token, zero), item,
                           MBarrierWait(mbar, zero, token, zero))),
                BlockSync(reason=f"RAW: T{tv.name} arrived by TMA; the elected thread waited on its token"))

    body = at_item(body, f"T{tv.name}", _depth(ctx, tv, tv.compute_at_pos), issue)
    head = (Allocate(mbar), Allocate(token), ElectSync((MBarrierInit(mbar, zero, Val.const(1)),)),
            BlockSync(reason=f"init: T{tv.name}_mbar visible to every thread"))
    tail = (BlockSync(reason=f"every wait on T{tv.name}_mbar done before inval"),
            ElectSync((MBarrierInval(mbar, zero),)))
    return head + body + tail


# ------------------------------------------------------------------ circular-buffered loops
def _guard_loop(ctx: LoweringContext, body: tuple[Node, ...], loop: CircularLoop) -> tuple[Node, ...]:
    """mbarrier array, init and inval around every ForLoop of ``loop``'s group."""
    S = loop.stages
    first = loop.tma[0]
    slots = 2 * S if loop.war_mbarrier else S
    mbar = Buffer(f"T{first.name}_mbar", DataType.Int64, MemoryType.Shared, Val.const(slots), align=MBAR_ALIGN)
    loop.mbar = mbar
    tx = Val.const(0)
    for tv in loop.tma:
        tx = tx + ctx.notes["tma"][tv].tx_bytes()
        ctx.notes["tma_mbar"][tv] = (mbar, loop.index % S)
    loop.tx_bytes = tx
    threads = block_threads(ctx)
    s = Val.symbol(f"s{loop.group.number}")

    init: list[Node] = [MBarrierInit(mbar, s, Val.const(1))]
    if loop.war_mbarrier:
        init.append(MBarrierInit(mbar, s + S, threads))
    head: list[Node] = [
        Allocate(mbar),
        ElectSync((ForLoop(s, Val.const(0), Val.const(S), tuple(init), label=f"stages of {loop.describe()}",
                           stage=Stage.PrePrologue),)),
        BlockSync(reason=f"init: {mbar.name} visible to every thread"),
    ]
    if loop.war_mbarrier:
        head.append(ForLoop(s, Val.const(0), Val.const(S), (MBarrierArrive(mbar, s + S),),
                            label="every stage starts empty", stage=Stage.PrePrologue))
    tail = (BlockSync(reason=f"every wait on {mbar.name} done before inval"),
            ElectSync((ForLoop(s, Val.const(0), Val.const(slots), (MBarrierInval(mbar, s),),
                               label=f"stages of {loop.describe()}", stage=Stage.PostEpilogue),)))

    found = [False]

    def wrap(nodes: tuple[Node, ...]) -> tuple[Node, ...]:
        out: list[Node] = []
        for node in nodes:
            if isinstance(node, ForLoop) and node.index == loop.index and node.stage is None:
                found[0] = True
                out.extend(head)
                out.append(node)
                out.extend(tail)
                continue
            kids = children(node)
            if kids:
                node = replace(node, **{name: wrap(sub) for name, sub in kids})
            out.append(node)
        return tuple(out)

    body = wrap(body)
    if not found[0]:
        raise LoweringError(f"internal: no loop {loop.group.label()} holds the circular-buffered {loop.describe()}")
    return body


def _fill_check(loop: CircularLoop) -> RuntimeCheck:
    return RuntimeCheck(loop.extent.ge(loop.stages),
                        f"{loop.describe()}: the circular-buffered loop {loop.group.label()} has {loop.extent} "
                        f"iterations, which fails to fill the circular buffer pipeline of {loop.stages} stages")


# ------------------------------------------------------------------ TMA statements
def lower_tma(ctx: LoweringContext, op: TensorOp, idx: dict) -> list[Node]:
    """The indexing pass's lowering of a TMA-loaded tensor's op: one ``TmaLoad`` of its box."""
    from .indexing import write_index

    tv: TensorView = op.tv
    info: tma.TmaBox = ctx.notes["tma"][tv]
    at_origin = tma.box_origin(info, idx)
    mbar, slot = ctx.notes["tma_mbar"][tv]
    return [TmaLoad(ctx.buffers[tv], write_index(ctx, tv, at_origin), ctx.tensor_maps[tv],
                    tma.coords(info, at_origin), mbar, slot)]


# ------------------------------------------------------------------ finding a tensor's statement
def _depth(ctx: LoweringContext, tv: TensorView, pos: int) -> int:
    return len([i for i in tv.loop[:pos] if ctx.group(i).is_loop])


def at_item(body: tuple[Node, ...], tensor: str, depth: int, fn) -> tuple[Node, ...]:
    """Replace the statement ``depth`` loops down the path to ``tensor``'s op with ``fn(statement)``."""
    out = list(body)
    for k, node in enumerate(out):
        if not contains_op(node, tensor):
            continue
        if depth == 0:
            return tuple(out[:k]) + tuple(fn(node)) + tuple(out[k + 1:])
        if isinstance(node, ForLoop):
            out[k] = replace(node, body=at_item(node.body, tensor, depth - 1, fn))
            return tuple(out)
        kids = children(node)
        out[k] = replace(node, **{name: at_item(sub, tensor, depth, fn) if any(contains_op(x, tensor) for x in sub)
                                  else sub for name, sub in kids})
        return tuple(out)
    raise LoweringError(f"internal: no statement {depth} loops deep computes {tensor}")
