"""``MatmulParams.grouped_grid``: a block per tile, the blocks on a 1-D grid in the grouped order (``group_m`` row
tiles down a column of B, or column tiles along a row of A with ``raster="n"``) instead of ``[Mo (BIDy), No (BIDx)]``;
the rules pick it with groups of 8 row tiles, the last holding the rows left (``grid_group``). The simulator
against numpy with whole and partial groups, both rasters and a batch; the launch grid; the rules it checks."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fusion_ir import ScheduleError
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.matmul_problem import matmul_problem
from fusion_ir.schedulers.suggest import grid_group, row_major_stream
from lowering import lower
from runtime import simulate
from runtime.tuning import matmul_fusion
from tests.helpers import assert_matches, random_inputs

WS = {"tile": (128, 128, 64), "stages": 3, "compute_warp_groups": 2, "warp_specialized": True, "tma_store": True}


def _check(m: int, n: int, k: int, params: MatmulParams, batch: int | None = None, seeds=(0, 1)) -> None:
    fusion = matmul_fusion(m, n, k, batch=batch)
    schedule_matmul(fusion, params)
    kernel = lower(fusion)
    lead = (batch,) if batch is not None else ()
    for seed in seeds:
        inputs = random_inputs(fusion, [lead + (m, k), lead + (k, n)], seed=90 + seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=1e-2)


@pytest.mark.parametrize("group_m,raster", [(2, "m"), (3, "m"), (5, "m"), (2, "n"), (3, "n")])
def test_grouped_grids_match_numpy(group_m: int, raster: str) -> None:
    """520 x 392: 5 row tiles and 4 column tiles of 128; groups of 2 and 3 leave a last group of the rows (or
    columns) left, and the grid is the 20 tiles (a split of the rows by the group merged after the columns had
    padded them, the padded blocks computing on zero-filled loads)."""
    params = MatmulParams(**WS, grouped_grid=True, group_m=group_m, raster=raster)
    _check(520, 392, 136, params)
    fusion = matmul_fusion(520, 392, 136)
    schedule_matmul(fusion, params)
    assert tuple(g.const_value() for g in lower(fusion).grid) == (20, 1, 1)


def test_a_batched_grouped_grid_matches_numpy() -> None:
    _check(264, 200, 72, MatmulParams(**WS, grouped_grid=True, group_m=2), batch=2, seeds=(0,))


def test_a_pipelined_grouped_grid_of_a_compute_loaded_operand_matches_numpy() -> None:
    """K = 263: A by misaligned vectors in a Pipelined kernel, its blocks in grouped order."""
    params = MatmulParams(tile=(128, 128, 64), stages=3, compute_warp_groups=2, grouped_grid=True, group_m=2)
    _check(300, 264, 263, params, seeds=(0,))


@pytest.mark.parametrize("batch", [None, 3])
def test_the_grid_is_one_dimensional(batch: int | None) -> None:
    fusion = matmul_fusion(1024, 768, 256, batch=batch)
    schedule_matmul(fusion, MatmulParams(**WS, grouped_grid=True, group_m=4))
    grid = tuple(g.const_value() for g in lower(fusion).grid)
    assert grid == (8 * 6, 1, batch or 1)


@pytest.mark.parametrize("fields,what", [({"persistent": True}, "persistent=True"),
                                         ({"cluster": (2, 1)}, "cluster=(2, 1)")])
def test_refused_with_what_orders_its_blocks_its_own_way(fields: dict, what: str) -> None:
    params = MatmulParams(**{**WS, **fields}, grouped_grid=True)
    with pytest.raises(ScheduleError, match=rf"MatmulParams.grouped_grid: a block per tile in grouped order on a "
                                            rf"1-D grid, with .*{what.replace('(', '[(]').replace(')', '[)]')}.*set "
                                            rf"grouped_grid=False"):
        schedule_matmul(matmul_fusion(1024, 1024, 256), params)


def test_refused_with_stream_k() -> None:
    params = MatmulParams(tile=(128, 128, 64), stages=4, stream_k=True, grouped_grid=True)
    with pytest.raises(ScheduleError, match=r"MatmulParams.grouped_grid: .* stream_k=True"):
        schedule_matmul(matmul_fusion(1024, 1024, 256), params)


# ------------------------------------------------------------------ the rules
@pytest.mark.parametrize("m,group", [(40 * 128, 8), (12 * 128, 8), (13 * 128, 8), (128, None), (7 * 128, 7),
                                     (2 * 128, 2)])
def test_the_group_is_8_row_tiles_or_all_of_them(m: int, group: int | None) -> None:
    problem = matmul_problem(matmul_fusion(m, 65536, 512))          # 256 columns of tiles: a wave streams B
    assert grid_group(problem, {"tile": (128, 256, 64)}, sms=132) == group


def test_no_group_for_one_wave() -> None:
    """At most a wave of tiles runs at once, whatever their order."""
    problem = matmul_problem(matmul_fusion(2048, 32768, 4096))      # 16 x 128 tiles of 128 x 256
    assert grid_group(problem, {"tile": (128, 256, 64)}, sms=132) == 8
    assert grid_group(problem, {"tile": (128, 256, 64)}, sms=2048) is None


def test_no_group_where_a_row_major_wave_streams_little() -> None:
    """8192^3 in 256 x 128 tiles: a row-major wave reads 2 row tiles and 64 column tiles per K element, 0.61 of
    the H100's DRAM bytes per flop (grouped it measured the same); operands that fit L2 are not streamed at all."""
    problem = matmul_problem(matmul_fusion(8192, 8192, 8192))
    assert row_major_stream(problem, (256, 128, 64), 132) == pytest.approx(0.61, abs=0.01)
    assert grid_group(problem, {"tile": (256, 128, 64)}, sms=132) is None
    small = matmul_problem(matmul_fusion(1024, 16384, 512))        # 17 MB of operands
    assert row_major_stream(small, (128, 256, 64), 132) > 1
    assert grid_group(small, {"tile": (128, 256, 64)}, sms=132) is None


def test_no_group_for_persistent_clustered_or_symbolic() -> None:
    problem = matmul_problem(matmul_fusion(4096, 14336, 4096, transpose_b=True))
    assert row_major_stream(problem, (256, 128, 64), 132) == pytest.approx(1.01, abs=0.01)
    assert grid_group(problem, {"tile": (256, 128, 64)}, sms=132) == 8
    assert grid_group(problem, {"tile": (256, 128, 64), "persistent": True}, sms=132) is None
    assert grid_group(problem, {"tile": (256, 128, 64), "cluster": (2, 1)}, sms=132) is None
    assert grid_group(matmul_problem(matmul_fusion(None, None, None)), {"tile": (128, 256, 64)}) is None
    assert grid_group(replace(problem, k=None), {"tile": (256, 128, 64)}, sms=132) is None   # K unknown: no stream


def test_the_suggestion_groups_a_block_per_tile_and_says_why() -> None:
    # 8 rows of 128 x 192 tiles, 7.4 waves of them, K of 216 tiles: B^T (14 MB) streamed by a row-major wave
    params = suggest_matmul_params(matmul_fusion(1024, 8640, 13824, transpose_b=True), sms=132)
    assert params.grouped_grid and params.group_m == 8 and not params.persistent and params.cluster == (1, 1)
    reasons = {r.name: r.reason for r in params.why.fields}
    assert "grouped order" in reasons["grouped_grid"] and "of the machine balance" in reasons["grouped_grid"]
    assert "groups of 8 of the 8 rows of tiles" in reasons["group_m"]
    pinned = suggest_matmul_params(matmul_fusion(1024, 8640, 13824, transpose_b=True), sms=132, grouped_grid=False)
    assert not pinned.grouped_grid and pinned.tile == params.tile


def test_a_compute_loaded_operand_is_grouped_whatever_the_stream() -> None:
    """4096 x 4096 x 1001: A's rows are odd (misaligned vectors); a row-major wave streams little (0.36), but the
    copies wait for their latency, shorter from L2."""
    fusion = matmul_fusion(4096, 4096, 1001)
    problem = matmul_problem(fusion)
    assert not problem.tma_operands and row_major_stream(problem, (128, 256, 64), 132) < 0.5
    params = suggest_matmul_params(fusion, sms=132)
    assert params.grouped_grid and params.group_m == 8 and not params.warp_specialized
    assert "load an operand themselves" in {r.name: r.reason for r in params.why.fields}["grouped_grid"]
