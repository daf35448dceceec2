"""Tensor-core statements: the kernel IR a tensor-core matmul and its staged epilogue lower to.

The indexing pass asks ``lower`` first for every tensor op: it returns the statements of an
accumulator (its fragment's zeroing, or one ``Mma`` per instruction tile), of a shared tile written
by ``stmatrix`` from an accumulator's fragment layout, and nothing for a tensor the stmatrix
statements compute themselves, and of a rescaled sum an accumulator accumulates into in place (its registers
zeroed once, and its step the rescale of each register by the scale of its row, from the second term of its summed
axis on: the matmul adds the term); None for any other op. The ``mma`` analysis says how each matmul is
issued (its instruction, operand layouts and fragment readers); ``indexing_exprs``, where elements are.
No predicate on an ``Mma``: TMA filled out-of-bounds operand elements with zeros.
"""

from __future__ import annotations

from fusion_ir import IterDomain, MemoryType, TensorView
from fusion_ir.scalar import Val

from . import index_math
from .analysis import Analyses
from .analysis.mma import OperandLayout, StagedStore
from .errors import LoweringError
from .indexing_exprs import (
    cast_to,
    compute_value,
    const,
    guarded,
    own_indices,
    predicate,
    read_index,
    rescale,
    write_index,
)
from .kernel_ir import (
    Allocate,
    Assign,
    Buffer,
    ForLoop,
    LdMatrix,
    Load,
    MatrixDescriptor,
    Mma,
    Node,
    RegisterFragment,
    StMatrix,
    TensorOp,
    TensorOpKind,
    substitute,
)

MATRICES = 4        # an epilogue's stmatrix / ldmatrix moves four 8 x 8 matrices: 2 column blocks x 2 row halves


def lower(op: TensorOp, a: Analyses, idx: dict[IterDomain, Val]) -> list[Node] | None:
    """The statements of ``op`` when a tensor-core matmul or its staged epilogue owns it, else None."""
    tv = op.tv
    if tv in a.mma.tiles:
        return _lower_mma(op, a, idx)
    if tv in a.mma.staged:
        return _lower_stmatrix(op, a)
    if tv in a.mma.in_place:
        return _lower_rescale(op, a, idx)
    if a.mma.computed_by_stmatrix(tv):
        return []       # computed per stmatrix instruction (_lower_stmatrix)
    return None


def _lower_mma(op: TensorOp, a: Analyses, idx: dict[IterDomain, Val]) -> list[Node]:
    """A wgmma accumulator: its init zeroes the thread's fragment registers; its compute is one
    ``Mma`` at the instruction's origin (every Mma axis index zero), with descriptors pointing at
    the operands' elements there, or, for an A operand in registers, the registers of its k-step. No predicate: TMA filled out-of-bounds operand elements with zeros."""
    tile = a.mma.tiles[op.tv]
    acc = a.buffers.buffers[op.tv]
    origin = {a.ids.group(i).index.name: Val.const(0) for i in (tile.m, tile.n, tile.k)}
    at = {i: v.substitute(origin) for i, v in idx.items()}
    if op.kind is TensorOpKind.Init:
        r = Val.symbol(f"r{tile.fragment_symbol}")
        at[tile.fragment] = r
        zero = Assign(acc, write_index(a, op.tv, at), const(0.0, acc.dtype))
        return [ForLoop(r, Val.const(0), Val.const(tile.registers), (zero,), label="fragment", unroll=True)]
    if op.kind is not TensorOpKind.Compute:
        raise LoweringError(f"internal: T{op.tv.name} is a wgmma accumulator; no {op.kind.value} step")
    at[tile.fragment] = Val.const(0)      # accumulated in place: ``acc`` is the rescaled sum's buffer (``buffers``)

    def descriptor(layout) -> MatrixDescriptor:
        # an operand axis exactly mapped to an Mma axis (an M-major A's 64-row chunk is M64) reads that axis's
        # index, which is the instruction's origin too
        start = read_index(a, layout.tv, op.tv, at, swizzled=False).substitute(origin)
        return MatrixDescriptor(a.buffers.buffers[layout.tv], start, layout.leading_bytes, layout.stride_bytes,
                                layout.swizzle, layout.mn_major)

    def operand_a() -> MatrixDescriptor | RegisterFragment:
        if isinstance(tile.a, OperandLayout):
            return descriptor(tile.a)
        # in registers: the k-step's registers of the A fragment, from the column of K the instruction starts at
        k = at[op.tv.root[-1]].substitute(origin)
        return RegisterFragment(a.buffers.buffers[tile.a.tv], tile.a.first_register(k))

    return [Mma(acc, write_index(a, op.tv, at), operand_a(), descriptor(tile.b), tile.shape, tile.dtype)]


def _lower_rescale(op: TensorOp, a: Analyses, idx: dict[IterDomain, Val]) -> list[Node]:
    """A rescaled sum whose registers a wgmma accumulator accumulates into: its init zeroes every register of the
    fragment (no predicate: the wgmma writes them all); its step, which the loop nest put before the matmul's
    loops, multiplies the register by the scale of its row, except at the first term of the summed axis (the
    total is still zero, as the first scale multiplies zero: ``RescaledSumOp``)."""
    tv = op.tv
    total = a.buffers.buffers[tv]
    index = write_index(a, tv, idx)
    if op.kind is TensorOpKind.Init:
        return [Assign(total, index, const(0.0, total.dtype))]
    if op.kind is not TensorOpKind.Compute:
        raise LoweringError(f"internal: T{tv.name} is a rescaled sum accumulated in place; no {op.kind.value} step")
    after_first = idx[tv.root[tv.definition.axis]].gt(0)
    cond = predicate(a, tv, idx, True, MemoryType.Local).logical_and(after_first)
    return guarded(cond, [rescale(a, tv, idx, total, index)])


def _lower_stmatrix(op: TensorOp, a: Analyses) -> list[Node]:
    """The shared tile written from its source's fragment registers: per 64-row piece and pair of 8-column
    blocks, one ``stmatrix.x4`` per warp. Its four matrices are the blocks (2 i2, 2 i2 + 1) x the row halves
    (j = 0, 1): registers ``4 i + 2 j + c`` of the fragment, 8 in a row from ``8 i2``. Lane ``l`` addresses
    row ``l % 8`` of matrix ``l / 8``: the row the thread ``32 warp + 4 (l % 8)`` holds, as the fragment
    layout says, at column pair 0. A tile laid out with the fragment's rows contiguous (``StagedStore.trans``: the
    accumulator's rows run along the output's columns) is written by ``stmatrix.trans``: lane ``l`` then addresses
    column ``l % 8`` of matrix ``l / 8``, the element of its first row at that column."""
    staged = a.mma.staged[op.tv]
    source, read = staged.source, staged.fragment
    src_idx = own_indices(a, source)
    loops = []
    env: dict[str, Val] = {}
    for k, piece in enumerate(staged.pieces):
        sym = Val.symbol(f"p{source.name}_{k}")
        env[a.ids.group(piece).index.name] = sym
        loops.append((sym, piece.extent))
    pair = Val.symbol(f"q{source.name}")
    loops.append((pair, Val.const(read.i.extent.const_value() // 2)))
    sym_of = {ax: a.ids.group(ax).index.name for ax in (read.i, read.j, read.c)}

    def register(di: int, j: Val | int, c: int) -> dict[str, Val]:
        """The loop indices naming register ``4 (2 pair + di) + 2 j + c`` of the fragment."""
        return {**env, sym_of[read.i]: pair * 2 + di, sym_of[read.j]: Val.const(j) if isinstance(j, int) else j,
                sym_of[read.c]: Val.const(c)}

    def source_indices(at: dict[str, Val]) -> dict[IterDomain, Val]:
        return {i: v.substitute(at) for i, v in src_idx.items()}

    src_index = write_index(a, source, source_indices(register(0, 0, 0)))
    # lane l addresses row l % 8 of matrix l / 8 = (column block 2 pair + m / 2, row half m % 2); transposed, its
    # column l % 8 (at the matrix's first row: thread 32 warp + (l % 8) / 2, element (l % 8) % 2 of its pair)
    tid = Val.symbol(a.ids.group(staged.thread).index.name)
    lane = tid % 32
    matrix = lane // 8
    if staged.trans:
        addressed = {**register(0, matrix % 2, 0), sym_of[read.c]: lane % 8 % 2, sym_of[read.i]: pair * 2 + matrix // 2,
                     tid.name: (tid // 32) * 32 + lane % 8 // 2}
    else:
        addressed = {**register(0, matrix % 2, 0), sym_of[read.i]: pair * 2 + matrix // 2,
                     tid.name: (tid // 32) * 32 + (lane % 8) * 4}
    row_col = source_indices(addressed)
    tile = op.tv
    t_idx = {c_root: row_col[p] for c_root, p in tile.definition.root_map(source).items()}
    dst_index = write_index(a, tile, index_math.forward(tile, t_idx, extent=a.ids.index_extent(tile)))
    body: list[Node] = []
    if staged.per_instruction:
        # the 8 registers this stmatrix stores, computed from the accumulators (and a fused epilogue's
        # tensors, inlined into the expression) right before it; an epilogue that reads global memory (a
        # bias) reads it only inside the tensor: the TMA store leaves out what lies outside
        reads_global = any(p.memory_type is MemoryType.Global for t in staged.inlined | {source}
                           for p in t.producers())
        fragments = _matrix_loads(a, staged, addressed, body)
        for di in (0, 1):
            for j in (0, 1):
                for c in (0, 1):
                    at = register(di, j, c)
                    k_idx = source_indices(at)
                    # the elements ldmatrix loaded: register 4 di + 2 j + c, as the stmatrix's
                    loaded = {p: Load(frag, Val.const(4 * di + 2 * j + c)) for p, frag in fragments.items()}
                    # a producer read through a shared loop's index (the 64-row piece) sees it renamed too
                    value = substitute(cast_to(compute_value(a, source, k_idx, staged.inlined, loaded), source.dtype),
                                       at)
                    assign = [Assign(a.buffers.buffers[source], write_index(a, source, k_idx), value)]
                    if reads_global:
                        assign = guarded(predicate(a, source, k_idx, False, MemoryType.Local).substitute(at), assign)
                    body.extend(assign)
    body.append(StMatrix(a.buffers.buffers[tile], dst_index, a.buffers.buffers[source], src_index, MATRICES,
                         staged.trans))
    inner: tuple[Node, ...] = tuple(body)
    for sym, extent in reversed(loops):
        inner = (ForLoop(sym, Val.const(0), extent, inner, label="stmatrix", unroll=True),)
    return list(inner)


def _matrix_loads(a: Analyses, staged: StagedStore, addressed: dict[str, Val],
                  body: list[Node]) -> dict[TensorView, Buffer]:
    """For each shared tile the epilogue reads in the fragment's order (``StagedStore.matrix_reads``): a register
    array of its 8 elements and one ``ldmatrix.x4`` into it, appended to ``body``. Lane ``l`` addresses the row of
    matrix ``l / 8`` that the stmatrix after it stores from: the tile's element its reader reads for the register
    ``addressed`` names (column pair 0), the start of 8 columns in a row."""
    fragments: dict[TensorView, Buffer] = {}
    for p, reader in staged.matrix_reads:
        buf = a.buffers.buffers[p]
        frag = Buffer(f"{buf.name}_frag", buf.dtype, MemoryType.Local, Val.const(2 * MATRICES))
        row = read_index(a, p, reader, own_indices(a, reader)).substitute(addressed)
        body += [Allocate(frag), LdMatrix(frag, Val.const(0), buf, row, MATRICES)]
        fragments[p] = frag
    return fragments
