"""The one way ``execute`` and ``simulate`` take what they run: a lowered ``Kernel``, or a ``Fusion`` lowered here."""

from __future__ import annotations

from typing import Any

from fusion_ir import Fusion
from lowering.kernel_ir import Kernel


def as_kernel(kernel_or_fusion: Any, *, caller: str = "runtime") -> Kernel:
    """``kernel_or_fusion`` itself when it is a ``Kernel``, ``lower(fusion)`` when it is a ``Fusion``.

    Anything else is a ``TypeError`` naming what was given and what ``caller`` accepts.
    """
    if isinstance(kernel_or_fusion, Kernel):
        return kernel_or_fusion
    if isinstance(kernel_or_fusion, Fusion):
        from lowering import lower

        return lower(kernel_or_fusion)
    raise TypeError(f"{caller} runs a Kernel (lowering.lower(fusion)) or a Fusion (lowered first), not "
                    f"{type(kernel_or_fusion).__name__}")
