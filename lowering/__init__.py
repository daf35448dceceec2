"""Lowering: fusion -> kernel IR through the pass pipeline in ``lowering/pipeline.py``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .errors import LoweringError
from .verify import VerifyError, verify

if TYPE_CHECKING:
    from fusion_ir import Fusion

    from .kernel_ir import Kernel
    from .pipeline import LoweredKernel

__all__ = ["LoweringError", "VerifyError", "lower", "verify"]


def lower(fusion: Fusion, trace: bool = False, *, sizes: Sequence[Sequence[int]] | None = None
          ) -> Kernel | LoweredKernel:
    """Lower a scheduled fusion to a kernel (``trace=True``: also the kernel after every pass). A fusion with no
    schedule at all is scheduled first (``fusion_ir.schedulers.schedule`` at ``sizes``), with a warning."""
    from .pipeline import lower as _lower

    return _lower(fusion, trace=trace, sizes=sizes)
