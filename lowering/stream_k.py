"""A stream-K tile's fix-up: the partials of a tile split between blocks summed in block order by the last.

The loop nest puts a ``StreamKFixup`` step right after the accumulator's K loop, inside the tile loop, so it runs
once per segment (``fusion_ir/stream_k.py``: block ``b``'s share of tile ``t``'s K tiles). The statements, every
thread of the block:

1. unless the segment covers the whole tile (``whole``), write the thread's partial (every register) to the work
   buffer at ``work[b][slot(b, t)][g][thread]`` (``slot``: 0 for the block's first segment, 1 for its last), then
   ``GridFence`` and ``BlockSync``: every thread's partial written and fenced before
2. ``SemaphoreArrive`` on ``sem[t]`` with ``segments(t)`` arrivals: thread 0's ``atom.add.acq_rel.gpu``; the block
   learns whether it arrived last. A whole tile skips it (``skip``): its block is the last at once;
3. in the last block of a split tile: every register starts from 0, then for each of blocks
   ``first_block(t), ..., last_block(t)`` in that order every register adds that block's partial (a segment's loads
   independent of each other, all in flight at once) (the K order, whichever block arrived last: the same bits
   every run), its own read back like the others; then thread 0 puts ``sem[t]`` back to 0 (the next launch, and
   no other segment of this launch, uses it again).

The arrival is the flag: a block never waits on another (no block spins on a flag, so a grid larger than the
resident blocks cannot deadlock), and the release-acquire chain (write, fence, barrier, release add; acquire add,
barrier) is the grid reduction's (``lowering/grid_reduction.py``). The ``grid_reduction`` pass then moves the
epilogue (every statement of the tile loop after the arrival that reads the sum or writes an output) into the last
block's branch.
"""

from __future__ import annotations

from fusion_ir import TensorView
from fusion_ir.scalar import Val, logical_not

from .analysis import Analyses
from .grid_reduction import first_thread, last_block_symbol, thread_index
from .indexing_exprs import const, guarded
from .kernel_ir import Assign, BlockSync, ForLoop, GridFence, IfThenElse, Load, Node, SemaphoreArrive


def lower(tv: TensorView, a: Analyses) -> list[Node]:
    """The statements of ``tv``'s stream-K fix-up of one segment (the module docstring's steps 1 to 3)."""
    sk = a.ids.stream_k
    assert sk is not None
    plan = a.buffers.grid_reductions[tv]
    partial = a.buffers.partial(tv)
    work, flags = plan.work.buffer, plan.semaphores.buffer
    space = sk.space()
    block, tile = Val.symbol("blockIdx.x"), sk.tiles.index
    threads = a.ids.launched_threads()
    tid = thread_index(a)
    slot = Val.symbol(f"g{tv.name}")
    owner = Val.symbol(f"z{tv.name}")

    def at(b: Val) -> Val:
        return ((b * 2 + space.slot(b, tile)) * plan.slots + slot) * threads + tid

    whole = space.whole(block, tile)
    split = logical_not(whole)
    slots = Val.const(plan.slots)
    write = ForLoop(slot, Val.const(0), slots, (Assign(work, at(block), Load(partial, slot)),),
                    label=f"partials of T{tv.name}", unroll=True)
    init = ForLoop(slot, Val.const(0), slots, (Assign(partial, slot, const(0, partial.dtype)),),
                   label=f"partials of T{tv.name}", unroll=True)
    add = ForLoop(slot, Val.const(0), slots, (Assign(partial, slot, Load(work, at(owner)), reduce_op="add"),),
                  label=f"partials of T{tv.name}", unroll=True)
    # the segments outside, the registers inside: a segment's loads are independent, all in flight at once (a
    # register's chain of segment loads each waited for in turn made the fix-up latency-bound)
    total = (init, ForLoop(owner, space.first_block(tile), space.last_block(tile) + 1, (add,),
                           label="the tile's segments, in K order"))
    name = last_block_symbol(tv)
    reset = guarded(first_thread(a), [Assign(flags, tile, const(0, flags.dtype))])
    return [
        IfThenElse(split, (
            write,
            GridFence(f"T{tv.name}'s partial tile visible at GPU scope before the arrival"),
            BlockSync(f"every thread's partial of T{tv.name} written and fenced before the arrival"),
        )),
        SemaphoreArrive(flags, tile, space.segments(tile), name, skip=whole),
        IfThenElse(Val.symbol(name).ne(0), (IfThenElse(split, (*total, *reset)),)),
    ]
