"""The normalization scheduler: 2-D fusions whose reductions' results are broadcast back onto the reduced
domain (softmax, log-softmax, layer norm, RMS norm), over the last axis (inner persistent) or the first
(outer persistent).

``SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, sizes))`` schedules it in place; the heuristic is
``normalization_heuristic``. Every tensor replays one reference (a 2-D output):

- inner: ``[rows / ty (BIDx), ty (TIDy), batch, ceil(vectors / batch) (TIDx), vec]``: a thread keeps
  ``batch x vec`` elements of the row in every persistent buffer (a constant, so registers can hold it);
  each reduction is rfactored into the thread's partial (batch and vector axes), then a block reduction;
- outer: ``[columns / vec / tx (BIDx), tx (TIDx), batch, ceil(rows / batch) (TIDy), vec]``: a thread keeps
  ``batch`` rows of its ``vec`` columns; partial over the batch, then a block reduction over TIDy.

Inputs load through register caches with 16-byte vectors, outputs store from a register copy with them;
persistent buffers (``fusion_ir.persistent``) stay in registers or, when too long, in shared memory.
"""

from __future__ import annotations

from target import current as current_target

from ..fusion import Fusion
from ..inlining import inline_most, parallelize_like, transform_like
from ..persistent import unmappable_axes
from ..tensor_view import TensorView
from ..types import MemoryType, ParallelType, ScheduleError
from .normalization_heuristic import SHARED, NormalizationParams, suggest_normalization
from .protocol import HeuristicParams, Sizes
from .reduction_analysis import INNER, classify, reductions_of
from .schedule_common import cache_inputs, vectorize_caches, vectorize_output

__all__ = ["SCHEDULER", "NormalizationParams", "NormalizationScheduler"]


def persistent_tensors(fusion: Fusion) -> list[TensorView]:
    """Tensors (inputs included, outputs not) read by a reduction and, after its broadcast, again."""
    used = fusion.used_tensors()
    live = set(used)
    return [tv for tv in used if not tv.is_output and unmappable_axes(tv, live)]


def live_across_reductions(fusion: Fusion, persistent: list[TensorView]) -> list[TensorView]:
    """The persistent tensors held at once across one reduction, at the reduction that holds the most: those
    computed before it (not from its result) and read again after it (by a tensor that depends on it). A
    buffer computed elementwise from another between two reductions takes its registers as the other dies."""
    most: list[TensorView] = []
    for r in reductions_of(fusion):
        held = [tv for tv in persistent
                if tv is not r and r not in tv.ancestors() and any(r in c.ancestors() for c in tv.consumers())]
        if sum(tv.dtype.size for tv in held) > sum(tv.dtype.size for tv in most):
            most = held
    return most


class NormalizationScheduler:
    name = "normalization"

    def decline(self, fusion: Fusion, sizes: Sizes | None) -> str | None:
        plan = self._plan(fusion, sizes)
        return plan if isinstance(plan, str) else None

    def suggest(self, fusion: Fusion, sizes: Sizes | None) -> NormalizationParams:
        plan = self._plan(fusion, sizes)
        if isinstance(plan, str):
            raise ScheduleError(f"normalization scheduler declines this fusion: {plan}")
        return plan

    def _plan(self, fusion: Fusion, sizes: Sizes | None) -> NormalizationParams | str:
        domain = classify(fusion, sizes, self.name)
        if isinstance(domain, str):
            return domain
        if not domain.broadcast_back:
            return ("no reduction result is broadcast back onto the reduced domain: a plain reduction (the "
                    "reduction scheduler's)")
        if _reference(fusion) is None:
            return "no output spans the whole 2-D domain; the normalization scheduler schedules along one"
        persistent = persistent_tensors(fusion)
        live = live_across_reductions(fusion, persistent)
        return suggest_normalization(domain, [tv.dtype.size for tv in persistent], current_target(),
                                     [tv.dtype.size for tv in live])

    def apply(self, fusion: Fusion, params: HeuristicParams) -> None:
        if not isinstance(params, NormalizationParams):
            raise ScheduleError(f"normalization scheduler: apply needs NormalizationParams, got "
                                f"{type(params).__name__}")
        ref = _reference(fusion)
        if ref is None:
            raise ScheduleError("normalization scheduler: no output spans the whole 2-D domain")
        with fusion.transaction():
            caches = cache_inputs(fusion)
            outputs = [o for o in fusion.outputs if _spans_domain(o)]
            for o in outputs:
                o.cache_before()              # the output stores from a register copy, vectorized
            if params.kind == INNER:
                _inner(fusion, ref, params)
            else:
                _outer(fusion, ref, params)
            if params.persistent_memory == SHARED:
                for tv in persistent_tensors(fusion):
                    if not tv.is_input:
                        tv.set_memory_type(MemoryType.Shared)
            vectorize_caches(caches, params.vectorize)    # before inlining: vector axes are never inlined
            for o in outputs:
                vectorize_output(o, params.vectorize)
            inline_most(fusion)
        if _constant_block(ref):
            # a symbolic block size has no __launch_bounds__ to carry the register cap: ptxas keeps its own choice
            fusion.set_min_blocks_per_sm(params.blocks_per_sm)


def _spans_domain(tv: TensorView) -> bool:
    ids = [i for i in tv.logical if not i.is_reduction]
    return len(ids) == 2 and not any(i.is_broadcast for i in ids)


def _constant_block(ref: TensorView) -> bool:
    threads = (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)
    return all(ax.extent.const_value() is not None for ax in ref.loop if ax.parallel_type in threads)


def _reference(fusion: Fusion) -> TensorView | None:
    return next((o for o in fusion.outputs if _spans_domain(o)), None)


def _rfactor_all(fusion: Fusion, axes: list[int]) -> None:
    for r in reductions_of(fusion):
        if not r.definition.rfactor_partial:
            r.rfactor(axes)


def _inner(fusion: Fusion, ref: TensorView, p: NormalizationParams) -> None:
    ref.split(1, p.vectorize)                              # [R, C/v, v]
    ref.split(1, p.persistent_batch, inner_split=False)    # [R, batch, X, v]
    rows = 1
    if p.threads_y > 1:
        ref.split(0, p.threads_y)                          # [R/ty, ty, batch, X, v]
        rows = 2
    transform_like(ref)
    ref.axis(0).parallelize(ParallelType.BIDx)
    if p.threads_y > 1:
        ref.axis(1).parallelize(ParallelType.TIDy)
    ref.axis(rows + 1).parallelize(ParallelType.TIDx)
    parallelize_like(ref)
    _rfactor_all(fusion, [rows, rows + 2])                 # the thread's partial: batch and vector axes


def _outer(fusion: Fusion, ref: TensorView, p: NormalizationParams) -> None:
    ref.reorder({0: 1})                                    # [C, R]
    ref.split(0, p.vectorize)                              # [C/v, v, R]
    ref.split(0, p.threads_x)                              # [C/v/tx, tx, v, R]
    ref.split(3, p.persistent_batch, inner_split=False)    # [bx, tx, v, batch, Y]
    ref.reorder({2: 4})                                    # [bx, tx, batch, Y, v]
    transform_like(ref)
    ref.axis(0).parallelize(ParallelType.BIDx)
    ref.axis(1).parallelize(ParallelType.TIDx)
    ref.axis(3).parallelize(ParallelType.TIDy)
    parallelize_like(ref)
    _rfactor_all(fusion, [2])                              # the thread's partial over its batch of rows


SCHEDULER = NormalizationScheduler()
