"""The index of an axis that a loop's bound reads, uniform over a block (``TensorView.bound_loop``,
``version_loop``): a block index, or an axis merged into a persistent kernel's tile index, computed from the serial
tile loop and the block index it went into. Read by the loop-nest pass (a loop's stop) and the loop-versions pass
(the end of a loop's first range)."""

from __future__ import annotations

from fusion_ir import IterDomain, ParallelType
from fusion_ir.scalar import Val

from . import index_math
from .analysis import IdModel
from .errors import LoweringError


def uniform_index(ids: IdModel, member: IterDomain, outer: IterDomain, what: str) -> Val:
    """The index of ``outer``, which a bound of the loop axis ``member`` reads, uniform over a block: a block index,
    or an axis of ``member``'s tensor merged into the loop axes (a persistent kernel's query tile, in the tile index
    that a grid-strided serial loop and a block index walk), computed from their indices (serial loops outside the
    bounded one, or block indices)."""
    group = ids.group_of.get(outer)
    if group is not None:
        if not group.parallel_type.is_block or group.number in ids.persistent:
            raise LoweringError(f"{what} reads {outer.label()}, whose group {group.label()} is "
                                f"{group.parallel_type.name}, not one block index: the trip count must be uniform over "
                                f"a block")
        return group.index
    owner = next((tv for tv in ids.tensors if any(i is member for i in tv.loop)), None)
    if owner is None:
        raise LoweringError(f"{what} reads {outer.label()}, no loop axis, and no tensor computed has the bounded axis")
    idx = {i: ids.group(i).index for i in owner.loop if not i.is_broadcast}
    for i in owner.loop:
        pt = ids.group(i).parallel_type if not i.is_broadcast else None
        if pt is not None and not (pt.is_block or pt is ParallelType.Serial):
            idx.pop(i)          # a thread index: the index of ``outer`` must not read it
    found = index_math.backward(owner, idx)
    value = found.get(outer)
    if value is None:
        raise LoweringError(f"{what} reads {outer.label()} of T{owner.name}, whose index is not a function of its "
                            f"block indices and serial loops alone: the trip count must be uniform over a block")
    return value
