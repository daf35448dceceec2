"""The one way ``execute`` and ``simulate`` take what they run: a lowered ``Kernel``, or a ``Fusion`` lowered here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fusion_ir import Fusion
from lowering.kernel_ir import Kernel


def as_kernel(kernel_or_fusion: Any, *, caller: str = "runtime", inputs: Sequence[Any] | None = None) -> Kernel:
    """``kernel_or_fusion`` itself when it is a ``Kernel``, ``lower(fusion)`` when it is a ``Fusion`` (a fusion
    with no schedule at all is scheduled first for the shapes of ``inputs``: ``lower``'s ``sizes``).

    Anything else is a ``TypeError`` naming what was given and what ``caller`` accepts.
    """
    if isinstance(kernel_or_fusion, Kernel):
        return kernel_or_fusion
    if isinstance(kernel_or_fusion, Fusion):
        from lowering import lower

        return lower(kernel_or_fusion, sizes=input_sizes(kernel_or_fusion, inputs))
    raise TypeError(f"{caller} runs a Kernel (lowering.lower(fusion)) or a Fusion (lowered first), not "
                    f"{type(kernel_or_fusion).__name__}")


def input_sizes(fusion: Fusion, inputs: Sequence[Any] | None) -> list[tuple[int, ...]] | None:
    """The shapes of the arrays given for ``fusion``'s inputs (numpy, torch, cupy: anything with ``.shape``), or
    None when they are not one array per input."""
    if inputs is None or len(inputs) != len(fusion.inputs):
        return None
    shapes = [getattr(x, "shape", None) for x in inputs]
    if any(s is None for s in shapes):
        return None
    return [tuple(int(d) for d in s) for s in shapes]
