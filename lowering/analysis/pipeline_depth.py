"""Pipeline depth: the stage count of every circular-buffered tensor, ``stages="auto"`` resolved.

Built after the loop nest, before ``buffers`` (which sizes each circular buffer by its depth), from
the IterDomain graph and a trial buffer plan in which every ``auto`` tensor holds one stage. A
tensor given ``stages=N`` keeps N. The tensors of a loop given ``stages="auto"`` (all of them: one
loop has one pipeline) get the deepest pipeline that

- fits the block's shared memory (the current target's ``smem_per_block``) beside every other shared buffer of the
  kernel: intermediates, other pipelines' stages, the block-reduction workspace and the mbarriers
  (its own too: a stage brings one "full" barrier, and one "empty" barrier when they guard WAR).
  Buffers are counted end to end, never sharing memory, each rounded up to 16 bytes, plus the
  alignment padding the layout may need: ``alignment - 16`` bytes (1,008 for a 128-byte swizzle)
  after each buffer whose end may be misaligned, for as many buffers as need more than 16-byte
  alignment. That bounds any placement ``smem_reuse`` makes (first fit never ends above
  buffers laid end to end in the same order), so the depth picked always fits;
- is no deeper than ``MAX_USEFUL_STAGES`` (8): past it the matmul measured no gain, and every
  extra stage is one more iteration a short loop leaves unfilled (a symbolic trip count, which
  the depth cannot see, is the common case: a loop shorter than the pipeline runs, but what the
  stages past its trip count hold is wasted);
- is no deeper than the pipeline has iterations, when that count is a constant;
- is at least 2, and at least what the prefetch needs (``prefetch + 1``, or ``-prefetch`` for a
  negative one, which counts back from the depth: -1 gives depth - 1).

Several ``auto`` loops in one kernel deepen together: each takes ``min(S, its iterations)`` for
the largest S at which all of them fit. Rules, raised as ``LoweringError``: an ``auto`` loop holds
a shared buffer (registers have no budget to fill) and every tensor of it is ``auto``; the other
shared buffers have constant sizes; the shallowest pipeline fits (the error names the tensors,
the bytes they need and the bytes left). ``PipelineDepths.chosen`` keeps, for each ``auto`` loop,
the depth and what limited it (``viz --show smem`` prints it).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field

import smem_model
from fusion_ir import CircularBufferOptions, MemoryType, TensorView
from fusion_ir.circular_buffer import MAX_USEFUL_STAGES
from fusion_ir.exprs import load_kind
from fusion_ir.types import LoadStoreOpType
from smem_model import GRANULE, BufferRequest
from target import current as current_target

from ..errors import LoweringError
from . import buffers as buffer_plan
from .id_model import IdModel, LoopGroup
from .mbarrier_layout import MBAR_BYTES, OrderingBarriers
from .pipeline_axes import cb_axis, pipeline_loops, turn_axis
from .tensor_cores import TensorCores


class DepthLimit(enum.Enum):
    """What stopped a ``stages="auto"`` pipeline from going deeper; the value is how reports name it."""

    SharedMemory = "shared memory"
    TripCount = "trip count"
    UsefulDepth = "useful depth"


@dataclass(frozen=True)
class DepthChoice:
    """The depth picked for the tensors of one ``stages="auto"`` loop, and what limited it."""

    loop: str                               # the circular-buffer loop, as nvFuser prints its IterDomain
    tensors: tuple[str, ...]
    stages: int
    prefetch: int                           # resolved: iterations loaded ahead
    limited_by: DepthLimit
    stage_bytes: int                        # shared memory one more stage takes: buffers and mbarrier slots
    left_bytes: int                         # bytes of the block's shared memory the other buffers leave
    others: tuple[tuple[str, int], ...]     # those buffers (and the alignment padding) with their bytes
    trip_count: int | None                  # the pipeline's iterations when constant

    @property
    def reason(self) -> str:
        if self.limited_by is DepthLimit.TripCount:
            n = self.trip_count
            floor = f" ({self.stages} is the least depth)" if n is not None and self.stages > n else ""
            return f"the loop has only {n} iteration{'' if n == 1 else 's'}{floor}"
        if self.limited_by is DepthLimit.UsefulDepth:
            return f"at most {MAX_USEFUL_STAGES} stages: deeper pipelines measured no faster"
        return f"shared memory: {_left(self.left_bytes, self.others)}; each stage needs {self.stage_bytes:,} bytes"

    def __str__(self) -> str:
        return (f"{', '.join(self.tensors)} on {self.loop}: {self.stages} stages, prefetch {self.prefetch} "
                f"({self.reason})")


@dataclass
class PipelineDepths:
    """Resolved circular-buffer options of every circular-buffered tensor, and how each ``auto``
    loop's depth was picked (by loop-group number)."""

    resolved: dict[TensorView, CircularBufferOptions] = field(default_factory=dict)
    chosen: dict[int, DepthChoice] = field(default_factory=dict)

    def options(self, tv: TensorView) -> CircularBufferOptions | None:
        """tv's circular-buffer options with a number of stages and an absolute prefetch, or None."""
        return self.resolved.get(tv)

    def stages(self, tv: TensorView) -> int:
        """How many stages tv's buffer holds (1 when it is not circular-buffered)."""
        opts = self.resolved.get(tv)
        return 1 if opts is None else int(opts.stages)


@dataclass(frozen=True)
class _Counted:
    """A shared buffer as the depth search counts it."""

    name: str
    nbytes: int          # rounded up to 16 bytes
    align: int


@dataclass
class _AutoLoop:
    """One ``auto`` loop while its depth is searched."""

    number: int
    label: str
    tensors: list[TensorView]
    stage_bytes: list[tuple[str, int, int]]   # (name, bytes of one stage, alignment) of each shared buffer
    barriers: tuple[str, int] | None          # its mbarrier array: name, slots per stage (None without TMA)
    least: int                                # the least depth its prefetch allows
    trip_count: int | None

    def depth(self, s: int) -> int:
        capped = s if self.trip_count is None else min(s, self.trip_count)
        return max(self.least, capped)

    def buffers(self, depth: int) -> list[_Counted]:
        out = [_Counted(name, _rounded(depth * n), align) for name, n, align in self.stage_bytes]
        if self.barriers is not None:
            name, slots = self.barriers
            out.append(_Counted(name, _rounded(depth * slots * MBAR_BYTES), MBAR_BYTES))
        return out

    def per_stage(self) -> int:
        slots = self.barriers[1] if self.barriers is not None else 0
        return sum(n for _, n, _ in self.stage_bytes) + slots * MBAR_BYTES

    def describe(self) -> str:
        return ", ".join(f"T{tv.name}" for tv in self.tensors)


def build(ids: IdModel, tc: TensorCores) -> PipelineDepths:
    depths = PipelineDepths()
    buffered = [tv for tv in ids.tensors if tv.circular_buffer_options is not None]
    for tv in buffered:
        if not tv.circular_buffer_options.is_auto:
            depths.resolved[tv] = tv.circular_buffer_options
    if len(depths.resolved) == len(buffered):
        return depths

    # by pipeline: its loop, and for a warp-specialized one the loops inside it too (an epilogue pipeline may run on
    # the mainloop's loop with a depth of its own: ``CircularLoop.companion_of``)
    by_loop: dict[tuple[int, ...], list[TensorView]] = {}
    for tv in buffered:
        by_loop.setdefault(_pipeline_key(ids, tv), []).append(tv)
    auto_numbers = [n for n, tvs in by_loop.items() if any(tv.circular_buffer_options.is_auto for tv in tvs)]
    for number in auto_numbers:
        _check_all_auto(ids, by_loop[number])

    trial = buffer_plan.build(ids, tc, lambda tv: 1 if tv.circular_buffer_options.is_auto
                              else int(tv.circular_buffer_options.stages))
    auto_tensors = {tv for n in auto_numbers for tv in by_loop[n]}
    loops = [_auto_loop(ids, trial, by_loop[number]) for number in auto_numbers]
    fixed = _fixed_buffers(ids, trial, by_loop, auto_tensors)

    def layout(s: int) -> list[_Counted]:
        return fixed + [b for lp in loops for b in lp.buffers(lp.depth(s))]

    if _bound(layout(2)) > current_target().smem_per_block:
        raise _too_small(loops, fixed, layout(2))
    deepest = _deepest(loops, lambda s: _bound(layout(s)))
    everything = layout(deepest)
    padding = _padding(everything)
    for lp in loops:
        s = lp.depth(deepest)
        own = lp.buffers(s)
        others = [(b.name, b.nbytes) for b in everything if b not in own]
        others = sorted(others, key=lambda x: -x[1]) + ([("alignment", padding)] if padding else [])
        left = current_target().smem_per_block - sum(n for _, n in others)
        by_trips = lp.trip_count is not None and lp.trip_count <= deepest
        limited_by = (DepthLimit.TripCount if by_trips else DepthLimit.UsefulDepth if deepest >= MAX_USEFUL_STAGES
                      else DepthLimit.SharedMemory)
        opts = lp.tensors[0].circular_buffer_options.resolved(s)
        depths.chosen[lp.number] = DepthChoice(
            lp.label, tuple(f"T{tv.name}" for tv in lp.tensors), s, opts.prefetch,
            limited_by, lp.per_stage(), left, tuple(others), lp.trip_count)
        for tv in lp.tensors:
            depths.resolved[tv] = tv.circular_buffer_options.resolved(s)
    return depths


def _deepest(loops: list[_AutoLoop], total: Callable[[int], int]) -> int:
    """The largest S up to ``MAX_USEFUL_STAGES`` whose depths fit (``total(2)`` fits), stopping where
    every loop is capped by its trip count."""
    caps = [lp.trip_count for lp in loops]
    stop = MAX_USEFUL_STAGES
    if all(c is not None for c in caps):
        stop = min(stop, max(max(c for c in caps if c is not None), 2))
    s = 2
    while s < stop and total(s + 1) <= current_target().smem_per_block:
        s += 1
    return s


def _pipeline_key(ids: IdModel, tv: TensorView) -> tuple[int, ...]:
    """The loop groups of ``tv``'s pipeline (``pipeline_loops``; the circular-buffer loop alone when Pipelined)."""
    return tuple(g.number for g in pipeline_loops(ids, tv))


def _loop_group(ids: IdModel, tv: TensorView) -> LoopGroup:
    return ids.group(tv.loop[cb_axis(ids, tv)])


def _check_all_auto(ids: IdModel, tvs: list[TensorView]) -> None:
    auto = [tv for tv in tvs if tv.circular_buffer_options.is_auto]
    fixed = [tv for tv in tvs if not tv.circular_buffer_options.is_auto]
    if fixed:
        a, f = auto[0], fixed[0]
        raise LoweringError(f"T{a.name} (stages=\"auto\") and T{f.name} (stages={f.circular_buffer_options.stages}) "
                            f"are circular-buffered on the same loop {_loop_group(ids, a).label()}; one loop has "
                            f"one pipeline: give both the same stages")


def _auto_loop(ids: IdModel, trial: buffer_plan.BufferPlan, tvs: list[TensorView]) -> _AutoLoop:
    group = _loop_group(ids, tvs[0])
    names = ", ".join(f"T{tv.name}" for tv in tvs)
    shared = [tv for tv in tvs if tv.memory_type is MemoryType.Shared]
    if not shared:
        raise LoweringError(f"{names}: stages=\"auto\" picks the deepest pipeline that fits shared memory, but the "
                            f"loop {group.label()} pipelines only Local (register) buffers; give stages as a number")
    stage_bytes = []
    for tv in shared:
        buf = trial.buffers[tv]
        n = buf.nbytes.const_value()
        if n is None:
            raise LoweringError(f"T{tv.name}: stages=\"auto\" needs the bytes of one stage, but a stage of "
                                f"T{tv.name} is {buf.nbytes} bytes (symbolic); split its axes by constants or "
                                f"give stages as a number")
        stage_bytes.append((buf.name, n, buf.align))
    tma = [tv for tv in tvs if load_kind(tv) is LoadStoreOpType.TMA]
    barriers = (f"T{tma[0].name}_mbar", _slots_per_stage(tma[0])) if tma else None
    least = max(tv.circular_buffer_options.min_stages for tv in tvs)
    return _AutoLoop(group.number, group.label(), tvs, stage_bytes, barriers, least, _trip_count(ids, tvs[0]))


def _slots_per_stage(tv: TensorView) -> int:
    """A "full" mbarrier per stage, and an "empty" one when barriers guard WAR (``CircularLoop.slots``)."""
    return 2 if tv.circular_buffer_options.war_mbarrier else 1


def _trip_count(ids: IdModel, tv: TensorView) -> int | None:
    """Iterations of tv's pipeline: its loop's, times the inner loops' when warp-specialized."""
    count = 1
    for g in pipeline_loops(ids, tv):
        n = g.extent.const_value()
        if n is None:
            return None
        count *= n
    return count


def _fixed_buffers(ids: IdModel, trial: buffer_plan.BufferPlan, by_loop: dict[tuple[int, ...], list[TensorView]],
                   auto: set[TensorView]) -> list[_Counted]:
    """Every shared buffer whose size does not depend on an ``auto`` depth."""
    out: list[_Counted] = []
    shared = [b for tv, b in trial.buffers.items() if tv not in auto and not b.is_param
              and b.memory is MemoryType.Shared]
    if trial.workspace is not None:
        shared.append(trial.workspace)
    for b in shared:
        n = b.nbytes.const_value()
        if n is None:
            names = ", ".join(sorted(f"T{tv.name}" for tv in auto))
            raise LoweringError(f"{names}: stages=\"auto\" fits the pipeline into the shared memory the other "
                                f"buffers leave, but {b.name} has a symbolic size ({b.nbytes} bytes); give it a "
                                f"constant size or give stages as a number")
        out.append(_Counted(b.name, _rounded(n), b.align))
    buffered = {tv for tvs in by_loop.values() for tv in tvs}
    for tv in ids.tensors:
        if load_kind(tv) is LoadStoreOpType.TMA and tv not in buffered:
            out.append(_Counted(f"T{tv.name}_mbar", _rounded(MBAR_BYTES), MBAR_BYTES))
    for tvs in by_loop.values():
        tma = [tv for tv in tvs if load_kind(tv) is LoadStoreOpType.TMA]
        if not tma:
            continue
        turn = turn_axis(ids, tma[0])
        if turn is not None:     # the turns' ordering barriers (counted whenever warp groups take turns)
            takers = ids.group(turn).extent.const_value() or 1
            slots = OrderingBarriers.slots_for(takers)
            out.append(_Counted(f"T{tma[0].name}_order", _rounded(slots * MBAR_BYTES), MBAR_BYTES))
        opts = tma[0].circular_buffer_options
        if not opts.is_auto:
            slots = int(opts.stages) * _slots_per_stage(tma[0])
            out.append(_Counted(f"T{tma[0].name}_mbar", _rounded(slots * MBAR_BYTES), MBAR_BYTES))
    return out


def _rounded(nbytes: int) -> int:
    return smem_model.align_up(nbytes, GRANULE)


def _requests(buffers: list[_Counted]) -> list[BufferRequest]:
    return [BufferRequest(b.name, b.nbytes, b.align) for b in buffers]


def _padding(buffers: list[_Counted]) -> int:
    """The most alignment padding buffers laid end to end in any order may need (``smem_model.padding``)."""
    return smem_model.padding(_requests(buffers))


def _bound(buffers: list[_Counted]) -> int:
    """The shared memory the buffers may take in whatever order and with whatever reuse ``smem_reuse``
    lays them out (``smem_model.bound``)."""
    return smem_model.bound(_requests(buffers))


def _left(left: int, others: tuple[tuple[str, int], ...] | list[tuple[str, int]]) -> str:
    if not others:
        return f"{left:,} bytes per block"
    return f"{left:,} bytes left after " + ", ".join(f"{name} ({n:,} B)" for name, n in others)


def _too_small(loops: list[_AutoLoop], fixed: list[_Counted], everything: list[_Counted]) -> LoweringError:
    needs = "; ".join(f"{lp.describe()} on {lp.label} need {lp.depth(2)} stages of {lp.per_stage():,} bytes"
                      for lp in loops)
    own = sum(b.nbytes for lp in loops for b in lp.buffers(lp.depth(2)))
    padding = _padding(everything)
    others = sorted(((b.name, b.nbytes) for b in fixed), key=lambda x: -x[1])
    others += [("alignment", padding)] if padding else []
    left = current_target().smem_per_block - sum(n for _, n in others)
    return LoweringError(f"stages=\"auto\": {needs}: {own:,} bytes, but shared memory has {_left(left, others)} "
                         f"(of {current_target().smem_per_block:,} per block): not even the shallowest pipeline fits; "
                         f"use smaller tiles, fewer buffers, or keep a buffer in registers")
