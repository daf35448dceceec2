"""A target's ``SIZES``: the input shapes of each test size, checked against the fusion's inputs.

``SIZES`` is a list with one entry per test size; each entry lists one shape per fusion input, in
``fusion.add_input`` order, each shape a tuple of ints of the input's rank::

    SIZES = [[(128, 64), (64, 256)], [(200, 200), (200, 264)]]   # two sizes of a two-input fusion
"""

from __future__ import annotations

from typing import Any

from fusion_ir import Fusion, TensorView

from .target import TargetError

Shapes = list[tuple[int, ...]]


class SizesError(TargetError):
    """``SIZES`` is not a list of per-input shape lists; the message shows the form expected."""


def _name(tv: Any) -> str:
    """``T3`` for a tensor, ``S3`` for a scalar input (whose shape is ``()``)."""
    return f"T{tv.name}" if isinstance(tv, TensorView) else str(tv)


def expected_form(fusion: Fusion) -> str:
    """``SIZES = [[(i0, i1), (i1, i2)], ...]`` for this fusion's inputs: one shape per input, its extents named."""
    shapes = []
    for tv in fusion.inputs:
        extents = [str(axis.extent) for axis in tv.logical]
        shapes.append(f"({extents[0]},)" if len(extents) == 1 else f"({', '.join(extents)})")
    inputs = ", ".join(f"{_name(tv)} of rank {len(tv.logical)}" for tv in fusion.inputs)
    return (f"SIZES is a list of test sizes, each a list of one shape per fusion input ({inputs}), each shape a "
            f"tuple of ints: SIZES = [[{', '.join(shapes)}], ...]")


def check_sizes(sizes: Any, fusion: Fusion, target: str) -> list[Shapes]:
    """``sizes`` as lists of int tuples; ``SizesError`` naming the entry at fault and showing the expected form."""
    def refuse(what: str) -> SizesError:
        return SizesError(f"{target}: {what}; {expected_form(fusion)}")

    if isinstance(sizes, (str, bytes)) or not isinstance(sizes, (list, tuple)):
        raise refuse(f"SIZES is {sizes!r}, not a list")
    if not sizes:
        raise refuse("SIZES is empty")
    out = []
    for n, entry in enumerate(sizes):
        if not isinstance(entry, (list, tuple)) or not all(isinstance(s, (list, tuple)) for s in entry):
            raise refuse(f"SIZES[{n}] is {entry!r}, not a list of shapes (tuples)")
        if len(entry) != len(fusion.inputs):
            raise refuse(f"SIZES[{n}] has {len(entry)} shapes for {len(fusion.inputs)} inputs")
        shapes = []
        for tv, shape in zip(fusion.inputs, entry):
            if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
                raise refuse(f"SIZES[{n}]: the shape {shape!r} of {_name(tv)} is not a tuple of non-negative ints")
            if len(shape) != len(tv.logical):
                raise refuse(f"SIZES[{n}]: the shape {tuple(shape)} of {_name(tv)} has {len(shape)} extents; "
                             f"{_name(tv)} has rank {len(tv.logical)}")
            shapes.append(tuple(shape))
        out.append(shapes)
    return out
