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
