"""schedule_matmul of batched operands: ``ops.matmul`` of ``[B, M, K] @ [B, K, N]`` (or of a 2-D B broadcast over the
batch, or of transposed operands) runs the batch on ``blockIdx.z``, or merged into the persistent tile index, and
loads each operand with a TMA box of batch extent 1 (a 2-D operand with its 2-D box); the kernel matches numpy in
the simulator at sizes no tile divides, in every arrangement and with the fused epilogues."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, ParallelType, ScheduleError, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.matmul_problem import matmul_problem
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

ALPHA, BETA = 2.0, 0.5


def _fusion(batch: tuple[int | None, ...] = (None,), b_batched: bool = True, a_batched: bool = True,
            transpose_a: bool = False,
            transpose_b: bool = False, epilogue: str = "none", out_dtype: DataType | None = None,
            dtype: DataType = DataType.BFloat16) -> Fusion:
    """``batch``: A's batch axes (None: symbolic extent); B has them too unless ``b_batched`` is False (2-D B).
    ``epilogue``: ``bias_relu``, ``bias_gelu`` (a float bias [N]), ``alpha_beta`` (C [B..., M, N]) or
    ``alpha_beta_2d`` (C [M, N] broadcast over the batch)."""
    fusion = Fusion()
    nb = len(batch)
    with fusion:
        def tensor(rank: int, dt: DataType = dtype):
            return fusion.add_input(ndim=rank, dtype=dt)
        a = tensor(nb + 2 if a_batched else 2)
        b = tensor(nb + 2 if b_batched else 2)
        if transpose_a:
            a = ops.transpose(a, a.ndim - 2, a.ndim - 1)
        if transpose_b:
            b = ops.transpose(b, b.ndim - 2, b.ndim - 1)
        c = ops.matmul(a, b)
        rank = nb + 2
        if epilogue in ("bias_relu", "bias_gelu"):
            bias = ops.broadcast(tensor(1, DataType.Float), [True] * (rank - 1) + [False])
            c = (ops.relu if epilogue == "bias_relu" else ops.gelu)(ops.add(c, bias))
        elif epilogue == "alpha_beta":
            c = ops.add(ops.mul(c, ALPHA), ops.mul(ops.cast(tensor(rank), DataType.Float), BETA))
        elif epilogue == "alpha_beta_2d":
            c_2d = ops.broadcast(tensor(2), [True] * nb + [False, False])     # broadcast first, then compute
            c = ops.add(ops.mul(c, ALPHA), ops.mul(ops.cast(c_2d, DataType.Float), BETA))
        if out_dtype is not None:
            c = ops.cast(c, out_dtype)
        fusion.add_output(c)
    return fusion


def _shapes(batch: tuple[int, ...], m: int, n: int, k: int, b_batched: bool = True, a_batched: bool = True,
            transpose_a: bool = False, transpose_b: bool = False, epilogue: str = "none") -> list[tuple[int, ...]]:
    shapes = [(batch if a_batched else ()) + ((k, m) if transpose_a else (m, k)),
              (batch if b_batched else ()) + ((n, k) if transpose_b else (k, n))]
    if epilogue in ("bias_relu", "bias_gelu"):
        return shapes + [(n,)]
    if epilogue == "alpha_beta":
        return shapes + [batch + (m, n)]
    if epilogue == "alpha_beta_2d":
        return shapes + [(m, n)]
    return shapes


# ------------------------------------------------------------------ the schedule
def test_the_batch_runs_on_blockidx_z_and_each_box_has_batch_extent_1() -> None:
    fusion = _fusion()
    schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1))
    (out,) = fusion.outputs
    assert out.axis(0).parallel_type is ParallelType.BIDz
    text = str(lower(fusion))
    assert "grid (ceilDiv(i5, 64), ceilDiv(i1, 64), i0)" in text
    # A's box origin leads with the batch coordinate: {batch, row, k}
    assert "tmap_T0, {blockIdx.z, blockIdx.y * 64, " in text


def test_a_2d_b_broadcast_over_the_batch_is_loaded_with_its_2d_box() -> None:
    fusion = _fusion(b_batched=False)
    schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1))
    text = str(lower(fusion))
    assert "grid (ceilDiv(i4, 64), ceilDiv(i1, 64), i0)" in text
    assert "tmap_T1, {i8 * 32, (blockIdx.x * 64) + (i12 * 64)}" in text     # {k, n}: no batch coordinate
    assert "tmap_T0, {blockIdx.z, blockIdx.y * 64, i8 * 32}" in text


def test_an_epilogue_tensor_without_the_batch_axes_is_refused() -> None:
    """C [M, N] cast before its broadcast over the batch: the cast is an [M, N] epilogue tensor, which the batched
    epilogue's [B, M, N] fragment layout cannot hold; broadcasting first works (``alpha_beta_2d`` below)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=3, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=3, dtype=DataType.BFloat16)
        c = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        c_f = ops.broadcast(ops.cast(c, DataType.Float), [True, False, False])
        fusion.add_output(ops.add(ops.matmul(a, b), c_f))
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=r"epilogue tensor T3 has 2 axes; the epilogue of a batched matmul is "
                                            r"\[B, M, N\]: broadcast an \[M, N\] or \[N\] input over the batch"):
        schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1))
    assert fusion.state_fingerprint() == before


def test_suggested_params_count_the_tiles_of_every_batch() -> None:
    """32 x 1024 x 1024: 32 tiles of 256 x 128 a batch, 1024 tiles in all, with K of 16 tiles: the persistent
    256 x 128 tile over the tiles of every batch, predicted faster than a tile per block (a batch alone would be
    under one wave)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(32, 1024, 1024), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(32, 1024, 1024), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    problem = matmul_problem(fusion)
    assert problem.batch == 32 and problem.batch_axes == 1
    assert problem.tiles((128, 256, 64)) == 32 * 8 * 4
    params = suggest_matmul_params(fusion, sms=132)
    assert params.persistent and params.tile == (256, 128, 64) and params.group_m == 4
    assert "1024 tiles of 256 x 128" in params.why.summary


def test_32_bit_indices_count_the_batch() -> None:
    """4096 x 4096 x 512 has 2**24 elements of C a batch: 64 batches fit 32-bit indices, 256 do not."""
    def suggested(batch: int) -> MatmulParams:
        fusion = Fusion()
        with fusion:
            a = fusion.add_input(shape=(batch, 4096, 512), dtype=DataType.BFloat16)
            b = fusion.add_input(shape=(batch, 512, 4096), dtype=DataType.BFloat16)
            fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
        return suggest_matmul_params(fusion, sms=132)

    assert suggested(64).persistent and suggested(64).index_type is DataType.Int32
    assert suggested(256).persistent and suggested(256).index_type is DataType.Int64


def test_a_batch_over_the_grid_limit_needs_the_persistent_kernel() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(70000, 64, 64), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(70000, 64, 64), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    with pytest.raises(ScheduleError, match=r"the batch of T2 \(70000 matrices\) runs on blockIdx.z, which takes at "
                                            r"most 65535 blocks; use persistent=True"):
        schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1))
    schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1, persistent=True))


def test_an_operand_that_permutes_its_batch_axis_is_refused() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=3, dtype=DataType.BFloat16)        # [M, B, K]
        b = fusion.add_input(ndim=3, dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(ops.permute(a, [1, 0, 2]), b))
    with pytest.raises(ScheduleError, match=r"operand a \(T2\) permutes the batch axes of input T0 \(dims \[1, 0, 2\]\)"):
        schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=2, compute_warp_groups=1))


def test_an_epilogue_tensor_without_the_batch_is_refused() -> None:
    """A bias broadcast to [M, N] only (not [B, M, N]) cannot be added to a batched result: ops refuse the ranks."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=3, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=3, dtype=DataType.BFloat16)
        bias = fusion.add_input(ndim=1, dtype=DataType.Float)
        with pytest.raises(ScheduleError, match="has rank 3 and T4 has rank 2"):
            ops.add(ops.matmul(a, b), ops.broadcast(bias, [True, False]))


# ------------------------------------------------------------------ in the simulator
SIZES = [(2, 96, 80, 40), (3, 72, 136, 88)]      # B, M, N, K: no tile below divides M, N or K
SMALL = {"tile": (64, 64, 32), "stages": 2, "compute_warp_groups": 1}
CASES = {
    "pipelined": ({**SMALL}, {}),
    "b_transposed": ({**SMALL}, {"transpose_b": True}),
    "a_transposed": ({**SMALL, "stages": 3}, {"transpose_a": True}),
    "b_2d": ({**SMALL}, {"b_batched": False}),
    "b_2d_transposed_persistent": ({**SMALL, "persistent": True, "blocks": 3, "group_m": 2},
                                   {"b_batched": False, "transpose_b": True}),
    "a_2d_transposed_persistent_tma_store": ({**SMALL, "warp_specialized": True, "persistent": True, "blocks": 2,
                                              "tma_store": True},
                                             {"a_batched": False, "transpose_a": True, "out_dtype": DataType.BFloat16}),
    "ws": ({**SMALL, "warp_specialized": True}, {}),
    "persistent": ({**SMALL, "persistent": True, "blocks": 3, "group_m": 2}, {}),
    "ws_persistent_tma_store": ({**SMALL, "warp_specialized": True, "persistent": True, "blocks": 3,
                                 "tma_store": True}, {"out_dtype": DataType.BFloat16, "transpose_b": True}),
    "ping_pong": ({**SMALL, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
                   "ping_pong": True, "blocks": 2}, {}),
    "two_batch_axes": ({**SMALL, "warp_specialized": True, "persistent": True, "blocks": 3}, {"batch": (None, None)}),
    "bias_relu": ({**SMALL}, {"epilogue": "bias_relu", "out_dtype": DataType.BFloat16}),
    "fp16_bias_gelu_persistent": ({**SMALL, "persistent": True, "blocks": 2},
                                  {"dtype": DataType.Half, "epilogue": "bias_gelu", "b_batched": False}),
    "alpha_beta_tma_store": ({**SMALL, "tma_store": True, "warp_specialized": True},
                             {"epilogue": "alpha_beta", "out_dtype": DataType.BFloat16}),
    "alpha_beta_ws_persistent": ({**SMALL, "warp_specialized": True, "persistent": True, "blocks": 3},
                                 {"epilogue": "alpha_beta"}),
    # the rules' persistent tile of a batch: 256 x 128, 4 stages, 256 x 32 sub-tiles, a group of row tiles per batch
    "persistent_256x128_tile": ({"tile": (256, 128, 64), "stages": 4, "compute_warp_groups": 2, "warp_specialized": True,
                                 "persistent": True, "blocks": 3, "group_m": 2, "tma_store": True,
                                 "epilogue_tile": (256, 32), "register_split": (40, 232)},
                                {"out_dtype": DataType.BFloat16}),
    "alpha_beta_2d_c": ({**SMALL, "warp_specialized": True, "persistent": True, "blocks": 3, "tma_store": True},
                        {"epilogue": "alpha_beta_2d", "out_dtype": DataType.BFloat16}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_batched_case_matches_numpy(case: str) -> None:
    params, build = CASES[case]
    fusion = _fusion(**build)
    schedule_matmul(fusion, MatmulParams(**params))
    kernel = lower(fusion)
    tol = 1e-2 if build.get("out_dtype") is not None else 1e-5
    layout = {key: build[key] for key in ("a_batched", "b_batched", "transpose_a", "transpose_b", "epilogue") if key in build}
    two_axes = len(build.get("batch", (None,))) == 2
    for n, (bb, m, nn, k) in enumerate(SIZES):
        batch = (2, bb) if two_axes else (bb,)
        inputs = random_inputs(fusion, _shapes(batch, m, nn, k, **layout), seed=700 + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=n), tol=tol)


def test_the_persistent_256x128_tile_walks_the_rows_of_every_batch() -> None:
    """Three rows of 256-row tiles a batch (520 rows), in groups of two (one padded row a batch), three blocks
    walking the tiles of two batches: the simulator's result is numpy's."""
    params, build = CASES["persistent_256x128_tile"]
    fusion = _fusion(**build)
    schedule_matmul(fusion, MatmulParams(**params))
    kernel = lower(fusion)
    for seed in (0, 1):
        inputs = random_inputs(fusion, _shapes((2,), 520, 264, 136), seed=710 + seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=1e-2)
