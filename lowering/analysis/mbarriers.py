"""mbarriers and tokens: the barrier every TMA copy completes on.

Built from the TMA boxes and the circular-buffer facts. A circular-buffered loop with TMA loads
has one mbarrier array for all of them (``stages`` "full" barriers, then ``stages`` "empty" ones
with ``uses_mbarrier_for_war``), named after its first TMA tensor, and, when its compute warp
groups take their turns in order (``CircularLoop.ordered_turns``), an array of ordering barriers; a TMA load outside any
circular-buffered loop has its own mbarrier and a token (the token form). ``slot(tv)`` is the
barrier and index tv's copies complete on, written in the loop index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fusion_ir import MemoryType, TensorView
from fusion_ir.scalar import Val
from fusion_ir.types import DataType

from ..kernel_ir import Buffer
from .circular_buffer import CircularBufferInfo, CircularLoop
from .mbarrier_layout import MBAR_ALIGN, MBAR_BYTES, OrderingBarriers
from .tma import TmaInfo

__all__ = ["MBAR_ALIGN", "MBAR_BYTES", "MBarrierPlan", "OrderingBarriers", "TokenBarrier", "build"]


@dataclass(frozen=True)
class TokenBarrier:
    tv: TensorView
    mbar: Buffer
    token: Buffer


@dataclass
class MBarrierPlan:
    arrays: dict[int, Buffer] = field(default_factory=dict)            # by loop-group number
    tokens: dict[TensorView, TokenBarrier] = field(default_factory=dict)
    ordering: dict[int, OrderingBarriers] = field(default_factory=dict)   # loops with ordered turns, by group number
    _slots: dict[TensorView, tuple[Buffer, Val]] = field(default_factory=dict)

    def array(self, loop: CircularLoop) -> Buffer:
        return self.arrays[loop.group.number]

    def slot(self, tv: TensorView) -> tuple[Buffer, Val]:
        return self._slots[tv]


def build(tma: TmaInfo, circular: CircularBufferInfo) -> MBarrierPlan:
    plan = MBarrierPlan()
    for tv in tma.boxes:
        if circular.is_buffered(tv):
            continue
        mbar = Buffer(f"T{tv.name}_mbar", DataType.Int64, MemoryType.Shared, Val.const(1), align=MBAR_ALIGN)
        token = Buffer(f"T{tv.name}_token", DataType.Int64, MemoryType.Local, Val.const(1))
        plan.tokens[tv] = TokenBarrier(tv, mbar, token)
        plan._slots[tv] = (mbar, Val.const(0))
    for number, loop in circular.loops.items():
        if not loop.tma:
            continue
        mbar = Buffer(f"T{loop.tma[0].name}_mbar", DataType.Int64, MemoryType.Shared, Val.const(loop.slots),
                      align=MBAR_ALIGN)
        plan.arrays[number] = mbar
        if loop.ordered_turns:
            order = Buffer(f"T{loop.tma[0].name}_order", DataType.Int64, MemoryType.Shared,
                           Val.const(OrderingBarriers.slots_for(loop.takers)), align=MBAR_ALIGN)
            plan.ordering[number] = OrderingBarriers(order, loop.takers)
        for tv in loop.tma:
            plan._slots[tv] = (mbar, loop.full(loop.stage(loop.iteration)))
    return plan
