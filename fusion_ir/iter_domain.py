"""IterDomains and the Split/Merge transforms that link a tensor's root domain to its loop domain."""

from __future__ import annotations

from collections.abc import Callable

from dataclasses import dataclass, field

from .scalar import Val, as_val, ceil_div, vmax, vmin
from .types import IterType, ParallelType


@dataclass(eq=False)
class IterDomain:
    """One axis of a tensor: an extent, an iteration type and a parallel binding.

    IterDomains compare by identity; ``name`` is the number printed after the type
    letters (``iS3{i0}``).
    """

    extent: Val
    iter_type: IterType = IterType.Iteration
    parallel_type: ParallelType = ParallelType.Serial
    name: int = -1
    definition: "Split | Merge | GroupedMerge | None" = field(default=None, repr=False)
    trip_bound: TripBound | None = field(default=None, repr=False)   # a serial loop that stops early
    known_true: tuple[KnownTrue, ...] = field(default=(), repr=False)  # wheres true in the loop's first iterations

    @property
    def is_reduction(self) -> bool:
        return self.iter_type is IterType.Reduction

    @property
    def is_broadcast(self) -> bool:
        return self.iter_type is IterType.Broadcast

    @property
    def is_parallel(self) -> bool:
        return self.parallel_type is not ParallelType.Serial

    def label(self) -> str:
        """nvFuser notation: ``iBIDx3{i0}``, ``rS5{ceilDiv(i1, 256)}``, ``iB6{256}``."""
        return f"{self.iter_type.value}{self.parallel_type.value}{self.name}{{{self.extent}}}"

    def __str__(self) -> str:
        return self.label()

    def __repr__(self) -> str:
        return f"IterDomain({self.label()})"


@dataclass(frozen=True)
class TripBound:
    """A serial loop that stops before its extent: its iterations past
    ``ceilDiv(max(0, index(outer) * scale + offset), divisor)`` are skipped (``TensorView.bound_loop``).

    ``outer`` is a block-parallel axis of the same tensor, outside the loop, so the bound is uniform over a block and
    differs between blocks (a causal attention tile's last visible key block); or an axis of its transforms merged
    into a persistent kernel's tile index, whose index the lowering computes from the serial tile loop and the block
    index it went into (uniform over a block, fixed during the loop). ``reason`` says why the skipped
    iterations change nothing; the schedule op that sets the bound is the one that has proved it."""

    outer: IterDomain
    scale: int
    offset: int
    divisor: int
    reason: str

    def stop(self, outer_index: Val, extent: Val) -> Val:
        """The loop's stop: its extent, or less where the bound is smaller."""
        from .scalar import vmax, vmin

        last = outer_index * self.scale + self.offset
        if self.offset < 0:         # the index and the scale are never negative: only a negative offset can be
            last = vmax(0, last)
        return vmin(extent, ceil_div(last, self.divisor))

    def __str__(self) -> str:
        last = f"{self.outer.label()} * {self.scale} + {self.offset}"
        return f"ceilDiv({f'max(0, {last})' if self.offset < 0 else last}, {self.divisor})"


@dataclass(frozen=True)
class KnownTrue:
    """A ``where`` computed in a serial loop whose condition is true in every element of the loop's iterations below
    ``floor(max(0, index(outer) * scale + offset) / divisor)`` (``outer`` a block-parallel axis; None with scale 0:
    a bound the same for every block): there it is its value branch (``TensorView.version_loop``)."""

    where: object           # the TensorView a WhereOp defines
    outer: IterDomain | None
    scale: int
    offset: int | Val
    divisor: int

    def below(self, outer_index: Val | None) -> Val:
        last = as_val(self.offset) if self.outer is None else outer_index * self.scale + self.offset
        const = as_val(self.offset).const_value()
        if const is None or const < 0:      # the index and the scale are never negative: only the offset can be
            last = vmax(0, last)
        return last // self.divisor

    def __str__(self) -> str:
        at = str(self.offset) if self.outer is None else f"{self.outer.label()} * {self.scale} + {self.offset}"
        return f"T{getattr(self.where, 'name', '?')} true below max(0, {at}) / {self.divisor}"


@dataclass(eq=False)
class Split:
    """``in -> (outer, inner)``; the factor sets inner's extent (inner_split) or outer's."""

    input: IterDomain
    outer: IterDomain
    inner: IterDomain
    factor: int
    inner_split: bool = True

    @property
    def inputs(self) -> tuple[IterDomain, ...]:
        return (self.input,)

    @property
    def outputs(self) -> tuple[IterDomain, ...]:
        return (self.outer, self.inner)

    def __str__(self) -> str:
        kind = "inner" if self.inner_split else "outer"
        return (f"Split: {self.input.label()} by factor {self.factor} -> "
                f"{self.outer.label()}, {self.inner.label()} ({kind} split)")


@dataclass(eq=False)
class Merge:
    """``(outer, inner) -> out`` with extent outer * inner."""

    outer: IterDomain
    inner: IterDomain
    out: IterDomain

    @property
    def inputs(self) -> tuple[IterDomain, ...]:
        return (self.outer, self.inner)

    @property
    def outputs(self) -> tuple[IterDomain, ...]:
        return (self.out,)

    def __str__(self) -> str:
        return f"Merge: {self.outer.label()} and {self.inner.label()} -> {self.out.label()}"


@dataclass(eq=False)
class GroupedMerge(Merge):
    """``(outer, inner) -> out`` with extent outer * inner, in grouped order: ``group`` consecutive values of
    ``outer`` for each value of ``inner`` before the next group of ``outer`` (the tiles of ``group`` rows down a
    column, column after column, then the next rows); the last group holds the values of ``outer`` that are left,
    so no index of ``out`` stands for a value past ``outer``'s extent (where a split of ``outer`` by ``group``
    merged after ``inner`` pads it). Index ``t`` of ``out``, with ``E = inner``'s extent: group ``G = t / (group
    E)`` of first row ``r = G group`` and ``n = min(group, outer - r)`` rows; with ``l = t % (group E)``,
    ``outer = r + l % n`` and ``inner = l / n``."""

    group: int = 1

    def __str__(self) -> str:
        return (f"GroupedMerge: {self.outer.label()} in groups of {self.group} and {self.inner.label()} -> "
                f"{self.out.label()}")


Transform = Split | Merge


def grouped_backward(t: GroupedMerge, out: Val, outer: Val, inner: Val) -> tuple[Val, Val]:
    """The (outer, inner) indices of index ``out`` of grouped merge ``t`` (``outer`` and ``inner``: the inputs'
    extents)."""
    span = inner * t.group                       # the indices of one whole group
    first = out // span * t.group
    rows = vmin(t.group, outer - first)
    local = out % span
    return first + local % rows, local // rows


def grouped_forward(t: GroupedMerge, o: Val, i: Val, outer: Val, inner: Val) -> Val:
    """The index of ``out`` of grouped merge ``t`` at ``outer`` index ``o`` and ``inner`` index ``i``."""
    first = o // t.group * t.group
    return first * inner + i * vmin(t.group, outer - first) + (o - first)


def split_extents(extent: Val, factor: int, inner_split: bool) -> tuple[Val, Val]:
    """(outer extent, inner extent) of a split."""
    if inner_split:
        return ceil_div(extent, factor), Val.const(factor)
    return Val.const(factor), ceil_div(extent, factor)


def merged_type(a: IterDomain, b: IterDomain) -> IterType:
    if a.is_broadcast and b.is_broadcast:
        return IterType.Broadcast
    if a.is_reduction or b.is_reduction:
        return IterType.Reduction
    return IterType.Iteration


def innermost_root(i: IterDomain) -> IterDomain | None:
    """The axis with no definition that ``i`` is the innermost part of, through the inner outputs of
    splits (consecutive elements of it); None when ``i`` comes from a merge or an outer part."""
    x = i
    while x.definition is not None:
        d = x.definition
        if not isinstance(d, Split) or x is not d.inner:
            return None
        x = d.input
    return x


def made_from(i: IterDomain, found: Callable[[IterDomain], bool]) -> bool:
    """``i`` or an axis it is made from (through splits and merges) is ``found``."""
    stack = [i]
    while stack:
        x = stack.pop()
        if found(x):
            return True
        if x.definition is not None:
            stack.extend(x.definition.inputs)
    return False


def spans_broadcast(i: IterDomain) -> bool:
    """``i`` is a broadcast axis or is made from one (merged with others): where a consumer resolves that
    broadcast, the consumer's axis spans more elements than ``i`` does."""
    return made_from(i, lambda x: x.is_broadcast)


def lane_pair(outer: IterDomain, inner: IterDomain) -> bool:
    """``outer`` and ``inner`` merge into a lane-group axis (``merge_lanes``): rows, an iteration axis made of no
    reduction axis, outer; lanes made of reduction axes only, inner. (``merge`` joins a broadcast with a reduction
    axis into a plain reduction axis: a broadcast outside is no rows.)"""
    return (outer.iter_type is IterType.Iteration and not made_from(outer, lambda x: x.is_reduction)
            and inner.is_reduction and not made_from(inner, lambda x: x.iter_type is IterType.Iteration))


def lane_group(i: IterDomain) -> int | None:
    """The lanes of a group when ``i`` is a ``merge_lanes`` axis (an iteration axis merged with an inner reduction
    axis: threads differing only in the inner part reduce together), else None."""
    d = i.definition
    if not isinstance(d, Merge) or not i.is_reduction or not lane_pair(d.outer, d.inner):
        return None
    return d.inner.extent.const_value()
