"""Circular-buffer options: data on a TensorView that the circular-buffer lowering pass expands."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from .types import ParallelType

AUTO: Literal["auto"] = "auto"   # ``circular_buffer(stages="auto")``: the lowering picks the depth
# The deepest pipeline worth its shared memory: the matmul suggestion measured no gain past 8 stages
# (the 64 x 128 tile peaked there), and a deeper pipeline only makes short loops more likely.
# ``stages="auto"`` and ``suggest_matmul_params`` never go deeper.
MAX_USEFUL_STAGES = 8


@dataclass(frozen=True)
class Pipelined:
    """Loads and compute run in the same threads: prologue, main and epilogue loops.

    With ``uses_mbarrier_for_war`` the write-after-read hazard on a stage is guarded by a
    second ("empty") mbarrier array instead of ``__syncthreads``. A loop with fewer iterations than
    the prefetch distance runs too: the prologue issues ``min(prefetch, n)`` loads.
    """

    uses_mbarrier_for_war: bool = False

    def __str__(self) -> str:
        return "Pipelined" + ("WithMBarrierForWAR" if self.uses_mbarrier_for_war else "")


@dataclass(frozen=True)
class WarpSpecialized:
    """A padded thread axis splits the block into an AsyncWarp (loads) and ComputeWarps."""

    on: ParallelType = ParallelType.TIDy
    num_registers: tuple[int, int] | None = None

    def __str__(self) -> str:
        regs = "" if self.num_registers is None else f"RegisterSharing_{self.num_registers[0]}_{self.num_registers[1]}"
        return f"WarpSpecializedOn{self.on.value}{regs}"


CircularBufferType = Pipelined | WarpSpecialized


@dataclass(frozen=True)
class CircularBufferOptions:
    """``stages`` deep, ``prefetch`` ahead. With ``stages="auto"`` the lowering picks the depth
    (``lowering/analysis/pipeline_depth.py``) and ``prefetch`` is kept as given: a negative one
    counts back from the depth picked (-1: depth - 1), a non-negative one is a distance of its own."""

    stages: int | Literal["auto"]
    prefetch: int
    type: CircularBufferType

    @property
    def is_auto(self) -> bool:
        return self.stages == AUTO

    @property
    def war_mbarrier(self) -> bool:
        """Whether "empty" mbarriers guard a stage's write-after-read: always when warp-specialized,
        with ``Pipelined(uses_mbarrier_for_war=True)`` otherwise."""
        return isinstance(self.type, WarpSpecialized) or self.type.uses_mbarrier_for_war

    @property
    def min_stages(self) -> int:
        """The least depth the prefetch allows: 2, and more than a prefetch distance (-p for p < 0)."""
        return max(2, self.prefetch + 1 if self.prefetch >= 0 else -self.prefetch)

    def resolved(self, stages: int) -> CircularBufferOptions:
        """These options at depth ``stages`` (at least ``min_stages``), the prefetch made absolute."""
        assert self.is_auto and stages >= self.min_stages, (self, stages)
        return replace(self, stages=stages, prefetch=self.prefetch + stages if self.prefetch < 0 else self.prefetch)

    def __str__(self) -> str:
        return f"CircularBufferOptions{{ stage={self.stages}, prefetch={self.prefetch}, type={self.type} }}"
