"""The thing a ``viz`` command looks at: a target's fusion, lowered once, its CUDA generated once."""

from __future__ import annotations

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

    @cached_property
    def fusion(self) -> Fusion:
        return load_fusion_from(self.module, self.target)

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
