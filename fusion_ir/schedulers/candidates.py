"""The ``MatmulParams`` a tuner times for one problem: ``matmul_candidates(fusion or problem, sms)``.

A small set around the rules, none tied to a shape, in this order (cut at ``MAX_CANDIDATES``): the
rules' suggestion; the suggestion with the TMA store, with its ring of sub-tiles carried across tiles or not
(``store_wait``, persistent) and with the persistent kernel switched; the big tiles
(128 x 256, 256 x 128) with the TMA store, one per block and persistent; ping-pong 128 x 128; 192 x 192 on
three compute warp groups, one per block and persistent; persistent 128 x 192; the smaller tiles (64 x 256,
128 x 128, 64 x 128) with the TMA store; one compute warp group spanning a skinny side (192 x 64 and 192 x 128 where M has 129 to 192 rows, 64 x 192
where N has 129 to 192 columns); all of a short M (``SHORT_MAX_M`` rows or fewer) by 64, swapped, on one compute warp
group, unsplit and in the rules' splits where they would split it; 128 x 192, 256 x 192 and 256 x 160 a tile per
block; the big tiles, 192 x 192, 128 x 192 and the 64-row tiles in clusters of two of
both shapes (``CLUSTERED``, both operands TMA-loaded); the tiles of 2-D clusters (``CLUSTER_TILES``) under a wave of 128 x 256
tiles where K is long and both operands are TMA-loaded; persistent tiles with the instruction's rows along N
(``swap_ab``: 208 x 128 and 192 x 128 in clusters of two along N, 160 x 256 and 192 x 192 on three compute warp groups
along M), where both operands are TMA-loaded and the result is 16-bit (``SWAPPED_TILES``);
split-K of 128 x 256, 256 x 128 and 128 x 128 tiles, Pipelined and warp-specialized, each where its tiles are
fewer than the SMs and K is long; persistent 128 x 256 and 128 x 160 in clusters of two along M (``PERSISTENT_CLUSTERED``); the first persistent candidate with ``group_m`` halved and doubled (where it has more row tiles than
half a group) and with its tiles grouped along N (``raster="n"``). A block-per-tile candidate without a cluster
walks its tiles on a grouped grid (``grouped_grid``, ``grid_group``) and the suggestion's row-major order is a
candidate too. The TMA store wherever the result allows it
(16-bit), register stores otherwise. 64-bit indices but for ping-pong (32-bit where the tensors allow): the
persistent cooperative kernel ran 0.80 of cuBLAS with 32-bit ones where it ran 1.00 with 64-bit (8192 x 8192 x 2048,
H100), and ping-pong the other way round (8192 x 8192 x 1024: 0.86 against 0.70). Duplicates
are dropped, and so are persistent candidates of a problem with fewer tiles than SMs (nothing for the
persistent loop to walk). Every candidate is as deep as shared memory allows (the rules' depth) and is kept
only if it can schedule the problem: ``MatmulParams.validate`` and the checks ``schedule_matmul`` makes of a
problem (the batch on ``blockIdx.z``, the TMA store's 16-bit output, ping-pong without a TMA-loaded ``C``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from target import current as current_target

from ..fusion import Fusion
from ..types import DataType, ScheduleError, StoreWait
from .matmul_params import MatmulParams
from .matmul_problem import MatmulProblem, matmul_problem
from .suggest import (
    CLUSTER_TILES,
    NARROW_N,
    NARROW_TILE,
    NARROW_TILE_WIDE,
    PING_PONG,
    SHORT_MAX_M,
    SPAN_COLUMNS,
    SPAN_ROWS,
    SPAN_ROWS_WIDE,
    _depth,
    _fewest_stages,
    _two_d_clusters,
    _fits_int32,
    _warp_groups_for,
    compute_loaded_arrangement,
    grid_group,
    persistent_group_m,
    producer_epilogue_loads,
    register_split,
    rule_params,
    short_split,
    short_tile,
    with_sub_tile,
)

MAX_CANDIDATES = 36                   # four more than before the swapped tiles, which cut none of the others
BIG_TILES = ((128, 256, 64), (256, 128, 64))
SQUARE_TILE = (192, 192, 64)          # three compute warp groups: whole waves where the big tiles leave a tail
WIDE_PERSISTENT = (128, 192, 64)      # pads fewer columns than 128 x 256
SMALL_TILES = ((64, 256, 64), (128, 128, 64), (64, 128, 64))
# one tile per block in clusters of two sharing an operand tile by TMA multicast, both big tiles in both cluster
# shapes (which one wins varies: on the H100, 5000 x 7000 x 3000 ran 0.93 of cuBLAS with 128 x 256 in (2, 1) and
# 0.78 in (1, 2), 512 x 16384 x 4096 1.00 with 256 x 128 in (2, 1) and 0.87 in (1, 2)); they lost at small K
# 128 x 192 and the 64-row tiles too (their operand reads per flop are higher: 128 x 8192 x 8192 with 64 x 128 ran 0.97
# in (2, 1) against 0.84 without, 1234 x 4568 x 888 with 128 x 192 0.74 against 0.65)
CLUSTERED = tuple((tile, cluster) for tile in ((128, 256, 64), (256, 128, 64), (192, 192, 64), (128, 192, 64),
                                               (64, 128, 64), (64, 256, 64))
                  for cluster in ((2, 1), (1, 2)))
# persistent in clusters of two along M (H100, 2026-11-26, against the tuner's best candidate then: 3000 x 5000 x 1000
# with 128 x 256 0.90 of cuBLAS against 0.84, 5120 x 2560 x 640 with 128 x 160 0.79 against 0.77-0.81)
PERSISTENT_CLUSTERED = ((128, 256, 64), (128, 160, 64))
# persistent with the instruction's rows along N (``swap_ab``: M any multiple of 16): 208 x 128 and 192 x 128 in
# clusters of two along N sharing A's tile (H100, 2026-11-27, of cuBLAS, against the rules' 0.896 / 0.948 / 0.930 /
# 0.883: 8984 x 2872 x 5480 0.87 and 0.82, 6632 x 2944 x 5048 0.94 and 0.85, 2648 x 11752 x 6328 0.88 and 0.92, 4136 x
# 3624 x 13112 0.84 and 0.86; without the cluster 0.57-0.86, 224 rows 0.70-0.79, 256 rows 0.77-0.88)
SWAPPED_TILES = (((208, 128, 64), (1, 2), 2), ((192, 128, 64), (1, 2), 2),
                 # cuBLAS's nvjet 256 x 160 and 192 x 192 in its orientation (rows along N), in clusters along M
                 # (4136 x 3624 x 13112 0.97 against the rules' 0.89; 2648 x 11752 x 6328 192 x 192 0.95 against 0.93)
                 ((160, 256, 64), (2, 1), 2), ((192, 192, 64), (2, 1), 3))
WIDE_TILE = (128, 192, 64)            # a tile per block: a wave covers a third more than 128 x 256
WIDE_BIG_TILE = (256, 192, 64)        # a tile per block: a wave covers half as much again as 256 x 128
WIDE_BIG_160 = (256, 160, 64)         # a tile per block between them: whole waves or whole N where neither fits
# one compute warp group whose tile spans a skinny M (192 rows) or N (192 columns): the rules' SPAN tiles
SPAN_TILES = (SPAN_ROWS, SPAN_ROWS_WIDE, SPAN_COLUMNS, NARROW_TILE)
SPLIT_K_TILES = 16                    # a split-K candidate's splits keep at least this many K tiles (the rule: 64)
# split-K candidates, each tile where its tiles are fewer than the SMs; which wins varies with the padding of M and N
# and the splits' partials (H100, 2026-11-27, ratio to cuBLAS: 1000 x 1000 x 20000 256 x 128 in 4 splits 0.94 against
# 0.83 with 128 x 256; 96 x 4096 x 16384 128 x 128 in 4 splits 0.95 against 0.90 with 128 x 256 in 8; 1024 x 1024 x
# 32768 128 x 256 0.95, 256 x 128 0.94, 128 x 128 0.73)
SPLIT_K_CANDIDATE_TILES = ((128, 256, 64), (256, 128, 64), (128, 128, 64))


def matmul_candidates(subject: Fusion | MatmulProblem, sms: int | None = None, *,
                      limit: int = MAX_CANDIDATES) -> list[MatmulParams]:
    """Candidates for ``subject``'s matmul on a GPU of ``sms`` SMs (default: the current target's), the
    rules' suggestion first, each distinct and valid for the problem (see the module's text)."""
    problem = subject if isinstance(subject, MatmulProblem) else matmul_problem(subject, caller="matmul_candidates")
    sms = current_target().sm_count if sms is None else sms
    suggested = rule_params(problem, sms)
    wide_index = DataType.Int32 if _fits_int32(problem) else DataType.Int64

    store = problem.tma_store_possible

    def arranged(tile: tuple[int, int, int], **fields: Any) -> dict[str, Any]:
        persistent = fields.get("persistent", False)
        groups = _warp_groups_for(tile)
        out = {"tile": tile, "compute_warp_groups": groups, "register_split": register_split(groups),
               "warp_specialized": True, "persistent": False, "tma_store": store, "blocks": sms,
               "index_type": wide_index if fields.get("ping_pong") else DataType.Int64, **fields}
        group = persistent_group_m(problem, tile, fields.get("cluster", (1, 1)), fields.get("raster", "m"))
        if persistent and group is not None:
            out["group_m"] = group                   # 8 rows of tiles (or all), in whole clusters
        out = {**out, **compute_loaded_arrangement(problem, out)}     # an operand TMA cannot load: Pipelined
        grouped = grid_group(problem, out, sms)
        if grouped is not None and "grouped_grid" not in fields:
            out.update(grouped_grid=True, group_m=grouped)             # a block per tile in grouped order
        return out

    out = [suggested]

    def add(params: MatmulParams | None) -> None:
        if params is None or params in out:
            return
        tiles = problem.tiles(params.tile)
        if params.persistent and tiles is not None and tiles < sms:
            return                       # fewer tiles than resident blocks: the persistent loop has nothing to walk
        out.append(params)

    if producer_epilogue_loads(suggested, problem):        # the producer warp group's pipeline of the epilogue inputs
        add(_deepest(replace(suggested, epilogue_loads="producer"), problem))
    add(_deepest(replace(suggested, tma_store=not suggested.tma_store, store_wait="after_boxes"), problem))
    if suggested.persistent and suggested.epilogue_tile is not None:      # the ring carried across tiles or not
        carried = StoreWait.of(suggested.store_wait) is StoreWait.Carried
        add(replace(suggested, store_wait="after_boxes" if carried else "carried"))
    if suggested.grouped_grid:
        add(replace(suggested, grouped_grid=False, group_m=8))         # the blocks in row-major order
    switched = replace(suggested, persistent=not suggested.persistent, ping_pong=False, cluster=(1, 1),
                       index_type=DataType.Int64, store_wait="after_boxes")
    group = persistent_group_m(problem, switched.tile)
    if switched.persistent and group is not None:
        switched = replace(switched, group_m=group)
    add(_deepest(switched, problem))
    for tile in BIG_TILES:
        add(_deepest(MatmulParams(**arranged(tile)), problem))
        add(_deepest(MatmulParams(**arranged(tile, persistent=True)), problem))
    add(_deepest(MatmulParams(**arranged(PING_PONG, persistent=True, ping_pong=True)), problem))
    add(_deepest(MatmulParams(**arranged(SQUARE_TILE)), problem))
    add(_deepest(MatmulParams(**arranged(SQUARE_TILE, persistent=True)), problem))
    add(_deepest(MatmulParams(**arranged(WIDE_PERSISTENT, persistent=True)), problem))
    add(_deepest(MatmulParams(**arranged(WIDE_TILE)), problem))
    add(_deepest(MatmulParams(**arranged(WIDE_BIG_TILE)), problem))
    add(_deepest(MatmulParams(**arranged(WIDE_BIG_160)), problem))
    for tile in SMALL_TILES:
        add(_deepest(MatmulParams(**arranged(tile)), problem))
    for tile in SPAN_TILES:                              # one compute warp group spanning a skinny side
        side, extent = (problem.m, tile[0]) if tile[0] > tile[1] else (problem.n, tile[1])
        if side is not None and extent - 64 < side <= extent:
            add(_deepest(MatmulParams(**arranged(tile, compute_warp_groups=1, register_split=register_split(1))),
                         problem))
    if problem.n is not None and problem.n <= NARROW_N:  # both tiles as wide as the problem: 64 x 64 is a span tile
        add(_deepest(MatmulParams(**arranged(NARROW_TILE_WIDE)), problem))
    if problem.m is not None and problem.m <= SHORT_MAX_M and problem.tma_operands and store:   # all of M, swapped
        tile, splits = short_tile(problem.m), {1}
        columns = problem.col_tiles(tile)
        if columns is not None and problem.k is not None:
            splits.add(short_split(problem, sms, columns))      # the rules' splits, where they would split it
        for split in sorted(splits):
            add(_deepest(MatmulParams(**arranged(tile, compute_warp_groups=1, register_split=register_split(1),
                                                 swap_ab=True, split_k=split)), problem))
    if problem.tma_operands:
        for tile, cluster in CLUSTERED:
            add(_deepest(MatmulParams(**arranged(tile, cluster=cluster)), problem))
    tiles, k_tiles = problem.tiles(BIG_TILES[0]), problem.k_tiles(BIG_TILES[0][2])
    under_a_wave = tiles is not None and tiles < sms
    if store and under_a_wave and _two_d_clusters(problem, k_tiles):
        for tile, _, _, cluster in CLUSTER_TILES:        # 2-D clusters: A shared along a cluster row, B a column
            add(_deepest(MatmulParams(**arranged(tile, cluster=cluster)), problem))
    for tile in SPLIT_K_CANDIDATE_TILES:                 # split-K: about a wave of blocks, where the tiles are fewer
        split = _candidate_split(problem, tile, sms)
        if split >= 2:
            for ws in (False, True):
                add(_deepest(MatmulParams(**arranged(tile, split_k=split, warp_specialized=ws)), problem))
    if problem.tma_operands:
        for tile in PERSISTENT_CLUSTERED:                # persistent in clusters of two along M
            add(_deepest(MatmulParams(**arranged(tile, persistent=True, cluster=(2, 1))), problem))
    if problem.tma_operands and store:
        for tile, cluster, groups in SWAPPED_TILES:      # the wgmma's rows along N, its N along M
            add(_deepest(MatmulParams(**arranged(tile, persistent=True, cluster=cluster, swap_ab=True,
                                                 compute_warp_groups=groups, register_split=register_split(groups))),
                         problem))
    persistent = next((p for p in out if p.persistent and not p.ping_pong and p.cluster == (1, 1)), None)
    row_tiles = None if persistent is None or problem.m is None else -(-problem.m // persistent.tile[0])
    if persistent is not None and (row_tiles is None or row_tiles > persistent.group_m // 2):
        for group_m in (max(1, persistent.group_m // 2), persistent.group_m * 2):
            candidate = replace(persistent, group_m=group_m)
            add(candidate if _runs(candidate, problem) else None)
    if persistent is not None:
        add(replace(persistent, raster="n"))      # the tiles grouped along N (a row of A) instead
    return out[:limit]


def _candidate_split(problem: MatmulProblem, tile: tuple[int, int, int], sms: int) -> int:
    """The splits of a split-K candidate of ``tile``: as many as keep its blocks within a wave and every split
    ``SPLIT_K_TILES`` K tiles or more; 1 where ``tile`` has a wave of tiles, a batch or unknown sizes."""
    tiles, k_tiles = problem.tiles(tile), problem.k_tiles(tile[2])
    if tiles is None or k_tiles is None or tiles >= sms or problem.batch_axes:
        return 1
    return min(sms // tiles, k_tiles // SPLIT_K_TILES)


def _deepest(params: MatmulParams, problem: MatmulProblem) -> MatmulParams | None:
    """``params`` at the rules' depth (the deepest that fits), or None when it cannot run the problem."""
    params = with_sub_tile(params, problem)
    shallow = replace(params, stages=_fewest_stages(problem))
    try:
        shallow.validate(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads,
                         outputs=problem.outputs)   # the tile fits at all
    except ScheduleError:
        return None
    params = replace(params, stages=_depth(shallow, problem))
    return params if _runs(params, problem) else None


def _runs(params: MatmulParams, problem: MatmulProblem) -> bool:
    """Whether ``schedule_matmul`` takes ``params`` for ``problem``: ``validate`` and its checks of the problem."""
    try:
        params.validate(problem.dtype, problem.loaded_tiles, problem.layout, problem.loads,
                        outputs=problem.outputs)
    except ScheduleError:
        return False
    if params.tma_store and not problem.tma_store_possible:
        return False                     # stmatrix stores 16-bit elements
    batch, max_z = problem.batch, current_target().max_grid[2]
    return not (problem.batch_axes and not params.persistent and batch is not None and batch > max_z)
