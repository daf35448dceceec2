"""Fusion-wide scheduling helpers: inline_most, transform_like and parallelize_like over many tensors."""

from __future__ import annotations

from collections.abc import Iterable

from .fusion import Fusion
from .tensor_view import TensorView
from .types import ParallelType, ScheduleError


def inline_most(fusion: Fusion, tensors: Iterable[TensorView] | None = None) -> None:
    """Inline every computed tensor (or the given ones) at its largest legal position."""
    chosen = list(tensors) if tensors is not None else fusion.used_tensors()
    _check_members(fusion, chosen, "inline_most")
    with fusion.transaction():
        # Consumers first: a tensor's loop broadcasts replay its consumer's axes as they will be.
        for tv in reversed(chosen):
            tv.gain_loop_broadcasts()
        for tv in chosen:
            if tv.is_input or not tv.consumers():
                continue
            pos = tv.max_inline_position()
            # Like nvFuser's inlineMost, never move a tensor out of loops it already shares.
            if pos > tv.compute_at_pos:
                tv.inline_at(pos)


def _check_members(fusion: Fusion, tensors: list[TensorView], what: str) -> None:
    for tv in tensors:
        if not isinstance(tv, TensorView):
            raise ScheduleError(f"{what}: expected TensorViews, got {type(tv).__name__}")
        if tv.fusion is not fusion:
            raise ScheduleError(f"{what}: T{tv.name} belongs to another fusion than the one being scheduled")


def transform_like(reference: TensorView, tensors: Iterable[TensorView] | None = None) -> None:
    """Replay ``reference``'s transforms onto every computed tensor (or the given ones)."""
    fusion = reference.fusion
    chosen = list(tensors) if tensors is not None else [t for t in fusion.used_tensors() if not t.is_input]
    _check_members(fusion, chosen, "transform_like")
    with fusion.transaction():
        for tv in chosen:
            if tv is not reference:
                tv.transform_like(reference)


def parallelize_like(reference: TensorView, tensors: Iterable[TensorView] | None = None,
                     types: Iterable[ParallelType] | None = None) -> None:
    """Copy ``reference``'s bindings onto every computed tensor (or the given ones)."""
    fusion = reference.fusion
    chosen = list(tensors) if tensors is not None else [t for t in fusion.used_tensors() if not t.is_input]
    _check_members(fusion, chosen, "parallelize_like")
    with fusion.transaction():
        for tv in chosen:
            if tv is not reference:
                tv.parallelize_like(reference, types)
