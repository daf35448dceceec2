"""Analyses: typed facts about the fusion that lowering passes read.

Each analysis is computed once, by a step of ``lowering/pipeline.py`` placed before the first pass
that reads it, and never changes afterwards. Passes read them through ``Analyses`` and return a
new kernel; no pass writes an analysis or imports another pass.

| analysis | module | holds | read by |
| --- | --- | --- | --- |
| ``ids`` | ``id_model`` | loop groups, exact map, launch extents | every pass |
| ``tensor_cores`` | ``tensor_cores`` | tensor-core matmuls, operands, accumulators, turns, stage lags | depths, buffers, mma, circular, mbarriers, indexing, smem |
| ``depths`` | ``pipeline_depth`` | circular buffers' stages (``"auto"`` resolved), why | buffers, circular, viz |
| ``buffers`` | ``buffers`` | each tensor's Buffer, axes, allocation depth | allocation, indexing, smem |
| ``mma`` | ``mma`` | how each tensor-core matmul is issued: instruction, operand layouts, fragment readers | tensor-core statements, wgmma_groups |
| ``tma`` | ``tma`` | TMA boxes, tensor maps, TMA stores' issuers and waits | mbarrier, syncs, store_waits, indexing, launch |
| ``circular`` | ``circular_buffer`` | pipelined loops, stage and parity | mbarrier, circular_buffer, indexing |
| ``mbarriers`` | ``mbarriers`` | barrier arrays, tokens, slots | mbarrier, async_copies, circular_buffer, indexing |
| ``roles`` | ``roles`` | load and compute sub-DAGs | viz (and warp specialization) |
| ``warp_specialization`` | ``warp_specialization`` | producer/compute split, padding | circular_buffer, launch |
| ``smem`` | ``smem`` | shared-memory live intervals and offsets | smem_reuse |
| ``predicates`` | ``predicate_elimination`` | bounds conditions register statements leave out | indexing, viz |
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fusion_ir import Fusion

from .buffers import BufferPlan
from .circular_buffer import CircularBufferInfo
from .id_model import IdModel
from .mbarriers import MBarrierPlan
from .mma import MmaInfo
from .pipeline_depth import DepthChoice, PipelineDepths
from .roles import Role
from .smem import SmemPlan
from .tensor_cores import TensorCores
from .tma import TmaInfo
from .warp_specialization import WarpSpecialization

__all__ = ["Analyses", "BufferPlan", "CircularBufferInfo", "DepthChoice", "IdModel", "MBarrierPlan", "MmaInfo",
           "PipelineDepths", "Role", "SmemPlan", "TensorCores", "TmaInfo", "WarpSpecialization"]


@dataclass
class Analyses:
    """The analyses computed so far; reading one before its step ran is an internal error."""

    fusion: Fusion
    _ids: IdModel | None = None
    _tensor_cores: TensorCores | None = None
    _depths: PipelineDepths | None = None
    _buffers: BufferPlan | None = None
    _tma: TmaInfo | None = None
    _mma: MmaInfo | None = None
    _circular: CircularBufferInfo | None = None
    _mbarriers: MBarrierPlan | None = None
    _roles: dict | None = None
    _smem: SmemPlan | None = None
    _warp_specialization: WarpSpecialization | None = None
    _predicates: Any = None
    _built: frozenset[str] = frozenset()

    def _get(self, name: str) -> Any:
        if name not in self._built:
            raise RuntimeError(f"internal: the {name!r} analysis is read before the pipeline step that builds it")
        return getattr(self, f"_{name}")

    def set(self, name: str, value: Any) -> None:
        if name in self._built:
            raise RuntimeError(f"internal: the {name!r} analysis is built twice")
        setattr(self, f"_{name}", value)
        self._built = self._built | {name}

    @property
    def ids(self) -> IdModel:
        return self._get("ids")

    @property
    def tensor_cores(self) -> TensorCores:
        return self._get("tensor_cores")

    @property
    def depths(self) -> PipelineDepths:
        return self._get("depths")

    @property
    def buffers(self) -> BufferPlan:
        return self._get("buffers")

    @property
    def mma(self) -> MmaInfo:
        return self._get("mma")

    @property
    def tma(self) -> TmaInfo:
        return self._get("tma")

    @property
    def circular(self) -> CircularBufferInfo:
        return self._get("circular")

    @property
    def mbarriers(self) -> MBarrierPlan:
        return self._get("mbarriers")

    @property
    def roles(self) -> dict:
        return self._get("roles")

    @property
    def smem(self) -> SmemPlan:
        return self._get("smem")

    @property
    def warp_specialization(self) -> WarpSpecialization | None:
        """The producer/compute split, or None when no loop is warp-specialized."""
        return self._get("warp_specialization")

    @property
    def predicates(self) -> Any:
        """The bounds conditions statements writing registers leave out (``predicate_elimination.PredicatePlan``)."""
        return self._get("predicates")
