"""Branch barriers: inside a branch that only some warps take, every barrier is a named barrier
over that branch's threads.

Reads: warp-split branches (``IfThenElse.branch_threads``, set by the circular-buffer pass for warp
specialization) in the indexed kernel.
Writes: each ``BlockSync`` inside such a branch (whichever pass placed it) becomes a
``NamedBarrier(id, threads)``, and each ``BlockReduce`` and ``SemaphoreArrive`` there gets the same barrier for its
internal synchronization; one barrier id (1..15) per branch side that needs one.
A ``BlockSync`` whose threads are independent along thread dimensions (``BlockSync.per``, from
the syncs pass) becomes one barrier per index there (ids ``first + index``), counting that index's
threads: ping-pong warp groups each synchronize their own epilogue.
Guarantees: no block-wide ``__syncthreads`` inside a warp-split branch, where the other branch's
warps would never arrive and the block would deadlock.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir.scalar import Val
from target import current as current_target

from ..analysis import Analyses
from ..errors import LoweringError
from ..kernel_ir import BlockReduce, BlockSync, IfThenElse, Kernel, NamedBarrier, Node, SemaphoreArrive, children


def run(kernel: Kernel, a: Analyses) -> Kernel:
    return replace(kernel, body=named_barriers_in_branches(kernel.body, a.ids.launch))


def named_barriers_in_branches(body: tuple[Node, ...], launch: dict | None = None) -> tuple[Node, ...]:
    """Every block-wide barrier inside a warp-split branch narrowed to that branch's threads, or, for a
    ``BlockSync`` with ``per`` dimensions (extents in ``launch``), to the branch's threads with this
    thread's indices there."""
    next_id = [1]
    split_ids: dict[tuple, int] = {}       # (branch barrier id, per): the first of its ids

    def narrowed(node: BlockSync, barrier: NamedBarrier) -> NamedBarrier:
        if not node.per or launch is None:
            return replace(barrier, reason=node.reason)
        parts, index = 1, Val.const(0)
        for pt in node.per:
            n = launch[pt].const_value()
            if n is None:
                return replace(barrier, reason=node.reason)
            index = index * n + Val.symbol(pt.cuda_index)
            parts *= n
        key = (str(barrier.id), node.per)
        if key not in split_ids:
            split_ids[key] = next_id[0]
            for _ in range(parts):
                _take_id(next_id)
        return NamedBarrier(Val.const(split_ids[key]) + index, barrier.threads // parts, reason=node.reason)

    def convert(nodes: tuple[Node, ...], barrier: NamedBarrier | None) -> tuple[Node, ...]:
        out: list[Node] = []
        for node in nodes:
            if isinstance(node, BlockSync) and barrier is not None:
                out.append(narrowed(node, barrier))
                continue
            if isinstance(node, BlockReduce) and barrier is not None:
                out.append(replace(node, barrier=replace(barrier, reason=f"blockReduce into {node.buffer.name}")))
                continue
            if isinstance(node, SemaphoreArrive) and barrier is not None:
                out.append(replace(node, barrier=replace(barrier, reason=f"arrival on {node.semaphore.name}")))
                continue
            if isinstance(node, IfThenElse) and node.branch_threads is not None:
                sides = []
                for sub, threads in zip((node.then_body, node.else_body), node.branch_threads):
                    sides.append(convert(sub, NamedBarrier(_take_id(next_id), threads) if _has_barrier(sub)
                                         else barrier))
                out.append(replace(node, then_body=sides[0], else_body=sides[1]))
                continue
            kids = children(node)
            if kids:
                node = replace(node, **{name: convert(sub, barrier) for name, sub in kids})
            out.append(node)
        return tuple(out)

    return convert(body, None)


def _take_id(next_id: list[int]) -> int:
    last = current_target().max_named_barrier       # id 0 is __syncthreads
    if next_id[0] > last:
        raise LoweringError(f"more than {last} warp-split branches need a barrier; the hardware has "
                            f"named barriers 1..{last}")
    next_id[0] += 1
    return next_id[0] - 1


def _has_barrier(body: tuple[Node, ...]) -> bool:
    for node in body:
        if isinstance(node, (BlockSync, BlockReduce, SemaphoreArrive)):
            return True
        if isinstance(node, IfThenElse) and node.branch_threads is not None:
            continue  # a nested warp split gets barriers of its own
        if any(_has_barrier(sub) for _, sub in children(node)):
            return True
    return False



