"""Shared-memory layouts: where element ``e`` of a buffer's row-major order lives.

The one swizzle function of the package. Indexing uses it to read a swizzled buffer, the
simulator to lay out the bytes a TMA copy writes, and the executor picks the tensor map's
swizzle mode from the same ``SmemSwizzle`` value, so the three agree by construction.

The TMA swizzle of span ``S`` bytes (32, 64 or 128) treats shared memory as rows of ``S``
bytes made of 16-byte chunks; in the ``k``-th row of each group of ``S / 16`` rows, chunk ``c``
is stored at chunk ``c XOR k``. On byte offsets from a buffer aligned to the pattern's repeat
(``SmemSwizzle.alignment``) that is ``b XOR (((b // 128) % (S / 16)) * 16)``: bits 7.. of the
offset select the row in the group, bits 4.. the chunk. Bytes inside a 16-byte chunk never move.
"""

from __future__ import annotations

from typing import TypeVar

from fusion_ir.scalar import Val
from fusion_ir.types import SmemSwizzle

CHUNK_BYTES = 16
ROW_GROUP_BYTES = 128   # the row index of the XOR pattern comes from byte-offset bits 7 and up

IndexLike = TypeVar("IndexLike", Val, int)


def swizzle_index(index: IndexLike, swizzle: SmemSwizzle, element_bytes: int) -> IndexLike:
    """Element position of row-major element ``index`` in a buffer laid out with ``swizzle``.

    Works on ``Val`` index expressions (indexing), Python ints and numpy integer arrays
    (simulator). ``element_bytes`` must divide 16, so an element never straddles a chunk.
    """
    if swizzle is SmemSwizzle.NONE:
        return index
    if CHUNK_BYTES % element_bytes:
        raise ValueError(f"a {swizzle.name} swizzle moves 16-byte chunks; {element_bytes}-byte elements do not "
                         f"divide a chunk")
    rows_in_group = swizzle.span // CHUNK_BYTES
    per_row = ROW_GROUP_BYTES // element_bytes          # elements per 128-byte step of the offset
    per_chunk = CHUNK_BYTES // element_bytes
    if isinstance(index, Val):
        return index.bit_xor((index // per_row) % rows_in_group * per_chunk)
    return index ^ ((index // per_row) % rows_in_group * per_chunk)


# ------------------------------------------------------------------ wgmma layouts
CORE_ROWS = 8         # a core matrix is 8 rows of 16 bytes


def wgmma_operand_offset(mn: IndexLike, k: IndexLike, *, element_bytes: int, swizzle: SmemSwizzle,
                         mn_major: bool, leading_bytes: int, stride_bytes: int) -> IndexLike:
    """Byte offset, from a matrix descriptor's start address and before the swizzle, of operand
    element (mn, k): mn counts rows of A (M) or columns of B (N), k counts along K.

    The canonical layouts of the PTX ISA's wgmma matrix descriptors (CUTLASS writes the same
    ones as ``Swizzle o ((..),(..)):((..),(..))`` in ``mma_sm90_desc.hpp``). With a swizzle of span
    ``S`` bytes and ``E = S / element_bytes`` elements per swizzle row:

    - K-major: a row of ``S`` bytes holds consecutive k of one mn; rows of consecutive mn follow
      at ``S`` bytes in groups of 8; groups of 8 rows are ``stride_bytes`` apart. One wgmma's
      16 k lie in one row (the leading byte offset is unused).
    - MN-major: a row of ``S`` bytes holds ``E`` consecutive mn of one k; rows of consecutive k
      follow at ``S`` bytes in groups of 8; groups of 8 k are ``stride_bytes`` apart and blocks
      of ``E`` mn are ``leading_bytes`` apart.
    - no swizzle (``S`` = 16, core matrices of 8 x 16 bytes): K-major: the two 8-wide halves of k
      are ``leading_bytes`` apart and groups of 8 mn ``stride_bytes``; MN-major: groups of
      ``16 / element_bytes`` mn are ``stride_bytes`` apart and groups of 8 k ``leading_bytes``.

    The hardware then swizzles the absolute address (``swizzle_index`` on a buffer aligned to the
    swizzle's repeat).
    """
    e = element_bytes
    if swizzle is SmemSwizzle.NONE:
        per = CHUNK_BYTES // e
        if mn_major:
            return (mn % per) * e + (mn // per) * stride_bytes + (k % CORE_ROWS) * CHUNK_BYTES \
                + (k // CORE_ROWS) * leading_bytes
        return (k % per) * e + (k // per) * leading_bytes + (mn % CORE_ROWS) * CHUNK_BYTES \
            + (mn // CORE_ROWS) * stride_bytes
    span = swizzle.span
    if mn_major:
        per_row = span // e
        return (mn % per_row) * e + (mn // per_row) * leading_bytes + (k % CORE_ROWS) * span \
            + (k // CORE_ROWS) * stride_bytes
    return k * e + (mn % CORE_ROWS) * span + (mn // CORE_ROWS) * stride_bytes


def wgmma_accumulator(thread: IndexLike, register: IndexLike) -> tuple[IndexLike, IndexLike]:
    """(row, column) in the 64 x N tile of accumulator ``register`` (0 .. N/2 - 1) of ``thread``
    (0 .. 127) of the warp group, for every ``wgmma.m64nNk16`` with f32 accumulators.

    Warp ``w`` owns rows 16w .. 16w + 15; lane ``l`` holds rows ``16w + l / 4`` and 8 below it,
    columns ``2 (l % 4)`` and the next one of every 8-wide column block:
    register ``r`` is column block ``r / 4``, row half ``(r / 2) % 2``, column ``r % 2``.
    """
    warp, lane = thread // 32, thread % 32
    row = warp * 16 + lane // 4 + (register // 2) % 2 * 8
    col = register // 4 * 8 + lane % 4 * 2 + register % 2
    return row, col
