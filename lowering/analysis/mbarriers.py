"""mbarriers and tokens: the barrier every TMA copy completes on.

Built from the TMA boxes and the circular-buffer facts. A circular-buffered loop with TMA loads
has one mbarrier array for all of them (``stages`` "full" barriers, then ``stages`` "empty" ones
with ``uses_mbarrier_for_war``), named after its first TMA tensor (an epilogue pipeline beside a
warp-specialized mainloop, ``CircularLoop.companion_of``, an array of its own, ``T<n>_epilogue_mbar``), and, when its compute warp
groups take their turns in order (``CircularLoop.ordered_turns``), an array of ordering barriers; a TMA load outside any
circular-buffered loop has its own mbarrier and a token (the token form). ``slot(tv)`` is the
barrier and index tv's copies complete on, written in the loop index.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fusion_ir import MemoryType, ParallelType, TensorView
from fusion_ir.scalar import Val
from fusion_ir.types import DataType

from ..errors import LoweringError
from ..kernel_ir import Buffer
from .circular_buffer import CircularBufferInfo, CircularLoop
from .mbarrier_layout import MBAR_ALIGN, MBAR_BYTES, OrderingBarriers
from .tma import TmaInfo

__all__ = ["EPILOGUE_SUFFIX", "MBAR_ALIGN", "MBAR_BYTES", "MBarrierPlan", "OrderingBarriers", "TokenBarrier", "build"]

# the name of an epilogue pipeline's barrier array ends so (``viz --show pipeline`` gives it columns of its own)
EPILOGUE_SUFFIX = "_epilogue_mbar"


@dataclass(frozen=True)
class TokenBarrier:
    """The barrier an unpipelined TMA load completes on. A load each index of some thread dimensions issues
    for itself (``TmaBox.issuers``: warp groups taking turns, each loading the tile of its own turn) has a barrier
    per index: ``slots`` of them, this thread's at ``index``."""
    tv: TensorView
    mbar: Buffer
    token: Buffer
    slots: int = 1
    index: Val = Val.const(0)  # noqa: RUF009 (Val is immutable)


@dataclass
class MBarrierPlan:
    arrays: dict[str, Buffer] = field(default_factory=dict)            # by pipeline (``CircularLoop.number``)
    tokens: dict[TensorView, TokenBarrier] = field(default_factory=dict)
    ordering: dict[int, OrderingBarriers] = field(default_factory=dict)   # loops with ordered turns, by group number
    _slots: dict[TensorView, tuple[Buffer, Val]] = field(default_factory=dict)

    def array(self, loop: CircularLoop) -> Buffer:
        return self.arrays[loop.number]

    def slot(self, tv: TensorView) -> tuple[Buffer, Val]:
        return self._slots[tv]


def build(tma: TmaInfo, circular: CircularBufferInfo, launch: dict[ParallelType, Val]) -> MBarrierPlan:
    """``launch``: the block's thread extents (``IdModel.launch``), which size a per-issuer token barrier."""
    plan = MBarrierPlan()
    for tv, box in tma.boxes.items():
        if circular.is_buffered(tv):
            continue
        slots, index = _issuer_slots(tv, box.issuers, launch)
        mbar = Buffer(f"T{tv.name}_mbar", DataType.Int64, MemoryType.Shared, Val.const(slots), align=MBAR_ALIGN)
        token = Buffer(f"T{tv.name}_token", DataType.Int64, MemoryType.Local, Val.const(1))
        plan.tokens[tv] = TokenBarrier(tv, mbar, token, slots, index)
        plan._slots[tv] = (mbar, index)
    for loop in circular.pipelines():
        if not loop.tma:
            continue
        number = loop.group.number
        suffix = EPILOGUE_SUFFIX if loop.companion_of is not None else "_mbar"
        mbar = Buffer(f"T{loop.tma[0].name}{suffix}", DataType.Int64, MemoryType.Shared, Val.const(loop.slots),
                      align=MBAR_ALIGN)
        plan.arrays[loop.number] = mbar
        if loop.ordered_turns:
            order = Buffer(f"T{loop.tma[0].name}_order", DataType.Int64, MemoryType.Shared,
                           Val.const(OrderingBarriers.slots_for(loop.takers)), align=MBAR_ALIGN)
            plan.ordering[number] = OrderingBarriers(order, loop.takers)
        for tv in loop.tma:
            plan._slots[tv] = (mbar, loop.full(loop.stage(loop.iteration)))
    return plan


def _issuer_slots(tv: TensorView, issuers: tuple[ParallelType, ...],
                  launch: dict[ParallelType, Val]) -> tuple[int, Val]:
    """How many barriers a load issued per index of ``issuers`` needs, and this thread's (its linear index there)."""
    slots, index = 1, Val.const(0)
    for pt in issuers:
        n = launch[pt].const_value()
        if n is None:
            raise LoweringError(f"T{tv.name} is TMA-loaded by each index of {pt.name}, whose extent {launch[pt]} is not "
                                f"a constant; a barrier per index needs a constant count of them")
        index = index * n + Val.symbol(pt.cuda_index)
        slots *= n
    return slots, index
