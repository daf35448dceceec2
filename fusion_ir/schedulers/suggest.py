"""Suggested matmul parameters: ``suggest_matmul_params(fusion)`` picks the ``MatmulParams`` that
``schedule_matmul`` uses when none are given, from the problem's sizes, by rules drawn from H100
measurements (``bench/matmul_heuristic.py``; ``docs/matmul.md``, "Suggested parameters", has the
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
FEW_K_TILES = 4              # K tiles up to this: a tile is all epilogue, register stores are faster
PERSISTENT_WAVES = 2         # tiles per SM from which the persistent kernel is suggested
# split-K: the fewest K tiles (of 64) a split keeps. Each split adds 8 bytes of partials per output element (written,
# then read by the last block) against 2 K / split_k flops: at 1024 K per split that is 1/256 byte per flop, about
# what an H100's L2 serves beside the tensor cores (not measured yet: docs/matmul.md, "Split-K")
MIN_SPLIT_K_TILES = 16
SPLIT_K_OVERHEAD = 1.25      # split-K's predicted time x this: the partials' traffic and the last block's sum

BIG = (256, 128, 64)         # the tile of the large problems: 2 compute warp groups of 128 x 128
BIG_COLUMNS = (128, 256, 64)  # the persistent kernel's tile (2 warp groups of 64 x 256)
PING_PONG = (128, 128, 64)   # a whole tile per warp group: the fastest ping-pong measured (bench/matmul.py)
# Tiles for problems of fewer big tiles than SMs, with the TFLOP/s one block of each reached with
# one tile per SM and a long K loop (1024 x 1024 x 32768 on an H100, 4 stages for 256 x 128 and
# 128 x 128, 8 for 64 x 128; 128 x 256 ran as 256 x 128 there and faster at 2048^3 and 2048 x 2048 x
# 16384): a smaller tile runs slower per block but keeps more SMs busy.
FEW_TILES = ((BIG_COLUMNS, 2, 7.1), ((128, 128, 64), 2, 5.9), ((64, 128, 64), 1, 4.5))


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
    if "split_k" not in pinned and chosen.get("persistent"):
        chosen["split_k"] = 1                   # a pinned persistent kernel: split-K is not implemented for it
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
    ws = {"warp_specialized": True, "persistent": False, "ping_pong": False, "tma_store": False, "stages": 2,
          "index_type": DataType.Int64}
    big = {**ws, "tile": BIG, "compute_warp_groups": 2}
    tiles = problem.tiles(BIG_COLUMNS)
    if tiles is None:                                          # sizes unknown: any size must run
        return big
    if tiles < sms:                                            # under one wave of big tiles
        split = split_k_for(problem, sms, BIG_COLUMNS)
        if split > 1:                                          # a long K: more blocks per tile, not smaller tiles
            return {**ws, "tile": BIG_COLUMNS, "compute_warp_groups": 2, "warp_specialized": False, "split_k": split}
        tile, groups = _few_tiles(problem, sms)
        return {**ws, "tile": tile, "compute_warp_groups": groups}
    k_tiles = problem.k_tiles(BIG[2])
    if k_tiles is not None and k_tiles <= FEW_K_TILES:
        return big
    if tiles >= PERSISTENT_WAVES * sms and problem.tma_store_possible:
        # a bias epilogue without C: the register stores ran 0.89 to 0.92 of torch's unfused reference against
        # 0.71 to 0.81 with the TMA store, whose kernel spills (docs/matmul.md, Fused epilogues)
        tma_store = not (problem.broadcast and not problem.loaded)
        return {**big, "tile": BIG_COLUMNS, "persistent": True, "tma_store": tma_store,
                "index_type": DataType.Int32 if _fits_int32(problem) else DataType.Int64}
    return big


def split_k_for(problem: MatmulProblem, sms: int, tile: tuple[int, int, int]) -> int:
    """Split-K for a problem of fewer ``tile`` output tiles than ``sms``: as many splits as make the tiles about
    one wave of blocks (tiles x split_k <= sms), each split keeping at least ``MIN_SPLIT_K_TILES`` K tiles, when
    the predicted time (``FEW_TILES``' rate of ``tile``, the work of a split, ``SPLIT_K_OVERHEAD`` for the
    partials) beats the best smaller tile's; 1 (no split) otherwise or when the sizes are unknown."""
    tiles, k_tiles = problem.tiles(tile), problem.k_tiles(tile[2])
    if tiles is None or k_tiles is None or problem.batch_axes or tiles >= sms:
        return 1
    split = min(sms // tiles, k_tiles // MIN_SPLIT_K_TILES)
    if split < 2:
        return 1
    rate = next(r for t, _, r in FEW_TILES if t == tile)
    waves = -(-tiles * split // sms)
    predicted = waves * tile[0] * tile[1] / split / rate * SPLIT_K_OVERHEAD
    return split if predicted < min(_predicted(problem, sms, entry) for entry in FEW_TILES) else 1


def _fits_int32(problem: MatmulProblem) -> bool:
    m, n, k, batch = problem.m, problem.n, problem.k, problem.batch
    return None not in (m, n, k, batch) and batch * max(m * k, k * n, m * n) <= INT32_INDEX_MAX  # type: ignore[operator]


def _predicted(problem: MatmulProblem, sms: int, entry: tuple[tuple[int, int, int], int, float]) -> float:
    """A ``FEW_TILES`` entry's predicted time (relative): waves x a tile's work / its rate."""
    tile, _, rate = entry
    tiles = problem.tiles(tile)
    assert tiles is not None
    return -(-tiles // sms) * tile[0] * tile[1] / rate


def _few_tiles(problem: MatmulProblem, sms: int) -> tuple[tuple[int, int, int], int]:
    """The tile of ``FEW_TILES`` with the shortest predicted time: waves x a tile's work / its rate."""
    tile, groups, _ = min(FEW_TILES, key=lambda entry: _predicted(problem, sms, entry))
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
        stages = max(2, min(stages, -(-k_tiles // params.split_k)))   # a split's K tiles
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
