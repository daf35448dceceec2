"""Grid reduction statements: the blocks along BIDz each hold partials of one reduction; the last block to
arrive sums them in split order.

The indexing pass asks ``lower`` for a reduction's ``GridReduce`` step (placed by the loop nest right after
its serial reduction loop, outside every loop). The statements, every thread of every block:

1. write the thread's whole partial (every register of its accumulator, ``slots`` of them) to the work
   buffer at its own place, ``work[split][block][slot][thread]`` (a slot's threads are contiguous: the
   stores coalesce);
2. ``GridFence`` (``__threadfence``): those writes come before anything the thread does after it, at GPU
   scope;
3. ``BlockSync``: every thread of the block has written and fenced before
4. ``SemaphoreArrive``: thread 0 adds 1 to the block's semaphore (acquire-release at GPU scope), and the
   block learns whether it arrived last (``last_T<n>``);
5. in the last block only: each slot starts from the reduction's init and adds the partials of splits
   0, 1, ..., S - 1 in that order (the loop unrolled by ``SPLIT_UNROLL``, so that many loads are in flight
   at once), then thread 0 puts the semaphore back to 0 for the next launch.

The sum's order is the split order, never the arrival order, so the result is the same bits whichever block
arrives last (deterministic). The ``grid_reduction`` pass then moves the reduction's consumers (the epilogue,
the stores) into the last block's branch. ``buffers.GridReductionBuffers`` sizes the work buffer and the
semaphores.
"""

from __future__ import annotations

from fusion_ir import ParallelType, TensorView
from fusion_ir.exprs import combine_op, reduction_init
from fusion_ir.scalar import Val, all_of

from .analysis import Analyses
from .indexing_exprs import const, guarded
from .kernel_ir import (
    Assign,
    BlockSync,
    ForLoop,
    GridFence,
    IfThenElse,
    Load,
    Node,
    SemaphoreArrive,
)

THREAD_AXES = (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)
SPLIT_UNROLL = 8   # the last block's loop over the splits: a rolled loop waits out one load per split


def last_block_symbol(tv: TensorView) -> str:
    """The symbol ``SemaphoreArrive`` binds for ``tv``'s grid reduction: 1 in the block that arrived last."""
    return f"last_T{tv.name}"


def thread_index(a: Analyses) -> Val:
    """The thread's linear index in its block (x fastest)."""
    index = Val.const(0)
    stride = Val.const(1)
    for pt in THREAD_AXES:
        extent = a.ids.launch[pt]
        if extent.const_value() == 1:
            continue
        index = index + Val.symbol(pt.cuda_index) * stride
        stride = stride * extent
    return index


def first_thread(a: Analyses) -> Val:
    """Thread 0 of the block: the one that arrives on and resets the semaphore."""
    return all_of([Val.symbol(pt.cuda_index).eq(0) for pt in THREAD_AXES if a.ids.launch[pt].const_value() != 1])


def lower(tv: TensorView, a: Analyses) -> list[Node]:
    """The statements of ``tv``'s grid reduction (the module docstring's steps 1 to 5)."""
    plan = a.buffers.grid_reductions[tv]
    partial = a.buffers.partial(tv)
    work, semaphores = plan.work.buffer, plan.semaphores.buffer
    launch = a.ids.launch
    splits = launch[ParallelType.BIDz]
    blocks = launch[ParallelType.BIDx] * launch[ParallelType.BIDy]
    block = Val.symbol("blockIdx.y") * launch[ParallelType.BIDx] + Val.symbol("blockIdx.x")
    threads = a.ids.launched_threads()
    tid = thread_index(a)
    slot = Val.symbol(f"g{tv.name}")
    split = Val.symbol(f"z{tv.name}")

    def at(s: Val) -> Val:
        return ((s * blocks + block) * plan.slots + slot) * threads + tid

    slots = Val.const(plan.slots)
    write = ForLoop(slot, Val.const(0), slots, (Assign(work, at(Val.symbol("blockIdx.z")), Load(partial, slot)),),
                    label=f"partials of T{tv.name}", unroll=True)
    name = last_block_symbol(tv)
    init = Assign(partial, slot, const(reduction_init(tv.definition), partial.dtype))
    add = Assign(partial, slot, Load(work, at(split)), reduce_op=combine_op(tv.definition))
    # unrolled by SPLIT_UNROLL: that many partials' loads in flight, the adds still in split order
    total = ForLoop(slot, Val.const(0), slots,
                    (init, ForLoop(split, Val.const(0), splits, (add,), label="splits, in order",
                                   unroll=SPLIT_UNROLL)),
                    label=f"partials of T{tv.name}", unroll=True)
    reset = guarded(first_thread(a), [Assign(semaphores, block, const(0, semaphores.dtype))])
    return [
        write,
        GridFence(f"T{tv.name}'s partials visible at GPU scope before the arrival"),
        BlockSync(f"every thread's partials of T{tv.name} written and fenced before the arrival"),
        SemaphoreArrive(semaphores, block, splits, name),
        IfThenElse(Val.symbol(name).ne(0), (total, *reset)),
    ]
