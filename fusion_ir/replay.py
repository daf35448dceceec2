"""IterDomain mapping between tensors and replay of transform histories.

Two tensors' IterDomains map when they stand for the same index space: producer logical
axes map to consumer root axes through the defining expression, and the map extends
through splits and merges that are identical on both sides. Replay builds a tensor's loop
domain by applying another tensor's transforms to the mapped axes.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from .iter_domain import (GroupedMerge, IterDomain, Merge, Split, Transform, lane_group, lane_pair, merged_type,
                          split_extents)
from .types import IterType, ScheduleError

if TYPE_CHECKING:
    from .tensor_view import TensorView


def producer_to_consumer_root(producer: "TensorView", consumer: "TensorView") -> dict[IterDomain, IterDomain]:
    """Producer logical axis -> consumer root axis, through the consumer's definition."""
    expr = consumer.definition
    if expr is None or producer not in expr.inputs:
        raise ValueError(f"T{producer.name} is not a producer of T{consumer.name}")
    mapping = {p: c for c, p in expr.root_map(producer).items()}
    for c, b in producer.loop_broadcasts.items():     # loop broadcasts: see TensorView._replay_as_consumer
        if c in consumer.root or c in consumer.loop_broadcasts.values():
            mapping[b] = c
    return mapping


def same_transform(a: Transform, b: Transform) -> bool:
    if isinstance(a, Split) and isinstance(b, Split):
        return a.factor == b.factor and a.inner_split == b.inner_split
    if isinstance(a, GroupedMerge) or isinstance(b, GroupedMerge):
        return isinstance(a, GroupedMerge) and isinstance(b, GroupedMerge) and a.group == b.group
    return isinstance(a, Merge) and isinstance(b, Merge)


def extend_through_transforms(a: "TensorView", b: "TensorView",
                              seed: dict[IterDomain, IterDomain]) -> dict[IterDomain, IterDomain]:
    """Extend an a-id -> b-id map through transforms that are identical in both histories."""
    by_input: dict[IterDomain, list[Transform]] = {}
    for t in b.transforms:
        for i in t.inputs:
            by_input.setdefault(i, []).append(t)
    mapping = dict(seed)
    for t in a.transforms:
        if isinstance(t, Merge) and _merges_broadcast_loop(a, b, t, mapping, by_input):
            continue
        if not all(i in mapping for i in t.inputs):
            continue
        mapped_inputs = [mapping[i] for i in t.inputs]
        for candidate in by_input.get(mapped_inputs[0], []):
            if same_transform(t, candidate) and list(candidate.inputs) == mapped_inputs:
                for ao, bo in zip(t.outputs, candidate.outputs):
                    mapping[ao] = bo
                break
    return mapping


def _merges_broadcast_loop(a: TensorView, b: TensorView, t: Merge, mapping: dict[IterDomain, IterDomain],
                           by_input: dict[IterDomain, list[Transform]]) -> bool:
    """Map merge ``t`` of ``a`` when it joins a mapped axis with one of ``a``'s loop-only broadcasts
    (``TensorView.broadcast_loop``) and ``b`` merges the mapped axis, on the same side, with one of its own of the
    same extent: the two broadcasts stand for the same loop (each thread of it holds the same value), so the merges
    are the same index space. Returns whether it mapped."""
    for side in (0, 1):
        mine, other = t.inputs[side], t.inputs[1 - side]
        if mine not in a.broadcast_loop_axes or mine in mapping or other not in mapping:
            continue
        for candidate in by_input.get(mapping[other], []):
            if not isinstance(candidate, Merge) or candidate.inputs[1 - side] is not mapping[other]:
                continue
            theirs = candidate.inputs[side]
            if theirs in b.broadcast_loop_axes and theirs.extent == mine.extent:
                mapping[mine] = theirs
                mapping[t.out] = candidate.out
                return True
    return False


def loop_map(producer: "TensorView", consumer: "TensorView") -> dict[IterDomain, IterDomain]:
    """Producer IterDomain -> consumer IterDomain for every axis the two share exactly."""
    return extend_through_transforms(producer, consumer, producer_to_consumer_root(producer, consumer))


def _tensor_neighbors(tv: "TensorView") -> list[tuple["TensorView", dict[IterDomain, IterDomain]]]:
    """Adjacent tensors and the map from tv's root/logical axes to theirs."""
    out = []
    if tv.definition is not None:
        for producer in tv.definition.tensor_inputs():
            out.append((producer, dict(tv.definition.root_map(producer))))
    for use in tv.uses():
        consumer = use.output
        out.append((consumer, producer_to_consumer_root(tv, consumer)))
    return out


def root_map_between(src: "TensorView", dst: "TensorView") -> dict[IterDomain, IterDomain]:
    """Map src root/logical axes to dst root/logical axes along a dataflow path.

    Falls back to position when the two tensors are not connected but have equal rank.
    """
    if src is dst:
        return {i: i for i in list(src.root) + list(src.logical)}
    start = {i: i for i in list(src.root) + list(src.logical)}
    seen = {src}
    queue: deque = deque([(src, start)])
    while queue:
        tv, mapping = queue.popleft()
        for nxt, step in _tensor_neighbors(tv):
            if nxt in seen:
                continue
            seen.add(nxt)
            composed = {r: step[m] for r, m in mapping.items() if m in step}
            if nxt is dst:
                return composed
            queue.append((nxt, composed))
    if len(src.logical) == len(dst.logical):
        return dict(zip(src.logical, dst.logical))
    raise ScheduleError(f"T{src.name} and T{dst.name} are not connected by dataflow and differ in rank; "
                        f"no axis map between them")


def map_ids_between(src: "TensorView", dst: "TensorView") -> dict[IterDomain, IterDomain]:
    """Map every src IterDomain to the dst IterDomain with the same index space, where one exists."""
    return extend_through_transforms(src, dst, root_map_between(src, dst))


def make_split(fusion, tid: IterDomain, factor: int, inner_split: bool) -> Split:
    outer_ext, inner_ext = split_extents(tid.extent, factor, inner_split)
    outer = fusion.new_iter_domain(outer_ext, tid.iter_type)
    inner = fusion.new_iter_domain(inner_ext, tid.iter_type)
    t = Split(tid, outer, inner, factor, inner_split)
    outer.definition = inner.definition = t
    return t


def make_merge(fusion, a: IterDomain, b: IterDomain, group: int | None = None) -> Merge:
    """``merge(a, b)``; with ``group``, the grouped merge (``GroupedMerge``) of ``a`` in groups of ``group``."""
    out = fusion.new_iter_domain(a.extent * b.extent, merged_type(a, b))
    t = Merge(a, b, out) if group is None else GroupedMerge(a, b, out, group)
    out.definition = t
    return t


def apply_transform(leaves: list[IterDomain], t: Transform) -> None:
    """Replace a transform's inputs by its outputs in an ordered leaf list (in place)."""
    if isinstance(t, Split):
        pos = leaves.index(t.input)
        leaves[pos:pos + 1] = [t.outer, t.inner]
    else:
        pos = leaves.index(t.outer)
        leaves[pos] = t.out
        leaves.remove(t.inner)


def replay_transforms(fusion, ref_transforms: list[Transform], id_map: dict[IterDomain, IterDomain],
                      leaves: list[IterDomain], target: "TensorView | None" = None,
                      what: str = "replay") -> tuple[list[Transform], dict[IterDomain, IterDomain]]:
    """Apply ``ref_transforms`` to the mapped target axes in ``leaves`` (modified in place).

    Returns the new target transforms and the extended ref-id -> target-id map. Splits of
    unmapped axes are skipped; a merge with one unmapped side forwards the mapped side.
    A merge that would join a reduction axis of the target with an iteration axis raises
    ``ScheduleError`` (naming ``target`` when given), as ``TensorView.merge`` does, unless it replays a
    ``merge_lanes`` onto rows and lanes (an rfactor of a lane-group reduction: its final reduction).
    """
    m = dict(id_map)
    new: list[Transform] = []
    for t in ref_transforms:
        if isinstance(t, Split):
            tid = m.get(t.input)
            if tid is None or tid not in leaves:
                continue
            s = make_split(fusion, tid, t.factor, t.inner_split)
            apply_transform(leaves, s)
            new.append(s)
            m[t.outer], m[t.inner] = s.outer, s.inner
        else:
            a, b = m.get(t.outer), m.get(t.inner)
            if a is not None and b is not None and a in leaves and b in leaves:
                # a lane-group merge (``merge_lanes``) replays onto rows and lanes of the same kinds
                lanes = lane_group(t.out) is not None and lane_pair(a, b)
                if {a.iter_type, b.iter_type} == {IterType.Reduction, IterType.Iteration} and not lanes:
                    who = "replay" if target is None else f"T{target.name}: {what}"
                    raise ScheduleError(f"{who}: cannot merge reduction axis with iteration axis "
                                        f"({a.label()} and {b.label()}) while replaying {t.out.label()} "
                                        f"= merge({t.outer.label()}, {t.inner.label()})")
                mg = make_merge(fusion, a, b, t.group if isinstance(t, GroupedMerge) else None)
                apply_transform(leaves, mg)
                new.append(mg)
                m[t.out] = mg.out
            elif a is not None and b is None:
                m[t.out] = a
            elif b is not None and a is None:
                m[t.out] = b
    return new, m


def match_replayed(old: list[Transform], new: list[Transform]) -> dict[IterDomain, IterDomain]:
    """Old axis -> new axis where a transform of ``new`` repeats one of ``old`` (the same split or merge of
    the same, or already matched, axes): what a replay that replaced ``old`` by ``new`` kept of them."""
    m: dict[IterDomain, IterDomain] = {}
    for t in old:
        inputs = [m.get(i, i) for i in t.inputs]
        for n in new:
            if same_transform(t, n) and list(n.inputs) == inputs:
                m.update(zip(t.outputs, n.outputs))
                break
    return m


def ancestors_transforms(tv: "TensorView", ids: list[IterDomain]) -> list[Transform]:
    """The transforms of ``tv`` needed to produce ``ids``, in history order."""
    needed: set[int] = set()
    stack = list(ids)
    seen: set[int] = set()
    while stack:
        i = stack.pop()
        if id(i) in seen:
            continue
        seen.add(id(i))
        d = i.definition
        if d is not None and d in tv.transforms:
            needed.add(id(d))
            stack.extend(d.inputs)
    return [t for t in tv.transforms if id(t) in needed]
