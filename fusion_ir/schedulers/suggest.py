"""Suggested matmul parameters: ``suggest_matmul_params(fusion)`` picks the ``MatmulParams`` that
``schedule_matmul`` uses when none are given, from the problem's sizes, by rules drawn from H100
measurements (``bench/matmul_shapes.py``, graph-timed; ``docs/matmul.md``, "Suggested parameters", has the
rules in a table and the measurements behind each).

Like cuBLASDx's ``suggest_device_pipeline``, the caller may pin any field (``tile=``, ``stages=``,
...) and the rest are chosen around it; a problem the kernel cannot run, or a pinned field that
cannot work for it, is a ``ScheduleError`` naming the requirement: A's and B's K differ, a row of
an operand is not a multiple of 16 bytes (TMA), a pinned pipeline deeper than the problem's K
tiles (not persistent), or a rule of ``MatmulParams.validate``. Unlike cuBLASDx no tile has to
divide the problem: TMA fills boxes past the edge with zeros and the stores are predicated (or
clipped by the TMA store).
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any

from target import current as current_target

from ..circular_buffer import MAX_USEFUL_STAGES
from ..fusion import Fusion
from ..types import INT32_INDEX_MAX, DataType, ScheduleError
from .matmul_params import MatmulParams
from .matmul_problem import MatmulProblem, matmul_problem

# Deepest useful pipelines measured per tile: 128 x 128 ran 8 to 20 % slower with 5 to 7 stages
# than with 4 on every shape measured (bench/matmul_heuristic.py --extra; not understood yet).
DEPTH_CAP = {(128, 128, 64): 4}
FEW_K_TILES = 4              # K tiles up to this: a tile is little but its epilogue (ping-pong hides it)
PERSISTENT_WAVES = 4         # tiles per SM from which the persistent kernel is suggested

BIG = (256, 128, 64)         # a tile per block under four waves: 2 compute warp groups of 128 x 128
BIG_COLUMNS = (128, 256, 64)  # the persistent kernel's tile (2 warp groups of 64 x 256)
PING_PONG = (128, 128, 64)   # a whole tile per warp group: the fastest ping-pong measured (bench/matmul.py)
# Tiles for problems of fewer big tiles than SMs, with the TFLOP/s one block of each reached with
# one tile per SM and a long K loop (1024 x 1024 x 32768 on an H100; 64 x 256 estimated from 8192 x 256 x 8192,
# where it ran 0.94 of cuBLAS and 128 x 128 0.87): a smaller tile runs slower per block but keeps more SMs busy.
# 1 to 4 waves: beside the 256 x 128 tile, three compute warp groups of 64 x 192 (rate fitted to 3000^3, where it
# ran 1.25x the 128 x 256 tile, and checked at 4096^3: 0.85x, as the waves predict)
SQUARE_TILES = (((192, 192, 64), 3, 6.68),)
FEW_TILES = ((BIG_COLUMNS, 2, 7.1), ((64, 256, 64), 1, 6.4), ((128, 128, 64), 2, 5.9), ((64, 128, 64), 1, 4.5))


def suggest_matmul_params(fusion: Fusion, *, sms: int | None = None, **pinned: Any) -> MatmulParams:
    """``MatmulParams`` for ``fusion``'s matmul on a GPU of ``sms`` SMs (default: the current target's,
    132 on an H100 SXM; pass ``runtime.sm_count()`` for the GPU at hand); ``pinned`` fields are kept as given.

    Sizes come from the inputs' constant extents (``fusion.add_input(shape=...)``); with symbolic
    ones the kernel must suit any size and gets the arrangement with the best worst case measured.
    Raises ``ScheduleError`` for a problem the kernel cannot run (K of A and B differ; a row of A or
    B not a multiple of 16 bytes) and for pinned fields that cannot work (``MatmulParams.validate``'s
    rules; ``stages`` deeper than the K tiles of a kernel that is not persistent).
    """
    names = {f.name for f in fields(MatmulParams)}
    unknown = sorted(set(pinned) - names)
    if unknown:
        raise ScheduleError(f"suggest_matmul_params: {', '.join(unknown)} is not a MatmulParams field "
                            f"(fields: {', '.join(sorted(names))})")
    sms = current_target().sm_count if sms is None else sms
    if isinstance(sms, bool) or not isinstance(sms, int) or sms < 1:
        raise ScheduleError(f"suggest_matmul_params: sms {sms!r} must be a positive int (the GPU's SM count)")
    problem = matmul_problem(fusion)
    chosen = {**arrangement(problem, sms), "blocks": sms}
    if pinned.get("ping_pong") is True:         # never suggested (slower, docs/matmul.md), but arranged if asked
        chosen.update(tile=PING_PONG, compute_warp_groups=2, persistent=True, tma_store=problem.tma_store_possible)
    chosen.update(pinned)
    if chosen.get("ping_pong") and "ping_pong" not in pinned and not (
            chosen.get("persistent") and chosen.get("warp_specialized") and "tile" not in pinned
            and chosen.get("compute_warp_groups", 2) >= 2):
        chosen["ping_pong"] = False          # a pinned field the suggested ping-pong cannot keep: cooperative
    if "compute_warp_groups" not in pinned and "tile" in pinned:
        chosen["compute_warp_groups"] = _warp_groups_for(pinned["tile"])
    params = MatmulParams(**chosen)
    if "stages" not in pinned:
        # the placeholder depth: a pinned field's rule first
        params.validate(problem.dtype, problem.loaded_tiles, problem.layout)
        params = replace(params, stages=_depth(params, problem))
    params.validate(problem.dtype, problem.loaded_tiles, problem.layout)
    _check_depth(params, problem, pinned)
    return params


def arrangement(problem: MatmulProblem, sms: int) -> dict[str, Any]:
    """The rules of docs/matmul.md, "Suggested parameters", as MatmulParams fields (the depth comes after)."""
    # the TMA store: a 16-bit result, unless the epilogue reads a bias and no [M, N] input (its register stores
    # ran faster, docs/matmul.md, Fused epilogues)
    tma_store = problem.tma_store_possible and not (problem.broadcast and not problem.loaded)
    ws = {"warp_specialized": True, "persistent": False, "ping_pong": False, "tma_store": tma_store, "stages": 2,
          "index_type": DataType.Int64}
    big = {**ws, "tile": BIG, "compute_warp_groups": 2}
    tiles = problem.tiles(BIG_COLUMNS)
    if tiles is None:                                          # sizes unknown: any size must run
        return {**big, "tma_store": False}
    index = DataType.Int32 if _fits_int32(problem) else DataType.Int64
    ping_pong = {**ws, "tile": PING_PONG, "compute_warp_groups": 2, "persistent": True, "ping_pong": True,
                 "index_type": index}
    k_tiles = problem.k_tiles(BIG[2])
    short_k = k_tiles is not None and k_tiles <= FEW_K_TILES
    if short_k and not problem.loaded and problem.tiles(PING_PONG) >= sms:   # type: ignore[operator]
        # a tile is little but its epilogue: ping-pong runs one warp group's epilogue under the other's mainloop
        return ping_pong
    if tiles < sms:                                            # under one wave of big tiles
        tile, groups = _fastest_tile(problem, sms, FEW_TILES)
        return {**ws, "tile": tile, "compute_warp_groups": groups}
    if problem.n is not None and problem.n <= PING_PONG[1] and not problem.loaded:
        return ping_pong                                       # a 256-wide tile would be half empty or more
    if short_k or tiles < PERSISTENT_WAVES * sms or not problem.tma_store_possible:
        # a tile per block: 256 x 128 ran at least as fast as 128 x 256 on every shape of 1 to 4 waves measured
        chosen = dict(big)
        if tma_store:
            # a 192 x 192 tile where it fills whole waves better (3000^3: 2 waves of it instead of 3 of 128 x 256)
            tile, groups = _fastest_tile(problem, sms, ((chosen["tile"], 2, 7.1), *SQUARE_TILES))
            chosen.update(tile=tile, compute_warp_groups=groups, register_split=register_split(groups))
        return chosen
    return {**big, "tile": BIG_COLUMNS, "persistent": True, "index_type": index}


def register_split(compute_warp_groups: int) -> tuple[int, int]:
    """``setmaxnreg`` counts (producer, compute) for a warp-specialized block of ``compute_warp_groups``: the
    producer keeps 40, the compute warp groups share the rest of the SM's registers (at most 232 each)."""
    target = current_target()
    producer, step = 40, target.setmaxnreg_step
    share = (target.registers_per_sm - target.warp_group_size * producer) // (target.warp_group_size
                                                                              * compute_warp_groups)
    return producer, min(232, share // step * step)


def _fits_int32(problem: MatmulProblem) -> bool:
    m, n, k, batch = problem.m, problem.n, problem.k, problem.batch
    return None not in (m, n, k, batch) and batch * max(m * k, k * n, m * n) <= INT32_INDEX_MAX  # type: ignore[operator]


def _fastest_tile(problem: MatmulProblem, sms: int,
                  options: tuple[tuple[tuple[int, int, int], int, float], ...]) -> tuple[tuple[int, int, int], int]:
    """The tile of ``options`` with the shortest predicted time: waves x a tile's work / its rate (the tiles
    cover the problem rounded up to whole tiles, so a tile much wider than N pays for its empty part)."""
    def predicted(entry: tuple[tuple[int, int, int], int, float]) -> float:
        tile, _, rate = entry
        tiles = problem.tiles(tile)
        assert tiles is not None
        return -(-tiles // sms) * tile[0] * tile[1] / rate
    tile, groups, _ = min(options, key=predicted)
    return tile, groups


def _warp_groups_for(tile: Any) -> int:
    """Compute warp groups for a pinned tile: two when its rows split into two 64-row multiples."""
    if isinstance(tile, tuple) and tile and isinstance(tile[0], int) and tile[0] % 128 == 0:
        return 2
    return 1


def _depth(params: MatmulParams, problem: MatmulProblem) -> int:
    """As deep as shared memory allows (at most ``MAX_USEFUL_STAGES``, or the tile's ``DEPTH_CAP``) and, not
    persistent, no deeper than the K tiles: a persistent pipeline fills its stages from the next tile."""
    cap = DEPTH_CAP.get(params.tile, MAX_USEFUL_STAGES)
    stages = 2
    limit = current_target().smem_per_block
    while stages < cap and replace(params, stages=stages + 1).smem_bytes(problem.dtype, problem.loaded_tiles,
                                                                         problem.layout) <= limit:
        stages += 1
    k_tiles = problem.k_tiles(params.tile[2])
    if k_tiles is not None and not params.persistent:
        stages = max(2, min(stages, k_tiles))
    return stages


def _check_depth(params: MatmulParams, problem: MatmulProblem, pinned: dict[str, Any]) -> None:
    """A pinned depth over the K tiles of a kernel that is not persistent leaves stages that are
    never filled (cuBLASDx refuses it too). A persistent pipeline runs across tiles, so its
    stages fill from the next tile."""
    k_tiles = problem.k_tiles(params.tile[2])
    if "stages" not in pinned or not isinstance(params.stages, int) or k_tiles is None or params.persistent:
        return
    if params.stages <= max(k_tiles, 2):
        return
    raise ScheduleError(f"suggest_matmul_params: stages={params.stages} is deeper than the {k_tiles} K tiles of the "
                        f"problem (K = {problem.k} in tiles of {params.tile[2]}); a pipeline that is not persistent "
                        f"never fills more stages than its K loop has tiles: pin at most {max(k_tiles, 2)} stages, a "
                        f"smaller tile K, or persistent=True")
