"""Warp specialization: how the block splits into a producer warp group and the compute warps.

Built from the IterDomain graph and the circular-buffer facts when a loop is warp-specialized
(``circular_buffer(..., type=WarpSpecialized(on=...))``); None otherwise. The ``on`` thread
dimension is padded so the producer (AsyncWarp) branch is exactly one warp group of 128 threads:
``pad = 128 / (product of the other thread dimensions)``. The threads with
``threadIdx.<on> >= blockDim.<on> - pad`` take the producer branch, the others compute.
Rules, raised as ``LoweringError``: the other thread dimensions are static, their product is at
most 128 and divides it; ``on`` is the outermost thread dimension the block uses, so each branch
is a contiguous range of whole warps; with register sharing the compute threads are whole warp
groups (``setmaxnreg`` acts per warp group) and the block's registers fit the register file.
"""

from __future__ import annotations

from dataclasses import dataclass

from fusion_ir import ParallelType
from fusion_ir.scalar import Val
from target import current as current_target

from ..errors import LoweringError
from .circular_buffer import CircularBufferInfo, CircularLoop
from .id_model import THREAD_DIMS, IdModel


@dataclass(frozen=True)
class WarpSpecialization:
    loop: CircularLoop
    on: ParallelType
    pad: int                          # threads added to the ``on`` dimension
    compute_threads: Val              # the block before padding
    registers: tuple[int, int] | None  # (producer, compute) with register sharing

    @property
    def producer_threads(self) -> Val:
        return Val.const(current_target().warp_group_size)

    @property
    def producer_warp(self) -> Val:
        """The first warp of the producer branch: its elected thread issues the copies."""
        return self.compute_threads // current_target().warp_size

    def padded(self, extent: Val) -> Val:
        return extent + self.pad

    def is_producer(self) -> Val:
        """The branch condition: ``threadIdx.<on> >= blockDim.<on> - pad``."""
        return Val.symbol(self.on.cuda_index).ge(Val.symbol(self.on.cuda_dim) - self.pad)


def build(ids: IdModel, circular: CircularBufferInfo) -> WarpSpecialization | None:
    loops = circular.warp_specialized()
    if not loops:
        return None
    (loop,) = loops
    opts = loop.warp_specialized
    assert opts is not None
    on = opts.on
    others = Val.const(1)
    for pt in THREAD_DIMS:
        if pt is not on:
            others = others * ids.launch[pt]
    dims = ", ".join(f"{pt.name} = {ids.launch[pt]}" for pt in THREAD_DIMS)
    n = others.const_value()
    target = current_target()
    group, warp = target.warp_group_size, target.warp_size
    if n is None or n > group or group % n:
        raise LoweringError(f"{loop.describe()}: WarpSpecialized(on={on.name}) pads {on.name} so the producer branch "
                            f"is one warp group of {group} threads, which needs the other thread dimensions to "
                            f"be static with a product that divides {group}; the block is {dims}")
    later = [pt for pt in THREAD_DIMS[THREAD_DIMS.index(on) + 1:] if ids.launch[pt] != Val.const(1)]
    if later:
        raise LoweringError(f"{loop.describe()}: WarpSpecialized(on={on.name}) must pad the outermost thread "
                            f"dimension the block uses, so each branch is a range of whole warps, but "
                            f"{later[-1].name} is used ({dims}); warp-specialize on {later[-1].name}")
    compute = ids.block_threads()
    count = compute.const_value()
    if count is not None and count % warp:
        raise LoweringError(f"{loop.describe()}: the compute branch of WarpSpecialized(on={on.name}) has {count} "
                            f"threads ({dims}); it must be whole warps (a multiple of {warp}) so the producer branch "
                            f"starts at a warp")
    regs = opts.num_registers
    if regs is not None:
        if count is None or count % group:
            raise LoweringError(f"{loop.describe()}: register sharing (num_registers={regs}) sets registers per warp "
                                f"group, so the compute branch must be whole warp groups of {group} threads; it "
                                f"has {compute} ({dims})")
        total = group * regs[0] + count * regs[1]
        if total > target.registers_per_block:
            raise LoweringError(f"{loop.describe()}: num_registers={regs} gives the block {group} x {regs[0]} + "
                                f"{count} x {regs[1]} = {total} registers, over the {target.registers_per_block} of "
                                f"a block")
    return WarpSpecialization(loop, on, group // n, compute, regs)
