"""Launch limits of the current target (``target.current()``) checked on the lowered kernel.

Reads: the final kernel (block dimensions, shared-memory size, ``Allocate`` nodes) and its
fusion (which axes are bound to thread indices).
Writes: nothing.
Guarantees: a kernel whose block has a constant thread count over the target's threads per block
(1,024 on sm_90), whose constant shared-memory size is over its shared memory per block (227 KiB
on sm_90), or which indexes in 32 bits with an index expression that provably leaves ``int``
(``index_range``: a constant over 2**31 - 1, a constant tensor too large for its padded thread
index) is refused with a ``LoweringError`` naming the axes, buffers or expression responsible and
the limit. Symbolic sizes stay a run-time check of the simulator and the executor.
"""

from __future__ import annotations

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.scalar import Val
from target import current as current_target

from .errors import LoweringError
from .index_range import first_int32_overflow
from .kernel_ir import Allocate, Buffer, Kernel, walk

THREAD_TYPES = (ParallelType.TIDx, ParallelType.TIDy, ParallelType.TIDz)


def check_launch_limits(kernel: Kernel) -> None:
    _check_threads(kernel)
    _check_shared_memory(kernel)
    _check_int32_indices(kernel)


def _check_int32_indices(kernel: Kernel) -> None:
    """A 32-bit kernel's index expressions whose range is known without the launch sizes must fit
    ``int`` (``index_range``); the others are bounded again before each launch."""
    overflow = first_int32_overflow(kernel)
    if overflow is None:
        return
    raise LoweringError(f"kernel {kernel.name} indexes in 32 bits (Fusion.set_index_type(DataType.Int32)), but "
                        f"{overflow.describe()}; every index expression of a 32-bit kernel must fit int: schedule it "
                        f"with DataType.Int64 indices")


def _check_threads(kernel: Kernel) -> None:
    dims = [d.const_value() for d in kernel.block]
    if any(d is None for d in dims):
        return
    threads = dims[0] * dims[1] * dims[2]
    limit = current_target().max_threads_per_block
    if threads <= limit:
        return
    shape = " x ".join(f"{pt.name} {d}" for pt, d in zip(THREAD_TYPES, dims))
    culprits = [_widest_axis(kernel, pt) for pt, d in zip(THREAD_TYPES, dims) if d > 1]
    named = "; ".join(c for c in culprits if c is not None)
    raise LoweringError(f"kernel {kernel.name}: a block of {threads} threads ({shape}) is over the limit of "
                        f"{limit} threads per block; {named}. Split the axis and bind only "
                        f"the inner part to the thread index (or bind fewer threads)")


def _widest_axis(kernel: Kernel, pt: ParallelType) -> str | None:
    """The tensor axis bound to ``pt`` with the largest constant extent, described."""
    best: tuple[int, TensorView, int, IterDomain] | None = None
    for tv in _tensors(kernel):
        for k, i in enumerate(tv.loop):
            extent = i.extent.const_value()
            if i.parallel_type is not pt or extent is None:
                continue
            if best is None or extent > best[0]:
                best = (extent, tv, k, i)
    if best is None:
        return None
    extent, tv, k, i = best
    return f"{pt.name} is {extent} from axis {k} ({i.label()}) of T{tv.name}"


def _tensors(kernel: Kernel) -> list[TensorView]:
    fusion = kernel.fusion
    if fusion is None:
        return []
    return [tv for tv in fusion.used_tensors() if not tv.is_input]


def _check_shared_memory(kernel: Kernel) -> None:
    allocations = _shared_allocations(kernel)
    total = _shared_bytes(kernel, allocations)
    target = current_target()
    if total is None or total <= target.smem_per_block:
        return
    sized = sorted(((b.nbytes.const_value() or 0, b) for b in allocations.values()),
                   key=lambda x: -x[0])
    largest = ", ".join(f"{b.name} ({b.memory.name} {b.dtype.short_name}[{b.size}] = {n} B)"
                        for n, b in sized[:3])
    raise LoweringError(f"kernel {kernel.name} needs {total} bytes of shared memory per block, over the limit of "
                        f"{target.smem_per_block} bytes ({target.smem_per_block // 1024} KiB) of {target.name}; the "
                        f"largest shared buffers are {largest}. "
                        f"Use smaller tiles, fewer circular-buffer stages, or keep a buffer in registers")


def _shared_allocations(kernel: Kernel) -> dict[str, Buffer]:
    out: dict[str, Buffer] = {}
    for node in walk(kernel.body):
        if isinstance(node, Allocate) and node.buffer.memory is MemoryType.Shared:
            out.setdefault(node.buffer.name, node.buffer)
    return out


def _shared_bytes(kernel: Kernel, allocations: dict[str, Buffer]) -> int | None:
    """The larger of ``kernel.smem_bytes`` and the end of the placed and unplaced shared buffers; None if symbolic."""
    end = 0
    placed: set[str] = set()
    for node in walk(kernel.body):
        if not (isinstance(node, Allocate) and node.buffer.memory is MemoryType.Shared) or node.offset is None:
            continue
        stop = (node.offset + node.buffer.nbytes).const_value()
        if stop is None:
            return None
        end = max(end, stop)
        placed.add(node.buffer.name)
    for name, buf in allocations.items():
        if name in placed:
            continue
        nbytes = buf.nbytes.const_value()
        if nbytes is None:
            return None
        end = -(-end // buf.align) * buf.align + nbytes
    declared = kernel.smem_bytes.const_value() if isinstance(kernel.smem_bytes, Val) else None
    if declared is None:
        return None
    return max(declared, end)
