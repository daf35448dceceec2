"""The pointwise scheduler (nvFuser's ``PointWiseScheduler``): fusions of pointwise ops, casts, copies and
broadcasts of any rank, some inputs broadcast along some axes.

The reference output's axes are merged into one (or two, split at a broadcast boundary: ``break_point``) after
splitting the innermost axis by the vector width; the merged axis is split onto threads, unrolled vectors and
blocks. Every tensor replays that loop nest (``transform_like``) and its bindings (``parallelize_like``) and is
inlined as deep as it goes (``inline_most``). Inputs that carry every axis are loaded, and outputs stored,
through register caches with ``Vectorize``; inputs read through a broadcast are read in place by it.
The choices are ``pointwise_heuristic``'s, each with its rule in ``params.why``.
"""

from __future__ import annotations

import math

import networkx as nx

from target import current as current_target

from ..fusion import Fusion
from ..inlining import inline_most, parallelize_like, transform_like
from ..tensor_view import TensorView
from ..types import ParallelType, ScheduleError
from .pointwise_heuristic import UNROLLS, PointwiseParams, break_point, threads_for, unkept, unroll_for, vector_width
from .pointwise_problem import (
    PointwiseProblem,
    axis_conflicts,
    missing_axes,
    non_pointwise_expr,
    pointwise_problem,
    reference_output,
)
from .protocol import FunctionScheduler, HeuristicParams, Sizes

NAME = "pointwise"


def decline(fusion: Fusion, sizes: Sizes | None) -> str | None:
    """None for a fusion of pointwise ops, casts, copies and broadcasts with outputs of one rank."""
    if not fusion.outputs:
        return "the fusion has no outputs"
    refused = [(e, why) for e in fusion.exprs if (why := non_pointwise_expr(e)) is not None]
    if refused:
        why = refused[0][1]
        return (f"it takes pointwise ops, casts, copies and broadcasts only; {why}"
                f"{_takeable_part(fusion, {x for x, _ in refused})}")
    ref = reference_output(fusion)
    for out in fusion.outputs:
        if len(out.logical) != len(ref.logical):
            return (f"output T{out.name} has rank {len(out.logical)} but T{ref.name} has {len(ref.logical)}; one "
                    f"kernel's outputs span the same axes")
    apart = _unconnected_outputs(fusion, ref)
    if apart:
        return (f"output {apart} shares no input or op with T{ref.name}: the fusion is two kernels' worth of work "
                f"(no loop nest replayed from one reaches the other); make them two fusions")
    conflicts = axis_conflicts(fusion, ref)
    if conflicts:
        return (f"{conflicts[0]} (one tensor broadcast along different axes on two paths): no loop nest replayed "
                f"from T{ref.name} computes it")
    problem = PointwiseProblem(ref, None, missing_axes(fusion, ref))
    left = min((unkept(problem, b) for b in range(max(1, problem.rank))), key=len)
    if left:
        return _unkept_reason(problem, left)
    return None


def _unconnected_outputs(fusion: Fusion, ref: TensorView) -> str | None:
    """The first output that no chain of ops and inputs connects to ``ref`` (as ``T7``), or None."""
    graph = fusion.graph().subgraph(fusion.used_tensors()).to_undirected()
    reached = nx.node_connected_component(graph, ref)
    apart = [tv for tv in fusion.outputs if tv not in reached]
    return f"T{apart[0].name}" if apart else None


def _unkept_reason(problem: PointwiseProblem, left: list[TensorView]) -> str:
    tv = left[0]
    lacks = sorted(problem.missing[tv])
    return (f"T{tv.name} is computed before a broadcast along axes {lacks} of T{problem.reference.name}, and no "
            f"merge into one axis or two (split at a broadcast boundary) keeps the axes it lacks apart from those it "
            f"has, so it could not be inlined: broadcast before computing, or schedule it by hand")


def _takeable_part(fusion: Fusion, refused: set) -> str:
    """Which tensors the pointwise scheduler would take: those computed before any refused op."""
    after: set[TensorView] = set()
    for e in fusion.exprs:
        if e in refused or any(i in after for i in e.tensor_inputs()):
            after.update(e.outputs)
    part = [tv for tv in fusion.used_tensors() if not tv.is_input and tv not in after]
    if not part:
        return ""
    return f" (it would take {', '.join(f'T{tv.name}' for tv in part)}, computed before that)"


def suggest(fusion: Fusion, sizes: Sizes | None) -> PointwiseParams:
    """The heuristic's params for ``fusion`` at ``sizes`` (one shape per input; None: its constant extents, or
    for symbolic extents a schedule that suits any size)."""
    reason = decline(fusion, sizes)
    if reason is not None:
        raise ScheduleError(f"pointwise scheduler: {reason}")
    problem = pointwise_problem(fusion, sizes)
    ref = problem.reference
    why: dict[str, str] = {"reference": f"the output with the most non-broadcast axes ({problem.rank})"}
    if problem.rank == 0:
        why.update(threads="a 0-D output: one thread computes its one element")
        return PointwiseParams(reference=f"T{ref.name}", threads=1, grid=(1, 1), why=why)
    vectorized = (vectorized_inputs(fusion, problem.missing, problem.rank)
                  + vectorized_outputs(fusion, problem.missing))
    vec_dtypes = [tv.dtype for tv in vectorized]
    v, why["vectorize"] = vector_width(problem, vec_dtypes)
    in_bytes = {tv: (problem.elements or 0) * tv.dtype.size for tv in fusion.tensor_inputs}
    b, why["break_point"] = break_point(problem, in_bytes)
    left = unkept(problem, b)
    if left:
        raise ScheduleError(f"pointwise scheduler: {_unkept_reason(problem, left)} (at these sizes: "
                            f"{why['break_point']})")
    elements = problem.elements
    vectors = None if elements is None else elements // v
    if b == 0:
        t, why["threads"] = threads_for(vectors, None)
        u, why["unroll"] = unroll_for(vectors, t)
        grid = (0, 0) if vectors is None else (math.ceil(vectors / (t * u)), 1)
    else:
        inner, outer = problem.extent(range(b, problem.rank)), problem.extent(range(b))
        inner_vectors = None if inner is None else inner // v
        t, why["threads"] = threads_for(vectors, inner_vectors)
        u, why["unroll"] = _outer_unroll(inner_vectors, outer, t)
        grid = (0, 0) if inner_vectors is None or outer is None else (math.ceil(inner_vectors / t),
                                                                        math.ceil(outer / u))
    why["grid"] = "blocks along x, y at these sizes" if grid != (0, 0) else "sizes unknown"
    return PointwiseParams(reference=f"T{ref.name}", break_point=b, vectorize=v, threads=t, unroll=u, grid=grid,
                           why=why)


def _outer_unroll(inner_vectors: int | None, outer: int | None, threads: int) -> tuple[int, str]:
    """2-D: rows of the outer axis per thread, the most that keeps every SM full and BIDy in range."""
    if inner_vectors is None or outer is None:
        return 1, "sizes unknown: no unroll"
    t = current_target()
    resident = t.sm_count * (t.max_threads_per_sm // threads)
    x_blocks = math.ceil(inner_vectors / threads)
    for u in UNROLLS:
        blocks = x_blocks * math.ceil(outer / u)
        if math.ceil(outer / u) > t.max_grid[1]:
            return u, f"{u} outer rows per thread keep BIDy within {t.max_grid[1]} blocks"
        if blocks >= resident or u == 1:
            break
    if u == 1:
        return 1, f"{blocks} blocks: under {resident} resident at once ({t.sm_count} SMs full), no unroll"
    return u, f"{u} outer rows per thread still leave {blocks} blocks, at least the {resident} resident at once"


def vectorized_inputs(fusion: Fusion, missing: dict[TensorView, frozenset[int]], rank: int) -> list[TensorView]:
    """Inputs that carry every reference axis: loaded through a register cache, vectorized."""
    return [tv for tv in fusion.inputs if tv in missing and not missing[tv] and len(tv.shape_ids) == rank]


def vectorized_outputs(fusion: Fusion, missing: dict[TensorView, frozenset[int]]) -> list[TensorView]:
    """Outputs that carry every reference axis and that no op reads: stored from a register cache, vectorized."""
    return [tv for tv in fusion.outputs if not missing[tv] and not tv.consumers()]


def apply(fusion: Fusion, params: HeuristicParams) -> None:
    """Schedule every tensor of ``fusion`` from ``params`` (``PointwiseParams``)."""
    if not isinstance(params, PointwiseParams):
        raise ScheduleError(f"pointwise scheduler: params must be PointwiseParams, got {type(params).__name__}")
    ref = _tensor(fusion, params.reference)
    rank = len(ref.logical)
    if rank == 0:
        return
    _check(params, rank)
    missing = missing_axes(fusion, ref)
    v = params.vectorize
    loads, stores = [], []
    if v > 1:
        loads = [tv.cache_after() for tv in vectorized_inputs(fusion, missing, rank)]
        _loads_first(fusion, loads)
        stores = vectorized_outputs(fusion, missing)
        for tv in stores:
            tv.cache_before()
    _transform_reference(ref, params)
    transform_like(ref)
    parallelize_like(ref)
    if v > 1:
        for tv in loads + stores:
            tv.axis(-1).parallelize(ParallelType.Vectorize)
    _inline(fusion, 2 if params.break_point else 1)


def _loads_first(fusion: Fusion, loads: list[TensorView]) -> None:
    """Emit the vectorized loads before any op: a load stays outside the vector loop that its readers share, so
    an op emitted before it could not share that loop with a later reader (lowering emits in ``fusion.exprs``
    order, and the loads read only inputs, so this order is still topological)."""
    first = [tv.definition for tv in loads]
    fusion.exprs[:] = first + [e for e in fusion.exprs if e not in first]


def _inline(fusion: Fusion, block_axes: int) -> None:
    """Every tensor as deep as it goes, except one read by several ops or an output that an op reads: its readers
    may sit in the loops of different outputs, so it is computed inside the block axes only (into a buffer of the
    thread's elements)."""
    computed = [tv for tv in fusion.used_tensors() if not tv.is_input]
    shared = [tv for tv in computed if len(tv.uses()) > 1 or (tv.is_output and tv.uses())]
    inline_most(fusion, [tv for tv in fusion.used_tensors() if tv not in shared])
    for tv in shared:
        if block_axes > tv.compute_at_pos:
            tv.inline_at(block_axes)


def _tensor(fusion: Fusion, name: str) -> TensorView:
    tv = next((t for t in fusion.outputs if f"T{t.name}" == name), None)
    if tv is None:
        outs = ", ".join(f"T{t.name}" for t in fusion.outputs)
        raise ScheduleError(f"PointwiseParams.reference: {name!r} is not an output of the fusion (outputs: {outs})")
    return tv


def _check(params: PointwiseParams, rank: int) -> None:
    if not 0 <= params.break_point < max(rank, 1):
        raise ScheduleError(f"PointwiseParams.break_point: {params.break_point} for a reference of rank {rank}; "
                            f"0 (one merged axis) or an axis in [1, {rank})")
    for name, value in (("vectorize", params.vectorize), ("unroll", params.unroll)):
        if value < 1 or value & (value - 1):
            raise ScheduleError(f"PointwiseParams.{name}: {value} must be a power of two >= 1")
    limit = current_target().max_threads_per_block
    if not 1 <= params.threads <= limit:
        raise ScheduleError(f"PointwiseParams.threads: {params.threads} must be in [1, {limit}]")


def _transform_reference(ref: TensorView, params: PointwiseParams) -> None:
    """[I0, .., In-1] -> 1-D: [BIDx, (Unroll,) TIDx, (Vectorize)]; 2-D at b: [BIDy, BIDx, (Unroll,) TIDx, (Vectorize)]."""
    rank = len(ref.logical)
    v, t, u, b = params.vectorize, params.threads, params.unroll, params.break_point
    if v > 1:
        ref.split(rank - 1, v)
    if b == 0:
        for _ in range(rank - 1):
            ref.merge(0, 1)
        ref.split(0, t)                              # [X/T, T, (V)]
        if u > 1:
            ref.split(0, u)                          # [X/T/U, U, T, (V)]
        ref.axis(0).parallelize(ParallelType.BIDx)
        if u > 1:
            ref.axis(1).parallelize(ParallelType.Unroll)
        ref.axis(2 if u > 1 else 1).parallelize(ParallelType.TIDx)
        return
    for _ in range(rank - 1 - b):
        ref.merge(b, b + 1)
    for _ in range(b - 1):
        ref.merge(0, 1)                              # [O, I, (V)]
    ref.split(1, t)                                  # [O, I/T, T, (V)]
    if u > 1:
        ref.split(0, u)                              # [O/U, U, I/T, T, (V)]
        ref.reorder({1: 2, 2: 1})                    # [O/U, I/T, U, T, (V)]
    ref.axis(0).parallelize(ParallelType.BIDy)
    ref.axis(1).parallelize(ParallelType.BIDx)
    if u > 1:
        ref.axis(2).parallelize(ParallelType.Unroll)
    ref.axis(3 if u > 1 else 2).parallelize(ParallelType.TIDx)


SCHEDULER = FunctionScheduler(NAME, decline, suggest, apply)
