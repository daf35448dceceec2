"""mbarrier and token lifetime: allocate every mbarrier (and token), initialize it before its
first use and invalidate it after its last.

Reads: the ``mbarriers`` analysis (token barriers of TMA loads outside circular-buffered loops,
one barrier array per circular-buffered loop with TMA loads), the ``circular`` analysis and the
loop nest.
Writes:
- a token barrier: its Allocate and the token's (in the token form), an elected init and a block sync at the top of
  the kernel; a block sync and an elected inval at its end;
- a barrier array of a circular-buffered loop: its Allocate, the elected init loop and a block
  sync just before the loop (pre-prologue; with ``uses_mbarrier_for_war`` every thread then
  pre-arrives on the "empty" barriers; a warp-specialized loop's compute branch does that
  itself), a block sync and the elected inval loop just after it (post-epilogue); the "empty"
  barriers count the threads that read a stage (one warp group's when they take turns); a
  ping-pong loop's ordering barriers are allocated, initialized and invalidated with them. The
  circular-buffer pass later clones the loop itself. An epilogue pipeline's (``CircularLoop.companion_of``)
  barriers and buffers come before the mainloop's loop, whose producer fills them, and go after its own loop.
Guarantees: a block sync on both sides of every init and inval, so shared-memory reuse sees the
init as a barrier's first write and the inval as its last read.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir.scalar import Val

from ..analysis import Analyses
from ..analysis.circular_buffer import CircularLoop
from ..analysis.mbarriers import TokenBarrier
from ..errors import LoweringError
from ..kernel_ir import (
    Allocate,
    BlockSync,
    ElectSync,
    ForLoop,
    Kernel,
    MBarrierArrive,
    MBarrierInit,
    MBarrierInval,
    Node,
    Stage,
    children,
    rewrite,
)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    body = kernel.body
    for token in a.mbarriers.tokens.values():
        body = _token_lifetime(body, token)
    for loop in a.circular.pipelines():
        if loop.tma:
            body = _around_loop(body, loop, a)
    return replace(kernel, body=body)


def _hoisted(body: tuple[Node, ...], loop: CircularLoop, a: Analyses) -> tuple[tuple[Node, ...], list[Node]]:
    """An epilogue pipeline's buffers are written by the producer branch from the mainloop's start on: their
    Allocates, wherever the loop nest put them, move ahead of the mainloop (with the barriers), so the producer
    sees them declared and shared-memory reuse sees them live through the mainloop."""
    bufs = {a.buffers.buffers[tv] for tv in loop.tensors if tv in a.buffers.buffers}
    found: list[Node] = []

    def drop(node: Node):
        if isinstance(node, Allocate) and node.buffer in bufs:
            found.append(node)
            return ()
        return None

    return rewrite(body, drop), found


def _token_lifetime(body: tuple[Node, ...], token: TokenBarrier) -> tuple[Node, ...]:
    mbar, zero = token.mbar, Val.const(0)
    s = Val.symbol(f"s_{mbar.name}")
    init: Node = MBarrierInit(mbar, zero, Val.const(1))
    inval: Node = MBarrierInval(mbar, zero)
    if token.slots > 1:     # a barrier per issuing index (``TokenBarrier.slots``)
        init = ForLoop(s, zero, Val.const(token.slots), (MBarrierInit(mbar, s, Val.const(1)),),
                       label=f"a {mbar.name} per issuer", stage=Stage.PrePrologue)
        inval = ForLoop(s, zero, Val.const(token.slots), (MBarrierInval(mbar, s),),
                        label=f"a {mbar.name} per issuer", stage=Stage.PostEpilogue)
    tokens = (Allocate(token.token),) if token.token is not None else ()
    head = (Allocate(mbar), *tokens, ElectSync((init,)),
            BlockSync(reason=f"init: {mbar.name} visible to every thread"))
    tail = (BlockSync(reason=f"every wait on {mbar.name} done before inval"), ElectSync((inval,)))
    return head + body + tail


def _around_loop(body: tuple[Node, ...], loop: CircularLoop, a: Analyses) -> tuple[Node, ...]:
    """mbarrier array, init and inval around every ForLoop of ``loop``'s group."""
    S = loop.stages
    mbar = a.mbarriers.array(loop)
    s = Val.symbol(f"s{loop.group.number}")

    init: list[Node] = [MBarrierInit(mbar, s, Val.const(1))]
    readers = loop.readers(a.ids.block_threads())
    if loop.war_mbarrier:
        init.append(MBarrierInit(mbar, loop.empty(s), readers))
    order = a.mbarriers.ordering.get(loop.group.number) if loop.companion_of is None else None
    elected: list[Node] = [ForLoop(s, Val.const(0), Val.const(S), tuple(init), label=f"stages of {loop.describe()}",
                                   stage=Stage.PrePrologue)]
    if order is not None:
        elected.append(ForLoop(s, Val.const(0), Val.const(order.slots), (MBarrierInit(order.mbar, s, readers),),
                               label="ping-pong order of the compute warp groups", stage=Stage.PrePrologue))
    head: list[Node] = [
        *([Allocate(order.mbar)] if order is not None else []),
        Allocate(mbar),
        ElectSync(tuple(elected)),
        BlockSync(reason=f"init: {mbar.name} visible to every thread"),
    ]
    if loop.war_mbarrier and loop.warp_specialized is None:
        head.append(ForLoop(s, Val.const(0), Val.const(S), (MBarrierArrive(mbar, loop.empty(s)),),
                            label="every stage starts empty", stage=Stage.PrePrologue))
    inval: list[Node] = [ForLoop(s, Val.const(0), Val.const(loop.slots), (MBarrierInval(mbar, s),),
                                 label=f"stages of {loop.describe()}", stage=Stage.PostEpilogue)]
    if order is not None:
        inval.append(ForLoop(s, Val.const(0), Val.const(order.slots), (MBarrierInval(order.mbar, s),),
                             label="ping-pong order of the compute warp groups", stage=Stage.PostEpilogue))
    tail = (BlockSync(reason=f"every wait on {mbar.name} done before inval"), ElectSync(tuple(inval)))
    # an epilogue pipeline's barriers live from the mainloop's start (its producer issues the loads) to its own end
    first = loop.companion_of if loop.companion_of is not None else loop
    if loop.companion_of is not None:
        body, allocs = _hoisted(body, loop, a)
        head = allocs + head

    found = [False]

    def is_loop(node: Node, lp: CircularLoop) -> bool:
        return isinstance(node, ForLoop) and node.index == lp.index and node.stage is None

    def wrap(nodes: tuple[Node, ...]) -> tuple[Node, ...]:
        start = next((k for k, node in enumerate(nodes) if is_loop(node, first)), None)
        end = next((k for k in range(len(nodes) - 1, -1, -1) if is_loop(nodes[k], loop)), None)
        if start is not None and end is not None and end >= start:
            found[0] = True
            return nodes[:start] + tuple(head) + nodes[start:end + 1] + tail + nodes[end + 1:]
        out: list[Node] = []
        for node in nodes:
            kids = children(node)
            if kids:
                node = replace(node, **{name: wrap(sub) for name, sub in kids})
            out.append(node)
        return tuple(out)

    body = wrap(body)
    if not found[0]:
        raise LoweringError(f"internal: no loop {loop.group.label()} holds the circular-buffered {loop.describe()}")
    return body
