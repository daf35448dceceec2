"""Steps the reduction and normalization schedulers share: register caches of the inputs, and 16-byte
vectors on the caches' (and the outputs') contiguous axis."""

from __future__ import annotations

from ..fusion import Fusion
from ..iter_domain import IterDomain, Split
from ..replay import ancestors_transforms, root_map_between
from ..tensor_view import TensorView
from ..types import ParallelType
from .reduction_analysis import VECTOR_BYTES


def cache_inputs(fusion: Fusion) -> list[TensorView]:
    """A register copy (``cache_after``) of every used input: the copy's last axis is the one vectorized."""
    used = set(fusion.used_tensors())
    return [tv.cache_after() for tv in fusion.inputs if tv in used and tv.uses()]


def _column_axis(tv: TensorView, anchor: TensorView) -> IterDomain | None:
    """``tv``'s logical axis that is the domain's contiguous (last) axis, if it has one: a 2-D tensor's last
    axis; a 1-D tensor's only axis when it maps to ``anchor``'s last axis (a weight broadcast along rows)."""
    logical = [i for i in tv.logical if not i.is_reduction]
    if len(logical) == 2:
        return logical[1]
    if tv is anchor or not logical:
        return None
    mapped = root_map_between(anchor, tv).get(anchor.logical[-1])
    return mapped if mapped in logical else None


def _is_vector_axis(tv: TensorView, column: IterDomain, width: int) -> bool:
    """``tv``'s last loop axis is the inner part of a split of ``column`` by ``width``."""
    last = tv.loop[-1]
    if last.parallel_type is not ParallelType.Serial or last.extent.const_value() != width:
        return False
    if not isinstance(last.definition, Split):
        return False
    if last.definition.inner is not last:
        return False
    sources = {x for t in ancestors_transforms(tv, [last]) for x in t.inputs}
    return column in sources or last.definition.input is column


def vectorize_caches(caches: list[TensorView], width: int) -> list[TensorView]:
    """Bind the vector axis of every cache that has one (a cache along rows only keeps its loops) and whose
    ``width`` elements fit one 16-byte load (the width is chosen for the 2-D inputs: a wider 1-D input, a float
    weight beside a bf16 row, loads element by element); returns the vectorized ones."""
    if width <= 1:
        return []
    anchors = [c for c in caches if len([i for i in c.logical if not i.is_reduction]) == 2]
    if not anchors:
        return []
    done = []
    for c in caches:
        if width * c.dtype.size > VECTOR_BYTES:
            continue
        column = _column_axis(c, anchors[0])
        if column is None or not _is_vector_axis(c, column, width):
            continue
        c.axis(-1).parallelize(ParallelType.Vectorize)
        done.append(c)
    return done


def vectorize_output(tv: TensorView, width: int) -> bool:
    """A 16-byte store of an output whose last loop axis is its vector split and computed outside it."""
    if width <= 1 or not tv.is_output or width * tv.dtype.size > VECTOR_BYTES:
        return False
    logical = [i for i in tv.logical if not i.is_reduction]
    if not logical or not _is_vector_axis(tv, logical[-1], width):
        return False
    last = tv.ndim - 1
    if last < tv.max_producer_pos or last < tv.compute_at_pos:
        return False
    tv.axis(-1).parallelize(ParallelType.Vectorize)
    return True
