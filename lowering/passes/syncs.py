"""Syncs: barriers for shared-memory RAW and WAR hazards between tensor ops.

Reads: the loop nest with tensor ops; which buffers are Shared; warp-split branches
(``IfThenElse.branch_threads``).
Writes: ``BlockSync`` nodes before the first reader of a shared buffer, or of a fusion output,
that another op wrote (RAW), and at the end of a loop body in which a shared buffer is written
and then read, before the next iteration overwrites it (WAR). Then every ``BlockSync`` inside a
branch that only some warps take (whoever placed it) becomes a ``NamedBarrier`` over that
branch's threads, one barrier id per branch.
Guarantees: every cross-thread shared-memory dependency between tensor ops is ordered by a
barrier that every thread meant to reach it reaches (syncs are never placed under a predicate,
and a block-wide ``__syncthreads`` is never inside a warp-split branch, where it would deadlock).
Buffers filled by circular-buffered loads are skipped: the circular-buffer pass orders them.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import MemoryType, TensorView
from fusion_ir.scalar import Val

from ..analysis import Analyses
from ..errors import LoweringError
from ..kernel_ir import BlockSync, ForLoop, IfThenElse, Kernel, NamedBarrier, Node, TensorOp, children

Path = tuple
MAX_NAMED_BARRIER = 15     # ids 1..15; id 0 is __syncthreads


def run(kernel: Kernel, a: Analyses) -> Kernel:
    ops = list(_op_paths(kernel.body, ()))
    inserts: dict[Path, set] = {}
    for w_op, w_path in ops:
        tv = w_op.tv
        if w_op.kind != "compute" or not _guarded_by_syncs(tv, a):
            continue
        for r_op, r_path in ops:
            if r_op.kind != "compute" or tv not in r_op.expr.tensor_inputs():
                continue
            body_path, i, j = _common(w_path, r_path)
            if i is None:
                continue
            body = _body_at(kernel.body, body_path)
            if i < j and not any(isinstance(n, BlockSync) for n in body[i + 1:j]):
                inserts.setdefault(body_path, set()).add((j, f"RAW: T{tv.name} written, then read"))
            if tv.is_output:
                continue  # each output element is written once: no write-after-read
            if body_path and _is_loop_body(kernel.body, body_path):
                inserts.setdefault(body_path, set()).add((len(body), f"WAR: T{tv.name} is rewritten next iteration"))
    body = _apply(kernel.body, (), inserts)
    return replace(kernel, body=named_barriers_in_branches(body))


def named_barriers_in_branches(body: tuple[Node, ...]) -> tuple[Node, ...]:
    """Every BlockSync inside a warp-split branch becomes a NamedBarrier over that branch's threads."""
    next_id = [1]

    def convert(nodes: tuple[Node, ...], barrier: tuple[int, Val] | None) -> tuple[Node, ...]:
        out: list[Node] = []
        for node in nodes:
            if isinstance(node, BlockSync) and barrier is not None:
                out.append(NamedBarrier(barrier[0], barrier[1], node.reason))
                continue
            if isinstance(node, IfThenElse) and node.branch_threads is not None:
                sides = []
                for sub, threads in zip((node.then_body, node.else_body), node.branch_threads):
                    sides.append(convert(sub, (_take_id(next_id), threads) if _has_sync(sub) else barrier))
                out.append(replace(node, then_body=sides[0], else_body=sides[1]))
                continue
            kids = children(node)
            if kids:
                node = replace(node, **{name: convert(sub, barrier) for name, sub in kids})
            out.append(node)
        return tuple(out)

    return convert(body, None)


def _take_id(next_id: list[int]) -> int:
    if next_id[0] > MAX_NAMED_BARRIER:
        raise LoweringError(f"more than {MAX_NAMED_BARRIER} warp-split branches need a barrier; the hardware has "
                            f"named barriers 1..{MAX_NAMED_BARRIER}")
    next_id[0] += 1
    return next_id[0] - 1


def _has_sync(body: tuple[Node, ...]) -> bool:
    for node in body:
        if isinstance(node, BlockSync):
            return True
        if isinstance(node, IfThenElse) and node.branch_threads is not None:
            continue  # a nested warp split gets barriers of its own
        if any(_has_sync(sub) for _, sub in children(node)):
            return True
    return False


def _guarded_by_syncs(tv: TensorView, a: Analyses) -> bool:
    if tv.is_output:
        # A fusion output read by a later op of the kernel: other threads of the block may have
        # written the elements a reader needs (readers in other blocks are a LoweringError).
        return bool(tv.consumers())
    if tv.memory_type is not MemoryType.Shared:
        return False
    # A circular-buffered tensor's stages are ordered by the circular-buffer pass (mbarriers,
    # wait_group and its own syncs); a TMA load outside one is ordered by its token wait and the
    # block sync after it, which this pass sees as the sync before the first reader.
    return not a.circular.is_buffered(tv)


def _op_paths(body: tuple[Node, ...], prefix: Path):
    for k, node in enumerate(body):
        if isinstance(node, TensorOp):
            yield node, prefix + (k,)
        for name, sub in children(node):
            yield from _op_paths(sub, prefix + (k, name))


def _common(w: Path, r: Path) -> tuple[Path, int | None, int]:
    i = 0
    while i + 1 < min(len(w), len(r)) and w[i] == r[i] and w[i + 1] == r[i + 1]:
        i += 2
    if i >= len(w) or i >= len(r) or (w[i] == r[i]):
        return w[:i], None, 0
    return w[:i], w[i], r[i]


def _body_at(body: tuple[Node, ...], path: Path) -> tuple[Node, ...]:
    for k in range(0, len(path), 2):
        node = body[path[k]]
        body = getattr(node, path[k + 1])
    return body


def _is_loop_body(body: tuple[Node, ...], path: Path) -> bool:
    parent = _body_at(body, path[:-2])[path[-2]]
    return isinstance(parent, ForLoop)


def _apply(body: tuple[Node, ...], path: Path, inserts: dict[Path, set]) -> tuple[Node, ...]:
    out: list[Node] = []
    here = inserts.get(path, set())
    by_index: dict[int, str] = {}
    for index, reason in sorted(here):
        by_index.setdefault(index, reason)
    for k, node in enumerate(body):
        if k in by_index and not (out and isinstance(out[-1], BlockSync)):
            out.append(BlockSync(reason=by_index[k]))
        kids = children(node)
        if kids:
            node = replace(node, **{name: _apply(sub, path + (k, name), inserts) for name, sub in kids})
        out.append(node)
    if len(body) in by_index and not (out and isinstance(out[-1], BlockSync)):
        out.append(BlockSync(reason=by_index[len(body)]))
    return tuple(out)
