"""Stream-K: the (output tile x K tile) iterations of a reduction, flattened and dealt out to a fixed grid.

A tensor that reduces over a serial K-tile axis inside a serial tile axis (``[T, Ko, ...]``: a matmul's
accumulator) can run as stream-K (``TensorView.stream_k``): the ``I = T * Kt`` iterations (``Kt`` the K tiles of
a tile) are flattened in tile-major order and block ``b`` of ``G`` blocks takes the contiguous range
``[start(b), start(b + 1))``, ``start(b) = b * I / G`` (``G`` is the grid, at most ``I``: fewer iterations than
blocks leave the extra blocks an empty range). A block walks its range as *segments*: the tile loop runs over the
tiles its range touches, and the K loop over the K tiles ``[k_begin(t), k_end(t))`` of each. The segments of one
tile belong to consecutive blocks ``first_block(t) ... last_block(t)``; a tile whose segment covers all its K
tiles is finished by that block alone, the others are summed in block order (the K order) by whichever of
those blocks finishes last (``lowering/stream_k.py``).

This module holds the index math, one function per quantity, as ``Val`` expressions of the block index, the tile
index and the two extents: the loop nest (loop bounds), the fix-up (which blocks, which slots) and the tests all
read it from here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .iter_domain import IterDomain
from .scalar import IntLike, Val, as_val, ceil_div, vmax, vmin


@dataclass(frozen=True)
class StreamK:
    """A stream-K decomposition (``TensorView.stream_k``): ``tiles`` (the serial tile axis) and ``k`` (the serial
    K-tile reduction axis inside it) of ``tensor``'s loop domain, flattened and dealt to ``blocks`` blocks along
    blockIdx.x."""

    tensor_name: int
    tiles: IterDomain
    k: IterDomain
    blocks: int

    def space(self, tiles: IntLike | None = None, k_tiles: IntLike | None = None) -> StreamKSpace:
        """The index math over this decomposition's extents (or the given ones)."""
        return StreamKSpace(as_val(self.tiles.extent if tiles is None else tiles),
                            as_val(self.k.extent if k_tiles is None else k_tiles), self.blocks)


@dataclass(frozen=True)
class StreamKSpace:
    """``tiles x k_tiles`` iterations dealt to ``blocks`` blocks; every method returns a ``Val`` (C integer
    division: the operands are never negative)."""

    tiles: Val
    k_tiles: Val
    blocks: int

    @property
    def iterations(self) -> Val:
        return self.tiles * self.k_tiles

    @property
    def grid(self) -> Val:
        """The blocks that take iterations: ``min(blocks, iterations)``, so every one of them takes at least one."""
        return vmin(self.blocks, self.iterations)

    def start(self, block: IntLike) -> Val:
        """The first iteration of ``block``'s range (``iterations`` for a block past ``grid``)."""
        i = self.iterations
        return vmin(i, (as_val(block) * i) // self.grid)

    def end(self, block: IntLike) -> Val:
        return self.start(as_val(block) + 1)

    def tile_begin(self, block: IntLike) -> Val:
        return self.start(block) // self.k_tiles

    def tile_end(self, block: IntLike) -> Val:
        return ceil_div(self.end(block), self.k_tiles)

    def k_begin(self, block: IntLike, tile: IntLike) -> Val:
        first = as_val(tile) * self.k_tiles
        return vmax(self.start(block), first) - first

    def k_end(self, block: IntLike, tile: IntLike) -> Val:
        first = as_val(tile) * self.k_tiles
        return vmin(self.end(block), first + self.k_tiles) - first

    def whole(self, block: IntLike, tile: IntLike) -> Val:
        """``block``'s segment of ``tile`` covers all its K tiles: it finishes the tile alone."""
        return self.k_begin(block, tile).eq(0).logical_and(self.k_end(block, tile).eq(self.k_tiles))

    def block_of(self, iteration: IntLike) -> Val:
        """The block whose range holds ``iteration``: the largest ``b`` with ``start(b) <= iteration``."""
        return ((as_val(iteration) + 1) * self.grid - 1) // self.iterations

    def first_block(self, tile: IntLike) -> Val:
        return self.block_of(as_val(tile) * self.k_tiles)

    def last_block(self, tile: IntLike) -> Val:
        return self.block_of(as_val(tile) * self.k_tiles + self.k_tiles - 1)

    def segments(self, tile: IntLike) -> Val:
        """How many blocks hold a segment of ``tile`` (1: one block finishes it alone)."""
        return self.last_block(tile) - self.first_block(tile) + 1

    def slot(self, block: IntLike, tile: IntLike) -> Val:
        """Where ``block`` keeps its partial of ``tile``: 0 when the segment starts the block's range, 1 when it
        ends it (a block holds at most two partial segments, its first and its last; one inside a single tile is
        its first)."""
        return vmin(1, vmax(0, as_val(tile) * self.k_tiles - self.start(block)))
