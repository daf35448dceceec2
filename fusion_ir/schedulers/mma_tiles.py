"""Operand tiles of the one-warp-group wgmma schedules (the tensor-core attention, and the hand-scheduled
``matmul_b2b``, ``matmul_rescaled`` and ``matmul_row_softmax`` examples): how a TMA-loaded B tile with N
contiguous is laid out in 128-byte swizzle rows."""

from __future__ import annotations

from ..tensor_view import TensorView
from ..types import ParallelType
from .matmul_params import swizzle_by_span


def n_major_tile(tv: TensorView, mn: int, broadcast: int, k: int, at: int) -> None:
    """A B operand tile ``[.., K, N]`` with N contiguous: chunks of 64 columns (one 128-byte swizzle row),
    ``[.., Nc (unrolled), b, K (Bulk), 64 (Bulk)]`` from position ``at``, a TMA box per chunk."""
    columns = tv.loop[mn].extent.const_value()
    w = min(columns, 128 // tv.dtype.size)
    b, kk = tv.loop[broadcast], tv.loop[k]
    tv.split(mn, w)
    order = [tv.loop[mn], b, kk, tv.loop[mn + 1]]
    tv.reorder({tv.loop.index(axis): at + j for j, axis in enumerate(order)})
    tv.set_swizzle(swizzle_by_span()[w * tv.dtype.size])
    tv.axis(at).parallelize(ParallelType.Unroll)
    tv.axis(at + 2).parallelize(ParallelType.Bulk)
    tv.axis(at + 3).parallelize(ParallelType.Bulk)


def k_major_tile(tv: TensorView, at: int) -> None:
    """An operand tile with K contiguous, ``[.., rows (Bulk), TK (Bulk)]`` from position ``at``: one TMA box per
    stage, its rows of TK elements swizzled by their span."""
    tv.axis(at).parallelize(ParallelType.Bulk)
    tv.axis(at + 1).parallelize(ParallelType.Bulk)
    tv.set_swizzle(swizzle_by_span()[tv.loop[at + 1].extent.const_value() * tv.dtype.size])


def mma_k_loop(acc: TensorView, at: int, tk: int, k_step: int) -> None:
    """A one-warp-group accumulator whose axes from ``at`` are ``[M64, N, K]``: ``[.., Ko, Kr (UR), M64, N, K16
    (Mma)]``, the K loop over tiles of ``tk`` outside the unrolled wgmma k-steps of ``k_step``."""
    acc.split(at + 2, tk).split(at + 3, k_step)            # [.., M64, N, Ko, Kr, K16]
    acc.reorder({at: at + 2, at + 1: at + 3, at + 2: at, at + 3: at + 1})   # [.., Ko, Kr, M64, N, K16]
    acc.axis(at + 1).parallelize(ParallelType.Unroll)
    for axis in (at + 2, at + 3, at + 4):
        acc.axis(axis).parallelize(ParallelType.Mma)
