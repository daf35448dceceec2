"""Emission order: visit a consumer's producers that still have a reduction to emit first.

The loop-nest pass emits a consumer's producers by compute-at position, then by their order in
the list ``emission_order`` returns: the inputs, then the computed tensors in the order the
loop-nest pass will emit them, which is still a topological order. Among producers inlined at
the same position, one whose inputs still include a tensor computed at a shallower position (a reduction whose result is
broadcast back) is now emitted first: emitted the other way round, the other producer would
open the consumer's loop before the reduction's own loop, and the consumer could no longer
share it (softmax's ``e / broadcast(sum(e))`` beside a second inlined producer).
"""

from __future__ import annotations

from fusion_ir import ASYNC_LOADS, TensorView, load_kind


def emission_order(tensors: list[TensorView]) -> list[TensorView]:
    """Inputs, then computed tensors depth-first from the outputs (taken in the given order)."""
    index = {tv: k for k, tv in enumerate(tensors)}
    emitted: list[TensorView] = []
    done: set[TensorView] = set()
    seen: set[TensorView] = set()

    def pending_shallower(tv: TensorView) -> bool:
        """Does ``tv`` depend on a not yet emitted tensor computed at a shallower position?"""
        stack, visited = list(tv.producers()), set()
        while stack:
            u = stack.pop()
            if u in visited or u.is_input or u in done:
                continue
            visited.add(u)
            if u.compute_at_pos < tv.compute_at_pos:
                return True
            stack.extend(u.producers())
        return False

    def shallower(tv: TensorView) -> list[TensorView]:
        """The not yet emitted tensors ``tv`` depends on that are computed at a shallower position
        (the nearest on each path), in topological order."""
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
        keys = {p: (p.compute_at_pos, not pending_shallower(p), index[p]) for p in producers}
        seen.add(tv)
        ordered = sorted(producers, key=keys.__getitem__)
        # Every producer's shallower dependencies come before the first producer opens the loops
        # they would otherwise close (an epilogue reading the accumulator and a tile loaded per tile).
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
    rest = [tv for tv in tensors if tv not in seen]
    return [tv for tv in rest if tv.is_input] + emitted + [tv for tv in rest if not tv.is_input]
