"""Every pipeline schedule the tests exercise, by name, with input shapes (sizes no box divides).

Shared by the simulator tests, the nvcc compile gate and the GPU tier.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import examples
from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, SmemSwizzle, ops

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
