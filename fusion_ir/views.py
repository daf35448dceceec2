"""Views: chains of pads, reshapes and permutes of a fusion input, read as index maps of that input.

A view moves no data: a permute reorders indices, a reshape's split is ``outer * factor + inner`` (its merge
``out / inner, out % inner``), a pad is the identity shifted by its width before, with its value where the
shifted index falls outside the input. ``view_chain(tv)`` says whether ``tv`` is the end of such a chain of a
fusion input; ``ViewChain.source_indices`` maps the end's logical indices back to the input's, and
``ViewChain.fills`` gives the pads' conditions and values there. A load of a chain's end (a TMA box, a
cp.async or plain copy into shared memory: ``seen_through``) reads the input through this map, and the views
themselves are never computed. ``ViewChain.span`` says where consecutive elements of an axis of the end lie in
the input (a TMA box, a vector), or why they are not consecutive there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from .exprs import Expr, LoadStoreOp, PadOp, is_view_expr
from .iter_domain import GroupedMerge, IterDomain, Merge, Split
from .replay import ancestors_transforms
from .scalar import Val, all_of
from .tensor_view import TensorView
from .types import LoadStoreOpType, MemoryType


@dataclass(frozen=True)
class ViewChain:
    """``end`` is ``source`` (a fusion input) through ``exprs`` (views, source first)."""

    source: TensorView
    end: TensorView
    exprs: tuple[Expr, ...]

    @property
    def tensors(self) -> tuple[TensorView, ...]:
        """The views, the end last (the source not included)."""
        return tuple(e.output for e in self.exprs)

    @property
    def pads(self) -> tuple[PadOp, ...]:
        return tuple(e for e in self.exprs if isinstance(e, PadOp))

    def source_indices(self, idx: dict[IterDomain, Val]) -> dict[IterDomain, Val]:
        """The source's logical indices of the element of ``end`` at ``idx`` (its logical indices), as they are
        before the pads' bounds apply (``fills``)."""
        return _walk_back(self, idx)[0]

    def fills(self, idx: dict[IterDomain, Val]) -> list[tuple[Val, float | int | bool]]:
        """The pads the element of ``end`` at ``idx`` passes, the end's first: each pad's condition that the
        element is inside its input, with the pad's value where it is not."""
        return _walk_back(self, idx)[1]

    def inside(self, idx: dict[IterDomain, Val]) -> Val:
        """The element of ``end`` at ``idx`` is an element of the source (inside every pad's input)."""
        return all_of([cond for cond, _ in self.fills(idx)])

    def source_axis(self, tv: TensorView, axis: IterDomain) -> IterDomain | None:
        """The source dimension a logical axis of a view of this chain is, index for index (through permutes,
        pads and reshape axes no split or merge touches); None when a split or merge makes it."""
        x, t = axis, tv
        while t is not self.source:
            e = t.definition
            if x not in t.root:
                return None
            x = e.root_map(e.inputs[0])[x]
            t = e.inputs[0]
        return x

    def span(self, axis: IterDomain, extent: int) -> list[tuple[IterDomain, int]] | str:
        """Where ``extent`` consecutive elements of ``end``'s logical ``axis`` (starting at a multiple of
        ``extent``) lie in the source: a run of ``(source dimension, extent)`` outermost first, each a dense
        range of that dimension; or why they are not consecutive there (the outer part of a split, a merge of
        axes that are not adjacent in the source, an extent that crosses a split's rows)."""
        return _span(self, self.end, axis, extent)


def view_chain(tv: TensorView) -> ViewChain | None:
    """The chain of views from a fusion input that ends at ``tv``; None unless ``tv`` is such a view."""
    exprs: list[Expr] = []
    t = tv
    while is_view_expr(t.definition):
        exprs.append(t.definition)
        t = t.definition.inputs[0]
    if not exprs or not t.is_input:
        return None
    return ViewChain(t, tv, tuple(reversed(exprs)))


def is_view_load(tv: TensorView) -> bool:
    """``tv`` loads a view chain's end into shared memory, or by TMA or cp.async: made by ``cache_after`` of the
    end, it reads the chain's source through the index map."""
    d = tv.definition
    if not isinstance(d, LoadStoreOp) or d.permutation is not None or not tv.is_cache:
        return False
    if view_chain(d.inputs[0]) is None:
        return False
    return d.op_type in (LoadStoreOpType.TMA, LoadStoreOpType.CpAsync) or (
        d.op_type is LoadStoreOpType.Set and tv.memory_type is MemoryType.Shared)


def seen_through(tensors: Iterable[TensorView],
                 consumers: Callable[[TensorView], list[TensorView]]) -> dict[TensorView, ViewChain]:
    """The views among ``tensors`` no one computes: every consumer (``consumers``: the live ones) is a view
    load (``is_view_load``) or another such view. Each with its chain from the source."""
    tensors = list(tensors)
    out: dict[TensorView, ViewChain] = {}
    for tv in reversed(tensors):        # consumers before producers
        if tv.is_input or tv.is_output:
            continue
        chain = view_chain(tv)
        readers = consumers(tv)
        if chain is None or not readers:
            continue
        if all(r in out or is_view_load(r) for r in readers):
            out[tv] = chain
    return out


def tma_refusal(chain: ViewChain) -> str | None:
    """Why a TMA box cannot read ``chain``'s end from its source (TMA fills zeros past the source's own bounds,
    nothing else), or None: every pad is by zero, after its axis, on an axis that is a whole source dimension."""
    for pad in chain.pads:
        out = pad.output
        if pad.value != 0:
            return (f"T{out.name} pads with {pad.value}; a TMA box fills zeros past T{chain.source.name}'s bounds, "
                    f"so only a pad by 0 is read by TMA (load it with cp.async or a plain copy)")
        x = pad.inputs[0]
        for k, ((before, after), i) in enumerate(zip(pad.pads, x.shape_ids)):
            if before.const_value() != 0:
                return (f"T{out.name} pads axis {k} ({i.label()}) before it; a TMA box reads T{chain.source.name} "
                        f"at the pad's index, so only pads after an axis are read by TMA")
            if after.const_value() == 0:
                continue
            if chain.source_axis(x, i) is None:
                return (f"T{out.name} pads axis {k} ({i.label()}) of T{x.name}, which a reshape made from several "
                        f"axes of T{chain.source.name}; TMA fills zeros only past a dimension of "
                        f"T{chain.source.name}, so pad before reshaping")
    return None


# ------------------------------------------------------------------------------------------------ the maps
def _walk_back(chain: ViewChain, idx: dict[IterDomain, Val]) -> tuple[dict[IterDomain, Val],
                                                                         list[tuple[Val, float | int | bool]]]:
    cur = dict(idx)
    fills: list[tuple[Val, float | int | bool]] = []
    for e in reversed(chain.exprs):
        t, p = e.output, e.inputs[0]
        root = _root_indices(t, cur)
        mapping = e.root_map(p)
        if isinstance(e, PadOp):
            shifted: dict[IterDomain, Val] = {}
            conds: list[Val] = []
            for r, (before, after) in zip(t.root, e.pads):
                at = root[r] - before if before.const_value() != 0 else root[r]
                shifted[mapping[r]] = at
                if before.const_value() != 0:
                    conds.append(at.ge(0))
                if after.const_value() != 0:
                    conds.append(at.lt(mapping[r].extent))
            if conds:
                fills.append((all_of(conds), e.value))
            cur = shifted
        else:
            cur = {mapping[r]: root[r] for r in t.root if r in mapping}
    return cur, fills


def _root_indices(t: TensorView, idx: dict[IterDomain, Val]) -> dict[IterDomain, Val]:
    """``t``'s root indices from its logical ones, through its root-to-logical transforms (a reshape's)."""
    out = {i: idx[i] for i in t.logical if i in idx}
    if t.logical == t.root:
        return out
    for s in reversed(ancestors_transforms(t, t.logical)):
        if isinstance(s, Split):
            step = Val.const(s.factor) if s.inner_split else s.inner.extent
            out[s.input] = out[s.outer] * step + out[s.inner]
        else:
            out[s.outer] = out[s.out] // s.inner.extent
            out[s.inner] = out[s.out] % s.inner.extent
    return out


def _span(chain: ViewChain, t: TensorView, axis: IterDomain, extent: int) -> list[tuple[IterDomain, int]] | str:
    if extent == 1:
        return []
    if t is chain.source:
        return [(axis, extent)]
    e = t.definition
    if axis in t.root:
        return _span(chain, e.inputs[0], e.root_map(e.inputs[0])[axis], extent)
    d = axis.definition
    if isinstance(d, Split):
        if axis is d.outer:
            return (f"{axis.label()} of T{t.name} is the outer part of a split of {d.input.label()}: its "
                    f"consecutive elements are {d.inner.extent} apart in T{chain.source.name}")
        width = axis.extent.const_value()
        if width is None or width % extent:
            return (f"{extent} consecutive elements of {axis.label()} of T{t.name} (the inner part of a split of "
                    f"{d.input.label()} into rows of {axis.extent}) would cross a row: {extent} must divide "
                    f"{axis.extent}")
        return _span(chain, t, d.input, extent)
    if isinstance(d, GroupedMerge):
        return (f"{axis.label()} of T{t.name} is a grouped merge of {d.outer.label()} and {d.inner.label()}: its "
                f"consecutive elements are not consecutive in either")
    if isinstance(d, Merge):
        row = d.inner.extent.const_value()
        if row is None:
            return (f"{axis.label()} of T{t.name} merges {d.outer.label()} with {d.inner.label()} of symbolic "
                    f"extent {d.inner.extent}: its rows have no constant length")
        if row % extent == 0:
            return _span(chain, t, d.inner, extent)
        if extent % row:
            return (f"{extent} consecutive elements of {axis.label()} of T{t.name} (a merge of rows of {row}) "
                    f"neither fit in one row nor cover whole rows")
        outer = _span(chain, t, d.outer, extent // row)
        inner = _span(chain, t, d.inner, row)
        if isinstance(outer, str) or isinstance(inner, str):
            return outer if isinstance(outer, str) else inner
        dims = list(chain.source.shape_ids)
        whole = (len(inner) == 1 and inner[0][0].extent.const_value() == row)
        adjacent = (whole and outer and dims.index(outer[-1][0]) + 1 == dims.index(inner[0][0]))
        if not adjacent:
            return (f"{axis.label()} of T{t.name} merges {d.outer.label()} and {d.inner.label()}, which are not "
                    f"adjacent whole dimensions of T{chain.source.name} (outer then inner): the merge is not "
                    f"contiguous in T{chain.source.name}")
        return outer + inner
    return f"internal: {axis.label()} of T{t.name} has no definition in its view"
