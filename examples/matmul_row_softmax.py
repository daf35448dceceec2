"""A row softmax of a matmul in one wgmma kernel: ``cast(e / sum(e, -1), bf16)`` with ``e = exp(s - max(s, -1))``
and ``s = a @ b`` (a ``[M, K]``, b ``[K, N]``, bf16; s in fp32), N one wgmma tile (64, 128 or 256 columns).

A hand schedule of the simplest arrangement, as ``matmul_b2b`` is: one compute warp group (128 threads on TIDx),
one block per 64-row tile of M (BIDx); ``s`` is one ``wgmma.m64nNk16`` per k16 step, walking K in tiles of 64 (a's
``[64, 64]`` and b's ``[64, N]`` tiles TMA-loaded with a 128-byte swizzle, one stage). Every tensor after it is laid
out as the accumulator fragment (``schedule_mma_fragment``), the two row reductions too: ``max(s, -1)`` and
``sum(e, -1)`` reduce a row in registers, each thread its ``N / 4`` registers of the row, then the 4 lanes of the
quad holding the row by two ``shfl.xor`` steps (lane masks 1 and 2: ``merge_lanes`` makes the column pairs a lane
group of TIDx), so every thread ends with the max and the sum of its rows and nothing goes through shared memory.
Rows past M (a ragged last tile) are zero-filled by TMA and never stored.
"""

from __future__ import annotations

import numpy as np

from fusion_ir import (
    DataType,
    Fusion,
    LoadStoreOpType,
    MemoryType,
    ParallelType,
    ScheduleError,
    TensorView,
    inline_most,
    ops,
)
from fusion_ir.reference import round_bf16
from fusion_ir.schedulers import schedule_mma_fragment
from fusion_ir.schedulers.matmul_params import swizzle_by_span
from target import current as current_target

from fusion_ir.schedulers.mma_tiles import k_major_tile, mma_k_loop, n_major_tile

DESCRIPTION = "softmax(a @ b, -1) in one wgmma kernel: the row max and sum of the accumulator by quad shuffles"
SIZES = [[(200, 136), (136, 128)]]      # build()'s fixed sizes: a [M, K], b [K, N]
TOLERANCE = 1e-2   # the result is bf16
TK = 64            # K per TMA tile: one 128-byte swizzle row of bf16
N_TILES = (64, 128, 256)


def input_shapes(m: int, k: int, n: int) -> list[tuple[int, int]]:
    return [(m, k), (k, n)]


def fusion_of(m: int, k: int, n: int) -> Fusion:
    """The fusion as written, unscheduled."""
    fusion = Fusion()
    with fusion:
        a, b = (fusion.add_input(shape=s, dtype=DataType.BFloat16) for s in input_shapes(m, k, n))
        s = ops.matmul(a, b)
        last = [False, True]
        e = ops.exp(ops.sub(s, ops.broadcast(ops.max(s, -1), last)))
        p = ops.div(e, ops.broadcast(ops.sum(e, -1), last))
        fusion.add_output(ops.cast(p, DataType.BFloat16))
    return fusion


def reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The same math in float64 on the inputs as given: ``[M, N]``."""
    s = np.asarray(a, dtype=np.float64) @ np.asarray(b, dtype=np.float64)
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def make_inputs(m: int, k: int, n: int, seed: int) -> list[np.ndarray]:
    """Fresh float32 a and b, normal (as ``torch.randn``) and rounded to values a bf16 holds exactly."""
    rng = np.random.default_rng(seed)
    return [round_bf16(rng.standard_normal(shape)).astype(np.float32) for shape in input_shapes(m, k, n)]


def _copied_by_threads(tile: TensorView) -> None:
    """``[Mo, Ko, M64, TK]`` loaded by the warp group's plain copies into the layout a TMA box would have (its
    allocation domain, which the wgmma descriptors read): ``[Mo, Ko, 64 * TK / 128 (Serial), 128 (TIDx)]``,
    consecutive threads copying consecutive elements of a row; past a's bounds the tile is zero-filled."""
    tile.set_allocation_domain(tile.loop[2:])
    tile.merge(2, 3)
    tile.split(2, current_target().warp_group_size)
    tile.axis(3).parallelize(ParallelType.TIDx)


def schedule(fusion: Fusion) -> Fusion:
    """Schedule ``fusion_of(m, k, n)`` (in place) as described above; N must be one wgmma tile."""
    a, b = fusion.inputs
    out = fusion.outputs[0]
    n = out.logical[1].extent.const_value()
    if n not in N_TILES:
        raise ScheduleError(f"matmul_row_softmax.schedule: axis 1 (N = {n}) of T{out.name} must be one wgmma tile of "
                            f"{', '.join(map(str, N_TILES))} columns: the row max and sum reduce one accumulator "
                            f"fragment in registers, so a row must fit one tile")
    wgmma = current_target().wgmma
    p = out.definition.inputs[0]
    e, lb = p.definition.inputs
    l_sum = lb.definition.inputs[0]
    d = e.definition.inputs[0]
    s, mb = d.definition.inputs
    m_max = mb.definition.inputs[0]
    k_step = wgmma.k_for(DataType.BFloat16.size)
    # TMA needs a's rows at 16-byte strides; else the warp group copies a's tiles itself (plain copies)
    a_by_tma = a.logical[1].extent.const_value() * a.dtype.size % 16 == 0
    with fusion:
        a_s = a.cache_after(LoadStoreOpType.TMA if a_by_tma else LoadStoreOpType.Set)
        b_s = b.cache_after(LoadStoreOpType.TMA)
    for tv in (a_s, b_s):
        tv.set_memory_type(MemoryType.Shared)
    fragment = (m_max, mb, d, e, l_sum, lb, p)
    for tv in (s,) + fragment:
        tv.set_memory_type(MemoryType.Local)

    # s = a @ b: [Mo (BIDx), Ko, Kr (UR), M64, N, K16 (Mma)]
    s.split(0, wgmma.m)                                    # [Mo, M64, N, K]
    mma_k_loop(s, 1, TK, k_step)                           # [Mo, Ko, Kr, M64, N, K16]
    s.axis(0).parallelize(ParallelType.BIDx)
    # a's tile: [Mo, Ko, M64 (Bulk), TK (Bulk)], one box of 64 x 64 per K tile
    a_s.compute_at(s, 2)
    if a_by_tma:
        k_major_tile(a_s, 2)
    else:
        a_s.set_swizzle(swizzle_by_span()[TK * a_s.dtype.size])
        _copied_by_threads(a_s)
    # b's tile, N contiguous: [bMo, Ko, Nc (UR), bM64, TK (Bulk), 64 (Bulk)], a box per 64 columns
    b_s.compute_at(s, 2)                                   # [bMo, Ko, bM64, N, TK]
    n_major_tile(b_s, mn=3, broadcast=2, k=4, at=2)

    # the fragment in registers: [Mo (BIDx), TIDx, N/8, 2, 2]; the row reductions' column pairs a lane group
    for tv in (m_max, d, e, l_sum, p, out):
        tv.split(0, wgmma.m)                               # [Mo, M64, N]
        tv.axis(0).parallelize(ParallelType.BIDx)
        schedule_mma_fragment(tv, 1, vectorize=tv is out)
    # the row results broadcast back: the fragment's layout, the broadcast columns replayed from their consumers
    for broadcast, consumer in ((mb, d), (lb, p)):
        broadcast.transform_like(consumer)
        broadcast.parallelize_like(consumer)
    inline_most(fusion, [s, *fragment, out])
    return fusion


def build(m: int = 200, k: int = 136, n: int = 128) -> Fusion:
    return schedule(fusion_of(m, k, n))
