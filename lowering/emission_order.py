"""Emission order: the computed tensors in the order the loop-nest pass emits them.

A topological order, depth-first from the outputs: a consumer's producers by compute-at position,
then by their order in the fusion. Before the first of a consumer's producers opens the loops it
shares with the consumer, every tensor a producer still needs at a shallower position is emitted
(asynchronous loads first): emitted in between, its own loop would close the shared one and the
consumer could no longer share it (softmax's ``e / broadcast(sum(e))`` beside a second inlined
producer; a matmul epilogue reading the accumulator and a tile of C loaded per tile). The same holds
for what a producer's other consumers need: they share the producer's loops too (``x - sum(x)`` read
by an output and by a tensor that also needs a second reduction), also where the producer is emitted
first, as an output, before the consumer is visited. Those dependencies are emitted by
compute-at position, shallowest first, since one sharing fewer loops would close the loops a deeper
one opened. And when a tensor leaves loops that an inlined producer shares with it, the producer's other
consumers that are ready are emitted first, still inside them (two reductions of one cached input, whose
serial loops are one). nvFuser's expression sorter does the same.
"""

from __future__ import annotations

from fusion_ir import ASYNC_LOADS, TensorView, load_kind


def emission_order(tensors: list[TensorView]) -> list[TensorView]:
    """The computed tensors the outputs need, depth-first from the outputs (taken in the given order)."""
    index = {tv: k for k, tv in enumerate(tensors)}
    emitted: list[TensorView] = []
    done: set[TensorView] = set()
    seen: set[TensorView] = set()

    def shallower(tv: TensorView) -> list[TensorView]:
        """The not yet emitted tensors ``tv`` depends on that are computed at a shallower position
        (the nearest on each path): asynchronous loads first, then in topological order."""
        return shallower_than(tv, tv.compute_at_pos)

    def shallower_than(tv: TensorView, pos: int) -> list[TensorView]:
        """As ``shallower``, against position ``pos`` instead of ``tv``'s own."""
        found: set[TensorView] = set()
        stack, visited = list(tv.producers()), set()
        while stack:
            u = stack.pop()
            if u in visited or u.is_input or u in done or u not in index:
                continue
            visited.add(u)
            if u.compute_at_pos < pos:
                found.add(u)
            else:
                stack.extend(u.producers())
        # async loads first: nothing they read is computed, and what follows hides their latency
        return sorted(found, key=lambda u: (load_kind(u) not in ASYNC_LOADS, index[u]))

    def needs_first(p: TensorView) -> list[TensorView]:
        """What must be emitted before ``p`` opens the loops it shares with its consumers: the shallower
        dependencies of ``p`` and of every other consumer that shares those loops (their loops are one
        with ``p``'s, so nothing of theirs may be emitted inside them or between)."""
        found = list(shallower(p))
        if p.compute_at_pos == 0:
            return found
        for c in p.consumers():
            if c in index and c not in done and c not in seen:
                found.extend(u for u in shallower_than(c, p.compute_at_pos) if u not in found)
        return found

    def sharing_needs(tv: TensorView) -> list[TensorView]:
        """The shallower dependencies of the not yet visited tensors that share ``tv``'s loops downstream: its
        consumers, and theirs while they are inlined at least as deep."""
        pos = tv.compute_at_pos
        found: list[TensorView] = []
        if pos == 0:
            return found
        stack, visited = list(tv.consumers()), set()
        while stack:
            c = stack.pop()
            if c in visited or c not in index or c in done or c in seen:
                continue
            visited.add(c)
            found.extend(u for u in shallower_than(c, pos) if u not in found and u is not tv)
            if c.compute_at_pos >= pos:
                stack.extend(c.consumers())
        return found

    def visit(tv: TensorView) -> None:
        if tv in seen or tv.is_input:
            return
        producers = [p for p in tv.producers() if not p.is_input and p in index]
        seen.add(tv)
        ordered = sorted(producers, key=lambda p: (p.compute_at_pos, index[p]))
        needs: list[TensorView] = []
        for p in ordered:
            needs.extend(u for u in needs_first(p) if u not in needs)
        # visited first (an output, or left behind), ``tv`` opens the loops it shares with its consumers here:
        # what they, and their consumers inlined as deep, need at a shallower position comes before it too (an
        # output ``neg(x)`` inlined into ``neg(x) - w`` beside the vectorized cache of ``w``)
        for u in sharing_needs(tv):
            if u not in needs:
                needs.append(u)
        # the fewer loops a dependency shares, the earlier: emitted later, its loops would close the
        # ones a deeper dependency already opened for the consumer
        for u in sorted(needs, key=lambda u: (u.compute_at_pos, load_kind(u) not in ASYNC_LOADS, index[u])):
            visit(u)
        for p in ordered:
            visit(p)
        emitted.append(tv)
        done.add(tv)
        behind = left_behind(tv)
        while behind:                      # and what those consumers' own consumers need inside the loops
            for c in behind:
                visit(c)
            behind = left_behind(tv)

    def left_behind(tv: TensorView) -> list[TensorView]:
        """Consumers, ready to emit, of a tensor whose loops ``tv`` is about to leave: inlined deeper than ``tv``
        (two reductions of one cached input share its loops, so the second is emitted right after the first;
        emitted after the first one's consumers, the shared loops would have closed)."""
        out: list[TensorView] = []
        for q in emitted:
            if q.compute_at_pos <= tv.compute_at_pos:
                continue
            for c in q.consumers():
                if c in seen or c not in index or c in out:
                    continue
                if all(u.is_input or u in done or u not in index for u in c.producers()):
                    out.append(c)
        return sorted(out, key=lambda c: index[c])

    for tv in tensors:
        if tv.is_output:
            visit(tv)
    return emitted
