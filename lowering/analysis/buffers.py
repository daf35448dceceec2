"""Buffers: every tensor's storage, the axes it spans, and where it is allocated.

Built after the loop nest from the IterDomain graph, compute-at positions, memory types,
circular-buffer depths (the ``pipeline_depth`` analysis: ``stages="auto"`` resolved) and
swizzles. Holds the kernel parameters (fusion inputs and outputs), each intermediate's
``Buffer`` and allocation axes (and, circular-buffered, its stages), the per-thread partials of
block reductions and the float accumulators of Half and BFloat16 reductions (``T{n}_acc``, with their
own axes), the carries of scans (``T{n}_carry``, in registers), the block-reduction workspace, and the loop depth each
buffer's ``Allocate`` goes to.
Rules, raised as ``LoweringError``: no Global intermediates; Local buffers have a constant size.
Local buffers exclude thread- and block-parallel axes; Shared buffers include thread-parallel
axes (even left of the compute-at position; not a warp-specialized tensor's ``turn_axis``, whose
index is part of the pipeline iteration, nor the ``tensor_cores`` analysis's ``shared_turn_axis`` of
an epilogue tensor: warp groups taking turns write it one at a time, so they share one buffer) and
exclude block-parallel ones; reduction and
broadcast axes are never allocated; a Shared tensor with an allocation domain
(``TensorView.set_allocation_domain``) is laid out over those axes instead, which must hold as many
elements as the loop axes they stand for; a circular-buffered buffer is allocated outside its
circular-buffer loop and sized times the stage count; the shared tile of a TMA store whose wait
is deferred (``TensorView.set_store_wait``) is allocated outside the innermost loop it is computed
in (the stores of one iteration read it into the next); a TMA destination starts 128-byte aligned,
a swizzled one at its swizzle's repeat. A tensor-core accumulator's registers are allocated as the
fragment the ``tensor_cores`` analysis gives (``BufferPlan.fragments``); one accumulated in place in a rescaled
sum (``TensorCores.accumulated_in``) has no buffer of its own: its buffer is the rescaled sum's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.exprs import load_kind, reduces, scans, sums_products
from fusion_ir.iter_domain import lane_group
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, LoadStoreOpType, SmemSwizzle
from target import DEFAULT_TARGET

from ..errors import LoweringError
from ..kernel_ir import Buffer, Scratch
from ..running_axes import runs_along
from .id_model import IdModel
from .pipeline_axes import cb_axis, deferred_store_tile, ring_axis, serial_loops, store_ring, turn_axis
from .tensor_cores import TensorCores

TMA_ALIGN = DEFAULT_TARGET.tma.smem_alignment


@dataclass
class Placement:
    """The Allocate nodes of one tensor, at ``depth`` loops down the path to its computation."""

    tv: TensorView
    depth: int
    buffers: list[Buffer]


@dataclass(frozen=True)
class GridReductionBuffers:
    """The global memory of one grid reduction (``lowering/grid_reduction.py``): ``work`` holds every block's
    partials, ``[splits][blocks][slots][threads]`` (``splits`` the reduced block dimension's extent,
    ``blocks`` the other block dimensions', ``slots`` the per-thread accumulator's elements, ``threads`` the
    launched threads); ``semaphores`` one int32 arrival counter per output block, zero between launches."""

    work: Scratch
    semaphores: Scratch
    slots: int


@dataclass
class BufferPlan:
    inputs: tuple[Buffer, ...]
    outputs: tuple[Buffer, ...]
    buffers: dict[TensorView, Buffer] = field(default_factory=dict)
    alloc_ids: dict[TensorView, list[IterDomain]] = field(default_factory=dict)
    accumulators: dict[TensorView, Buffer] = field(default_factory=dict)
    accumulator_ids: dict[TensorView, list[IterDomain]] = field(default_factory=dict)
    workspace: Buffer | None = None
    # block reductions whose threads are lane groups: combined by warp shuffles, not in the workspace
    shuffled: frozenset[TensorView] = frozenset()
    placements: list[Placement] = field(default_factory=list)
    # a tensor-core accumulator's registers: its instruction axes (ParallelType.Mma) are held by the
    # threads of a warp group; this axis, of the registers each thread holds, stands for them
    fragments: dict[TensorView, IterDomain] = field(default_factory=dict)
    stages: dict[TensorView, int] = field(default_factory=dict)   # circular buffers: stages each buffer holds
    # the shared tile of a deferred TMA store rotating over several tiles: its ring's loop axis and tiles
    rings: dict[TensorView, tuple[IterDomain, int]] = field(default_factory=dict)
    grid_reductions: dict[TensorView, GridReductionBuffers] = field(default_factory=dict)

    def after_grid_reduction(self, tv: TensorView) -> bool:
        """``tv`` is computed from a grid-reduced tensor: only the last block of the grid reduction computes it."""
        return tv in self.grid_reductions or any(t in self.grid_reductions for t in tv.ancestors())

    def partial(self, tv: TensorView) -> Buffer:
        """The per-thread registers a reduction accumulates in: its accumulator, or its own Local buffer."""
        acc = self.accumulators.get(tv)
        return acc if acc is not None else self.buffers[tv]

    def ids_of(self, tv: TensorView, buffer: Buffer) -> list[IterDomain]:
        """The axes ``buffer`` (tv's own buffer or its accumulator) spans, outermost first."""
        if buffer is self.accumulators.get(tv):
            return self.accumulator_ids[tv]
        return self.alloc_ids[tv]

    def stage_size(self, tv: TensorView) -> Val:
        """Elements of one circular-buffer stage of tv: one compute-at iteration."""
        size = Val.const(1)
        for i in self.alloc_ids[tv]:
            size = size * i.extent
        return size


def param_buffer(tv: TensorView) -> Buffer:
    shape = tuple(i.extent for i in tv.shape_ids)
    strides = tuple(Val.symbol(f"T{tv.name}_stride{k}") for k in range(len(shape)))
    size = Val.const(1)
    for s in shape:
        size = size * s
    return Buffer(f"T{tv.name}", tv.dtype, MemoryType.Global, size, shape, strides, is_param=True)














def alloc_position(ids: IdModel, tv: TensorView, tc: TensorCores | None = None) -> int:
    if tv.circular_buffer_options is not None:
        return cb_axis(ids, tv)
    turn = _turn_part(ids, tv, tc)
    if turn is not None:
        # a part per warp group of those taking turns on a loop (an epilogue input's tile, loaded at each group's
        # tile start): a group reaches the allocation in its turn while another may still read its own part, so
        # the buffer is allocated outside the serial loops around that axis, once for all turns
        loops = [k for k in serial_loops(ids, tv) if k < turn]
        return loops[0] if loops else tv.compute_at_pos
    if deferred_store_tile(ids, tv):
        # its TMA stores still read it in the next iteration of its innermost loop, and the last ones until a wait
        # after that loop which threads past their last barrier need not have reached: allocated outside the
        # outermost serial loop around it, so that no thread's allocation of it (an outer loop's next iteration, or
        # another warp group's turn) comes while a store may still read it
        loops = serial_loops(ids, tv)
        return loops[0] if loops else tv.compute_at_pos
    return tv.compute_at_pos




def _turn_part(ids: IdModel, tv: TensorView, tc: TensorCores | None) -> int | None:
    """Position of the thread axis left of ``tv``'s compute-at position along which the compute warp groups take
    turns (``TensorCores.turn_groups``) and ``tv``, in shared memory, has a part per group; None if it has none."""
    if tc is None or tv.memory_type is not MemoryType.Shared or not tc.turn_groups:
        return None
    shared = tc.shared_turn_axis(tv)
    for k in range(tv.compute_at_pos):
        i = tv.loop[k]
        if i is shared or i.is_broadcast or not ids.group(i).parallel_type.is_thread:
            continue
        if ids.group(i).number in tc.turn_groups:
            return k
    return None


def allocation_ids(ids: IdModel, tc: TensorCores, tv: TensorView, memory: MemoryType, pos: int) -> list[IterDomain]:
    out = []
    turns = (turn_axis(ids, tv), tc.shared_turn_axis(tv))
    for k, i in enumerate(tv.loop):
        if memory is MemoryType.Shared and lane_group(i) is not None and ids.group(i).parallel_type.is_thread:
            out.append(i)   # a lane-group reduction: its groups (first lane) write, any thread reads after a barrier
            continue
        if i.is_reduction or i.is_broadcast or any(i is t for t in turns):
            continue
        pt = ids.group(i).parallel_type
        if k < pos:
            if memory is MemoryType.Shared and pt.is_thread:
                out.append(i)
            continue
        if memory is MemoryType.Local and pt.is_grid_or_thread:
            continue
        if memory is MemoryType.Shared and pt.is_block:
            continue
        out.append(i)
    return out


def _allocation_domain(tv: TensorView, loop_axes: list[IterDomain]) -> list[IterDomain]:
    """``tv``'s own allocation domain (``TensorView.set_allocation_domain``), which must hold as many elements as
    the loop axes it stands for: every split and merge after it divides evenly."""
    axes = list(tv.allocation or [])
    have, want = _size(axes).const_value(), _size(loop_axes).const_value()
    if have is None or want is None or have != want:
        raise LoweringError(f"T{tv.name}: its allocation domain [{', '.join(i.label() for i in axes)}] holds "
                            f"{_size(axes)} elements but its loop axes right of the compute-at position "
                            f"[{', '.join(i.label() for i in loop_axes)}] cover {_size(loop_axes)}; both must be "
                            f"the same constant (split by factors that divide)")
    return axes


def _size(axes: list[IterDomain]) -> Val:
    size = Val.const(1)
    for i in axes:
        size = size * i.extent
    return size


def has_block_reduction(ids: IdModel, tv: TensorView) -> bool:
    """``tv`` reduces over a thread-parallel axis: its threads' partials meet in a block reduction."""
    return any(i.is_reduction and ids.group(i).parallel_type.is_thread for i in tv.loop)


def grid_reduction_axis(ids: IdModel, tv: TensorView) -> IterDomain | None:
    """``tv``'s reduction axis bound to a block index, if any: its blocks' partials meet in a grid reduction."""
    return next((i for i in tv.loop if i.is_reduction and ids.group(i).parallel_type.is_block), None)


def has_grid_reduction(ids: IdModel, tv: TensorView) -> bool:
    return grid_reduction_axis(ids, tv) is not None


def accumulator_dtype(dtype: DataType) -> DataType:
    """The type a reduction into ``dtype`` accumulates in: float for the 16-bit floats, as nvFuser does."""
    return DataType.Float if dtype in (DataType.Half, DataType.BFloat16) else dtype


def accumulates_in_float(tv: TensorView) -> bool:
    """A reduction (not an MMA: its result is float) whose 16-bit float result is accumulated in a float
    accumulator and written once the reduction is complete, even when no thread-parallel axis makes it
    a block reduction."""
    e = tv.definition
    return reduces(e) and not sums_products(e) and accumulator_dtype(tv.dtype) is not tv.dtype


def accumulator_position(ids: IdModel, tv: TensorView) -> int:
    """Where a reduction's accumulator (a block reduction's per-thread partial, or a 16-bit reduction's
    float accumulator) is allocated: it lives from its init (just outside the outermost serial reduction
    loop, or just before the op when there is none) to the block reduction or final write after that
    loop, so only the loops around those are outside it."""
    for k, i in enumerate(tv.loop):
        # a reduction's own axes are never inlined; a scan's may be (its consumers share its scan loops)
        if runs_along(tv, i) and ids.group(i).is_loop:
            return k
    return len(tv.loop)




def _add_carry(ids: IdModel, tc: TensorCores, plan: BufferPlan, tv: TensorView) -> None:
    """A scan's running total (``T<n>_carry``, in registers, in its accumulator's type): one element per element
    of the axes other than its scan axis that lie inside its outermost scan loop, allocated outside that loop (its
    init is there) and held in ``plan.accumulators``."""
    pos = accumulator_position(ids, tv)
    axes = [i for i in allocation_ids(ids, tc, tv, MemoryType.Local, pos) if not runs_along(tv, i)]
    size = _size(axes)
    if size.const_value() is None:
        raise LoweringError(f"T{tv.name}: the carry of its scan spans [{', '.join(i.label() for i in axes)}] inside "
                            f"its scan loop, a symbolic size {size}; registers need a constant size: split those "
                            f"axes by constants, bind them to threads or blocks, or move the scan axis inside them")
    carry = Buffer(f"T{tv.name}_carry", accumulator_dtype(tv.dtype), MemoryType.Local, size)
    plan.accumulators[tv] = carry
    plan.accumulator_ids[tv] = axes
    plan.placements.append(Placement(tv, ids.depth(tv, pos), [carry]))


def _grid_reduction_buffers(ids: IdModel, tv: TensorView, partial: Buffer) -> GridReductionBuffers:
    """The work buffer and semaphores of ``tv``'s grid reduction, sized from the launch extents."""
    slots = partial.size.const_value()
    if slots is None:
        raise LoweringError(f"T{tv.name}: the per-thread partial of its grid reduction has a symbolic size "
                            f"{partial.size}; split its iteration axes by constants")
    launch = ids.launch
    splits = launch[ParallelType.BIDz]
    blocks = launch[ParallelType.BIDx] * launch[ParallelType.BIDy]
    work = Buffer(f"T{tv.name}_work", partial.dtype, MemoryType.Global, splits * blocks * slots * ids.launched_threads(),
                  is_param=True)
    semaphores = Buffer(f"T{tv.name}_sem", DataType.Int32, MemoryType.Global, blocks, is_param=True)
    return GridReductionBuffers(
        Scratch(replace(work, shape=(work.size,)), purpose=f"T{tv.name}: partials of the grid reduction"),
        Scratch(replace(semaphores, shape=(semaphores.size,)), zeroed=True,
                purpose=f"T{tv.name}: arrivals per output block"),
        slots)


def _stream_k_buffers(ids: IdModel, tv: TensorView, partial: Buffer) -> GridReductionBuffers:
    """The work buffer and flags of ``tv``'s stream-K fix-up (``lowering/stream_k.py``): two partial tiles per
    block, ``[blocks][2][slots][threads]`` (a block's first and last segment), and one int32 arrival counter per
    output tile, zero between launches."""
    assert ids.stream_k is not None
    slots = partial.size.const_value()
    if slots is None:
        raise LoweringError(f"T{tv.name}: the per-thread partial of its stream-K fix-up has a symbolic size "
                            f"{partial.size}; split its iteration axes by constants")
    blocks = ids.launch[ParallelType.BIDx]
    work = Buffer(f"T{tv.name}_work", partial.dtype, MemoryType.Global, blocks * 2 * slots * ids.launched_threads(),
                  is_param=True)
    flags = Buffer(f"T{tv.name}_sem", DataType.Int32, MemoryType.Global, ids.stream_k.tiles.extent, is_param=True)
    return GridReductionBuffers(
        Scratch(replace(work, shape=(work.size,)), purpose=f"T{tv.name}: stream-K partial tiles, two per block"),
        Scratch(replace(flags, shape=(flags.size,)), zeroed=True, purpose=f"T{tv.name}: arrivals per output tile"),
        slots)


def _check_grid_reduction_consumers(ids: IdModel, plan: BufferPlan) -> None:
    """The last block of a grid reduction alone computes what is computed from it: nothing there may span
    blockIdx.z (the other blocks along it skip it), nor be a grid reduction of its own (its arrivals would
    come from the last blocks only, never all of them)."""
    for reduced in plan.grid_reductions:
        for tv in ids.tensors:
            if tv is reduced or reduced not in tv.ancestors():
                continue
            if tv in plan.grid_reductions:
                raise LoweringError(f"T{tv.name} is a grid reduction computed from the grid reduction of "
                                    f"T{reduced.name}; only the last block of T{reduced.name}'s reduction has its "
                                    f"result, so T{tv.name}'s other blocks would never arrive: reduce it in the "
                                    f"block (bind its reduction axes to threads or serial loops)")
            spanning = [i for i in tv.loop if not i.is_reduction and ids.group(i).parallel_type is ParallelType.BIDz]
            if spanning:
                raise LoweringError(f"T{tv.name} is computed from the grid reduction of T{reduced.name}, whose last "
                                    f"block alone computes it, but its axis {spanning[0].label()} is bound to BIDz, "
                                    f"the blocks that reduction is split over: bind it to another index")


def alignment(ids: IdModel, tv: TensorView) -> int:
    """TMA boxes (loaded, or read by a TMA store) start 128-byte aligned, a swizzled buffer at its repeat."""
    tma = load_kind(tv) is LoadStoreOpType.TMA or any(load_kind(c) is LoadStoreOpType.TMAStore
                                                     for c in ids.consumers(tv))
    if not tma and tv.swizzle is SmemSwizzle.NONE:
        return 16
    return max(TMA_ALIGN, tv.swizzle.alignment)


def build(ids: IdModel, tc: TensorCores, stages: Callable[[TensorView], int]) -> BufferPlan:
    """Every buffer; a circular-buffered tensor's holds ``stages(tv)`` stages."""
    fusion = ids.fusion
    plan = BufferPlan(tuple(param_buffer(tv) for tv in fusion.tensor_inputs),
                      tuple(param_buffer(tv) for tv in fusion.outputs))
    for tv, b in zip(list(fusion.tensor_inputs) + list(fusion.outputs), plan.inputs + plan.outputs):
        plan.buffers[tv] = b

    for tv in ids.tensors:
        if tv.is_input:
            continue
        pos = alloc_position(ids, tv, tc)
        allocated: list[Buffer] = []
        if not tv.is_output:
            if tv.memory_type is MemoryType.Global:
                raise LoweringError(f"T{tv.name} is a Global intermediate; only fusion inputs and outputs may live "
                                    f"in Global memory (use Local or Shared)")
            # A circular-buffered tensor is allocated outside its circular-buffer loop but holds one
            # compute-at iteration per stage: its axes are those right of the compute-at position.
            axes = allocation_ids(ids, tc, tv, tv.memory_type, tv.compute_at_pos)
            fragment = None
            if tv.allocation is not None:
                axes = _allocation_domain(tv, axes)
            else:
                axes, fragment = tc.register_axes(tv, axes)
            if fragment is not None:
                plan.fragments[tv] = fragment
            size = _size(axes)
            if tv.memory_type is MemoryType.Local and size.const_value() is None:
                raise LoweringError(f"T{tv.name} is in Local memory but its allocation "
                                    f"[{', '.join(i.label() for i in axes)}] has a symbolic size {size}; "
                                    f"split the axis by a constant or compute it at a deeper position")
            depth = stages(tv) if tv.circular_buffer_options is not None else 1
            if tv.circular_buffer_options is not None:
                plan.stages[tv] = depth
            ring = store_ring(ids, tv)
            if ring > 1:
                axis = ring_axis(ids, tv)
                if axis is None:
                    raise LoweringError(f"T{tv.name} is the shared tile of a TMA store with a ring of {ring} tiles, "
                                        f"but no serial loop left of its compute-at position rotates them; compute it "
                                        f"inside the loop of its sub-tiles, or use stages=1")
                depth = ring
                plan.rings[tv] = (tv.loop[axis], ring)
            buf = Buffer(f"T{tv.name}", tv.dtype, tv.memory_type, size * depth, align=alignment(ids, tv),
                         swizzle=tv.swizzle if tv.memory_type is MemoryType.Shared else SmemSwizzle.NONE)
            plan.buffers[tv] = buf
            plan.alloc_ids[tv] = axes
            allocated.append(buf)
        if allocated and tc.accumulated_in(tv) is None:
            plan.placements.append(Placement(tv, ids.depth(tv, pos), allocated))
        needs_partial = has_grid_reduction(ids, tv) and plan.buffers.get(tv, None) is not None and \
            plan.buffers[tv].memory is not MemoryType.Local
        if has_block_reduction(ids, tv) or accumulates_in_float(tv) or needs_partial:
            acc_pos = accumulator_position(ids, tv)
            axes = allocation_ids(ids, tc, tv, MemoryType.Local, acc_pos)
            size = _size(axes)
            if size.const_value() is None:
                what = "its block reduction" if has_block_reduction(ids, tv) else "its float accumulator"
                raise LoweringError(f"T{tv.name}: the per-thread partial of {what} has a symbolic "
                                    f"size {size}; split its iteration axes by constants")
            acc = Buffer(f"T{tv.name}_acc", accumulator_dtype(tv.dtype), MemoryType.Local, size)
            plan.accumulators[tv] = acc
            plan.accumulator_ids[tv] = axes
            plan.alloc_ids.setdefault(tv, axes)
            plan.placements.append(Placement(tv, ids.depth(tv, acc_pos), [acc]))
        if scans(tv.definition):
            _add_carry(ids, tc, plan, tv)
        if has_grid_reduction(ids, tv):
            plan.grid_reductions[tv] = _grid_reduction_buffers(ids, tv, plan.partial(tv))
        if ids.stream_k is not None and tv.name == ids.stream_k.plan.tensor_name:
            plan.grid_reductions[tv] = _stream_k_buffers(ids, tv, plan.partial(tv))

    for acc, total in tc.rescaled_in_place.items():
        plan.buffers[acc] = plan.buffers[total]       # the matmul accumulates into the rescaled sum's registers
    _check_grid_reduction_consumers(ids, plan)
    plan.shuffled = frozenset(ids.lane_reductions)
    if any(has_block_reduction(ids, tv) and tv not in plan.shuffled for tv in plan.accumulators):
        # one slot per launched thread: a reduction after a warp-specialized branch indexes by the
        # padded block's dimensions
        plan.workspace = Buffer("block_workspace", DataType.Int64, MemoryType.Shared, ids.launched_threads(),
                                align=16)
    return plan
