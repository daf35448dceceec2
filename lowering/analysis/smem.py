"""Shared-memory plan: the live interval and byte offset of every Shared buffer.

Built from the kernel right before the ``smem_reuse`` pass, which applies it to that same kernel
(node positions are keyed by the node objects themselves, ``IdentityMap``). A buffer lives from its first write to its last use,
and through every loop it is used in but declared outside of (the next iteration uses it again);
an mbarrier lives from its init to its inval; an epilogue pipeline's buffer (``CircularLoop.companion_of``)
from the start of the mainloop whose producer fills it. Two buffers declared in one loop body may share
memory when one dies before the other is first written in every iteration: the next iteration
writes the first again after the second's last use, so the
``smem_reuse`` pass synchronizes there too (``Live.reuses_in_loop``). Live buffers never overlap;
each offset is a multiple of the buffer's alignment (128 B for TMA destinations, a whole repeat for
swizzled ones). The buffer of a tensor with ``set_shared_reuse(False)`` shares memory with none. The offsets of constant-size buffers come from the shared-memory model
(``smem_model.lay_out``: first fit by first use), as the matmul scheduler's estimate does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import smem_model
from fusion_ir import MemoryType
from fusion_ir.scalar import Val
from smem_model import BufferRequest

from ..effects import buffers_touched
from ..identity_map import IdentityMap
from ..kernel_ir import Allocate, Buffer, ForLoop, Kernel, Node, TensorOp, TensorOpKind, children
from .buffers import BufferPlan
from .circular_buffer import CircularBufferInfo
from .mma import MmaInfo


@dataclass
class Live:
    buffer: Buffer
    start: int
    end: int
    used: bool = False
    offset: Val | None = None
    reuses: tuple[Buffer, ...] = ()       # the dead buffers whose memory this one takes over
    # of those, the ones declared in the same loop body: the next iteration takes the memory back
    reuses_in_loop: tuple[Buffer, ...] = ()


@dataclass
class SmemPlan:
    """Live intervals by buffer (``Buffer`` compares by value: equal buffers are one storage) and the
    (first, last) position of every statement by the statement itself (``IdentityMap``: equal statements
    at two places are two entries)."""

    lives: dict[Buffer, Live] = field(default_factory=dict)
    ranges: IdentityMap[Node, tuple[int, int]] = field(default_factory=IdentityMap)
    total: Val = field(default_factory=lambda: Val.const(0))

    def reusers(self) -> dict[Buffer, tuple[Buffer, ...]]:
        """Every buffer that takes over memory of dead ones, with those."""
        return {buf: lv.reuses for buf, lv in self.lives.items() if lv.reuses}


def build(kernel: Kernel, buffers: BufferPlan, mma: MmaInfo | None = None,
          circular: CircularBufferInfo | None = None) -> SmemPlan:
    plan = SmemPlan()
    # an epilogue pipeline's buffers are written by the producer branch from the mainloop's start on
    early: list[tuple[Val, list[Buffer]]] = []
    for lp in circular.companions if circular is not None else []:
        assert lp.companion_of is not None
        early.append((lp.companion_of.index, [buffers.buffers[tv] for tv in lp.tensors if tv in buffers.buffers]))
    lives = plan.lives
    counter = [0]
    loops: list[ForLoop] = []                          # the loops around the node being visited
    declared_in: dict[Buffer, list[ForLoop]] = {}      # buffer -> the loops around its Allocate
    spanned: dict[Buffer, list[ForLoop]] = {}          # buffer -> loops it is used in but declared outside
    body_of: dict[Buffer, ForLoop | None] = {}         # buffer -> the loop whose body declares it

    def touch(buf: Buffer, pos: int) -> None:
        live = lives.get(buf)
        if live is None:
            return
        if not live.used:
            live.start, live.used = pos, True   # live from the first write, not the declaration
        live.end = max(live.end, pos)
        seen = declared_in[buf] + spanned[buf]
        spanned[buf].extend(lp for lp in loops if not any(lp is x for x in seen))

    def visit(body: tuple[Node, ...]) -> int:
        for node in body:
            counter[0] += 1
            pos = counter[0]
            if isinstance(node, Allocate) and node.buffer.memory is MemoryType.Shared:
                buf = node.buffer
                lives[buf] = Live(buf, pos, pos)
                declared_in[buf] = list(loops)
                body_of[buf] = loops[-1] if loops else None
                spanned[buf] = []
                plan.ranges[node] = (pos, pos)
                continue
            for buf in referenced_buffers(node, buffers, mma):
                touch(buf, pos)
            if isinstance(node, ForLoop):
                for index, bufs in early:
                    if node.index == index:
                        for buf in bufs:
                            touch(buf, pos)
                loops.append(node)
            for _, sub in children(node):
                visit(sub)
            if isinstance(node, ForLoop):
                loops.pop()
            plan.ranges[node] = (pos, counter[0])
        counter[0] += 1
        return counter[0]

    visit(kernel.body)
    # A buffer used in a loop it is declared outside of is read again by the next iteration:
    # it lives through the whole loop.
    for buf, spanned_loops in spanned.items():
        for loop in spanned_loops:
            lo, hi = plan.ranges[loop]
            lives[buf].start = min(lives[buf].start, lo)
            lives[buf].end = max(lives[buf].end, hi)
    own = {buffers.buffers[tv] for tv in buffers.buffers if not tv.shared_reuse}   # ``TensorView.set_shared_reuse``
    plan.total = _assign(list(lives.values()), own)
    for lv in lives.values():
        loop = body_of[lv.buffer]
        if loop is not None:
            lv.reuses_in_loop = tuple(d for d in lv.reuses if body_of.get(d) is loop)
    return plan


def referenced_buffers(node: Node, buffers: BufferPlan, mma: MmaInfo | None = None) -> set[Buffer]:
    """The buffers the node reads or writes (``lowering.effects``), with what a not yet indexed op will
    touch once lowered, which only the analyses know."""
    if not isinstance(node, TensorOp):
        return {e.buffer for e in buffers_touched(node) if e.buffer is not None}
    tensors = {e.resource for e in buffers_touched(node)}
    staged = mma.staged.get(node.tv) if mma is not None else None
    if staged is not None and staged.per_instruction:
        # stmatrix computes its registers right before each instruction: it reads what they read
        for tv in staged.inlined | {staged.source}:
            tensors.update(tv.producers())
    found = {buffers.buffers[tv] for tv in tensors if tv in buffers.buffers}
    if node.kind is TensorOpKind.BlockReduce and buffers.workspace is not None and node.tv not in buffers.shuffled:
        found.add(buffers.workspace)   # the indexing pass lowers it to a BlockReduce over the workspace
    return found


def _assign(lives: list[Live], own: set[Buffer]) -> Val:
    """Constant sizes laid out by the shared-memory model (first fit by first use); symbolic sizes
    go after, unshared. A buffer of ``own`` counts as live all the time: it shares memory with none."""
    constant = [x for x in lives if x.buffer.nbytes.const_value() is not None]
    layout = smem_model.lay_out([BufferRequest(lv.buffer.name, lv.buffer.nbytes.const_value(), lv.buffer.align,
                                               None if lv.buffer in own else (lv.start, lv.end)) for lv in constant])
    by_name = {lv.buffer.name: lv.buffer for lv in constant}     # the model names its requests
    for lv in constant:
        lv.offset = Val.const(layout.offsets[lv.buffer.name])
        lv.reuses = tuple(by_name[name] for name in layout.reuses.get(lv.buffer.name, ()))
    total: Val = Val.const(layout.total)
    for lv in [x for x in lives if x.buffer.nbytes.const_value() is None]:
        total = _align_val(total, lv.buffer.align)
        lv.offset = total
        total = total + lv.buffer.nbytes
    return total


def _align_val(v: Val, align: int) -> Val:
    c = v.const_value()
    if c is not None:
        return Val.const(smem_model.align_up(c, align))
    return (v + (align - 1)) // align * align

