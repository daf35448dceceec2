"""mbarrier: placeholder pass (no TMA or circular buffering in this fusion)."""

from __future__ import annotations

from ..context import LoweringContext
from ..kernel_ir import Kernel


def run(kernel: Kernel, ctx: LoweringContext) -> Kernel:
    return kernel
