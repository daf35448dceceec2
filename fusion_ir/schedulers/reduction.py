"""The reduction scheduler: fusions whose reductions (``sum``, ``max``) all reduce the last axis (inner) or
the first axis (outer) of one 2-D domain, with pointwise ops before them and after them (on the reduced
result, never broadcast back: that is the normalization scheduler's).

``SCHEDULER.apply(fusion, SCHEDULER.suggest(fusion, sizes))`` schedules it in place; the heuristic is
``reduction_heuristic``. The schedule, in loop axes of the first reduction (every tensor replays it):

- inner: ``[rows / ty (BIDx), ty (TIDy), splits (BIDz), serial, unroll (Unroll), tx (TIDx), vec]``; each
  reduction is rfactored into a per-thread partial (serial, unrolled and vector axes), a block reduction over
  TIDx and, with splits, a grid reduction over BIDz;
- outer: ``[columns / vec / tx (BIDx), tx (TIDx), splits (BIDz), serial, unroll (Unroll), ty (TIDy), vec]``; a
  per-thread partial over the serial rows, a block reduction over TIDy, then with splits a grid reduction over
  BIDz.

Every input is loaded through a register cache whose vector axis is ``Vectorize`` (16-byte loads).
"""

from __future__ import annotations

from target import current as current_target

from ..fusion import Fusion
from ..inlining import inline_most, parallelize_like, transform_like
from ..tensor_view import TensorView
from ..types import ParallelType, ScheduleError
from .protocol import HeuristicParams, Sizes
from .reduction_analysis import INNER, ReductionDomain, classify, reductions_of
from .reduction_heuristic import ReductionParams, suggest_reduction
from .schedule_common import cache_inputs, vectorize_caches, vectorize_output

__all__ = ["SCHEDULER", "ReductionParams", "ReductionScheduler"]


class ReductionScheduler:
    name = "reduction"

    def decline(self, fusion: Fusion, sizes: Sizes | None) -> str | None:
        domain = classify(fusion, sizes, self.name)
        if isinstance(domain, str):
            return domain
        if domain.broadcast_back:
            b = domain.broadcast_back[0]
            return (f"T{b.name} broadcasts a reduction's result back onto the reduced domain: a normalization "
                    f"(the normalization scheduler's)")
        return _over_target_limits(domain, _suggest(domain))

    def suggest(self, fusion: Fusion, sizes: Sizes | None) -> ReductionParams:
        return _suggest(_domain(fusion, sizes, self))

    def apply(self, fusion: Fusion, params: HeuristicParams) -> None:
        if not isinstance(params, ReductionParams):
            raise ScheduleError(f"reduction scheduler: apply needs ReductionParams, got {type(params).__name__}")
        reductions = reductions_of(fusion)
        if not reductions:
            raise ScheduleError("reduction scheduler: the fusion has no reduction to schedule")
        ref = reductions[0]
        with fusion.transaction():
            caches = cache_inputs(fusion)
            if params.kind == INNER:
                _inner(fusion, ref, caches, params)
            else:
                _outer(fusion, ref, caches, params)
        fusion.set_min_blocks_per_sm(params.blocks_per_sm)


def _suggest(domain: ReductionDomain) -> ReductionParams:
    target = current_target()
    return suggest_reduction(domain, target.sm_count, target.max_threads_per_sm)


WORKSPACE_BYTES = 8      # the block reduction's shared workspace: one int64 slot per launched thread


def _over_target_limits(domain: ReductionDomain, params: ReductionParams) -> str | None:
    """Why the heuristic's block cannot launch on the current target, if it cannot: its block shapes are
    constants of the H100 (up to 512 threads along a row, 256 for an outer reduction), and the block
    reduction's shared workspace grows with them."""
    target = current_target()
    r = domain.reductions[0]
    block = f"the {params.kind} reduction's block of {params.threads_x} x {params.threads_y} threads"
    if params.threads > target.max_threads_per_block:
        return (f"T{r.name}: {block} (threads_x x threads_y) is over {target.name}'s limit of "
                f"{target.max_threads_per_block} threads per block")
    workspace = WORKSPACE_BYTES * params.threads
    if workspace > target.smem_per_block:
        return (f"T{r.name}: {block} needs {workspace} bytes of block-reduction workspace, over {target.name}'s "
                f"{target.smem_per_block} bytes of shared memory per block")
    return None


def _domain(fusion: Fusion, sizes: Sizes | None, scheduler: ReductionScheduler) -> ReductionDomain:
    reason = scheduler.decline(fusion, sizes)
    if reason is not None:
        raise ScheduleError(f"reduction scheduler declines this fusion: {reason}")
    domain = classify(fusion, sizes, scheduler.name)
    assert isinstance(domain, ReductionDomain)
    return domain


def _inner(fusion: Fusion, ref: TensorView, caches: list[TensorView], p: ReductionParams) -> None:
    """``[R, rC] -> [R/ty, ty, (splits,) serial, unroll, tx, vec]``; rfactor serial, unroll and vec, then tx
    across splits."""
    ref.split(1, p.vectorize)                       # [R, rC/v, rv]
    ref.split(1, p.threads_x)                       # [R, rser, rtx, rv]
    ref.split(1, p.unroll)                          # [R, rser, ru, rtx, rv]
    if p.grid_splits > 1:
        ref.split(1, p.grid_splits, inner_split=False)   # [R, rz, rser, ru, rtx, rv]
    rows = 1
    if p.threads_y > 1:
        ref.split(0, p.threads_y)                   # [R/ty, ty, ...]
        rows = 2
    transform_like(ref)
    ref.axis(0).parallelize(ParallelType.BIDx)
    if p.threads_y > 1:
        ref.axis(1).parallelize(ParallelType.TIDy)
    z = rows if p.grid_splits > 1 else None
    serial = rows + (1 if z is not None else 0)
    if z is not None:
        ref.axis(z).parallelize(ParallelType.BIDz)
    if p.unroll > 1:
        ref.axis(serial + 1).parallelize(ParallelType.Unroll)
    ref.axis(serial + 2).parallelize(ParallelType.TIDx)
    parallelize_like(ref)
    for r in reductions_of(fusion):
        r.rfactor([serial, serial + 1, serial + 3])  # per-thread partial: serial, unrolled and vector axes
        if z is not None:
            r.rfactor([serial])                     # the block's partial: across TIDx; r keeps BIDz (grid)
    vectorize_caches(caches, p.vectorize)         # before inlining: vector axes are never inlined
    inline_most(fusion)


def _outer(fusion: Fusion, ref: TensorView, caches: list[TensorView], p: ReductionParams) -> None:
    """``[rR, C] -> [C/v/tx, tx, (splits, 1,) serial, unroll, ty, vec]``; rfactor serial and unroll, then ty
    across splits."""
    ref.reorder({0: 1})                             # [C, rR]
    ref.split(0, p.vectorize)                       # [C/v, v, rR]
    ref.split(0, p.threads_x)                       # [C/v/tx, tx, v, rR]
    ref.split(3, p.threads_y)                       # [bx, tx, v, rser, rty]
    ref.split(3, p.unroll)                          # [bx, tx, v, rser, ru, rty]
    if p.grid_splits > 1:
        ref.split(3, p.grid_splits, inner_split=False)   # [bx, tx, v, rz, rser, ru, rty]
        # a serial reduction axis of one after the grid's: the grid reduction closes after it, outside the
        # vector loop, so the vector axis is its per-thread slots (lowering/grid_reduction.py)
        ref.split(3, 1)                             # [bx, tx, v, rz, r1, rser, ru, rty]
    ref.reorder({2: ref.ndim - 1})                  # vector axis last
    transform_like(ref)
    ref.axis(0).parallelize(ParallelType.BIDx)
    ref.axis(1).parallelize(ParallelType.TIDx)
    serial = 2
    if p.grid_splits > 1:
        ref.axis(2).parallelize(ParallelType.BIDz)
        serial = 4
    if p.unroll > 1:
        ref.axis(serial + 1).parallelize(ParallelType.Unroll)
    # TIDy even when threads_y is 1: the last step is then a block reduction of one thread (no code), whose
    # result a register accumulator holds and one vector store writes; a serial axis of one would make the
    # output itself the accumulator (zeroed, then read and written back in global memory)
    ref.axis(serial + 2).parallelize(ParallelType.TIDy)
    parallelize_like(ref)
    for r in reductions_of(fusion):
        r.rfactor([serial, serial + 1])             # per-thread partial over its serial and unrolled rows
        if p.grid_splits > 1:
            r.rfactor([serial])                     # the block's partial across TIDy; r keeps BIDz (grid)
    vectorize_caches(caches, p.vectorize)         # before inlining: vector axes are never inlined
    inline_most(fusion)
    for tv in fusion.outputs:
        vectorize_output(tv, p.vectorize)


SCHEDULER = ReductionScheduler()
