"""Tensor-core instructions: each wgmma accumulator's instruction, operand layouts and fragment readers.

Built after ``buffers``, for the accumulators of the ``tensor_cores`` analysis (which says what the
kernel's tensor-core matmuls are; this one, how each is issued). A tensor defined by ``matmul`` whose
innermost three loop axes are ``ParallelType.Mma`` is a wgmma accumulator: those axes (M, N, K, from
its M, N and K roots) are one ``wgmma.m64nNk16`` that a warp group issues, and its registers are the
accumulator fragment (``buffers.fragments``). For each operand this analysis derives the matrix descriptor's layout
from the operand's shared-memory allocation, or, for an A operand in registers (a chained matmul's, computed from
another accumulator: ``RegisterOperand``), the registers of each k-step; and for each tensor that reads the
accumulator it finds the axes that name the fragment register, so indexing never solves for a register.

Rules, raised as ``LoweringError``: the instruction is 64 x N x 16 (N a multiple of 8 up to 256,
K 32 bytes); operands are bf16 or fp16 tensors in shared memory laid out in whole swizzle rows
(K- or M-major A, K- or N-major B: the transpose bits, for 16-bit types) with the contiguous dimension
innermost, or an A in registers (Local) that holds the whole K in an accumulator fragment's layout
(``schedule_mma_fragment`` over the instruction's 64 rows and the K columns) and allocates exactly that
fragment; the block's x dimension is
one warp group's 128 threads; a reader of the accumulator is scheduled with
``schedule_mma_fragment`` (``[TIDx(128), N/8, 2, 2]`` over the same 64 x N tile); an accumulator accumulated in
place in a rescaled sum (``TensorCores.accumulated_in``) allocates one instruction tile's fragment, and the rescaled
sum exactly that fragment in its layout (``MmaInfo.in_place``), so register ``r`` of either is the same element.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fusion_ir import IterDomain, MemoryType, ParallelType, TensorView
from fusion_ir.exprs import BinaryOp, CastOp, MmaOp, UnaryOp, WhereOp, load_kind
from fusion_ir.iter_domain import Merge, Split, innermost_root
from fusion_ir.replay import loop_map, map_ids_between, root_map_between
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, LoadStoreOpType, SmemSwizzle
from target import current as current_target

from ..errors import LoweringError
from ..layout import CORE_ROWS
from .buffers import BufferPlan
from .id_model import IdModel
from .tensor_cores import TensorCores


@dataclass(frozen=True)
class OperandLayout:
    """How one operand sits in shared memory, as a matrix descriptor describes it."""

    tv: TensorView
    mn_major: bool
    leading_bytes: int
    stride_bytes: int
    swizzle: SmemSwizzle


@dataclass(frozen=True)
class MmaTile:
    """One wgmma accumulator: its instruction axes, operands and fragment."""

    tv: TensorView
    m: IterDomain
    n: IterDomain
    k: IterDomain
    shape: tuple[int, int, int]
    dtype: DataType
    a: OperandLayout | RegisterOperand
    b: OperandLayout
    fragment: IterDomain
    # the instruction's rows run along the matmul's N and its columns along M: ``C^T = B^T A^T``, the matmul's
    # ``b`` the instruction's A operand and ``a`` its B (``MatmulParams.swap_ab``)
    swapped: bool = False

    @property
    def fragment_symbol(self) -> str:
        """A name for the loop over the fragment's registers, unique per accumulator."""
        return f"{self.tv.name}"

    @property
    def registers(self) -> int:
        """Accumulators per thread of one instruction."""
        return self.shape[0] * self.shape[1] // current_target().warp_group_size


@dataclass(frozen=True)
class FragmentRead:
    """The axes of a reader of an accumulator that name register ``4 i + 2 j + c`` of its fragment. A reader that
    walks the columns in sub-tiles (a sub-tiled epilogue: the N axis split into ``[Ns, EN]``, the fragment over
    ``EN``) names the 8-column block ``i`` as ``outer * per + i`` (``per = EN / 8``)."""

    i: IterDomain
    j: IterDomain
    c: IterDomain
    outer: IterDomain | None = None
    per: int = 1

    def register(self, idx: dict[IterDomain, Val]) -> Val:
        block = idx[self.i] if self.outer is None else idx[self.outer] * self.per + idx[self.i]
        return block * 4 + idx[self.j] * 2 + idx[self.c]


@dataclass(frozen=True)
class RegisterOperand:
    """wgmma's register-sourced A: ``tv`` (Local, 16-bit) holds, in the warp group's threads, a ``64 x K`` tile
    laid out as an accumulator fragment (``schedule_mma_fragment`` over the instruction's 64 rows and all ``K``
    columns; ``fragment`` names its axes). Columns ``[16 t, 16 t + 16)`` of that layout are exactly the A
    fragment of k-step ``t`` (a thread holds rows ``l / 4`` and ``l / 4 + 8`` of its warp's 16, columns
    ``2 (l % 4) + {0, 1}`` and ``+ 8``): registers ``8 t .. 8 t + 7`` of ``tv``, which the instruction takes
    packed in pairs as four 32-bit registers, so nothing moves between threads."""

    tv: TensorView
    fragment: FragmentRead
    k_steps: int

    def first_register(self, k: Val) -> Val:
        """The first of the registers of the k-step starting at column ``k`` (a multiple of 16): those of the
        8-column block ``k / 8``, row half 0, column 0."""
        return k // 8 * 4


@dataclass(frozen=True)
class StagedStore:
    """A shared tile written by stmatrix from ``source``, a register tensor in a wgmma fragment layout:
    its fragment axes (``fragment``), the thread axis that merges warp, row and column pair, and its
    other loop axes right of its compute-at position (the 64-row pieces each thread holds)."""

    tile: TensorView
    source: TensorView
    fragment: FragmentRead
    thread: IterDomain
    pieces: tuple[IterDomain, ...]
    # the stmatrix lowering computes the source's 8 registers right before each stmatrix (a full bf16 copy of
    # the fragment beside the accumulators would crowd the registers): when the source is computed from
    # accumulators, from tensors it alone reads (``inlined``: a fused epilogue, computed inside that
    # expression) and from memory
    per_instruction: bool = False
    inlined: frozenset[TensorView] = frozenset()
    # 16-bit shared tiles the per-instruction epilogue reads element for element at the fragment's own elements (C,
    # a residual), each with the first tensor (by name) of the epilogue that reads it: read by ldmatrix, four matrices
    # per stmatrix, into the fragment's order (``matrix_reads``)
    matrix_reads: tuple[tuple[TensorView, TensorView], ...] = ()
    # the tile's contiguous axis is the fragment's rows, not its columns (an accumulator whose rows run along the
    # output's columns, ``MmaTile.swapped``): stored by ``stmatrix.trans``
    trans: bool = False


@dataclass
class MmaInfo:
    tiles: dict[TensorView, MmaTile] = field(default_factory=dict)
    reads: dict[tuple[TensorView, TensorView], FragmentRead] = field(default_factory=dict)  # (acc, reader)
    staged: dict[TensorView, StagedStore] = field(default_factory=dict)   # by the shared tile
    # a rescaled sum an accumulator accumulates into in place -> that accumulator's tile
    in_place: dict[TensorView, MmaTile] = field(default_factory=dict)

    def register(self, producer: TensorView, consumer: TensorView, idx: dict[IterDomain, Val]) -> Val:
        return self.reads[(producer, consumer)].register(idx)

    def computed_by_stmatrix(self, tv: TensorView) -> bool:
        """``tv`` is a stmatrix source whose registers the stmatrix lowering computes itself, or a tensor
        of the epilogue it computes inside them."""
        return any(s.per_instruction and (s.source is tv or tv in s.inlined) for s in self.staged.values())


def build(ids: IdModel, tc: TensorCores, buffers: BufferPlan) -> MmaInfo:
    info = MmaInfo()
    for tv in tc.accumulators:
        tile = _tile(ids, buffers, tv)
        info.tiles[tv] = tile
        threads = ids.launch[ParallelType.TIDx].const_value()
        group = current_target().warp_group_size
        if threads != group:
            raise LoweringError(f"T{tv.name} is a wgmma accumulator, so threadIdx.x must span one warp group of "
                                f"{group} threads (warp groups on threadIdx.y); it spans "
                                f"{ids.launch[ParallelType.TIDx]}")
        for consumer in ids.consumers(tv):
            info.reads[(tv, consumer)] = _fragment_read(tile, consumer)
        total = tc.accumulated_in(tv)
        if total is not None:
            _check_in_place(buffers, tile, total, info.reads[(tv, total)])
            info.in_place[total] = tile
    for tv in ids.tensors:
        if load_kind(tv) is LoadStoreOpType.StMatrix:
            info.staged[tv] = _staged_store(ids, buffers, info, tv)
    return info


def _check_in_place(buffers: BufferPlan, tile: MmaTile, total: TensorView, read: FragmentRead) -> None:
    """The accumulator of ``tile`` accumulates in ``total``'s registers: each must hold exactly one instruction
    tile's fragment, ``total``'s registers in its order (``[N/8, 2, 2]``, register ``4 i + 2 j + c``)."""
    what = f"T{tile.tv.name} accumulates in place in the rescaled sum T{total.name}"
    own = buffers.alloc_ids[tile.tv]
    if own != [tile.fragment]:
        raise LoweringError(f"{what}, so it holds one wgmma tile's fragment; it allocates "
                            f"[{', '.join(i.label() for i in own)}] (compute it at the loop of the instruction's tile)")
    axes = buffers.alloc_ids[total]
    if read.outer is not None or list(axes) != [read.i, read.j, read.c]:
        raise LoweringError(f"{what}, so each thread holds exactly the accumulator's fragment in T{total.name}: "
                            f"registers [{read.i.label()}, {read.j.label()}, {read.c.label()}]; T{total.name} "
                            f"allocates [{', '.join(i.label() for i in axes)}] (schedule it with "
                            f"schedule_mma_fragment over the 64 x {tile.shape[1]} tile, computed outside the loop "
                            f"of its summed axis)")


def _staged_store(ids: IdModel, buffers: BufferPlan, info: MmaInfo, tv: TensorView) -> StagedStore:
    """``tv = StMatrix(source)``: ``source`` must hold a wgmma accumulator tile in the fragment layout."""
    source = tv.definition.inputs[0]
    name = f"T{tv.name}"
    if source.dtype.size != 2 or tv.dtype is not source.dtype:
        raise LoweringError(f"{name} is written by stmatrix from T{source.name}; stmatrix stores 16-bit elements "
                            f"of one type ({source.dtype.short_name} -> {tv.dtype.short_name})")
    if source.memory_type is not MemoryType.Local:
        raise LoweringError(f"{name} is written by stmatrix from T{source.name}, which must be in registers")
    if len(info.tiles) != 1:
        raise LoweringError(f"{name}: stmatrix stores the fragment of one wgmma accumulator; the kernel has "
                            f"{len(info.tiles)}")
    (tile,) = info.tiles.values()
    mapping = map_ids_between(tile.tv, source)
    read = _fragment_read(tile, source, mapping)
    thread = next(i for i in source.loop if ids.group(i).parallel_type is ParallelType.TIDx)
    fragment = {read.i, read.j, read.c}
    pieces = tuple(i for i in source.loop[source.compute_at_pos:] if ids.group(i).is_loop and i not in fragment)
    extent = read.i.extent.const_value()
    if extent is None or extent % 2:
        raise LoweringError(f"{name}: stmatrix.x4 stores pairs of 8-column blocks; T{source.name} has "
                            f"{read.i.extent} of them")
    trans = _transposed_tile(buffers, tv, source, read)
    inlined = _inlined_epilogue(ids, info, source)
    if inlined is None:
        return StagedStore(tv, source, read, thread, pieces, trans=trans)
    return StagedStore(tv, source, read, thread, pieces, True, inlined,
                       _matrix_reads(ids, buffers, source, inlined, read), trans)


def _transposed_tile(buffers: BufferPlan, tv: TensorView, source: TensorView, read: FragmentRead) -> bool:
    """Whether the staged tile ``tv`` lays out the fragment of ``source`` transposed: its innermost allocation axis
    is the fragment's rows (stored by ``stmatrix.trans``) rather than its columns (plain ``stmatrix``)."""
    column = innermost_root(read.c)
    rows = [i for i in source.logical if not i.is_reduction and i is not column]
    axes = root_map_between(source, tv)
    inner = innermost_root(buffers.alloc_ids[tv][-1])
    if column is not None and inner is axes.get(column):
        return False
    if rows and inner is axes.get(rows[-1]):
        return True
    raise LoweringError(f"T{tv.name} is written by stmatrix from T{source.name}; its innermost allocation axis "
                        f"{buffers.alloc_ids[tv][-1].label()} must be the fragment's columns (stmatrix) or its rows "
                        f"(stmatrix.trans), 8 consecutive elements of a matrix row or column")


def _inlined_epilogue(ids: IdModel, info: MmaInfo, source: TensorView) -> frozenset[TensorView] | None:
    """The register tensors between the accumulator and ``source`` (a fused epilogue), when only ``source``
    and they read them and the accumulator is among what they read; None otherwise."""
    ancestors = source.ancestors()
    if not any(p in info.tiles for p in ancestors):
        return None
    inlined: set[TensorView] = set()
    stack = list(source.producers())
    while stack:
        p = stack.pop()
        if p in info.tiles or p.is_input or p.memory_type is not MemoryType.Local or p in inlined:
            continue
        if any(c is not source and c not in ancestors for c in ids.consumers(p)):
            return None        # another tensor reads it: it needs its registers
        inlined.add(p)
        stack.extend(p.producers())
    return frozenset(inlined)


POINTWISE = (UnaryOp, BinaryOp, CastOp, WhereOp)
MATRIX_ROW = 8      # elements in a row of an ldmatrix / stmatrix matrix: 16 bytes of 16-bit elements


def _matrix_reads(ids: IdModel, buffers: BufferPlan, source: TensorView, inlined: frozenset[TensorView],
                  read: FragmentRead) -> tuple[tuple[TensorView, TensorView], ...]:
    """The shared tiles an ldmatrix reads in the fragment's order for the epilogue computed per stmatrix, each with
    the first tensor (by name) of that epilogue that reads it: 16-bit, read only by pointwise ops of that epilogue,
    each element at the fragment element it is combined with (every axis of the tile is one of the source's, none a
    broadcast), and its columns innermost in its allocation, whole rows of 8 in a row of a multiple of 8 (the 16
    bytes an ldmatrix row is; a TMA swizzle moves 16-byte pieces whole). Any other shared input of the epilogue is
    read element by element."""
    column = innermost_root(read.c)
    if column is None:
        return ()
    readers = inlined | {source}
    found: dict[TensorView, TensorView] = {}
    for x in sorted(readers, key=lambda t: t.name):
        for p in x.producers():
            if (p in found or p.memory_type is not MemoryType.Shared or p.dtype.size != 2 or p in ids.views
                    or p.is_input or p not in buffers.alloc_ids):
                continue
            if not all(c in readers and isinstance(c.definition, POINTWISE) for c in ids.consumers(p)):
                continue
            axes = root_map_between(source, p)
            logical = [i for i in p.logical if not i.is_reduction]
            mapped = [axes.get(i) for i in source.logical if not i.is_reduction]
            if sorted(map(id, mapped)) != sorted(map(id, logical)) or any(i.is_broadcast for i in logical):
                continue
            innermost = buffers.alloc_ids[p][-1]
            width = innermost.extent.const_value()
            if innermost_root(innermost) is not axes.get(column) or width is None or width % MATRIX_ROW:
                continue
            found[p] = x
    return tuple(found.items())


def _tile(ids: IdModel, buffers: BufferPlan, tv: TensorView) -> MmaTile:
    name = f"T{tv.name}"
    if not isinstance(tv.definition, MmaOp):
        raise LoweringError(f"{name} has ParallelType.Mma axes but is not defined by matmul")
    inst = tv.loop[-3:]
    if len(tv.loop) < 3 or any(ids.group(i).parallel_type is not ParallelType.Mma for i in inst) or \
            any(ids.group(i).parallel_type is ParallelType.Mma for i in tv.loop[:-3]):
        raise LoweringError(f"{name}: the Mma axes must be its three innermost loop axes (M, N, K of one wgmma); "
                            f"its loop is [{', '.join(i.label() for i in tv.loop)}]")
    *_, m_root, n_root, k_root = tv.root             # batch axes (a batched matmul) lead
    m, n, k = inst
    # the instruction's rows along M, or along N (swapped: it computes C^T = B^T A^T, its A operand the matmul's b)
    swapped = innermost_root(m) is n_root and innermost_root(n) is m_root
    rows, columns = (n_root, m_root) if swapped else (m_root, n_root)
    for axis, root, what in ((m, rows, "N" if swapped else "M"), (n, columns, "M" if swapped else "N"),
                             (k, k_root, "K")):
        if innermost_root(axis) is not root:
            raise LoweringError(f"{name}: Mma axis {axis.label()} must be the innermost part of {what} "
                                f"({root.label()}), split off by inner splits")
    a, b = tv.definition.inputs
    wgmma = current_target().wgmma
    if a.dtype.name not in wgmma.operand_types or a.dtype is not b.dtype:
        raise LoweringError(f"{name}: wgmma operands are both bf16 or both fp16; T{a.name} is {a.dtype.short_name} "
                            f"and T{b.name} is {b.dtype.short_name}")
    shape = tuple(i.extent.const_value() for i in inst)
    k_step = wgmma.k_for(a.dtype.size)
    if shape[0] != wgmma.m or shape[2] != k_step or shape[1] is None or not wgmma.valid_n(shape[1]):
        raise LoweringError(f"{name}: the Mma axes are {' x '.join(str(i.extent) for i in inst)}; a wgmma is "
                            f"{wgmma.m} x N x {k_step} for {a.dtype.short_name} with N a multiple of "
                            f"{wgmma.n_step} up to {wgmma.max_n}")
    if tv.memory_type is not MemoryType.Local or tv.is_output:
        raise LoweringError(f"{name}: a wgmma accumulator lives in registers (Local memory); cache_before the "
                            f"output")
    if swapped:     # the instruction's A is [N, K] (b's tile), its B [K, M] (a's)
        if a.memory_type is MemoryType.Local:
            raise LoweringError(f"{name}: its instruction rows run along N (C^T = B^T A^T), so operand a (T{a.name}) "
                                f"is the instruction's B, which wgmma reads from shared memory; T{a.name} is in "
                                f"registers")
        a_layout: OperandLayout | RegisterOperand = _operand_layout(buffers, tv, b, k_root=b.logical[-2],
                                                                    mn_root=b.logical[-1], what="A")
        b_layout = _operand_layout(buffers, tv, a, k_root=a.logical[-1], mn_root=a.logical[-2], what="B")
    elif a.memory_type is MemoryType.Local:
        a_layout = _register_operand(ids, buffers, tv, a, m, shape)
        b_layout = _operand_layout(buffers, tv, b, k_root=b.logical[-2], mn_root=b.logical[-1], what="B")
    else:
        a_layout = _operand_layout(buffers, tv, a, k_root=a.logical[-1], mn_root=a.logical[-2], what="A")
        b_layout = _operand_layout(buffers, tv, b, k_root=b.logical[-2], mn_root=b.logical[-1], what="B")
    for layout, what, mn in ((a_layout, "A", "N" if swapped else "M"), (b_layout, "B", "M" if swapped else "N")):
        if isinstance(layout, OperandLayout) and layout.mn_major and layout.tv.dtype.size != 2:
            raise LoweringError(f"{name}: operand {what} (T{layout.tv.name}) is {mn}-major in shared memory; wgmma "
                                f"transposes 16-bit operands only, so a {layout.tv.dtype.short_name} operand is read "
                                f"K-major (keep K the innermost axis of T{layout.tv.name})")
    return MmaTile(tv, m, n, k, shape, a.dtype, a_layout, b_layout, buffers.fragments[tv],  # type: ignore[arg-type]
                   swapped=swapped)


def _register_operand(ids: IdModel, buffers: BufferPlan, acc: TensorView, tv: TensorView, m: IterDomain,
                      shape: tuple[int, int, int]) -> RegisterOperand:
    """Operand A of ``acc`` held in registers: ``tv`` must hold its ``64 x K`` tile (all of ``acc``'s K) in an
    accumulator fragment's layout, its registers exactly that fragment."""
    name = f"T{tv.name}"
    fix = (f"; schedule {name} with fusion_ir.schedulers.schedule_mma_fragment over the 64 rows of "
           f"T{acc.name}'s instruction and its K columns")
    k_extent = acc.root[-1].extent.const_value()
    k_axis = tv.logical[-1]
    if tv.definition is None or k_axis.extent.const_value() != k_extent or k_extent % shape[2]:
        raise LoweringError(f"T{acc.name}: operand A ({name}) is in registers, so it holds the whole K of the "
                            f"matmul ({acc.root[-1].label()}) in k-steps of {shape[2]}: its columns "
                            f"{k_axis.label()} must be {acc.root[-1].extent}, a multiple of {shape[2]}")
    rows = next((x for x, y in loop_map(tv, acc).items() if y is m), None)
    if rows is None:
        raise LoweringError(f"T{acc.name}: operand A ({name}) is in registers but has no axis mapped to the "
                            f"instruction's rows {m.label()}{fix}")
    read = _fragment_axes(f"(as the A operand of T{acc.name} in registers) its 64 x {k_extent} tile", tv, rows,
                          k_axis, fix)
    axes = buffers.alloc_ids[tv]
    if read.outer is not None or list(axes) != [read.i, read.j, read.c]:
        raise LoweringError(f"T{acc.name}: operand A ({name}) is in registers, so each thread must hold exactly "
                            f"its A fragments, registers [{read.i.label()}, {read.j.label()}, {read.c.label()}]; "
                            f"{name} allocates [{', '.join(i.label() for i in axes)}] (compute it at the loop "
                            f"that holds the instruction's tile)")
    return RegisterOperand(tv, read, k_extent // shape[2])


def _operand_layout(buffers: BufferPlan, acc: TensorView, tv: TensorView, *, k_root: IterDomain,
                    mn_root: IterDomain, what: str) -> OperandLayout:
    """The descriptor layout of operand ``tv`` from its allocation axes (outermost first)."""
    name = f"T{tv.name}"
    if tv.memory_type is not MemoryType.Shared:
        raise LoweringError(f"T{acc.name}: operand {what} ({name}) is in {tv.memory_type.name} memory; wgmma reads "
                            f"operands from shared memory (cache_after(LoadStoreOpType.TMA))")
    if tv.swizzle is SmemSwizzle.NONE:
        raise LoweringError(f"T{acc.name}: operand {what} ({name}) is not swizzled; lay it out with a 32-, 64- or "
                            f"128-byte swizzle (cache_after(LoadStoreOpType.TMA, swizzle=...))")
    axes = buffers.alloc_ids[tv]
    roots = [_root_of(tv, i) for i in axes]
    span, size = tv.swizzle.span, tv.dtype.size
    inner = axes[-1]
    if inner.extent.const_value() is None or inner.extent.const_value() * size != span:
        raise LoweringError(f"T{acc.name}: the innermost axis {inner.label()} of operand {what} ({name}) must be "
                            f"one {tv.swizzle.name} swizzle row ({span // size} elements)")
    mn_major = roots[-1] is mn_root
    contiguous, other = (mn_root, k_root) if mn_major else (k_root, mn_root)
    if roots[-1] is not contiguous or len(axes) < 2 or roots[-2] is not other:
        raise LoweringError(f"T{acc.name}: operand {what} ({name}) must be allocated as rows of one swizzle span: "
                            f"its innermost axis from one of its dimensions and the next from the other; it is "
                            f"[{', '.join(i.label() for i in axes)}]")
    stride = CORE_ROWS * span
    leading = 16
    if mn_major:
        outer = [(k, i) for k, i in enumerate(axes[:-2]) if roots[k] is mn_root]
        if outer:
            k, _ = outer[-1]
            block = 1
            for i in axes[k + 1:]:
                block *= i.extent.const_value() or 0
            leading = block * size
    return OperandLayout(tv, mn_major, leading, stride, tv.swizzle)


def _fragment_read(tile: MmaTile, consumer: TensorView,
                   mapping: dict[IterDomain, IterDomain] | None = None) -> FragmentRead:
    """Find ``w, j, r | i, q, c`` in the consumer: the splits ``schedule_mma_fragment`` makes."""
    mapping = loop_map(tile.tv, consumer) if mapping is None else mapping
    m, n = mapping.get(tile.m), mapping.get(tile.n)
    fix = (f"; schedule T{consumer.name} with fusion_ir.schedulers.schedule_mma_fragment over the 64 x "
           f"{tile.shape[1]} tile it reads")
    if m is None or n is None:
        raise LoweringError(f"T{consumer.name} reads the wgmma accumulator T{tile.tv.name} but has no axes mapped "
                            f"to its instruction tile {tile.m.label()} x {tile.n.label()}{fix}")
    return _fragment_axes(f"the wgmma accumulator T{tile.tv.name}", consumer, m, n, fix, sub_tiles=True)


def _fragment_axes(what: str, consumer: TensorView, m: IterDomain, n: IterDomain, fix: str,
                   sub_tiles: bool = False) -> FragmentRead:
    """The fragment axes of ``consumer``, which reads ``what`` (its rows on axis ``m``, its columns on ``n``) in
    an accumulator fragment's layout; with ``sub_tiles``, the columns may be walked in sub-tiles."""
    splits = {t.input: t for t in consumer.transforms if isinstance(t, Split)}

    def split(x: IterDomain, factor: int) -> Split:
        t = splits.get(x)
        if t is None or t.factor != factor or not t.inner_split:
            raise LoweringError(f"T{consumer.name} reads {what} in a layout other than its fragment: axis "
                                f"{x.label()} is not split by {factor}{fix}")
        return t

    w_m16 = split(m, 16)
    j_r = split(w_m16.inner, 8)
    outer, per = None, 1
    sub = splits.get(n)
    if sub_tiles and sub is not None and sub.inner_split and sub.factor != 8 and sub.factor % 8 == 0:
        outer, per, n = sub.outer, sub.factor // 8, sub.inner      # sub-tiles of the columns: [Ns, EN]
    i_n8 = split(n, 8)
    q_c = split(i_n8.inner, 2)
    thread = _merged(consumer, [w_m16.outer, j_r.inner, q_c.outer])
    if thread is None or thread not in consumer.loop or thread.parallel_type is not ParallelType.TIDx:
        raise LoweringError(f"T{consumer.name} reads {what} but does not bind the "
                            f"merge of warp, row-in-8 and column pair ({w_m16.outer.label()}, {j_r.inner.label()}, "
                            f"{q_c.outer.label()}) to TIDx{fix}")
    for axis in (i_n8.outer, j_r.outer, q_c.inner) + ((outer,) if outer is not None else ()):
        if axis not in consumer.loop or not (axis.parallel_type is ParallelType.Unroll or axis.parallel_type.vectorizes):
            raise LoweringError(f"T{consumer.name}: fragment axis {axis.label()} must be an unrolled loop axis so "
                                f"the accumulator register it names is a compile-time constant{fix}")
    return FragmentRead(i_n8.outer, j_r.outer, q_c.inner, outer, per)


def _merged(tv: TensorView, parts: list[IterDomain]) -> IterDomain | None:
    """The axis made by merging ``parts`` in order (outermost first), if tv has it."""
    merges = {(t.outer, t.inner): t.out for t in tv.transforms if isinstance(t, Merge)}
    x = parts[0]
    for p in parts[1:]:
        x = merges.get((x, p))
        if x is None:
            return None
    return x


def _root_of(tv: TensorView, axis: IterDomain) -> IterDomain | None:
    """The logical axis ``axis`` comes from through splits (None through a merge)."""
    x = axis
    while x not in tv.logical:
        d = x.definition
        if not isinstance(d, Split):
            return None
        x = d.input
    return x
