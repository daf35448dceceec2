"""Persistent buffers: tensors whose loops over an axis cannot be shared with all of their consumers.

A tensor read by a reduction over one of its axes and, through a broadcast of that
reduction's result, by a later op must hold that axis whole until the reduction is done:
no loop over the axis can hold both the reduction and the later op. nvFuser calls such a
tensor a persistent buffer, and its ``inlineMost`` never inlines one past the axes that
cannot be mapped to all of its consumers. ``unmappable_axes`` finds those axes, each with the
reduction and the later reader that keep them apart; ``first_unmappable_loop_axis`` turns
them into the largest position ``inline_most`` may choose.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import networkx as nx

from .exprs import BroadcastOp
from .iter_domain import IterDomain
from .replay import ancestors_transforms, producer_to_consumer_root

if TYPE_CHECKING:
    from .tensor_view import TensorView


@dataclass(frozen=True)
class Persistence:
    """Why one axis of a tensor is persistent: ``reduction`` reduces it, ``reader`` needs it after."""

    axis: IterDomain
    reduction: TensorView
    reader: TensorView

    def describe(self, tv: TensorView) -> str:
        return (f"T{self.reduction.name} reduces {self.axis.label()} of T{tv.name} before T{self.reader.name} "
                f"reads it again through a broadcast of the reduction")


@dataclass
class _Reach:
    """Where one axis of a tensor goes downstream of one consumer."""

    reduced_by: set
    iterated_by: set


def _logical_from_root(tv: TensorView, root_id: IterDomain) -> list[IterDomain]:
    """The logical axes of ``tv`` that come from its root axis ``root_id`` (itself unless rfactored)."""
    if root_id in tv.logical:
        return [root_id]
    return [i for i in tv.logical if root_id in _root_ancestors(tv, i)]


def _root_ancestors(tv: TensorView, i: IterDomain) -> set[IterDomain]:
    out: set[IterDomain] = set()
    stack = [i]
    while stack:
        x = stack.pop()
        d = x.definition
        if d is None or d not in tv.transforms:
            out.add(x)
            continue
        stack.extend(d.inputs)
    return out


def _consumers(tv: TensorView, live: Collection[TensorView] | None) -> list[TensorView]:
    out: list[TensorView] = []
    for c in tv.consumers():
        if c not in out and (live is None or c in live):
            out.append(c)
    return out


def _reach(consumer: TensorView, root_id: IterDomain, live: Collection[TensorView] | None) -> _Reach:
    """Follow ``consumer``'s root axis ``root_id`` downstream: which tensors reduce it, which iterate it."""
    reach = _Reach(set(), set())
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[TensorView, IterDomain]] = [(consumer, root_id)]
    while stack:
        tv, rid = stack.pop()
        if (id(tv), id(rid)) in seen:
            continue
        seen.add((id(tv), id(rid)))
        for lid in _logical_from_root(tv, rid):
            if lid.is_reduction:
                reach.reduced_by.add(tv)
                continue
            reach.iterated_by.add(tv)
            for nxt in _consumers(tv, live):
                nxt_root = producer_to_consumer_root(tv, nxt).get(lid)
                if nxt_root is not None:
                    stack.append((nxt, nxt_root))
    return reach


def unmappable_axes(tv: TensorView, live: Collection[TensorView] | None = None) -> dict[IterDomain, Persistence]:
    """``tv``'s logical axes that no loop can share with all of its consumers, with the reason for each.

    An axis is unmappable when one consumer's branch reduces it (tensor R) and another consumer's
    branch iterates over it in a tensor that depends on R: that tensor can only run once R is
    complete, so R's reduction loop and its loop cannot be one loop. With ``live``, only the tensors
    in it count as readers (lowering passes the tensors on a path to an output).
    """
    consumers = _consumers(tv, live)
    if len(consumers) < 2:
        return {}
    graph = tv.fusion.graph()
    out: dict[IterDomain, Persistence] = {}
    for c_index, consumer in enumerate(consumers):
        p2c = producer_to_consumer_root(tv, consumer)
        for axis, root_id in p2c.items():
            if axis in out:
                continue
            reduced = _reach(consumer, root_id, live).reduced_by
            if not reduced:
                continue
            why = _later_reader(tv, axis, reduced, consumers, c_index, graph, live)
            if why is not None:
                out[axis] = why
    return out


def _later_reader(tv: TensorView, axis: IterDomain, reduced: set, consumers: list[TensorView],
                  c_index: int, graph: nx.DiGraph, live: Collection[TensorView] | None) -> Persistence | None:
    for k, other in enumerate(consumers):
        if k == c_index:
            continue
        root_id = producer_to_consumer_root(tv, other).get(axis)
        if root_id is None:
            continue
        for reader in sorted(_reach(other, root_id, live).iterated_by, key=lambda t: t.name):
            for reduction in sorted(reduced, key=lambda t: t.name):
                if _through_broadcast(graph, reduction, reader):
                    return Persistence(axis, reduction, reader)
    return None


def _through_broadcast(graph: nx.DiGraph, reduction: TensorView, reader: TensorView) -> bool:
    """``reader`` depends on ``reduction``'s result put back by a broadcast. The next stages of an rfactored
    reduction (the partial's block and grid reductions) also depend on it and iterate what the partial kept of
    the axis, but they are one reduction, not a later reader."""
    before = nx.ancestors(graph, reader) | {reader}
    if reduction not in before:
        return False
    between = (nx.descendants(graph, reduction) & before)
    return any(isinstance(t.definition, BroadcastOp) for t in between)


def first_unmappable_loop_axis(tv: TensorView,
                               live: Collection[TensorView] | None = None) -> tuple[int, Persistence] | None:
    """The first loop axis of ``tv`` that comes from an unmappable axis, with the reason; None if none does
    (``live``: as for ``unmappable_axes``)."""
    unmappable = unmappable_axes(tv, live)
    if not unmappable:
        return None
    for k, i in enumerate(tv.loop):
        sources = _loop_sources(tv, i)
        for axis, why in unmappable.items():
            if axis in sources:
                return k, why
    return None


def _loop_sources(tv: TensorView, i: IterDomain) -> set[IterDomain]:
    """The logical axes a loop axis is made of (through splits and merges)."""
    if i in tv.logical:
        return {i}
    out: set[IterDomain] = set()
    for t in ancestors_transforms(tv, [i]):
        out.update(x for x in t.inputs if x in tv.logical)
    return out
