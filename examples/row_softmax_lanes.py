"""A row softmax with a row's columns over the 4 lanes of a quad and its per-row values in every lane's registers:
``e = exp(x * scale - max(x * scale, -1))``, ``out = e * (1 / sum(e, -1))`` (x ``[M, C]``, float).

8 rows per warp, 8 warps per block: thread ``t`` holds row ``t / 4`` of its warp's rows, columns
``(t % 4) * C / 4 ..`` (``TIDx = merge(rows, lanes)``). The row max and the row sum reduce a thread's registers,
then the quad's lanes by ``shfl.xor`` (``merge_lanes``), so every lane of the quad has them. The per-row values
between (``max * scale`` and ``1 / sum``) are laid out as the rows with a loop-only broadcast of the quad's 4 lanes
(``broadcast_loop(axis, 4)`` merged into TIDx): each lane computes its row's value in its registers, where it reads
it back for its columns. No shared memory, no barrier, no thread idle while one computes a row's value. Rows past M
(the last block's) are predicated off.
"""

from __future__ import annotations

import numpy as np

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, TensorView, inline_most, ops

DESCRIPTION = "row softmax over the 4 lanes of a quad: the row values by shuffles, per-row math in every lane (broadcast_loop)"
M, C = 100, 32
SIZES = [[(M, C)]]       # build()'s fixed sizes
SCALE = 0.5
ROWS = 64                # rows per block: 8 per warp
LANES = 4                # the lanes of a quad, which share a row


def fusion_of(m: int = M, c: int = C) -> Fusion:
    """The fusion as written, unscheduled."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(m, c), dtype=DataType.Float)
        last = [False, True]
        s = ops.mul(x, SCALE)
        row_max = ops.max(x, -1)
        scaled_max = ops.mul(row_max, SCALE)                  # a per-row value
        e = ops.exp(ops.sub(s, ops.broadcast(scaled_max, last)))
        inv = ops.div(1.0, ops.sum(e, -1))                    # a per-row value
        fusion.add_output(ops.mul(e, ops.broadcast(inv, last)))
    return fusion


def reference(x: np.ndarray) -> np.ndarray:
    s = np.asarray(x, dtype=np.float64) * SCALE
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _over_lanes(tv: TensorView) -> None:
    """``[M, C]`` -> ``[M / 64 (BIDx), 64 rows x 4 lanes (TIDx), C / 4 (UR)]``; of a row reduction, the lanes a lane
    group (``merge_lanes``)."""
    tv.split(0, ROWS)                                 # [Mo, 64, C]
    tv.split(2, LANES, inner_split=False)             # [Mo, 64, 4, C / 4]
    (tv.merge_lanes if tv.loop[2].is_reduction else tv.merge)(1, 2)
    tv.axis(0).parallelize(ParallelType.BIDx)
    tv.axis(1).parallelize(ParallelType.TIDx)
    tv.axis(2).parallelize(ParallelType.Unroll)


def _per_row(tv: TensorView) -> None:
    """``[M]`` -> ``[M / 64 (BIDx), 64 rows x b4 (TIDx)]``: ``b4`` a loop-only broadcast, the quad's lanes."""
    tv.split(0, ROWS)                                 # [Mo, 64]
    tv.broadcast_loop(2, LANES)                       # [Mo, 64, b4]
    tv.merge(1, 2)
    tv.axis(0).parallelize(ParallelType.BIDx)
    tv.axis(1).parallelize(ParallelType.TIDx)


def schedule(fusion: Fusion) -> Fusion:
    """Schedule ``fusion_of(...)`` (in place) as described above."""
    tensors = [tv for tv in fusion.used_tensors() if not tv.is_input]
    for tv in tensors:
        if not tv.is_output:
            tv.set_memory_type(MemoryType.Local)
        if len(tv.logical) == 1:
            _per_row(tv)
        elif not any(i.is_broadcast for i in tv.logical):
            _over_lanes(tv)
    for tv in tensors:                                # the row values broadcast back: their consumer's layout
        if any(i.is_broadcast for i in tv.logical):
            (consumer,) = tv.consumers()
            tv.transform_like(consumer)
            tv.parallelize_like(consumer)
    inline_most(fusion)
    return fusion


def build(m: int = M, c: int = C) -> Fusion:
    return schedule(fusion_of(m, c))
