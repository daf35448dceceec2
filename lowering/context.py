"""Analysis results that lowering passes share: loop groups, buffers, launch dimensions.

The kernel IR is the program; this context is what the passes learned about the fusion
to build it. Passes add to it in pipeline order and never remove.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fusion_ir import Fusion, IterDomain, ParallelType, TensorView
from fusion_ir.exprs import Expr
from fusion_ir.scalar import Val

from .kernel_ir import Buffer, RuntimeCheck, TensorMapParam

PARALLEL_LAUNCH = (ParallelType.BIDx, ParallelType.BIDy, ParallelType.BIDz,
                   ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)


@dataclass
class LoopGroup:
    """IterDomains that share one loop (or one thread/block index)."""

    number: int
    members: list[IterDomain]
    parallel_type: ParallelType
    extent: Val
    index: Val

    @property
    def is_broadcast(self) -> bool:
        return all(i.is_broadcast for i in self.members)

    @property
    def is_loop(self) -> bool:
        """True when the group becomes a ForLoop (serial, unrolled or vectorized)."""
        if self.is_broadcast:
            return False
        return self.parallel_type in (ParallelType.Serial, ParallelType.Unroll, ParallelType.Vectorize)

    def label(self) -> str:
        return self.members[-1].label()


@dataclass
class LoweringContext:
    fusion: Fusion
    tensors: list[TensorView] = field(default_factory=list)
    exprs: list[Expr] = field(default_factory=list)
    group_of: dict[IterDomain, LoopGroup] = field(default_factory=dict)
    groups: list[LoopGroup] = field(default_factory=list)
    launch: dict[ParallelType, Val] = field(default_factory=dict)
    buffers: dict[TensorView, Buffer] = field(default_factory=dict)
    accumulators: dict[TensorView, Buffer] = field(default_factory=dict)
    alloc_ids: dict[TensorView, list[IterDomain]] = field(default_factory=dict)
    tensor_maps: dict[TensorView, TensorMapParam] = field(default_factory=dict)
    checks: list[RuntimeCheck] = field(default_factory=list)
    workspace: Buffer | None = None
    loop_symbol_base: int = 0
    notes: dict[str, object] = field(default_factory=dict)

    def group(self, i: IterDomain) -> LoopGroup:
        return self.group_of[i]

    def loop_ids(self, tv: TensorView) -> list[IterDomain]:
        """tv's loop axes that become ForLoops, outermost first."""
        return [i for i in tv.loop if self.group(i).is_loop]
