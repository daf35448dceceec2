"""mbarriers and tokens: the barrier every TMA copy completes on.

Built from the TMA boxes and the circular-buffer facts. A circular-buffered loop with TMA loads
has one mbarrier array for all of them (``stages`` "full" barriers, then ``stages`` "empty" ones
with ``uses_mbarrier_for_war``), named after its first TMA tensor (an epilogue pipeline beside a
warp-specialized mainloop, ``CircularLoop.companion_of``, an array of its own, ``T<n>_epilogue_mbar``), and, when its compute warp
groups take their turns in order (``CircularLoop.ordered_turns``), an array of ordering barriers; a TMA load outside any
circular-buffered loop has its own mbarrier and either a parity or a token. The parity form: when the
loops around the load's issue are serial loops that run the same number of iterations in every pass of
the loops around them (all but the outermost have constant bounds), the barrier completes one phase per
issue, so the phase a thread waits for is the issue's ordinal, counted from the loop indices, mod 2
(``TokenBarrier.parity``), and every thread waits on it itself. Otherwise the token form: the elected
thread keeps the state ``arriveExpectTx`` returns and waits on it. ``slot(tv)`` is the barrier and index
tv's copies complete on, written in the loop index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from fusion_ir import MemoryType, ParallelType, TensorView
from fusion_ir.scalar import Val
from fusion_ir.types import DataType

from ..errors import LoweringError
from ..kernel_ir import Buffer, ForLoop, Kernel, Node
from ..placement import computes
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
    per index: ``slots`` of them, this thread's at ``index``.

    ``parity`` (the parity form): the parity of the phase the current issue completes, in the indices of the
    loops around the issue; every thread waits on it and there is no token. Otherwise ``token`` holds the
    state the elected thread waits on (the token form)."""
    tv: TensorView
    mbar: Buffer
    token: Buffer | None
    slots: int = 1
    index: Val = Val.const(0)  # noqa: RUF009 (Val is immutable)
    parity: Val | None = None


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


def build(tma: TmaInfo, circular: CircularBufferInfo, launch: dict[ParallelType, Val],
          kernel: Kernel | None = None, depth: Callable[[TensorView], int] | None = None) -> MBarrierPlan:
    """``launch``: the block's thread extents (``IdModel.launch``), which size a per-issuer token barrier.
    ``kernel`` (the loop nest) and ``depth`` (how many loops enclose a load's issue): where given, a load whose
    loops allow it gets the parity form; otherwise every load gets the token form."""
    plan = MBarrierPlan()
    for tv, box in tma.boxes.items():
        if circular.is_buffered(tv):
            continue
        slots, index = _issuer_slots(tv, box.issuers, launch)
        mbar = Buffer(f"T{tv.name}_mbar", DataType.Int64, MemoryType.Shared, Val.const(slots), align=MBAR_ALIGN)
        parity = None
        if kernel is not None and depth is not None:
            parity = issue_parity(_issue_loops(kernel.body, tv, depth(tv)))
        token = None if parity is not None else Buffer(f"T{tv.name}_token", DataType.Int64, MemoryType.Local,
                                                       Val.const(1))
        plan.tokens[tv] = TokenBarrier(tv, mbar, token, slots, index, parity)
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


def issue_parity(loops: list[ForLoop] | None) -> Val | None:
    """The parity of the phase that the current issue of a load completes, when one issue per iteration of
    ``loops`` (outermost first) completes one phase each: the iterations run before, counted from the loop
    indices, mod 2. Every loop but the outermost needs step 1 and bounds that read no index of the loops around it
    (each pass of it runs the same iterations); the outermost may have any bounds (``bound_loop``) and step (a
    persistent loop's gridDim.x),
    and a pass that runs it in several ranges (``loop_versions``) keeps its index values, so the count stays
    right. None where that does not hold (or the issue is under a branch): the token form is used instead."""
    if loops is None:
        return None
    parity: Val = Val.const(0)
    inner: Val = Val.const(1)       # iterations of the loops inside the current one, per iteration of it
    for k in range(len(loops) - 1, -1, -1):
        loop = loops[k]
        count = loop.index if loop.start.const_value() == 0 else loop.index - loop.start
        if k > 0:
            outer = {x.index.name for x in loops[:k]}
            if loop.step.const_value() != 1 or (loop.start.symbols() | loop.stop.symbols()) & outer:
                return None     # its passes may run different iterations
        elif loop.step.const_value() != 1:
            count = count // loop.step
        if inner.const_value() is None or inner.const_value() % 2 == 1:
            parity = parity + count * inner
        inner = inner * (loop.stop - loop.start)
    value = parity.const_value()
    return Val.const(value % 2) if value is not None else parity % 2


def _issue_loops(body: tuple[Node, ...], tv: TensorView, depth: int) -> list[ForLoop] | None:
    """The ForLoops around the statement ``depth`` loops down the path to tv's computation (where its load is
    issued), outermost first; None when a branch encloses it (the load might not be issued every iteration)."""
    loops: list[ForLoop] = []
    scope = body
    while True:
        node = next((n for n in scope if computes(n, tv)), None)
        if node is None:
            return None
        if depth == 0:
            return loops
        if isinstance(node, ForLoop):
            loops.append(node)
            scope, depth = node.body, depth - 1
            continue
        return None     # a branch (or another statement with a body) around the issue


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
