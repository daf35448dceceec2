"""Store waits: where the thread that issues a TMA store's boxes waits until they have read the shared tile.

Reads: the ``tma`` analysis (each TMA-stored output's shared tile, its issuing warp ``TmaBox.issuer_warp``
and its wait ``TmaBox.wait``, from ``TensorView.set_store_wait``), the loop nest with tensor ops and the
barriers the ``syncs`` pass placed.
Writes, for each TMA-stored output, in the innermost statement list S that holds both the statement
writing its tile (stmatrix) and the statement storing it (the loop of boxes; ``indexing`` lowers each
box to ``ElectSync((TmaStore, AsyncCommit("bulk")))``), an ``ElectSync`` of the same warp around:
- ``"after_boxes"``: ``AsyncWait(AsyncKind.Bulk, 0)`` (``cp.async.bulk.wait_group.read 0``) right after the
  boxes: one wait for all of them; the barrier at the end of the loop body (``syncs``) orders it
  before the next iteration writes the tile;
- ``"deferred"``, when S is a loop body: the same wait in S right before the barrier that precedes
  the tile's writer (``syncs`` puts the tile's WAR barrier there instead of at the end of the body):
  iteration i's stores read the tile while iteration i + 1 runs up to that write; and
  ``AsyncWait(AsyncKind.Bulk, 0, read=False)`` (``cp.async.bulk.wait_group 0``) right after the loop, so no
  thread goes on to exit with stores in flight. When S is not a loop body the tile is written once
  and the final wait goes right after the boxes.
- ``"deferred"`` with a ring of R tiles (``set_store_wait(..., stages=R)``): the wait before the barrier ahead
  of the write is ``cp.async.bulk.wait_group.read (R - 1) * boxes``, leaving the groups of the R - 1 iterations
  before in flight (iteration i writes tile i % R, whose last store was R iterations ago, one group per box),
  and the wait after the loop is ``wait_group.read 0``.
- ``"carried"`` (``set_store_wait("carried", stages=R)``): as ``"deferred"``, but the wait after the loop goes after
  the outermost loop L around it that carries the ring's stores into its next iteration (``_carrying_loops``): the
  ring loop's iterations a multiple of R (slot ``i % R`` goes on in order from one iteration of L to the next) and
  no other TMA-stored tensor in L (the tile, a deferred store's, is allocated outside L: ``buffers``). The first write of L's next iteration waits with
  ``wait_group.read (R - 1) * boxes`` as every write does, which leaves in flight only the stores of the R - 1
  slots it does not write. A persistent kernel's last sub-tiles are then stored under the next tile's mainloop.
Guarantees: the issuing thread (the one that committed the stores: bulk groups are per thread)
waits for every store's reads before a barrier that precedes any later write of the tile, and for
every store before it leaves the loop. With "deferred" the ``buffers`` analysis allocates the tile
outside the loop, so it lives through the loop and no other buffer of the loop takes its memory.
"""

from __future__ import annotations

from dataclasses import replace

from fusion_ir import StoreWait, TensorView

from ..analysis import Analyses
from ..analysis.tma import TmaBox
from ..errors import LoweringError
from ..kernel_ir import (
    AsyncKind,
    AsyncWait,
    BlockSync,
    ElectSync,
    FenceAsyncProxy,
    ForLoop,
    Kernel,
    Node,
    TensorOpKind,
    children,
)
from ..placement import Path, body_at, common_scope, op_paths

Edits = dict       # statement-list path -> {(index, "before" | "after"): [nodes]}


def run(kernel: Kernel, a: Analyses) -> Kernel:
    if not a.tma.stores:
        return kernel
    ops = list(op_paths(kernel.body))
    edits: Edits = {}
    for out, box in a.tma.stores.items():
        for path in [p for op, p in ops if op.tv is out and op.kind is TensorOpKind.Compute]:
            _place(kernel, a, out, box, path, [p for op, p in ops if op.tv is box.shared and op.kind is TensorOpKind.Compute],
                   edits)
    return replace(kernel, body=_apply(kernel.body, (), edits))


def _place(kernel: Kernel, a: Analyses, out: TensorView, box: TmaBox, store: Path, writers: list[Path],
           edits: Edits) -> None:
    """The waits of the boxes stored at ``store`` (the output's tensor op), tile written at ``writers``."""
    scope, writer, at = _scope(store, writers)

    def add(path: Path, index: int, where: str, wait: AsyncWait) -> None:
        edits.setdefault(path, {}).setdefault((index, where), []).append(ElectSync((wait,), warp=box.issuer_warp))

    if not box.wait.defers:
        add(scope, at, "after", AsyncWait(AsyncKind.Bulk, 0))
        return
    if writer is None or not scope or not isinstance(_node_at(kernel.body, scope[:-1]), ForLoop):
        add(scope, at, "after", AsyncWait(AsyncKind.Bulk, 0, read=False))    # the tile is written once
        return
    body = body_at(kernel.body, scope)
    first = writer
    while first > 0 and isinstance(body[first - 1], (BlockSync, FenceAsyncProxy)):
        first -= 1
    if not any(isinstance(n, BlockSync) for n in body[first:writer]):
        raise LoweringError(f"internal: no barrier before the write of T{box.shared.name}, the tile T{out.name} is "
                            f"TMA-stored from with a deferred wait (the syncs pass puts it there)")
    if box.stages > 1:
        # a ring: the stores of the stages - 1 iterations before may still read their tiles, the one this
        # iteration writes is retired; one read wait after the loop retires the rest before anything else may
        # take the ring's memory (the smem analysis sees it live to there)
        ring_group, _ = a.circular.rings[box.shared]
        ring_loop = next((i for i in out.loop if a.ids.group(i) is ring_group), None)
        copies = box.copies(inside=ring_loop).const_value()
        if copies is None:
            raise LoweringError(f"internal: T{out.name} stores a ring of tiles with a symbolic count of boxes "
                                f"per tile; the wait must count their bulk groups")
        add(scope, first, "before", AsyncWait(AsyncKind.Bulk, (box.stages - 1) * copies))
        exit_path = scope[:-1]                       # the ring loop's statement
        if box.wait is StoreWait.Carried:
            for loop_path in _carrying_loops(kernel, a, box, scope[:-1]):
                exit_path = loop_path
        add(exit_path[:-1], exit_path[-1], "after", AsyncWait(AsyncKind.Bulk, 0))
        return
    add(scope, first, "before", AsyncWait(AsyncKind.Bulk, 0))
    add(scope[:-2], scope[-2], "after", AsyncWait(AsyncKind.Bulk, 0, read=False))


def _carrying_loops(kernel: Kernel, a: Analyses, box: TmaBox, ring: Path) -> list[Path]:
    """The paths of the loops around the ring loop at ``ring`` (its statement's path) that carry its stores into
    their next iteration, innermost first, up to the first that does not: a serial loop (no unroll, no
    vectorize) that stores no other TMA-stored tensor, the ring loop's constant iteration count a multiple of the
    ring's tiles (so its slots go on in order from one of their iterations to the next). The tile is allocated
    outside every serial loop around it (``buffers``: a deferred store's tile), so it lives through them.
    Statements other than loops between them (a branch) are passed through."""
    loop = _node_at(kernel.body, ring)
    count = _trip_count(loop) if isinstance(loop, ForLoop) else None
    if count is None or count % box.stages:
        return []
    found: list[Path] = []
    path = ring
    while len(path) > 2:
        path = path[:-2]
        node = _node_at(kernel.body, path)
        if not isinstance(node, ForLoop):
            continue
        if node.unroll is not False or node.vectorize or _stores_other(node, a, box.tv):
            break
        found.append(path)
    return found


def _trip_count(loop: ForLoop) -> int | None:
    start, stop, step = (v.const_value() for v in (loop.start, loop.stop, loop.step))
    if None in (start, stop, step) or step <= 0:    # type: ignore[operator]
        return None
    return max(0, -(-(stop - start) // step))       # type: ignore[operator]


def _stores_other(node: Node, a: Analyses, out: TensorView) -> bool:
    """Whether ``node`` holds the TMA store of a tensor other than ``out`` (its bulk groups would count in the
    ring's waits)."""
    return any(op.tv is not out and op.tv in a.tma.stores and op.kind is TensorOpKind.Compute
               for _, sub in children(node) for op, _ in op_paths(sub))


def _scope(store: Path, writers: list[Path]) -> tuple[Path, int | None, int]:
    """The innermost statement list holding the store and a write of its tile, the writer's index there
    (None without one) and the store's."""
    best: tuple[Path, int | None, int] = (store[:-1], None, store[-1])
    for w in writers:
        scope, wi, si = common_scope(w, store)
        if wi is not None and wi < si and (best[1] is None or len(scope) >= len(best[0])):
            best = (scope, wi, si)
    return best


def _node_at(body: tuple[Node, ...], path: Path) -> Node:
    return body_at(body, path[:-1])[path[-1]]


def _apply(body: tuple[Node, ...], path: Path, edits: Edits) -> tuple[Node, ...]:
    here = edits.get(path, {})
    out: list[Node] = []
    for k, node in enumerate(body):
        out.extend(here.get((k, "before"), ()))
        kids = children(node)
        if kids:
            node = replace(node, **{name: _apply(sub, path + (k, name), edits) for name, sub in kids})
        out.append(node)
        out.extend(here.get((k, "after"), ()))
    return tuple(out)
