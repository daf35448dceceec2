"""Circular-buffer options: data on a TensorView that the circular-buffer lowering pass expands."""

from __future__ import annotations

from dataclasses import dataclass

from .types import ParallelType


@dataclass(frozen=True)
class Pipelined:
    """Loads and compute run in the same threads: prologue, main and epilogue loops.

    With ``uses_mbarrier_for_war`` the write-after-read hazard on a stage is guarded by a
    second ("empty") mbarrier array instead of ``__syncthreads``. With ``short_loops`` a loop with
    fewer iterations than stages is accepted: the prologue issues ``min(prefetch, n)`` loads (a
    matmul whose K has fewer tiles than its pipeline's depth); without it such a loop is an error.
    """

    uses_mbarrier_for_war: bool = False
    short_loops: bool = False

    def __str__(self) -> str:
        return ("Pipelined" + ("WithMBarrierForWAR" if self.uses_mbarrier_for_war else "")
                + ("ShortLoops" if self.short_loops else ""))


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
    stages: int
    prefetch: int
    type: CircularBufferType

    def __str__(self) -> str:
        return f"CircularBufferOptions{{ stage={self.stages}, prefetch={self.prefetch}, type={self.type} }}"
