"""Loop-only broadcasts bound into thread indices (``TensorView.broadcast_loop``): a tensor whose thread axis
merges its own axes with a loop-only broadcast of extent ``n``, ``TIDx = n * rows + b``, is computed by the ``n``
threads of each ``rows`` index alike, each into its own registers. A per-row value of a wgmma accumulator
fragment laid out as the fragment's rows with the quad's 4 lanes is one: every lane of the quad holds its row's
value, which the fragment's threads read in registers. No shared memory, no barrier.

Used by ``id_model.build``: ``check`` before the cross-thread reads are checked, ``same_thread`` by that check.
Guarantees, raised as ``LoweringError`` otherwise: each loop-only broadcast is merged into an iteration axis bound to
a thread index (left a loop axis of its own, it would be no loop; merged into a reduction, a block reduction would
count each value ``n`` times), and the tensor is in Local memory (in Shared or Global memory ``n`` threads would
write each element).
"""

from __future__ import annotations

from collections.abc import Callable

from fusion_ir import IterDomain, MemoryType, Merge, ParallelType, TensorView
from fusion_ir.iter_domain import made_from

from ..errors import LoweringError


def check(computed: list[TensorView], binding: Callable[[IterDomain], ParallelType]) -> None:
    """Each loop-only broadcast of ``computed`` is part of an iteration axis bound to a thread index, in Local memory
    (``binding``: a loop axis's parallel type after propagation)."""
    for tv in computed:
        for b in tv.broadcast_loop_axes:
            holder = _holder(tv, b)
            if holder is None:
                continue    # the loop domain was rebuilt without it
            pt = binding(holder)
            if holder is b or not pt.is_thread:
                where = "is a loop axis of its own" if holder is b else f"is part of {holder.label()}, bound to {pt.name}"
                raise LoweringError(f"T{tv.name}: loop broadcast {b.label()} (broadcast_loop) {where}; merge it with "
                                    f"the axes whose value it repeats into an axis bound to a thread index (TIDx), so "
                                    f"that each of its {b.extent} threads computes the value")
            if holder.is_reduction:
                raise LoweringError(f"T{tv.name}: loop broadcast {b.label()} (broadcast_loop) is merged into reduction "
                                    f"axis {holder.label()}: a reduction across those threads would count each value "
                                    f"{b.extent} times; merge it with iteration axes only")
            if tv.memory_type is not MemoryType.Local:
                raise LoweringError(f"T{tv.name}: loop broadcast {b.label()} (broadcast_loop) is bound to {pt.name} "
                                    f"in {holder.label()}, so {b.extent} threads compute each element; T{tv.name} is in "
                                    f"{tv.memory_type.name} memory, where they would all write it: keep it Local "
                                    f"(each thread's copy in its registers)")


def same_thread(producer: TensorView, consumer: TensorView, p: IterDomain, mapping: dict[IterDomain, IterDomain],
                binding: Callable[[IterDomain], ParallelType]) -> bool:
    """Thread ``t`` of ``consumer`` holds in registers the element of ``producer`` it reads, although ``p`` (a thread
    axis of ``producer``) maps to no axis of ``consumer``: ``p`` merges axes ``R`` with a loop-only broadcast of
    extent ``n`` (``TIDx = n * R + b``, each ``n`` threads computing the same element of ``R``), and ``consumer``'s
    axis of the same binding merges ``R``'s counterpart with ``n`` inner lanes (anything: the fragment's column
    pairs, a broadcast of them)."""
    d = p.definition
    if not isinstance(d, Merge) or d.inner not in producer.broadcast_loop_axes or d.outer not in mapping:
        return False
    rows = mapping[d.outer]
    for c in consumer.loop:
        e = c.definition
        if (binding(c) is binding(p) and isinstance(e, Merge) and e.outer is rows
                and e.inner.extent == d.inner.extent):
            return True
    return False


def describe(producer: TensorView, p: IterDomain) -> str:
    """What a consumer must bind to read ``producer``'s loop-broadcast thread axis ``p`` in registers."""
    d = p.definition
    if not isinstance(d, Merge) or d.inner not in producer.broadcast_loop_axes:
        return ""
    return (f"; T{producer.name} holds each value in the {d.inner.extent} threads of {p.label()} = {d.outer.label()} "
            f"merged with loop broadcast {d.inner.label()}: a consumer reads it in registers when its axis of the same "
            f"binding merges the same rows ({d.outer.label()}) with {d.inner.extent} inner lanes")


def _holder(tv: TensorView, b: IterDomain) -> IterDomain | None:
    """The loop axis of ``tv`` made from ``b`` (``b`` itself when it was left a loop axis)."""
    return next((i for i in tv.loop if made_from(i, lambda x: x is b)), None)
