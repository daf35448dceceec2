"""Index arithmetic through split/merge histories, in one place.

Backward (a tensor's own loop indices -> its root/logical indices) inverts the history:
``in = outer * factor + inner`` for a split, ``outer = out / inner_extent`` and
``inner = out % inner_extent`` for a merge (a grouped merge: ``iter_domain.grouped_backward``). Forward
(logical indices -> loop indices, used to find a producer's element from a consumer's position) runs the history
the other way.
"""

from __future__ import annotations

from typing import Callable

from fusion_ir import IterDomain, TensorView
from fusion_ir.iter_domain import GroupedMerge, Merge, Split, grouped_backward, grouped_forward
from fusion_ir.scalar import Val

Extent = Callable[[IterDomain], Val]


def own_extent(i: IterDomain) -> Val:
    return i.extent


def backward(tv: TensorView, idx: dict[IterDomain, Val], extent: Extent = own_extent) -> dict[IterDomain, Val]:
    """``extent`` gives the size an axis spans in the loops; a broadcast axis merged into a
    loop of its consumer spans the consumer's extent, not 1."""
    out = dict(idx)
    for t in reversed(tv.transforms):
        if isinstance(t, Split):
            if t.outer in out and t.inner in out:
                step = Val.const(t.factor) if t.inner_split else extent(t.inner)
                out[t.input] = out[t.outer] * step + out[t.inner]
        elif isinstance(t, GroupedMerge) and t.out in out:
            out[t.outer], out[t.inner] = grouped_backward(t, out[t.out], extent(t.outer), extent(t.inner))
        elif t.out in out:
            out[t.outer] = out[t.out] // extent(t.inner)
            out[t.inner] = out[t.out] % extent(t.inner)
    for i in list(out):
        if i.is_broadcast:
            out[i] = Val.const(0)
    return out


def forward(tv: TensorView, idx: dict[IterDomain, Val], skip: list | None = None,
            extent: Extent = own_extent) -> dict[IterDomain, Val]:
    out = dict(idx)
    skipped = skip or []
    for t in tv.transforms:
        if t in skipped:
            continue
        if isinstance(t, Split):
            if t.input in out and (t.outer not in out or t.inner not in out):
                v = out[t.input]
                step = Val.const(t.factor) if t.inner_split else extent(t.inner)
                out.setdefault(t.outer, v // step)
                out.setdefault(t.inner, v % step)
        elif isinstance(t, Merge):
            if t.outer in out and t.inner in out and t.out not in out and isinstance(t, GroupedMerge):
                out[t.out] = grouped_forward(t, out[t.outer], out[t.inner], extent(t.outer), extent(t.inner))
            elif t.outer in out and t.inner in out and t.out not in out:
                out[t.out] = out[t.outer] * extent(t.inner) + out[t.inner]
    return out


def row_major(ids: list[IterDomain], idx: dict[IterDomain, Val]) -> Val:
    """Linear offset of ``ids`` (outermost first) in a dense row-major allocation."""
    offset = Val.const(0)
    stride = Val.const(1)
    for i in reversed(ids):
        offset = offset + idx[i] * stride
        stride = stride * i.extent
    return offset


def divisible(t: Split) -> bool:
    ext = t.input.extent.const_value()
    return ext is not None and ext % t.factor == 0


def roots_needing_predicate(tv: TensorView) -> set[IterDomain]:
    """Root axes that a non-divisible split can push out of range."""
    out: set[IterDomain] = set()
    for t in tv.transforms:
        if isinstance(t, Split) and not divisible(t):
            out |= _root_ancestors(tv, t.input)
    return out


def axes_needing_predicate(tv: TensorView) -> set[IterDomain]:
    """Non-root axes whose own range needs a predicate.

    A non-divisible split runs its input past its extent. Through outer parts (the outer output of
    a split, the output of a merge, whose overflow lands in the merge's outer input) that overflow
    reaches a root axis, which ``roots_needing_predicate`` covers. But the inner output of a split
    absorbs it: ``in = outer * f + inner`` with ``inner >= f`` is the next outer element, in range.
    Such an inner axis is predicated on its own extent.
    """
    out: set[IterDomain] = set()
    for t in tv.transforms:
        if not isinstance(t, Split) or divisible(t):
            continue
        x = t.input
        while x not in tv.root and x.definition is not None:
            d = x.definition
            if isinstance(d, Split) and x is d.inner:
                out.add(x)
                break
            x = d.input if isinstance(d, Split) else d.outer
    return out


def _root_ancestors(tv: TensorView, i: IterDomain) -> set[IterDomain]:
    stack, found = [i], set()
    while stack:
        x = stack.pop()
        if x in tv.root:
            found.add(x)
            continue
        d = x.definition
        if d is not None:
            stack.extend(d.inputs)
    return found
