"""The pointwise scheduler's heuristic (nvFuser's ``pointwise_heuristic``): every choice of ``PointwiseParams``
from the problem's sizes and dtypes, each with the rule that made it (``params.why``).

- reference: the output with the most non-broadcast axes; every tensor replays its loop nest.
- break point: 0 merges every axis into one (1-D); ``b`` > 0 merges axes ``[0, b)`` into an outer axis on
  BIDy and ``[b, rank)`` into an inner one on BIDx and TIDx (2-D), chosen at the boundary of a broadcast so
  that the broadcast operand's index needs no division and what is computed before a broadcast inlines.
- vectorize: 16 bytes of the widest vectorized dtype, halved until it divides the innermost extent (every
  vectorized tensor's rows are that extent long, so each vector starts aligned).
- threads: 128, or 256 when there are enough vectors for a full wave of 256-thread blocks on every SM.
- unroll: 4, 2 or 1 vectors per thread, the most that still gives every SM a full wave of resident blocks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from target import current as current_target

from ..types import DataType
from .pointwise_problem import PointwiseProblem, broadcast_inputs, pre_broadcast_tensors
from .protocol import HeuristicParams

VECTOR_BYTES = 16
THREADS = (128, 256)
UNROLLS = (4, 2, 1)
MIN_INNER_2D = 64          # an inner extent below this leaves most threads of a 2-D block idle


@dataclass(frozen=True)
class PointwiseParams(HeuristicParams):
    """The pointwise schedule: ``reference`` (``"T8"``), ``break_point`` (0: one merged axis; b: [0, b) on
    BIDy, [b, rank) on BIDx/TIDx), ``vectorize`` elements per access, ``threads`` per block, ``unroll``
    vectors per thread, and the grid it launches at the sizes it was chosen for (``grid``; (0, 0): unknown)."""

    scheduler: str = "pointwise"
    reference: str = ""
    break_point: int = 0
    vectorize: int = 1
    threads: int = 128
    unroll: int = 1
    grid: tuple[int, int] = (0, 0)


def vector_width(problem: PointwiseProblem, dtypes: list[DataType]) -> tuple[int, str]:
    """The widest vector (elements) every vectorized tensor can use, and why."""
    if not dtypes or problem.rank == 0:
        return 1, "nothing is vectorized (no full-size input or output)"
    widest = max(d.size for d in dtypes)
    width = max(1, min(8, VECTOR_BYTES // widest))
    base = f"{VECTOR_BYTES} bytes of {widest}-byte elements"
    if problem.extents is None:
        return 1, f"sizes unknown: no vector (a vector needs the innermost extent to divide by it; {base} would be {width})"
    inner = problem.extents[-1]
    if problem.reference.logical[-1].is_broadcast:
        return 1, "the innermost axis is a broadcast"
    start = width
    while width > 1 and inner % width:
        width //= 2
    if width == start:
        return width, f"{base}; the innermost extent {inner} divides by {width}"
    return width, f"{base} is {start}, halved to {width}: the innermost extent {inner} divides by {width}"


def break_point(problem: PointwiseProblem, fusion_inputs_bytes: dict[object, int]) -> tuple[int, str]:
    """Where to split the reference's axes into an outer and an inner merged axis (0: do not)."""
    rank = problem.rank
    if rank < 2:
        return 0, "one axis"
    blocked_1d = [tv for tv in pre_broadcast_tensors(problem.reference.fusion, problem)]
    candidates = []
    for b in range(1, rank):
        groups = (frozenset(range(b)), frozenset(range(b, rank)))
        if any(not _respects(problem.missing[tv], groups) for tv in blocked_1d):
            continue
        saved = sum(fusion_inputs_bytes.get(tv, 0) for tv in broadcast_inputs(problem)
                    if _respects(problem.missing[tv], groups))
        candidates.append((b, saved))
    if not candidates:
        if blocked_1d:
            return 0, (f"1-D: no break point keeps {_names(blocked_1d)} (computed before a broadcast) whole, so they "
                       f"are computed in full by every thread")
        return 0, "1-D: no input is broadcast"
    if not blocked_1d and not broadcast_inputs(problem):
        return 0, "1-D: no input is broadcast"
    best, saved = max(candidates, key=lambda c: (c[1], problem.extent(range(c[0], rank)) or 0))
    inner = problem.extent(range(best, rank))
    outer = problem.extent(range(best))
    if not blocked_1d and saved == 0:
        return 0, "1-D: no input is broadcast along whole outer or inner axes"
    if inner is not None and inner < MIN_INNER_2D and not blocked_1d:
        return 0, f"1-D: the inner extent {inner} past the broadcast boundary {best} is under {MIN_INNER_2D}"
    if outer is not None and outer > current_target().max_grid[1] * UNROLLS[0]:
        if blocked_1d:
            return 0, (f"1-D: the outer extent {outer} is over the {current_target().max_grid[1]} BIDy blocks; {_names(blocked_1d)} "
                       f"are computed in full by every thread")
        return 0, f"1-D: the outer extent {outer} is over the {current_target().max_grid[1]} BIDy blocks"
    why = (f"2-D at axis {best}, the boundary of the broadcast inputs {_names(broadcast_inputs(problem))}: their "
           f"index needs no division") if saved else f"2-D at axis {best}"
    if blocked_1d:
        why += f"; {_names(blocked_1d)} (computed before a broadcast) inline"
    return best, why


def unkept(problem: PointwiseProblem, b: int) -> list:
    """The tensors computed before a broadcast that the merges of break point ``b`` (0: one merged axis) mix with
    axes they lack: they could not be inlined, and every thread would compute them whole."""
    rank = problem.rank
    groups = (frozenset(range(rank)),) if b == 0 else (frozenset(range(b)), frozenset(range(b, rank)))
    return [tv for tv in pre_broadcast_tensors(problem.reference.fusion, problem)
            if not _respects(problem.missing[tv], groups)]


def _respects(missing: frozenset[int], groups: tuple[frozenset[int], ...]) -> bool:
    """A tensor lacking ``missing`` axes is merged only within axes it carries or within axes it lacks."""
    return all(not (g & missing) or g <= missing for g in groups)


def _names(tvs: list) -> str:
    return ", ".join(f"T{tv.name}" for tv in tvs) or "none"


def threads_for(vectors: int | None, inner_vectors: int | None) -> tuple[int, str]:
    sms = current_target().sm_count
    if vectors is None:
        return THREADS[0], f"sizes unknown: {THREADS[0]} threads"
    if inner_vectors is not None and inner_vectors < THREADS[0]:
        t = max(32, 1 << max(0, math.ceil(math.log2(max(1, inner_vectors)))))
        return t, f"the inner axis has {inner_vectors} vectors: {t} threads (a power of two, at least a warp)"
    wave = sms * current_target().max_threads_per_sm
    if vectors >= wave:
        return THREADS[1], f"{vectors} vectors fill a wave of {current_target().max_threads_per_sm} threads on each of {sms} SMs: {THREADS[1]}"
    return THREADS[0], f"{vectors} vectors are under a wave of {current_target().max_threads_per_sm} threads on {sms} SMs: {THREADS[0]}"


def unroll_for(work: int | None, threads: int) -> tuple[int, str]:
    """Vectors per thread along the unrolled axis (``work``: vectors along it times the other axes' blocks)."""
    sms = current_target().sm_count
    if work is None:
        return 1, "sizes unknown: no unroll"
    resident = sms * (current_target().max_threads_per_sm // threads)
    for u in UNROLLS:
        blocks = math.ceil(work / (threads * u))
        if blocks >= resident or u == 1:
            if u == 1:
                return 1, f"{blocks} blocks of {threads} threads: under {resident} ({sms} SMs full), no unroll"
            return u, (f"{u} vectors per thread still leave {blocks} blocks, at least the {resident} resident at "
                       f"once on {sms} SMs")
    return 1, "no unroll"
