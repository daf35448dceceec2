"""Ping-pong: compute warp groups that take turns on tensor-core tiles keep their turns in order.

Reads: the ``circular`` analysis (every warp-specialized loop whose compute warp groups take their
turns in order, ``CircularLoop.ordered_turns``, which the ``tensor_cores`` analysis decides), the
``mbarriers`` analysis (each such loop's ``OrderingBarriers``) and the compute branch the
circular-buffer pass built.
Writes, in the compute branch of such a loop (tile index ``t``, warp group ``w`` of ``W``):
- before the loop: the last warp group arrives on ``mainloop(0)`` and ``epilogue(0)``, so group 0
  goes first;
- per tile: before its mainloop (the statements that wait on the pipeline's "full" barriers) a
  wait on ``mainloop(w)`` with parity ``t % 2``, after it an arrive on ``mainloop(w + 1)``; after
  the statements that retire the last wgmma groups and release the last stages, a wait on
  ``epilogue(w)``; after the epilogue (the rest of the tile) an arrive on ``epilogue(w + 1)``.
So group ``w + 1`` starts its mainloop as soon as group ``w`` has issued its last wgmma (not
after the wait that retires it: CUTLASS's order; nvFuser arrives after that wait) and runs it
while ``w`` runs its epilogue (nvFuser's HopperPingPongMbarriers, CUTLASS's ping-pong kernel).
Runs after ``wgmma_groups``, whose ``wait_group 0`` after the k loop this order puts after the arrive.
Guarantees: the groups consume the pipeline's iterations in the order the producer fills them.
Without the mainloop order a group would wait for a stage's "full" barrier while an earlier
group's iterations still hold it, two phases behind the one it needs, and a parity wait cannot
tell those phases apart (the simulator reports the wgmma hazard that follows).
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir.scalar import Val

from ..analysis import Analyses
from ..analysis.circular_buffer import CircularLoop
from ..analysis.mbarriers import OrderingBarriers
from ..kernel_ir import (
    ForLoop,
    IfThenElse,
    Kernel,
    MBarrierArrive,
    MBarrierWaitParity,
    Node,
    Stage,
    rewrite,
    walk,
)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    ordered = {loop.group.number: loop for loop in a.circular.loops.values() if loop.ordered_turns}
    if not ordered:
        return kernel

    def place(node: Node):
        if not isinstance(node, ForLoop) or node.stage is not Stage.ComputeWarp:
            return None
        loop = ordered.get(node.group)
        if loop is None:
            return None
        order = a.mbarriers.ordering[loop.group.number]
        mbar = a.mbarriers.array(loop)
        return _first_turn(loop, order) + (replace(node, body=_in_turn(node.body, loop, order, mbar)),)

    return replace(kernel, body=rewrite(kernel.body, place))


def _first_turn(loop: CircularLoop, order: OrderingBarriers) -> tuple[Node, ...]:
    assert loop.turns is not None
    w = loop.turns.index
    zero = Val.const(0)
    return (IfThenElse(w.eq(loop.takers - 1), (MBarrierArrive(order.mbar, order.mainloop(zero)),
                                               MBarrierArrive(order.mbar, order.epilogue(zero)))),)


def _in_turn(body: tuple[Node, ...], loop: CircularLoop, order: OrderingBarriers, mbar) -> tuple[Node, ...]:
    """A tile's statements with its mainloop and its epilogue each waiting for this group's turn."""
    assert loop.turns is not None
    w = loop.turns.index
    parity = loop.index % 2
    waits = [k for k, x in enumerate(body) if _uses(x, mbar, (MBarrierWaitParity,))]
    uses = [k for k, x in enumerate(body) if _uses(x, mbar, (MBarrierWaitParity, MBarrierArrive))]
    first, last_wait, last = waits[0], waits[-1], uses[-1]
    return (*body[:first],
            MBarrierWaitParity(order.mbar, order.mainloop(w), parity),
            *body[first:last_wait + 1],
            MBarrierArrive(order.mbar, order.mainloop(order.next(w))),
            *body[last_wait + 1:last + 1],
            MBarrierWaitParity(order.mbar, order.epilogue(w), parity),
            *body[last + 1:],
            MBarrierArrive(order.mbar, order.epilogue(order.next(w))))


def _uses(node: Node, mbar, kinds: tuple[type, ...]) -> bool:
    """The statement holds a barrier operation of one of ``kinds`` on a stage of the pipeline."""
    return any(isinstance(x, kinds) and x.mbar == mbar for x in walk((node,)))
