"""Persistent buffers kept in registers must have a constant size.

Reads: the scheduled fusion (memory types, compute-at positions, parallel bindings).
Writes: nothing.
Guarantees: a persistent buffer (``fusion_ir.persistent``: a tensor read by a reduction and,
after a broadcast of its result, by a later op) left in Local memory has a constant
per-thread size; otherwise a ``LoweringError`` names the tensor and says to put it in shared
memory or to split it by a constant. Runs before the passes, so this message comes first
instead of the generic symbolic-size one of the allocation pass.
"""

from __future__ import annotations

from fusion_ir import Fusion, MemoryType, TensorView
from fusion_ir.persistent import first_unmappable_loop_axis
from fusion_ir.scalar import Val

from .errors import LoweringError


def check_persistent_buffers(fusion: Fusion) -> None:
    used = fusion.used_tensors()
    live = set(used)
    for tv in used:
        if tv.is_input or tv.is_output or tv.memory_type is not MemoryType.Local:
            continue
        found = first_unmappable_loop_axis(tv, live)
        if found is None or tv.compute_at_pos > found[0]:
            continue  # computed past its persistent axis: the loop-nest pass reports the conflict
        _check_register_size(tv, found[1].describe(tv))


def _check_register_size(tv: TensorView, why: str) -> None:
    ids = [i for i in tv.loop[tv.compute_at_pos:]
           if not (i.is_reduction or i.is_broadcast or i.parallel_type.is_grid_or_thread)]
    size = Val.const(1)
    for i in ids:
        size = size * i.extent
    if size.const_value() is not None:
        return
    raise LoweringError(
        f"T{tv.name} is a persistent buffer ({why}) kept in registers (Local memory), but each thread holds "
        f"[{', '.join(i.label() for i in ids)}], a symbolic size {size}; registers need a constant size: put "
        f"T{tv.name} in shared memory (T{tv.name}.set_memory_type(MemoryType.Shared)) or split its axes by a "
        f"constant so the part each thread keeps has a constant extent (e.g. an outer split)")
