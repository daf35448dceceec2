"""The thing a ``viz`` command looks at: a target's fusion, lowered once, its CUDA generated once."""

from __future__ import annotations

import warnings
from functools import cached_property
from types import ModuleType
from typing import Any

from fusion_ir import Fusion

from .target import load_fusion_from, load_module


class Subject:
    """A target resolved to a module; the fusion, lowering and CUDA are computed on first use.

    Each show asks only for what it needs, so ``--show fusion`` never lowers and ``--show loops``
    never generates CUDA; several shows of one subject share the work.
    """

    def __init__(self, target: str) -> None:
        self.target = target
        self.module: ModuleType = load_module(target)
        # what scheduling the fusion at load said (it had no schedule at all), shown above every view
        self.auto_note: str | None = None

    @cached_property
    def fusion(self) -> Fusion:
        """The target's fusion; one with no schedule at all is scheduled by ``schedule()`` at the module's last
        ``SIZES`` entry (or its constant extents), as ``lower`` would, and ``auto_note`` says so."""
        fusion = load_fusion_from(self.module, self.target)
        from fusion_ir.schedulers.auto import AutoScheduleWarning, auto_schedule

        sizes = getattr(self.module, "SIZES", None)
        last = sizes[-1] if isinstance(sizes, list) and sizes else None
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            auto_schedule(fusion, last, caller="viz")
        notes = [str(w.message) for w in caught if issubclass(w.category, AutoScheduleWarning)]
        for w in caught:
            if not issubclass(w.category, AutoScheduleWarning):
                warnings.warn(w.message, w.category, stacklevel=2)
        self.auto_note = "\n".join(notes) if notes else None
        return fusion

    @cached_property
    def lowered(self) -> Any:
        """``lower(fusion, trace=True)``: the kernel after every pass and the lowering context."""
        from lowering import lower

        return lower(self.fusion, trace=True)

    @property
    def kernel(self) -> Any:
        return self.lowered.kernel

    @cached_property
    def cuda(self) -> str:
        from codegen import to_cuda

        return to_cuda(self.kernel)

    @cached_property
    def sizes(self) -> list[list[tuple[int, ...]]] | None:
        """The module's ``SIZES`` (input shapes per test size), when it defines them; ``SizesError`` when they do
        not have that form."""
        from .sizes import check_sizes

        sizes = getattr(self.module, "SIZES", None)
        return check_sizes(sizes, self.fusion, self.target) if sizes is not None else None
