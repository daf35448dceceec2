"""Byte offsets of shared-memory buffers in the kernel's dynamic shared memory.

The lowering normally places every Shared buffer (``Allocate.offset``). Buffers it left
unplaced (``offset=None``) go after all placed ones, in program order, each aligned to its
``Buffer.align``; a buffer allocated more than once keeps its first offset. The executor
launches with the larger of ``Kernel.smem_bytes`` and the layout's ``total``.
"""

from __future__ import annotations

from dataclasses import dataclass

from fusion_ir.scalar import Val, as_val, ceil_div, vmax
from fusion_ir.types import MemoryType
from lowering.kernel_ir import Allocate, Kernel, walk


@dataclass(frozen=True)
class SharedLayout:
    offsets: dict[str, Val]  # buffer name -> byte offset
    total: Val               # bytes of dynamic shared memory the buffers span


def shared_memory_layout(kernel: Kernel) -> SharedLayout:
    allocations = [n for n in walk(kernel.body) if isinstance(n, Allocate) and n.buffer.memory == MemoryType.Shared]
    offsets: dict[str, Val] = {}
    end: Val = as_val(0)
    for alloc in allocations:
        if alloc.offset is not None and alloc.buffer.name not in offsets:
            offsets[alloc.buffer.name] = alloc.offset
            end = vmax(end, alloc.offset + alloc.buffer.nbytes)
    for alloc in allocations:
        name = alloc.buffer.name
        if name in offsets:
            continue
        offset = ceil_div(end, alloc.buffer.align) * alloc.buffer.align
        offsets[name] = offset
        end = offset + alloc.buffer.nbytes
    return SharedLayout(offsets, end)
