"""Emission order: the computed tensors in the order the loop-nest pass emits them.

A topological order, depth-first from the outputs: a consumer's producers by compute-at position,
then by their order in the fusion. Before the first of a consumer's producers opens the loops it
shares with the consumer, every tensor a producer still needs at a shallower position is emitted
(asynchronous loads first): emitted in between, its own loop would close the shared one and the
consumer could no longer share it (softmax's ``e / broadcast(sum(e))`` beside a second inlined
producer; a matmul epilogue reading the accumulator and a tile of C loaded per tile). nvFuser's
expression sorter does the same.
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
        found: set[TensorView] = set()
        stack, visited = list(tv.producers()), set()
        while stack:
            u = stack.pop()
            if u in visited or u.is_input or u in done or u not in index:
                continue
            visited.add(u)
            if u.compute_at_pos < tv.compute_at_pos:
                found.add(u)
            else:
                stack.extend(u.producers())
        # async loads first: nothing they read is computed, and what follows hides their latency
        return sorted(found, key=lambda u: (load_kind(u) not in ASYNC_LOADS, index[u]))

    def visit(tv: TensorView) -> None:
        if tv in seen or tv.is_input:
            return
        producers = [p for p in tv.producers() if not p.is_input and p in index]
        seen.add(tv)
        ordered = sorted(producers, key=lambda p: (p.compute_at_pos, index[p]))
        for p in ordered:
            for u in shallower(p):
                visit(u)
        for p in ordered:
            visit(p)
        emitted.append(tv)
        done.add(tv)

    for tv in tensors:
        if tv.is_output:
            visit(tv)
    return emitted
