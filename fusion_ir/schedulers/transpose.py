"""The transpose scheduler (nvFuser's ``TransposeScheduler``): a fusion that permutes one input
(``ops.permute``, ``ops.transpose``; batched or not), then applies pointwise ops of that one tensor (casts,
scalar arithmetic), into one output.

When the permutation moves the innermost axis, a block copies a square tile of ``tile`` x ``tile`` elements
through shared memory: it reads the tile's rows along the input's innermost axis (coalesced), then writes the
output along its own innermost axis (coalesced), reading the shared tile down its columns. The shared tile's
rows are ``tile`` elements of 128 bytes (32 fp32, 64 bf16) laid out with a 128-byte XOR swizzle, so a column of
32 reads spreads over 8 chunks of 16 bytes (a 4-way bank conflict instead of a 32-way one: the IR has no padded
allocation). ``tile`` threads along TIDx and ``rows`` along TIDy copy the tile, each moving 16-byte vectors where
the innermost extents allow: read straight into the tile, written from a register stage that gathers a vector's
elements down a column of the tile (``vectorize_load``, ``vectorize_store``).

When the permutation keeps the innermost axis (only outer axes move), both sides are coalesced as they are: the
output's axes are merged and split onto blocks of threads with no shared memory (``tile = 0``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from target import current as current_target

from ..exprs import LoadStoreOp
from ..fusion import Fusion
from ..inlining import inline_most, parallelize_like, transform_like
from ..tensor_view import TensorView
from ..types import MemoryType, ParallelType, ScheduleError, SmemSwizzle
from .pointwise_problem import evaluated, extent_env, non_pointwise_expr
from .protocol import FunctionScheduler, HeuristicParams, Sizes

NAME = "transpose"
TILE_BYTES = 128           # one swizzled shared-memory row: the 128-byte swizzle's span
THREADS = 256
MAX_TILE = 64
DIRECT_THREADS = 128
STORE_VECTOR_MIN_BYTES = 4     # narrower elements are stored unvectorized (each vector gathers from as many tile rows)


@dataclass(frozen=True)
class TransposeParams(HeuristicParams):
    """``tile``: elements of a square shared-memory tile's side (0: no tile, the innermost axis stays);
    ``rows``: threads along TIDy (``tile`` along TIDx); ``vectorize_load``: elements of the input each thread reads
    at once into the tile; ``vectorize_store``: elements of the output each thread writes at once (gathered from the
    tile's column into registers first); ``swizzle``: the shared tile's layout; ``grid``: blocks at the sizes it was
    chosen for (0: unknown)."""

    scheduler: str = "transpose"
    reference: str = ""
    tile: int = 32
    rows: int = 8
    vectorize_load: int = 1
    vectorize_store: int = 1
    swizzle: SmemSwizzle = SmemSwizzle.B128
    grid: int = 0


def _permute(fusion: Fusion) -> LoadStoreOp | None:
    found = [e for e in fusion.exprs if isinstance(e, LoadStoreOp) and e.permutation is not None]
    return found[0] if len(found) == 1 else None


def decline(fusion: Fusion, sizes: Sizes | None) -> str | None:
    """None for one output computed from a permute of one input by pointwise ops of that one tensor."""
    permutes = [e for e in fusion.exprs if isinstance(e, LoadStoreOp) and e.permutation is not None]
    if not permutes:
        return "the fusion has no permute (ops.permute, ops.transpose)"
    if len(permutes) > 1:
        return f"it takes one permute; the fusion has {len(permutes)} (T{', T'.join(str(e.output.name) for e in permutes)})"
    (p,) = permutes
    (source,) = p.tensor_inputs()
    if not source.is_input:
        return (f"the permute T{p.output.name} reads T{source.name}, a computed tensor; it takes a permute of a fusion "
                f"input (the ops after the permute, T{p.output.name} on, it would take)")
    if len(fusion.outputs) != 1:
        return f"it takes one output; the fusion has {len(fusion.outputs)}"
    for e in fusion.exprs:
        if e is p:
            continue
        why = non_pointwise_expr(e)
        if why is not None:
            return f"it takes a permute followed by pointwise ops; {why}"
        others = [t for t in e.tensor_inputs()]
        if len(others) != 1:
            return (f"T{e.output.name} reads {len(others)} tensors; after the permute it takes ops of the one permuted "
                    f"tensor (and scalars)")
        if len(e.output.logical) != len(p.output.logical):
            return f"T{e.output.name} changes the rank (a broadcast); it takes ops that keep the permuted axes"
    return None


def suggest(fusion: Fusion, sizes: Sizes | None) -> TransposeParams:
    """A tile of 128-byte rows of the input's dtype (32 fp32, 64 bf16), 256 threads, the 128-byte swizzle."""
    reason = decline(fusion, sizes)
    if reason is not None:
        raise ScheduleError(f"transpose scheduler: {reason}")
    p = _permute(fusion)
    assert p is not None
    (out,) = fusion.outputs
    (source,) = p.tensor_inputs()
    rank = len(p.permutation)
    env = extent_env(fusion, sizes)
    extents = None if env is None else [evaluated(i, env) for i in out.logical]
    why: dict[str, str] = {"reference": "the one output"}
    if p.permutation[-1] == rank - 1:
        why["tile"] = "the innermost axis stays innermost: reads and writes are coalesced without a tile"
        why["rows"] = why["swizzle"] = "no tile"
        grid = 0 if extents is None else math.ceil(math.prod(extents) / DIRECT_THREADS)
        why["grid"] = f"{DIRECT_THREADS} threads a block over the merged axes" if grid else "sizes unknown"
        why["vectorize_load"] = why["vectorize_store"] = "no tile"
        return TransposeParams(reference=f"T{out.name}", tile=0, rows=1, swizzle=SmemSwizzle.NONE, grid=grid,
                               why=why)
    size = source.dtype.size
    tile = min(MAX_TILE, TILE_BYTES // size)
    why["tile"] = (f"{TILE_BYTES}-byte rows of {size}-byte {source.dtype.short_name}: {tile} elements (at most "
                   f"{MAX_TILE}), the 128-byte swizzle's span")
    rows = max(1, THREADS // tile)
    why["rows"] = f"{THREADS} threads a block: {tile} along TIDx, {rows} along TIDy, {tile // rows} passes a tile"
    moved = p.permutation.index(rank - 1)
    load, why["vectorize_load"] = _vector(tile, rows, size, None if extents is None else extents[moved], "input")
    if out.dtype.size < STORE_VECTOR_MIN_BYTES:
        store, why["vectorize_store"] = 1, (
            f"{out.dtype.size}-byte elements are stored one by one: a vector gathers its elements from as many "
            f"rows of the tile (8192^2 bf16 on an H100: 91.6 % of copy unvectorized, 70.7-81.9 % with 2, 4 or 8)")
    else:
        store, why["vectorize_store"] = _vector(tile, rows, out.dtype.size, None if extents is None else extents[-1],
                                                "output")
    swizzle = SmemSwizzle.B128 if tile * size == TILE_BYTES else SmemSwizzle.NONE
    why["swizzle"] = ("the 128-byte XOR swizzle: a column of 32 reads 8 chunks (4-way bank conflict, 32-way "
                      "unswizzled)" if swizzle is not SmemSwizzle.NONE else
                      f"rows of {tile * size} bytes are not the 128-byte span: no swizzle")
    grid = 0
    if extents is not None:
        inner, moved = rank - 1, p.permutation.index(rank - 1)
        grid = math.prod(math.ceil(e / tile) if k in (inner, moved) else e for k, e in enumerate(extents))
    why["grid"] = "one block a tile (and batch entry)" if grid else "sizes unknown"
    return TransposeParams(reference=f"T{out.name}", tile=tile, rows=rows, vectorize_load=load,
                           vectorize_store=store, swizzle=swizzle, grid=grid, why=why)


def _vector(tile: int, rows: int, size: int, inner: int | None, side: str) -> tuple[int, str]:
    """Elements a thread moves at once along the ``side``'s (input's or output's) innermost axis: 16 bytes, at most
    what leaves every thread a vector of each pass (``tile / (v * rows)`` passes), halved until it divides the
    innermost extent (each row then starts aligned)."""
    if inner is None:
        return 1, f"sizes unknown: no vector (the {side}'s innermost extent must divide by it)"
    start = v = max(1, min(16 // size, tile // rows))
    while v > 1 and inner % v:
        v //= 2
    base = f"16 bytes of {size}-byte elements: {start}"
    return v, (f"{base}; the {side}'s innermost extent {inner} divides by it" if v == start else
               f"{base}, halved to {v}: the {side}'s innermost extent {inner} divides by {v}")


def apply(fusion: Fusion, params: HeuristicParams) -> None:
    """Schedule every tensor of ``fusion`` from ``params`` (``TransposeParams``)."""
    if not isinstance(params, TransposeParams):
        raise ScheduleError(f"transpose scheduler: params must be TransposeParams, got {type(params).__name__}")
    p = _permute(fusion)
    if p is None:
        raise ScheduleError("transpose scheduler: the fusion has no single permute")
    (out,) = fusion.outputs
    if f"T{out.name}" != params.reference:
        raise ScheduleError(f"TransposeParams.reference: {params.reference!r} is not the output T{out.name}")
    (source,) = p.tensor_inputs()
    if params.tile == 0:
        _direct(fusion, out)
        return
    _check(params)
    rank = len(p.permutation)
    moved = p.permutation.index(rank - 1)        # the output axis that is the input's innermost
    cache = source.cache_after()
    cache.set_memory_type(MemoryType.Shared)
    if params.swizzle is not SmemSwizzle.NONE:
        cache.set_swizzle(params.swizzle)
    if params.vectorize_store > 1:
        out.cache_before()                       # the register stage a vector store writes from
    _tile_output(out, moved, params.tile)
    _threads(out, params.tile, params.rows, params.vectorize_store)
    computed = [tv for tv in fusion.used_tensors() if not tv.is_input and tv is not cache]
    transform_like(out, computed)
    parallelize_like(out, computed)
    if params.vectorize_store > 1:
        out.axis(4).parallelize(ParallelType.Vectorize)
    cache.compute_at(p.output, 1)                # [BIDx, tile of the input's other axis, tile of its innermost]
    _threads(cache, params.tile, params.rows, params.vectorize_load)
    if params.vectorize_load > 1:
        cache.axis(4).parallelize(ParallelType.Vectorize)
    inline_most(fusion)


def _threads(tv: TensorView, tile: int, rows: int, v: int) -> None:
    """[BIDx, tile, tile] -> [BIDx, passes, rows (TIDy), tile (TIDx) (, v)]: each thread moves ``v`` elements of a
    row at once; the same threads take ``tile / (v * rows)`` passes."""
    if v > 1:
        tv.split(2, v)                           # [BIDx, tile, tile / v, v]
        tv.merge(1, 2)                           # [BIDx, tile * tile / v, v]
        tv.split(1, tile)                        # [BIDx, tile / v, tile, v]
    tv.split(1, rows)                            # [BIDx, passes, rows, tile (, v)]
    tv.axis(2).parallelize(ParallelType.TIDy)
    tv.axis(3).parallelize(ParallelType.TIDx)


def _check(params: TransposeParams) -> None:
    if params.tile < 1 or params.tile & (params.tile - 1):
        raise ScheduleError(f"TransposeParams.tile: {params.tile} must be 0 or a power of two")
    if params.rows < 1 or params.tile % params.rows:
        raise ScheduleError(f"TransposeParams.rows: {params.rows} must divide the tile {params.tile}")
    for name in ("vectorize_load", "vectorize_store"):
        v = getattr(params, name)
        if v < 1 or v & (v - 1) or params.tile % (v * params.rows):
            raise ScheduleError(f"TransposeParams.{name}: {v} must be a power of two with {name} x rows "
                                f"({v} x {params.rows}) dividing the tile {params.tile}")
    limit = current_target().max_threads_per_block
    if params.tile * params.rows > limit:
        raise ScheduleError(f"TransposeParams: {params.tile} x {params.rows} threads is over {limit} a block")


def _tile_output(out: TensorView, moved: int, tile: int) -> None:
    """[.., Ij, .., In-1] -> [BIDx (batch and tiles), tile (of Ij), tile (of In-1)]: ``j`` (``moved``), the input's
    innermost, and the output's innermost ``n - 1`` are tiled."""
    rank = len(out.logical)
    last = rank - 1
    out.split(last, tile)                        # [.., In-1 / T, T]
    out.split(moved, tile)                       # [.., Ij / T, T, .., In-1 / T, T]
    # labels of the current axes, then the order wanted: the other axes, both tile counts, both tile sides
    labels = [("a", k) for k in range(rank) if k < moved] + [("o", moved), ("i", moved)]
    labels += [("a", k) for k in range(moved + 1, last)] + [("o", last), ("i", last)]
    wanted = [x for x in labels if x[0] == "a"] + [("o", moved), ("o", last), ("i", moved), ("i", last)]
    out.reorder({labels.index(x): wanted.index(x) for x in labels if labels.index(x) != wanted.index(x)})
    for _ in range(rank - 1):
        out.merge(0, 1)                          # [tiles, T (moved), T (last)]
    out.axis(0).parallelize(ParallelType.BIDx)


def _direct(fusion: Fusion, out: TensorView) -> None:
    """The innermost axis stays: one merged axis over blocks of threads, no shared memory."""
    for _ in range(len(out.logical) - 1):
        out.merge(0, 1)
    out.split(0, DIRECT_THREADS)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    transform_like(out)
    parallelize_like(out)
    inline_most(fusion)


SCHEDULER = FunctionScheduler(NAME, decline, suggest, apply)
