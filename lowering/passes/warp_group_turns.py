"""Warp-group turns: the warp groups sharing a loop's iterations issue their wgmmas in turn (ping-pong).

Reads: ``TensorView.turns`` (``take_turns``: a serial loop axis and the thread dimension ``on`` whose
indices, the warp groups, take turns), the loop's group (``IdModel``), the launch's thread extents, and the
kernel after ``branch_barriers`` (its named barriers, whose ids this pass keeps clear of).
Writes, in every ForLoop of that group whose body issues wgmmas (the compute loop; each range
``loop_versions`` later cuts it into keeps the statements; a pipeline's main and epilogue loops are one run of
turns), with ``W`` warp groups (the tensor's extent along
``on``), ``K`` tensor-core sections per iteration (runs of top-level statements holding a ``wgmma.fence``, an
MMA or a ``wgmma.commit_group``) and turn ``t = s * W + w`` for group ``w`` in section ``s``:
- before each section: ``bar.sync id(t), 2 G`` (``G`` a warp group's threads): wait for this group's turn;
- after it (after the commit, before the ``wait_group`` that retires the MMAs): ``bar.arrive id(t + 1 mod K W),
  2 G``: the turn passes to the next group, or to group 0 in the next section (next iteration after the last);
- before the first such loop group ``W - 1`` arrives on ``id(0)`` (group 0 goes first), after the last group 0
  syncs on ``id(0)``, taking the arrive of the last turn, so every barrier ends with no arrival pending.
``id(t)`` counts down from the target's last named barrier, ``K W`` ids, none of which another named barrier
of the kernel uses. A barrier's count is two groups' threads: the waiting group syncs, the one before arrives.
Guarantees: per iteration, the groups' MMAs of each section are issued in the order 0, 1, ..., W - 1, section
after section: while one group's MMAs run, the next group computes on CUDA cores (FlashAttention-3's
ping-pong of two consumer warp groups). It cannot deadlock when every group runs the same iterations
(the loop's bounds do not read ``on``'s index: checked) and the same sections (no section under a
branch on ``on``'s index: checked); a loop that runs no iteration leaves the pre-loop arrive to the sync after it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import product

from fusion_ir import ParallelType, TensorView
from fusion_ir.scalar import Val
from target import current as current_target

from ..analysis import Analyses
from ..errors import LoweringError
from ..kernel_ir import (
    AsyncCommit,
    AsyncKind,
    BlockReduce,
    ForLoop,
    IfThenElse,
    Kernel,
    Mma,
    NamedBarrier,
    Node,
    WgmmaFence,
    map_bodies,
    walk,
)


@dataclass(frozen=True)
class Turns:
    """The warp groups (indices of ``on``, ``groups`` of them, ``threads`` each) taking turns in loop ``group``."""
    tv: TensorView
    group: int
    on: ParallelType
    groups: int
    threads: Val
    top: int            # the first turn's barrier id; turn t's is ``top - t``

    @property
    def index(self) -> Val:
        return Val.symbol(self.on.cuda_index)

    def barrier(self, turn: Val, wait: bool, reason: str) -> NamedBarrier:
        return NamedBarrier(Val.const(self.top) - turn, self.threads * 2, reason=reason, wait=wait)


def run(kernel: Kernel, a: Analyses) -> Kernel:
    marked = [tv for tv in a.ids.tensors if tv.turns is not None]
    if not marked:
        return kernel
    if len(marked) > 1:
        raise LoweringError(f"T{marked[0].name} and T{marked[1].name} both take_turns; the warp groups take turns "
                            f"in one loop of a kernel")
    turns = _turns(marked[0], a)
    used = _used_ids(kernel.body, a.ids.launch)
    placed: list[int] = []      # the section count of each loop placed

    def in_turn(node: ForLoop) -> ForLoop:
        sections = _sections(node.body)
        _check(node, sections, turns)
        need = len(sections) * turns.groups
        ids = set(range(turns.top - need + 1, turns.top + 1))
        if turns.top - need + 1 < 1:
            raise LoweringError(f"T{turns.tv.name}: {turns.groups} warp groups taking turns on {len(sections)} "
                                f"tensor-core sections need {need} named barriers, more than the {turns.top} there are")
        if ids & used:
            raise LoweringError(f"T{turns.tv.name}: its warp groups' turns take named barriers "
                                f"{min(ids)}..{max(ids)}, and the kernel uses {sorted(ids & used)} already")
        if placed and placed[0] != len(sections):
            raise LoweringError(f"T{turns.tv.name}: the loops of its turns ({node.label}) issue {placed[0]} and "
                                f"{len(sections)} tensor-core sections per iteration; the turns pass from one "
                                f"loop's iterations to the next's, so each needs the same")
        placed.append(len(sections))
        return replace(node, body=_in_turn(node.body, sections, turns))

    def visit(body: tuple[Node, ...]) -> tuple[Node, ...]:
        mine = [k for k, x in enumerate(body) if _is_turn_loop(x, turns)]
        if mine:
            if placed:
                raise LoweringError(f"T{turns.tv.name}: the loops of its turns sit in two places of the kernel; the "
                                    f"turns pass along one run of them")
            out = [in_turn(x) if k in mine else x for k, x in enumerate(body)]
            first, last = mine[0], mine[-1]
            return tuple(out[:first]) + _around(tuple(out[first:last + 1]), turns) + tuple(out[last + 1:])
        return tuple(map_bodies(x, visit) for x in body)

    body = visit(kernel.body)
    if not placed:
        raise LoweringError(f"T{turns.tv.name}: take_turns on a loop with no wgmma; the warp groups take turns on "
                            f"the tensor-core sections of its iterations")
    return replace(kernel, body=body)


def _is_turn_loop(node: Node, turns: Turns) -> bool:
    """A loop of the turns' group that issues wgmmas (not the producer's, nor a prologue of loads)."""
    return isinstance(node, ForLoop) and node.group == turns.group and bool(_sections(node.body))


def _turns(tv: TensorView, a: Analyses) -> Turns:
    axis, on = tv.turns
    if axis not in tv.loop:
        raise LoweringError(f"T{tv.name}: the axis it takes turns in ({axis.label()}) is no longer one of its loop "
                            f"axes; call take_turns after the transforms of that axis")
    (w_axis,) = [x for x in tv.loop if x.parallel_type is on]
    groups = w_axis.extent.const_value()
    if groups is None or groups < 2:
        raise LoweringError(f"T{tv.name}: take_turns needs a constant number of at least 2 warp groups along "
                            f"{on.name}; its axis there has extent {w_axis.extent}")
    threads = Val.const(1)
    for pt in (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz):
        if pt is not on:
            threads = threads * a.ids.launch[pt]
    return Turns(tv, a.ids.group(axis).number, on, groups, threads, current_target().max_named_barrier)


def _is_issue(node: Node) -> bool:
    return any(isinstance(x, (WgmmaFence, Mma)) or (isinstance(x, AsyncCommit) and x.kind is AsyncKind.Wgmma)
               for x in walk((node,)))


def _sections(body: tuple[Node, ...]) -> list[tuple[int, int]]:
    """The runs ``[first, last]`` of consecutive top-level statements that issue wgmmas."""
    runs: list[tuple[int, int]] = []
    for k, node in enumerate(body):
        if not _is_issue(node):
            continue
        if runs and runs[-1][1] == k - 1:
            runs[-1] = (runs[-1][0], k)
        else:
            runs.append((k, k))
    return runs


def _check(loop: ForLoop, sections: list[tuple[int, int]], turns: Turns) -> None:
    """Every warp group runs every iteration and every section: nothing about them reads the group's index."""
    name = turns.index.name
    if name in (loop.start.symbols() | loop.stop.symbols() | loop.step.symbols()):
        raise LoweringError(f"T{turns.tv.name}: the loop it takes turns in ({loop.label}) has bounds "
                            f"[{loop.start}, {loop.stop}) that read {name}; the warp groups taking turns must run "
                            f"the same iterations (a group that skips a turn deadlocks the others)")
    for first, last in sections:
        for node in walk(loop.body[first:last + 1]):
            if isinstance(node, IfThenElse) and name in node.cond.symbols():
                raise LoweringError(f"T{turns.tv.name}: a tensor-core section of {loop.label} is under a branch "
                                    f"on {name} ({node.cond}); every warp group taking turns must issue it")


def _in_turn(body: tuple[Node, ...], sections: list[tuple[int, int]], turns: Turns) -> tuple[Node, ...]:
    w, count = turns.index, len(sections) * turns.groups
    out: list[Node] = []
    done = 0
    for s, (first, last) in enumerate(sections):
        turn = w + s * turns.groups
        out += body[done:first]
        out.append(turns.barrier(turn, True, f"turn of warp group {w} in tensor-core section {s}"))
        out += body[first:last + 1]
        out.append(turns.barrier((turn + 1) % count, False, "the next warp group's turn"))
        done = last + 1
    out += body[done:]
    return tuple(out)


def _around(loops: tuple[Node, ...], turns: Turns) -> tuple[Node, ...]:
    """The loops (a pipeline's main and epilogue loops, one run of iterations) between the first turn's arrive and
    the sync that takes the last turn's arrive: one pair for the run, so no group runs a loop ahead of another's
    last turn (a second arrive on the same barrier would complete its phase without a waiter)."""
    w, zero = turns.index, Val.const(0)
    first = IfThenElse(w.eq(turns.groups - 1), (turns.barrier(zero, False, "warp group 0 takes the first turn"),))
    last = IfThenElse(w.eq(0), (turns.barrier(zero, True, "the last turn's arrive taken"),))
    return (first, *loops, last)


def _used_ids(body: tuple[Node, ...], launch: dict[ParallelType, Val]) -> set[int]:
    """The ids the kernel's named barriers take (a block reduction's too), over the thread indices their ids read."""
    used: set[int] = set()
    for node in walk(body):
        if isinstance(node, BlockReduce) and node.barrier is not None:
            node = node.barrier
        if not isinstance(node, NamedBarrier):
            continue
        value = node.id.const_value()
        if value is not None:
            used.add(value)
            continue
        dims = [pt for pt in (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)
                if pt.cuda_index in node.id.symbols()]
        extents = [launch[pt].const_value() for pt in dims]
        if any(e is None for e in extents) or node.id.symbols() - {pt.cuda_index for pt in dims}:
            raise LoweringError(f"a named barrier's id {node.id} is not a function of constant thread extents; the "
                                f"warp groups' turns cannot tell which ids it takes")
        for values in product(*(range(e) for e in extents)):
            used.add(int(node.id.evaluate({pt.cuda_index: v for pt, v in zip(dims, values)})))
    return used
