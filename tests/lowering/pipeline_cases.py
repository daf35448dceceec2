"""Every pipeline schedule the tests exercise, by name, with input shapes (sizes no box divides).

Shared by the simulator tests, the nvcc compile gate and the GPU tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import examples
from fusion_ir import (DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, Pipelined, SmemSwizzle,
                       WarpSpecialized, ops)

STAGES_PREFETCH = [(s, p) for s in range(2, 7) for p in range(s)]
# TMA boxes with a row of exactly the swizzle span: rows, columns, dtype, swizzle
SWIZZLED_BOXES = [(8, 32, DataType.Float, SmemSwizzle.B128), (64, 64, DataType.Half, SmemSwizzle.B128),
                  (8, 16, DataType.Float, SmemSwizzle.B64), (8, 8, DataType.Float, SmemSwizzle.B32)]

Case = tuple[str, Callable[[], Fusion], list[list[tuple[int, ...]]]]


def shared_set_pipeline(stages: int, prefetch: int) -> Fusion:
    """Plain loads into shared memory, read by other threads: block syncs order the stages."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    out.split(0, 128)
    out.split(0, 8)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    tile = x.cache_after()
    tile.set_memory_type(MemoryType.Shared)
    tile.compute_at(out, 2)
    tile.split(-1, 32)                  # another thread mapping: readers need writers of other threads
    tile.axis(2).parallelize(ParallelType.TIDx)
    tile.circular_buffer(stages, prefetch)
    return fusion


def cross_thread_cp_async(stages: int = 3) -> Fusion:
    """A cp.async pipeline whose readers use other threads' copies: syncs matter."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    out.split(0, 128)
    out.split(0, 8)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.CpAsync)
    tile.compute_at(out, 2)
    tile.split(-1, 32, inner_split=False)   # thread t copies elements 4t .. 4t + 3 of a 128-element tile
    tile.axis(2).parallelize(ParallelType.TIDx)
    tile.circular_buffer(stages)
    return fusion


def pipeline_cases() -> Iterator[Case]:
    add, seed = examples.load("tma_add"), examples.load("seed_double_buffer")
    two = lambda n: [(n,), (n,)]  # noqa: E731
    for s, p in STAGES_PREFETCH:
        yield (f"tma_add_s{s}_p{p}", lambda s=s, p=p: add.build(s, p, boxes=1, tiles=8),
               [two(1), two(2049), two(7000)])
        yield (f"tma_add_s{s}_p{p}_war_mbarrier",
               lambda s=s, p=p: add.build(s, p, boxes=1, tiles=8, war_mbarrier=True), [two(1), two(2049), two(7000)])
        yield (f"seed_s{s}_p{p}", lambda s=s, p=p: seed.build(s, p), [[(32 * s,)], [(32 * s + 5,)], [(1000,)]])
    for s in (2, 3, 4):
        yield (f"tma_tile_2d_s{s}", lambda s=s: examples.load("tma_tile_2d").build(s),
               [[(9, 32 * s + 4)], [(17, 300)]])
    for s, p in [(2, 1), (3, 1), (4, 3), (5, 0)]:
        yield (f"tma_reduction_s{s}_p{p}", lambda s=s, p=p: examples.load("tma_reduction").build(s, p),
               [[(3, 128 * s)], [(5, 1000)], [(2, 3000)]])
    for s, p in [(2, 1), (3, 2), (3, 0), (4, 2), (6, 5)]:
        yield (f"cp_async_s{s}_p{p}", lambda s=s, p=p: examples.load("cp_async_pipeline").build(s, p),
               [[(4,)], [(5000,)]])
    yield "cp_async_vector1", lambda: examples.load("cp_async_pipeline").build(3, 2, vector=1), [[(1,)], [(3001,)]]
    yield "cp_async_cross_thread", cross_thread_cp_async, [[(1,)], [(5000,)]]
    for s, p in [(2, 1), (3, 1), (4, 0)]:
        yield (f"registers_s{s}_p{p}", lambda s=s, p=p: examples.load("register_double_buffer").build(s, p),
               [[(1,)], [(9000,)]])
    for s, p in [(2, 0), (2, 1), (3, 2)]:
        yield f"shared_set_s{s}_p{p}", lambda s=s, p=p: shared_set_pipeline(s, p), [[(1,)], [(5000,)]]
    swizzle = examples.load("tma_swizzle")
    for rows, cols, dtype, mode in SWIZZLED_BOXES:
        name = f"tma_swizzle_{mode.name.lower()}_{rows}x{cols}_{dtype.short_name}"
        per_row = 16 // dtype.size    # TMA row strides are multiples of 16 bytes
        yield (name, lambda r=rows, c=cols, d=dtype, m=mode: swizzle.build(r, c, d, m),
               [[(rows + 3, 3 * cols + per_row)], [(2 * rows - 1, 2 * cols - per_row)]])


# ------------------------------------------------------------------ pipelines shorter than their stages
SHORT_KINDS = ("tma", "tma_war_mbarrier", "cp_async", "shared", "registers", "warp_specialized",
               "persistent", "persistent_war_mbarrier", "inner_pipelined", "inner_warp_specialized")
SHORT_STAGES = 4
SHORT_TILE = 128
PERSISTENT_BLOCKS = 3


def short_pipeline(kind: str, stages: int = SHORT_STAGES) -> Fusion:
    """A pipeline over a symbolic number of tiles, one of each circular-buffer type (``SHORT_KINDS``).

    ``tma`` .. ``warp_specialized``: ``x + 1`` over ``ceilDiv(i0, 128)`` tiles in one block.
    ``persistent*``: a copy whose persistent tile loop (``PERSISTENT_BLOCKS`` blocks) is the pipeline.
    ``inner_*``: row sums whose pipeline is the k loop inside a persistent row loop (warp-specialized:
    the pipeline runs across both loops)."""
    if kind.startswith("persistent"):
        return _persistent_copy(stages, kind == "persistent_war_mbarrier")
    if kind.startswith("inner"):
        return _row_sum(stages, kind == "inner_warp_specialized")
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    out.split(0, SHORT_TILE)                                 # [ceilDiv(i0, 128), 128]
    out.axis(1).parallelize(ParallelType.TIDx)
    cb_type = (WarpSpecialized(on=ParallelType.TIDy) if kind == "warp_specialized"
               else Pipelined(uses_mbarrier_for_war=kind == "tma_war_mbarrier"))
    if kind in ("tma", "tma_war_mbarrier", "warp_specialized"):
        tile = x.cache_after(LoadStoreOpType.TMA)
        tile.compute_at(out, 1)
        tile.axis(1).parallelize(ParallelType.Bulk)
    elif kind == "cp_async":
        tile = x.cache_after(LoadStoreOpType.CpAsync)
        tile.compute_at(out, 1)
        tile.split(-1, 4, inner_split=False)                 # each thread copies 4 elements others read
        tile.axis(2).parallelize(ParallelType.TIDx)
    elif kind == "shared":
        tile = x.cache_after()
        tile.set_memory_type(MemoryType.Shared)
        tile.compute_at(out, 1)
        tile.split(-1, 32)                                   # 4 writer threads, 128 readers
        tile.axis(2).parallelize(ParallelType.TIDx)
    else:
        assert kind == "registers", kind
        tile = x.cache_after()
        tile.compute_at(out, 1)
        tile.axis(1).parallelize(ParallelType.TIDx)
    tile.circular_buffer(stages, type=cb_type)
    return fusion


def _persistent_copy(stages: int, war_mbarrier: bool) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.set(x)
        fusion.add_output(out)
    out.split(0, 32)
    out.split(0, PERSISTENT_BLOCKS)                          # [ceilDiv(ceilDiv(i0, 32), 3), 3 (BIDx), 32]
    out.axis(1).parallelize(ParallelType.BIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    tile.circular_buffer(stages, type=Pipelined(uses_mbarrier_for_war=war_mbarrier))
    return fusion


def _row_sum(stages: int, warp_specialized: bool) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.split(1, 128)
    out.split(0, PERSISTENT_BLOCKS)                          # [ceilDiv(i0, 3), 3 (BIDx), r ceilDiv(i1, 128), r 128]
    out.axis(1).parallelize(ParallelType.BIDx)
    out.axis(3).parallelize(ParallelType.TIDx)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.compute_at(out, 3)
    tile.axis(3).parallelize(ParallelType.Bulk)
    tile.circular_buffer(stages, type=WarpSpecialized(on=ParallelType.TIDy) if warp_specialized
                         else Pipelined(uses_mbarrier_for_war=True))
    return fusion


def short_pipeline_shapes(kind: str, trips: int) -> list[tuple[int, ...]]:
    """Input shapes that give ``kind``'s pipeline ``trips`` iterations (per block; per row for ``inner_*``),
    the last tile partly past the end."""
    if kind.startswith("persistent"):
        return [(32 * PERSISTENT_BLOCKS * trips - 7,)]
    if kind.startswith("inner"):
        return [(5, 128 * trips - 4)]                        # rows of 16-byte multiples (TMA strides)
    return [(SHORT_TILE * trips - 5,)]


def short_trip_counts(stages: int = SHORT_STAGES) -> tuple[int, ...]:
    return (1, 2, stages - 1, stages, stages + 1)
