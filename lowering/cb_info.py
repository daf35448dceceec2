"""Circular-buffer facts computed in one place for every pass: which loop a tensor is
buffered on, and what each circular-buffered loop holds."""

from __future__ import annotations

from dataclasses import dataclass, field

from fusion_ir import MemoryType, ParallelType, Pipelined, TensorView, WarpSpecialized
from fusion_ir.exprs import LoadStoreOp
from fusion_ir.scalar import Val
from fusion_ir.types import LoadStoreOpType

from .context import LoopGroup, LoweringContext
from .errors import LoweringError
from .kernel_ir import Buffer


def cb_axis(ctx: LoweringContext, tv: TensorView) -> int:
    """Position in ``tv.loop`` of its circular-buffer axis.

    Pipelined: the innermost serial loop axis left of the compute-at position;
    WarpSpecialized: the outermost one.
    """
    opts = tv.circular_buffer_options
    assert opts is not None
    candidates = [k for k in range(tv.compute_at_pos) if ctx.group(tv.loop[k]).is_loop
                  and not tv.loop[k].is_broadcast]
    if not candidates:
        raise LoweringError(f"T{tv.name} is circular-buffered but has no serial loop left of its compute-at "
                            f"position {tv.compute_at_pos}; compute it at a position inside a serial loop")
    if isinstance(opts.type, WarpSpecialized):
        return candidates[0]
    return candidates[-1]


@dataclass
class CircularLoop:
    """One circular-buffered loop and the loads it pipelines."""

    group: LoopGroup
    stages: int
    prefetch: int
    tensors: list[TensorView]
    war_mbarrier: bool                    # Pipelined(uses_mbarrier_for_war=True)
    mbar: Buffer | None = None            # [0, S): "full" barriers; [S, 2S): "empty" ones when war_mbarrier
    tx_bytes: Val = field(default_factory=lambda: Val.const(0))

    @property
    def index(self) -> Val:
        return self.group.index

    @property
    def extent(self) -> Val:
        return self.group.extent

    @property
    def tma(self) -> list[TensorView]:
        return [tv for tv in self.tensors if load_kind(tv) is LoadStoreOpType.TMA]

    @property
    def cp_async(self) -> list[TensorView]:
        return [tv for tv in self.tensors if load_kind(tv) is LoadStoreOpType.CpAsync]

    @property
    def shared(self) -> bool:
        return any(tv.memory_type is MemoryType.Shared for tv in self.tensors)

    def describe(self) -> str:
        return ", ".join(f"T{tv.name}" for tv in self.tensors)


def load_kind(tv: TensorView) -> LoadStoreOpType | None:
    d = tv.definition
    return d.op_type if isinstance(d, LoadStoreOp) else None


def circular_loops(ctx: LoweringContext) -> dict[int, CircularLoop]:
    """Circular-buffered loops by loop-group number, with their options checked for agreement."""
    loops: dict[int, CircularLoop] = {}
    for tv in ctx.tensors:
        opts = tv.circular_buffer_options
        if opts is None:
            continue
        if isinstance(opts.type, WarpSpecialized):
            raise LoweringError(f"T{tv.name}: WarpSpecialized circular buffering is not lowered by this pipeline; "
                                f"use Pipelined()")
        assert isinstance(opts.type, Pipelined)
        g = ctx.group(tv.loop[cb_axis(ctx, tv)])
        for p in tv.producers():
            if not p.is_input:
                raise LoweringError(f"T{tv.name} is circular-buffered, so its loads are issued ahead of the loop "
                                    f"body, but it reads T{p.name}, which is computed by the kernel; circular "
                                    f"buffering prefetches loads of fusion inputs")
        if opts.type.uses_mbarrier_for_war and load_kind(tv) is not LoadStoreOpType.TMA:
            raise LoweringError(f"T{tv.name}: Pipelined(uses_mbarrier_for_war=True) guards TMA loads; T{tv.name} "
                                f"is loaded by {load_kind(tv).name}")
        loop = loops.get(g.number)
        if loop is None:
            loops[g.number] = CircularLoop(g, opts.stages, opts.prefetch, [tv], opts.type.uses_mbarrier_for_war)
            continue
        first = loop.tensors[0]
        if (opts.stages, opts.prefetch) != (loop.stages, loop.prefetch):
            raise LoweringError(f"T{tv.name} and T{first.name} are circular-buffered on the same loop "
                                f"{g.label()} with different options ({opts.stages} stages, prefetch {opts.prefetch} "
                                f"vs {loop.stages} stages, prefetch {loop.prefetch}); one loop has one pipeline")
        if opts.type.uses_mbarrier_for_war != loop.war_mbarrier:
            raise LoweringError(f"T{tv.name} and T{first.name} share the circular-buffer loop {g.label()} but only "
                                f"one of them uses mbarriers for WAR; use the same Pipelined type for both")
        loop.tensors.append(tv)
    for loop in loops.values():
        n = loop.extent.const_value()
        if n is not None and n < loop.stages:
            raise LoweringError(f"{loop.describe()}: the circular-buffered loop {loop.group.label()} has {n} "
                                f"iterations, which fails to fill the circular buffer pipeline of {loop.stages} "
                                f"stages; use fewer stages or a longer loop")
    return loops


def block_threads(ctx: LoweringContext) -> Val:
    return ctx.launch[ParallelType.TIDx] * ctx.launch[ParallelType.TIDy] * ctx.launch[ParallelType.TIDz]
