"""The one way ``execute`` and ``simulate`` take what they run: a lowered ``Kernel``, or a ``Fusion`` lowered here."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from fusion_ir import Fusion, ScalarInput
from fusion_ir.scalar_input import stored_scalar
from lowering.kernel_ir import InputRule, Kernel

from .errors import InputError


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
    shapes = [() if isinstance(tv, ScalarInput) else getattr(x, "shape", None) for tv, x in zip(fusion.inputs, inputs)]
    if any(s is None for s in shapes):
        return None
    return [tuple(int(d) for d in s) for s in shapes]


def split_inputs(kernel: Kernel, inputs: Sequence[Any]) -> tuple[list[Any], dict[str, np.generic]]:
    """``inputs`` in the order of the fusion's inputs, split into the tensor arguments (in the order of
    ``kernel.inputs``) and each scalar parameter's value as the kernel holds it (``stored_scalar``).

    ``InputError`` names the input: a count that differs, a number where a tensor goes, an array or a
    value of the wrong kind where a scalar goes."""
    names = kernel.argument_names()
    if len(inputs) != kernel.argument_count:
        raise InputError(f"kernel {kernel.name} takes {kernel.argument_count} inputs ({', '.join(names)}), "
                         f"got {len(inputs)}", InputRule.ARGUMENT_COUNT)
    scalars = dict(zip(kernel.scalar_positions, kernel.scalars))
    tensors: list[Any] = []
    values: dict[str, np.generic] = {}
    for position, x in enumerate(inputs):
        scalar = scalars.get(position)
        if scalar is None:
            if isinstance(x, (bool, int, float, np.generic)):
                raise InputError(f"input {position} ({names[position]}) is a tensor: expected an array, got "
                                 f"{type(x).__name__} {x!r}", InputRule.ARGUMENT_TYPE, names[position])
            tensors.append(x)
            continue
        try:
            values[scalar.name] = stored_scalar(scalar.dtype, x, f"{position} ({scalar.name})")
        except ValueError as e:
            raise InputError(str(e), InputRule.ARGUMENT_TYPE, scalar.name) from None
    return tensors, values
