"""Lowering: fusion -> kernel IR through the pass pipeline in ``lowering/pipeline.py``."""

from .errors import LoweringError

__all__ = ["LoweringError", "lower"]


def lower(fusion, trace: bool = False):  # noqa: ANN001, ANN201 - re-exported below
    from .pipeline import lower as _lower

    return _lower(fusion, trace=trace)
