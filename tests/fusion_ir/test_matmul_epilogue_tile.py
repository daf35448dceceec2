"""``MatmulParams.epilogue_tile`` and ``epilogue_stages``: their rules, the schedule they make (a sub-tile loop, a
ring of staging tiles) and the shared memory the estimate counts for them."""

from __future__ import annotations

import pytest

from examples import matmul_epilogue
from fusion_ir import DataType, ScheduleError, StoreWait
from fusion_ir.schedulers import MatmulParams
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

TMA = dict(tile=(128, 256, 64), stages=3, warp_specialized=True, tma_store=True)


@pytest.mark.parametrize("fields,match", [
    (dict(epilogue_tile=(64, 32)), r"epilogue_tile: \(64, 32\) has 64 rows; a sub-tile spans every row"),
    (dict(epilogue_tile=(128, 48)), r"epilogue_tile: \(128, 48\) has 48 columns; they must be one of 16, 32, 64"),
    (dict(epilogue_tile=(128, 32), tma_store=False), r"epilogue_tile: \(128, 32\) with tma_store=False"),
    (dict(epilogue_tile=(128, 64), epilogue_stages=5), r"epilogue_stages: 5 staging tiles for 4 sub-tiles"),
    (dict(epilogue_stages=0), r"epilogue_stages: 0 must be a positive int"),
    (dict(epilogue_tile=(128, 32), store_wait="deferred"), r"store_wait: 'deferred' with epilogue_tile"),
    (dict(epilogue_tile=[128, 32]), r"epilogue_tile: \[128, 32\] must be None or a pair of ints"),
])
def test_bad_epilogue_tiles_are_refused_naming_the_field(fields: dict, match: str) -> None:
    with pytest.raises(ScheduleError, match=match):
        MatmulParams(**{**TMA, **fields}).validate()


def test_a_ring_frees_the_staging_tile_for_pipeline_stages() -> None:
    """The whole 128 x 256 bf16 tile (64 KiB) beside C's tile leaves room for 2 stages of 48 KiB; 2 sub-tiles of
    128 x 32 (16 KiB) leave room for 3."""
    whole = MatmulParams(**{**TMA, "persistent": True})
    ring = MatmulParams(**{**TMA, "persistent": True, "epilogue_tile": (128, 32)})
    bf16 = DataType.BFloat16
    assert whole.smem_bytes(bf16, loaded=2) - ring.smem_bytes(bf16, loaded=2) == 64 * 1024 - 16 * 1024


def test_set_store_wait_stages_need_a_deferred_wait() -> None:
    fusion = matmul_epilogue.build("bias_relu")
    (out,) = fusion.outputs
    with pytest.raises(ScheduleError, match=r"stages=2 for T\d+ with 'after_boxes'; a ring of tiles needs"):
        out.set_store_wait(StoreWait.AfterBoxes, stages=2)


def _walk(nodes):
    for node in nodes:
        yield node
        for _, sub in k.children(node):
            yield from _walk(sub)


def test_the_sub_tiles_are_one_unrolled_loop_with_a_store_each() -> None:
    kernel = lower(matmul_epilogue.build("bias_relu", epilogue_tile=(128, 32)))
    loops = [n for n in _walk(kernel.body) if isinstance(n, k.ForLoop)
             and any(isinstance(x, k.TmaStore) for x in _walk(n.body))]
    sub = loops[-1]
    assert sub.unroll and sub.stop.const_value() == 8
    stores = [n for n in _walk(sub.body) if isinstance(n, k.TmaStore)]
    assert len(stores) == 1 and "% 2" in str(stores[0].src_index)       # tile s % 2 of the ring
    assert stores[0].src.size.const_value() == 2 * 128 * 32             # two staging tiles of 128 x 32


@pytest.mark.parametrize("kind", matmul_epilogue.KINDS)
@pytest.mark.parametrize("params", [
    {"epilogue_tile": (128, 32)},
    {"epilogue_tile": (128, 64), "epilogue_stages": 3, "persistent": False},
    {"epilogue_tile": (128, 16), "warp_specialized": False, "persistent": False, "stages": 2},
], ids=["persistent_128x32", "one_tile_128x64_3_stages", "pipelined_128x16"])
def test_sub_tiled_epilogues_match_numpy_at_odd_sizes(kind: str, params: dict) -> None:
    fusion = matmul_epilogue.build(kind, **params)
    kernel = lower(fusion)
    for n, (m, nn, kk) in enumerate([(200, 264, 136), (520, 1000, 264)]):
        for seed in (0, 1):
            inputs = matmul_epilogue.make_inputs(fusion, kind, m, nn, kk, seed=seed + 10 * n)
            assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed + 10 * n), tol=matmul_epilogue.TOLERANCE)


@pytest.mark.parametrize("kind", ["bias_relu", "bias_gelu"])
def test_ping_pong_sub_tiled_epilogues_match_numpy(kind: str) -> None:
    fusion = matmul_epilogue.build(kind, ping_pong=True, tile=(128, 128, 64), stages=4, epilogue_tile=(128, 32))
    kernel = lower(fusion)
    for seed, (m, nn, kk) in enumerate([(200, 264, 136), (520, 1000, 264)]):
        inputs = random_inputs(fusion, matmul_epilogue.input_shapes(kind, m, nn, kk), seed=seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=matmul_epilogue.TOLERANCE)


@pytest.mark.parametrize("kind,sub,stages", [("alpha_beta", (128, 32), 3), ("residual", (128, 32), 3),
                                             ("bias_relu", (128, 32), 4)])
def test_persistent_kernels_sub_tile_beside_epilogue_inputs(kind: str, sub, stages: int) -> None:
    """At 8192 x 8192 x 960 (persistent): C's tile keeps a third stage with a 128 x 32 ring, a bias epilogue a
    fourth; a plain matmul is the persistent 256 x 128 tile, 4 stages beside a ring of 256 x 32."""
    from fusion_ir.schedulers import suggest_matmul_params
    from tests.fusion_ir.test_suggest import _matmul

    params = suggest_matmul_params(matmul_epilogue.fusion_of(kind, (8192, 8192, 960)))
    assert params.persistent and not params.ping_pong and params.epilogue_tile == sub and params.stages == stages
    plain = suggest_matmul_params(_matmul((8192, 8192, 960)))
    assert plain.persistent and plain.tile == (256, 128, 64) and plain.epilogue_tile == (256, 32) and plain.stages == 4


@pytest.mark.parametrize("kind,ping_pong", [("alpha_beta", False), ("residual", False), ("bias_relu", True)])
def test_k_of_8_tiles_ping_pong_without_an_mn_epilogue_input(kind: str, ping_pong: bool) -> None:
    """At 8192 x 8192 x 512 (8 K tiles, four waves of 128 x 128): ping-pong with a bias epilogue, the persistent
    128 x 256 kernel where the epilogue reads an [M, N] input (C's tile beside each group's stages)."""
    from fusion_ir.schedulers import suggest_matmul_params

    params = suggest_matmul_params(matmul_epilogue.fusion_of(kind, (8192, 8192, 512)))
    assert params.persistent and params.ping_pong == ping_pong


@pytest.mark.parametrize("stages", [1, 2])
def test_a_persistent_ring_outlives_the_tile_loop(stages: int) -> None:
    """Found by the fuzzer: warps past the last sub-tile's barrier ran into the next tile, whose allocation of the
    ring (inside the tile loop) came before the elected thread's store of that sub-tile had read it. The ring is
    allocated outside the tile loop."""
    from fuzz.matmul import MatmulCase, check_matmul_case

    params = MatmulParams(tile=(128, 64, 16), stages="auto", compute_warp_groups=2, warp_specialized=True,
                          persistent=True, blocks=1, tma_store=True, epilogue_tile=(128, 16), epilogue_stages=stages)
    case = MatmulCase(params, DataType.BFloat16, "none", 1, 56, 8, 0, None, False, False, 1, False, False)
    assert check_matmul_case(case) == "matched"
    fusion = case.fusion()
    case.schedule(fusion)
    kernel = lower(fusion)
    tile_loop = next(n for n in _walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is k.Stage.ComputeWarp)
    ring = next(n for n in _walk(kernel.body) if isinstance(n, k.TmaStore)).src
    assert not any(isinstance(n, k.Allocate) and n.buffer is ring for n in _walk(tile_loop.body))


def test_a_tile_of_one_sub_tile_gets_a_ring_of_one() -> None:
    """Found by the matmul fuzzer: a pinned 64 x 64 tile is one 64 x 64 sub-tile, and the default ring of two
    staging tiles was refused; the suggestion gives it a ring of one."""
    from fusion_ir.schedulers import suggest_matmul_params
    from tests.fusion_ir.test_suggest import _matmul

    params = suggest_matmul_params(_matmul((1, 8, 16)), tile=(64, 64, 64), blocks=1)
    assert params.epilogue_tile == (64, 64) and params.epilogue_stages == 1
    pinned = suggest_matmul_params(_matmul((1, 8, 16)), tile=(64, 64, 64), blocks=1, epilogue_tile=(64, 64))
    assert pinned.epilogue_stages == 1
