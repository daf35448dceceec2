"""Tracing of the simulator: mbarrier, TMA and cp.async events of block 0, for ``viz --show pipeline``."""

from __future__ import annotations

from typing import Any

import numpy as np

from lowering.kernel_ir import CopyKind

from .sim_async import AsyncCopy
from .sim_mbarrier import MBarrierArray
from .sim_memory import Grid
from .sim_tasks import Ctx, Progress


class Tracer:
    """Appends event dicts to ``trace`` when it is a list (else records nothing), stamped with ``progress.steps``."""

    def __init__(self, trace: list[dict[str, Any]] | None, grid: Grid, progress: Progress) -> None:
        self.trace = trace
        self.grid = grid
        self.progress = progress

    @property
    def enabled(self) -> bool:
        return self.trace is not None

    def event(self, kind: str, ctx: Ctx, mb: MBarrierArray | None, keys: np.ndarray | None, **extra: Any) -> None:
        if self.trace is None or ctx.lanes.size == 0 or ctx.lanes[0] >= self.grid.threads_per_block:
            return  # only block 0 is traced
        event: dict[str, Any] = {"step": self.progress.steps, "kind": kind, "task": ctx.task.name}
        if mb is not None and keys is not None:
            event.update(barrier=mb.name, index=int(keys[0]) % mb.size, phase=int(mb.phase[keys[0]]))
        loops = {}
        for name in ctx.loops:
            v = ctx.env.get(name)
            loops[name] = int(v[0]) if isinstance(v, np.ndarray) else v
        if loops:
            event["loops"] = loops
        event.update(extra)
        self.trace.append(event)

    def completions(self, mb: MBarrierArray, keys: np.ndarray) -> None:
        if self.trace is None:
            return
        for key in keys[keys < mb.size]:
            self.trace.append({"step": self.progress.steps, "kind": "mbarrier.phase_complete", "barrier": mb.name,
                               "index": int(key), "phase": int(mb.phase[key])})

    def copy_landed(self, copy: AsyncCopy, sel: np.ndarray, completed: np.ndarray) -> None:
        """An ``AsyncEngine`` listener: rows ``sel`` of ``copy`` landed, completing the phases of ``completed``."""
        if self.trace is None or copy.kind is not CopyKind.TmaLoad or copy.mbar is None or copy.bar_keys is None:
            return
        rows = np.flatnonzero(sel & (copy.lanes < self.grid.threads_per_block))
        if rows.size:
            key = int(copy.bar_keys[rows[0]])
            self.trace.append({"step": self.progress.steps, "kind": "tma.land", "barrier": copy.mbar.name,
                               "index": key, "dst": copy.dst.name})
        self.completions(copy.mbar, completed)


__all__ = ["Tracer"]
