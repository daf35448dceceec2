"""What "a fusion with no schedule at all" means: the one definition ``lower``, ``simulate``, ``execute`` and
``viz`` read before scheduling a fusion themselves (``schedule``), so that a hand schedule is never replaced.

A fusion has no schedule at all when none of its tensors carries any of these marks:

- a transform (split, merge, reorder's replayed loop, rfactor) between its root and loop domains;
- a loop axis bound to a parallel type other than Serial (BIDx, TIDx, Vectorize, Unroll, Bulk, Mma, ...);
- a compute-at position (``compute_at``, ``inline_at``, ``inline_most``);
- a cache (``cache_after``, ``cache_before``) or a copy turned into a TMA or cp.async load (``set_load_type``);
- a memory type other than the default (Global for inputs and outputs, Local for the rest);
- a circular buffer, a shared-memory swizzle, an allocation domain or a multicast;

and the fusion has no thread-block clusters and no recorded scheduler choice. Anything else (the ops, the
index type) is the definition, not a schedule. Such a fusion lowers to one thread running every loop.
"""

from __future__ import annotations

from ..exprs import LoadStoreOp
from ..fusion import Fusion
from ..tensor_view import TensorView
from ..types import LoadStoreOpType, MemoryType, ParallelType, SmemSwizzle


def schedule_marks(fusion: Fusion) -> list[str]:
    """Every mark of a schedule on ``fusion``, one phrase each naming the tensor (empty: no schedule at all)."""
    marks: list[str] = []
    for tv in fusion.tensors:
        marks += _tensor_marks(tv)
    if fusion.cluster_dims != (1, 1, 1):
        marks.append(f"cluster dims {fusion.cluster_dims}")
    if fusion.scheduler_choice is not None:
        marks.append(f"a scheduler's choice ({getattr(fusion.scheduler_choice, 'scheduler', '?')})")
    return marks


def is_unscheduled(fusion: Fusion) -> bool:
    """True when ``fusion`` has no schedule at all (``schedule_marks`` finds none)."""
    return not schedule_marks(fusion)


def _default_memory(tv: TensorView) -> MemoryType:
    return MemoryType.Global if tv.is_input or tv.is_output else MemoryType.Local


def _tensor_marks(tv: TensorView) -> list[str]:
    name = f"T{tv.name}"
    marks = []
    if tv.transforms:
        marks.append(f"{name} has {len(tv.transforms)} transforms")
    elif tv.loop != tv.logical:
        marks.append(f"{name}'s loop axes are reordered")
    bound = [i for i in tv.loop if i.parallel_type is not ParallelType.Serial]
    if bound:
        marks.append(f"{name} binds {bound[0].label()} to {bound[0].parallel_type.name}")
    if tv.compute_at_pos:
        marks.append(f"{name} is computed at position {tv.compute_at_pos}")
    if tv.is_cache:
        marks.append(f"{name} is a cache")
    d = tv.definition
    if isinstance(d, LoadStoreOp) and d.op_type is not LoadStoreOpType.Set:
        marks.append(f"{name} is a {d.op_type.name} copy")
    if tv.memory_type is not _default_memory(tv):
        marks.append(f"{name} is in {tv.memory_type.name} memory")
    if tv.circular_buffer_options is not None:
        marks.append(f"{name} is circular-buffered")
    if tv.swizzle is not SmemSwizzle.NONE:
        marks.append(f"{name} is swizzled")
    if tv.allocation is not None:
        marks.append(f"{name} has an allocation domain")
    if tv.multicast is not None:
        marks.append(f"{name} is multicast")
    return marks
