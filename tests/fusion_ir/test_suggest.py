"""suggest_matmul_params: what it picks for each class of problem, the requirements it refuses
(naming the operand or the field), and schedule_matmul without params using it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from fusion_ir import DataType, Fusion, ScheduleError, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.suggest import register_split
from target import H100


def _matmul(shape: tuple[int, int, int] | None = None, dtype: DataType = DataType.BFloat16,
            out_dtype: DataType | None = DataType.BFloat16, k_of_b: int | None = None) -> Fusion:
    """``cast(a @ b, out_dtype)`` (no cast: a float result) of (M, N, K), or of symbolic extents."""
    fusion = Fusion()
    with fusion:
        if shape is None:
            a = fusion.add_input(ndim=2, dtype=dtype)
            b = fusion.add_input(ndim=2, dtype=dtype)
        else:
            m, n, k = shape
            a = fusion.add_input(shape=(m, k), dtype=dtype)
            b = fusion.add_input(shape=(k if k_of_b is None else k_of_b, n), dtype=dtype)
        c = ops.matmul(a, b)
        fusion.add_output(c if out_dtype is None else ops.cast(c, out_dtype))
    return fusion


def _kind(p: MatmulParams) -> tuple:
    return p.tile, p.compute_warp_groups, p.stages, p.persistent, p.tma_store


@pytest.mark.parametrize("shape,expected", [
    # four waves of big tiles or more and K of 16 tiles or more: persistent 256 x 128 where rows are 128-byte
    # multiples (past 64 K tiles where predicted no slower), persistent 128 x 256 (in clusters of two) where not
    ((8192, 8192, 8192), ((256, 128, 64), 2, 4, True, True)),
    ((5000, 7000, 3000), ((128, 256, 64), 2, 4, True, True)),
    # four waves or more, a shorter K (but more than 8 tiles), aligned rows and a 16-bit result: persistent 256 x 128,
    # 4 stages beside a ring of 256 x 32 staging tiles
    ((16384, 16384, 960), ((256, 128, 64), 2, 4, True, True)),
    # two waves or more with K of 16 to 64 tiles: persistent 256 x 128 where predicted faster than a tile per block
    ((4096, 4096, 4096), ((256, 128, 64), 2, 4, True, True)),
    ((16384, 1024, 4096), ((256, 128, 64), 2, 4, True, True)),
    # one to four waves otherwise: a tile per block, as deep as K allows
    ((1234, 4568, 888), ((256, 192, 64), 2, 4, False, True)),
    ((512, 16384, 4096), ((256, 128, 64), 2, 4, False, True)),
    # fewer big tiles than SMs: the tile with the fewest waves x work / rate
    ((2048, 2048, 16384), ((128, 256, 64), 2, 4, False, True)),
    ((2048, 2048, 2048), ((128, 256, 64), 2, 4, False, True)),
    ((1024, 2048, 8192), ((128, 128, 64), 2, 4, False, True)),     # not skinny: no 64 x 256
    ((1536, 1536, 6000), ((128, 160, 64), 2, 6, False, True)),      # in clusters of 2 x 2
    ((128, 8192, 8192), ((128, 64, 64), 1, 8, False, True)),     # M of 128: all of it, swapped (_short_tile)
    ((64, 64, 64), ((64, 64, 64), 1, 2, False, True)),           # N of 64: a tile no wider (_narrow_tile)
])
def test_choice_by_shape_class(shape: tuple[int, int, int], expected: tuple) -> None:
    params = suggest_matmul_params(_matmul(shape))
    assert _kind(params) == expected
    if shape[0] * shape[1] >= 4 * 132 * 128 * 256:      # four waves: clusters where K has 16 tiles or more, odd rows
        assert params.cluster == ((2, 1) if shape[2] >= 1024 and shape[0] % 64 else (1, 1))
    elif shape[2] * 2 % 128 == 0:                        # fewer, with 128-byte rows: no cluster but for a 64-row
        under_a_wave = -(-shape[0] // 128) * -(-shape[1] // 256) < 132
        streamed = (under_a_wave and -(-shape[0] // params.tile[0]) >= 2 and shape[0] <= 384   # a skinny M,
                    and shape[2] >= 1024 and shape[1] * shape[2] * 2 > 25 * 2**20)           # a B over half the L2
        assert (params.cluster != (1, 1)) == streamed
    assert params.warp_specialized and not params.ping_pong and params.blocks == 132
    assert params.index_type is DataType.Int64          # 32-bit ones slowed the persistent cooperative kernel
    params.validate(DataType.BFloat16)


@pytest.mark.parametrize("shape,stages", [
    ((4096, 4096, 256), 6), ((4096, 4096, 128), 4),    # four waves: two tiles of K per warp group, memory allowing
    ((2048, 2048, 256), 4), ((2048, 2048, 128), 4),    # K of at most 4 tiles, under four waves: the 128 x 128 cap
    ((8192, 8192, 512), 6), ((3072, 3072, 384), 6),    # K of 5 to 8 tiles and four waves of 128 x 128 tiles
    ((32768, 128, 2048), 6),                           # N of 128, K of 32 tiles: as deep as memory allows
])
def test_ping_pong_where_a_tile_is_mostly_epilogue_or_n_is_128(shape: tuple[int, int, int], stages: int) -> None:
    """K of at most 4 tiles with a wave of 128 x 128 tiles, K of at most 8 tiles with four waves, or N of at most 128
    (a 256-wide tile half empty): persistent ping-pong 128 x 128, one warp group's epilogue under the other's
    mainloop; at short K with four waves as deep as shared memory allows (the producer fills stages of the next
    tiles), and so with K of more than 12 tiles (PING_PONG_WAVE_STAGES), otherwise the 128 x 128 tile's cap of 4."""
    params = suggest_matmul_params(_matmul(shape))
    assert _kind(params) == ((128, 128, 64), 2, stages, True, True) and params.ping_pong
    assert params.index_type is DataType.Int32


@pytest.mark.parametrize("shape", [(2048, 2048, 512), (1536, 1536, 512), (1024, 4096, 512)])
def test_no_ping_pong_for_k_of_5_to_8_tiles_under_four_waves(shape: tuple[int, int, int]) -> None:
    assert not suggest_matmul_params(_matmul(shape)).ping_pong


def test_no_longer_ping_pong_for_k_of_5_to_8_tiles_with_a_compute_loaded_operand() -> None:
    """K = 500: A's rows are not 16-byte multiples, the compute warp groups load it; the 5-8 tile rule was measured
    with a producer warp group only."""
    assert not suggest_matmul_params(_matmul((8192, 8192, 500))).ping_pong


@pytest.mark.parametrize("shape,cluster", [
    ((128, 12288, 8192), (2, 1)),     # two rows of 64 x 256, K of 128 tiles, B of 192 MiB: B's tile shared
    ((256, 12288, 12288), (2, 1)),    # two rows of 128 x 192
    ((288, 4096, 16384), (1, 2)),     # five rows of 64 x 256: along N, sharing A (no padded row of blocks)
    ((384, 4096, 16384), (2, 1)),     # six rows of 64 x 256
    ((1024, 1024, 1024), (1, 1)),     # B of 2 MiB stays in L2
    ((8192, 256, 8192), (1, 1)),      # B of 4 MiB
    ((64, 8192, 8192), (1, 1)),       # one row of tiles: nothing to share (M of 64 and 128: swapped, _short_tile)
    ((512, 8192, 16384), (1, 1)),     # M = 512: four rows of 128 x 256, B's reads no longer bound it
    ((128, 8192, 512), (1, 1)),       # K of 8 tiles: too short for the cluster's barriers to pay
])
def test_two_rows_of_tiles_share_a_streamed_b_in_clusters(shape: tuple[int, int, int],
                                                         cluster: tuple[int, int]) -> None:
    """Under one wave, a skinny M (at most 384, two rows of tiles or more) with a K of 16 tiles or more and a B larger
    than half the L2: clusters of two, along M sharing B's tile where the rows are even, else along N; the reason
    names the rule."""
    params = suggest_matmul_params(_matmul(shape))
    assert params.cluster == cluster
    assert (params.why.reason("cluster") or "").startswith("rule streamed B") == (cluster != (1, 1))


def _spans(params: MatmulParams) -> bool:
    """The tile is the span rule's (its reason says so)."""
    return (params.why.reason("tile") or "").startswith("rule span")


@pytest.mark.parametrize("shape,tile", [
    ((184, 12288, 6144), (192, 128, 64)),    # 192 columns of 64-column tiles, over a wave: 192 x 128, 96 blocks
    ((183, 10552, 13824), (192, 128, 64)),   # B's rows of 21104 bytes (not 128-byte multiples) too
    ((8192, 192, 8192), (64, 192, 64)),      # N of 192: one column of 64 x 192, 128 blocks, each tile of A read once
    ((160, 12288, 8192), None),              # M of 160: a sixth of the tile's rows padding
    ((8192, 176, 8192), None),               # N of 176: a twelfth of the tile's columns padding
    ((12288, 192, 8192), None),              # 192 rows of 64 x 192 are over a wave: 128 x 192 on two warp groups
])
def test_one_tile_spans_a_skinny_side(shape: tuple[int, int, int], tile: tuple[int, int, int] | None) -> None:
    """Under one wave, M of 168 to 192 rows (or N of 192) with the other operand streamed from DRAM and too many
    columns for the short tile: one compute warp group's tile spans it, no cluster, where its blocks are half a wave
    to a wave; the reason names the rule."""
    params = suggest_matmul_params(_matmul(shape))
    assert _spans(params) == (tile is not None)
    if tile is not None:
        assert params.tile == tile and params.compute_warp_groups == 1 and params.cluster == (1, 1)
        assert params.split_k == 1 and not params.persistent and params.tma_store and not params.swap_ab


@pytest.mark.parametrize("shape,tile,split", [
    ((16, 8192, 8192), (16, 64, 64), 1),        # 128 blocks of all 16 rows: B read once, no padded rows
    ((1, 4096, 4096), (16, 64, 64), 2),         # one row: the TMA store's 16; 64 blocks, 2 splits a wave
    ((42, 1240, 1464), (48, 64, 64), 1),        # 20 blocks: at most 64 rows, any number of blocks
    ((16, 2048, 8192), (16, 64, 64), 4),        # 32 blocks: 4 splits of 32 K tiles a wave
    ((16, 2352, 13424), (16, 64, 64), 3),       # 37 blocks: 3 splits a wave
    ((192, 8192, 8192), (192, 64, 64), 1),      # the span rule's 192 rows, swapped
    ((136, 5000, 6000), (144, 64, 64), 1),      # 79 blocks: half a wave or more
    ((83, 2536, 14536), (96, 64, 64), 3),       # 40 blocks: 3 splits a wave
    ((96, 4096, 16384), (96, 64, 64), 2),       # 64 blocks: 2 splits a wave
    ((128, 2048, 32768), (128, 64, 64), 4),     # 32 blocks: 4 splits a wave
    ((140, 2584, 5960), (144, 64, 64), 2),      # 41 blocks, 2 splits of 46 K tiles: 82, over half a wave
    ((238, 1200, 5424), None, 0),               # M over 192
    ((90, 1376, 2048), None, 0),                # 22 blocks, K too short to split: under half a wave
    ((256, 2048, 8192), None, 0),               # 2 splits of 32 blocks, under half a wave
    ((16, 28672, 4096), None, 0),               # 448 columns of 64-column tiles: over a wave
    ((200, 8192, 8192), None, 0),               # M over 192: a 256-row tile on two warp groups pads a quarter
])
def test_a_short_m_takes_all_its_rows_swapped(shape: tuple[int, int, int], tile: tuple[int, int, int] | None,
                                             split: int) -> None:
    """Under one wave, M of at most 192 rows whose 64-column tiles fit a wave: all of M (in 16s) by 64, swapped
    (the instruction's rows along N, its N along M), on one compute warp group; K in the most splits that keep the
    blocks within a wave, each of 32 K tiles or more, and over 64 rows none under half a wave of blocks; the reasons
    name the rule; the kernel lowers."""
    from lowering import lower
    fusion = _matmul(shape)
    params = suggest_matmul_params(fusion)
    assert (_spans(params) and params.swap_ab) == (tile is not None)
    if tile is not None:
        assert (params.tile, params.compute_warp_groups, params.split_k) == (tile, 1, split)
        assert params.register_split == register_split(1) and params.cluster == (1, 1)
        assert not params.persistent and params.tma_store
        assert f"M = {shape[0]}" in (params.why.reason("tile") or "")
        assert (params.why.reason("swap_ab") or "").startswith("rule short M")
        assert (params.why.reason("split_k") or "").startswith("rule short M") == (split > 1)
        assert "swapped" in (params.why.reason("epilogue_tile") or "")      # _swapped_sub_tile's, not ping-pong's
        lower(schedule_matmul(fusion, params))


@pytest.mark.parametrize("shape,tile,groups", [
    ((8192, 48, 8192), (64, 64, 64), 1),     # 128 rows of 64 x 64 tiles: a wave, each block reading its rows of A
    ((3000, 56, 9000), (64, 64, 64), 1),     # rows of 112 bytes (not 128-byte multiples) too
    ((2048, 64, 2048), (64, 64, 64), 1),     # A in L2: still one column of tiles, no padded columns
    ((10496, 64, 2816), (128, 64, 64), 2),   # 164 rows of 64-row tiles, over a wave: 128 x 64 on two warp groups
    ((8192, 72, 8192), None, 0),             # N over 64
    ((20000, 64, 4096), None, 0),            # over a wave of 128 x 256 tiles: the other rules
])
def test_a_narrow_n_takes_a_tile_as_wide_as_the_problem(shape: tuple[int, int, int], tile: tuple[int, int, int] | None,
                                                       groups: int) -> None:
    """Under one wave, N of at most 64 columns: 64 x 64 on one compute warp group where its rows of tiles fit a wave,
    else 128 x 64 on two; the reason names the span rule and N; the kernel lowers."""
    from lowering import lower
    fusion = _matmul(shape)
    params = suggest_matmul_params(fusion)
    assert _spans(params) == (tile is not None)
    if tile is not None:
        assert (params.tile, params.compute_warp_groups) == (tile, groups)
        assert params.register_split == register_split(groups)
        assert params.cluster == (1, 1) and params.split_k == 1 and not params.persistent and params.tma_store
        assert f"N = {shape[1]}" in (params.why.reason("tile") or "")
        lower(schedule_matmul(fusion, params))


@pytest.mark.parametrize("m,n", [(192, 12288), (8192, 64), (64, 8192)], ids=["span", "narrow", "short"])
def test_a_spanning_tile_needs_a_plain_epilogue_and_no_batch(m: int, n: int) -> None:
    """An epilogue input or a batch keeps the rules' other tiles (the spanning, narrow-N and short-M tiles were measured
    on plain matmuls only)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, 8192), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(8192, n), dtype=DataType.BFloat16)
        bias = fusion.add_input(shape=(n,), dtype=DataType.Float)
        fusion.add_output(ops.cast(ops.relu(ops.add(ops.matmul(a, b), ops.broadcast(bias, [True, False]))),
                                   DataType.BFloat16))
    assert not _spans(suggest_matmul_params(fusion))
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(2, m, 8192), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(2, 8192, n), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    assert not _spans(suggest_matmul_params(fusion))


def test_a_192_x_192_tile_where_it_fills_whole_waves() -> None:
    """3000^3: 256 tiles of 192 x 192 are two waves on 132 SMs, 288 of 128 x 256 three; three compute warp groups
    share the registers the producer leaves."""
    params = suggest_matmul_params(_matmul((3000, 3000, 3000)))
    assert params.tile == (192, 192, 64) and params.compute_warp_groups == 3 and params.register_split == (40, 152)
    assert params.tma_store and not params.persistent
    assert suggest_matmul_params(_matmul((4096, 4096, 4096))).tile == (256, 128, 64)   # 4 waves either way


@pytest.mark.parametrize("shape", [(4096, 4096, 256), (4096, 4096, 128)])
def test_ping_pong_with_an_epilogue_input_where_the_plain_matmul_takes_it(shape: tuple[int, int, int]) -> None:
    """Each ping-pong warp group loads the C tile of its own turn: short K gets the plain matmul's ping-pong, with
    the whole staging tile (the groups take turns on one; sub-tiles would need a ring per group) and 4 stages
    beside the two C tiles; the suggestion schedules and lowers."""
    plain = suggest_matmul_params(_matmul(shape))
    fusion = _with_epilogue("c", shape)
    params = suggest_matmul_params(fusion)
    assert plain.ping_pong and params.ping_pong
    assert _kind(params)[:2] + _kind(params)[3:] == _kind(plain)[:2] + _kind(plain)[3:]
    assert params.epilogue_tile is None and params.stages == 4
    schedule_matmul(fusion)


def test_no_ping_pong_with_an_epilogue_input_where_the_plain_matmul_is_cooperative() -> None:
    assert not suggest_matmul_params(_matmul((4096, 4096, 4096))).ping_pong
    assert not suggest_matmul_params(_with_epilogue("c", (4096, 4096, 4096))).ping_pong


def test_indices_past_31_bits_stay_64_bit() -> None:
    params = suggest_matmul_params(_matmul((65536, 65536, 512)))
    assert params.persistent and params.index_type is DataType.Int64


def test_symbolic_sizes_get_the_best_worst_case() -> None:
    assert _kind(suggest_matmul_params(_matmul())) == ((256, 128, 64), 2, 4, False, False)


def test_a_float_result_has_no_tma_store() -> None:
    params = suggest_matmul_params(_matmul((8192, 8192, 8192), out_dtype=None))
    assert _kind(params) == ((256, 128, 64), 2, 4, False, False)


def test_fp16_operands() -> None:
    params = suggest_matmul_params(_matmul((8192, 8192, 512), dtype=DataType.Half, out_dtype=DataType.Half))
    assert _kind(params) == ((128, 128, 64), 2, 6, True, True) and params.ping_pong
    params = suggest_matmul_params(_matmul((8192, 8192, 8192), dtype=DataType.Half, out_dtype=DataType.Half))
    assert _kind(params) == ((256, 128, 64), 2, 4, True, True) and params.cluster == (1, 1)


def test_sms_sets_the_blocks_and_the_waves() -> None:
    params = suggest_matmul_params(_matmul((8192, 8192, 512)), sms=114)
    assert params.persistent and params.blocks == 114
    # 32 tiles of 128 x 256: under one wave on 132 SMs (split-K: 4 blocks per tile), 16 waves on 2
    assert suggest_matmul_params(_matmul((1024, 1024, 4096)), sms=132).split_k == 1   # 64 K tiles: no split
    assert suggest_matmul_params(_matmul((1024, 1024, 512)), sms=2).persistent
    many = suggest_matmul_params(_matmul((1024, 1024, 4096)), sms=2)   # K of 64 tiles, aligned rows: persistent 256 x 128
    assert many.persistent and many.tile == (256, 128, 64) and many.cluster == (1, 1) and many.blocks == 2


@pytest.mark.parametrize("shape", [(8192, 8192, 8192), (2048, 2048, 2048), (1024, 1024, 32768)])
def test_depth_is_the_deepest_that_fits(shape: tuple[int, int, int]) -> None:
    params = suggest_matmul_params(_matmul(shape))
    assert params.smem_bytes(DataType.BFloat16) <= H100.smem_per_block
    deeper = MatmulParams(**{**params.__dict__, "stages": params.stages + 1})
    assert deeper.smem_bytes(DataType.BFloat16) > H100.smem_per_block or params.stages == 8


def test_the_128_x_128_tile_stops_at_4_stages() -> None:
    """Measured: 5 to 7 stages ran slower than 4 with this tile."""
    params = suggest_matmul_params(_matmul((1024, 2048, 8192)), tile=(128, 128, 64))
    assert params.tile == (128, 128, 64) and params.stages == 4
    assert replace(params, stages=7).smem_bytes(DataType.BFloat16) <= H100.smem_per_block


def test_pinned_fields_are_kept_and_the_rest_chosen() -> None:
    params = suggest_matmul_params(_matmul((2048, 2048, 2048)), tile=(128, 128, 64))
    assert params.tile == (128, 128, 64) and params.compute_warp_groups == 2 and params.stages == 4
    params = suggest_matmul_params(_matmul((2048, 2048, 2048)), tile=(64, 256, 64))
    assert params.compute_warp_groups == 1 and params.stages == 5
    params = suggest_matmul_params(_matmul((2048, 2048, 2048)), stages=3, tma_store=True)
    assert params.stages == 3 and params.tma_store and params.tile == (128, 256, 64)
    # the rest of the persistent arrangement stays around a pinned tile: TMA store, depth beside its staging tile
    params = suggest_matmul_params(_matmul((8192, 8192, 512)), tile=(64, 256, 64))
    assert params.persistent and not params.ping_pong and params.tma_store
    assert params.epilogue_tile == (64, 32) and params.stages == 5   # cooperative: a ring of sub-tiles, a fifth stage
    # a pinned field a suggested cluster cannot keep drops the cluster; a pinned grouped grid or split-K runs a block
    # per tile where the rules suggest a persistent kernel
    params = suggest_matmul_params(_matmul((5000, 7000, 4096)), grouped_grid=True)
    assert params.grouped_grid and not params.persistent and params.cluster == (1, 1)
    assert "pinned" in params.why.reason("cluster") and "a block per tile" in params.why.reason("persistent")
    for shape in ((4096, 4096, 4096), (4096, 4096, 512)):      # the persistent tile; ping-pong
        params = suggest_matmul_params(_matmul(shape), split_k=2)
        assert params.split_k == 2 and not params.persistent and not params.ping_pong
    assert suggest_matmul_params(_matmul((2048, 2048, 2048)), index_type=DataType.Int32).index_type is DataType.Int32
    assert suggest_matmul_params(_matmul((4096, 4096, 256)), stages="auto").stages == "auto"   # the lowering's depth
    # ping-pong arranged around a pinned ping_pong=True
    params = suggest_matmul_params(_matmul((4096, 4096, 4096)), ping_pong=True)
    assert _kind(params) == ((128, 128, 64), 2, 6, True, True) and params.ping_pong   # K of 64 tiles: 6 stages
    # ... with the register split of its two compute warp groups, also where the rules' tile had three (192 x 192
    # at 2048 x 2304 x 2048: their 152 registers made two 128 x 128 accumulators spill, 20 times slower)
    assert suggest_matmul_params(_matmul((2048, 2304, 2048))).register_split == (40, 152)
    params = suggest_matmul_params(_matmul((2048, 2304, 2048)), ping_pong=True)
    assert params.compute_warp_groups == 2 and params.register_split == (40, 232)
    # a persistent pipeline fills its stages from the next tile: deeper than the K tiles is fine
    params = suggest_matmul_params(_matmul((4096, 4096, 128)), tile=(128, 128, 64), persistent=True, stages=6)
    assert params.stages == 6


def test_every_suggestion_schedules() -> None:
    for shape in [(8192, 8192, 8192), (1024, 1024, 32768), (4096, 4096, 256), (200, 264, 136)]:
        fusion = _matmul(shape)
        schedule_matmul(fusion, suggest_matmul_params(fusion))


def test_schedule_matmul_without_params_uses_the_suggestion() -> None:
    for shape in [(8192, 8192, 8192), (1024, 1024, 32768), None]:
        suggested = _matmul(shape)
        schedule_matmul(suggested, suggest_matmul_params(suggested))
        default = schedule_matmul(_matmul(shape))
        assert str(default) == str(suggested)


# ---- requirements -------------------------------------------------------

@pytest.mark.parametrize("fusion,match", [
    (lambda: _matmul((128, 128, 64), k_of_b=72),
     r"K of operand a \(T0, \[M, K\] = \[128, 64\]\) is 64 but K of operand b \(T1, \[K, N\] = \[72, 128\]\) is 72"),
])
def test_problems_the_kernel_cannot_run(fusion, match: str) -> None:
    with pytest.raises(ScheduleError, match="suggest_matmul_params: " + match):
        suggest_matmul_params(fusion())
    f = fusion()
    before = str(f)
    with pytest.raises(ScheduleError, match="schedule_matmul: " + match):      # explicit params too
        schedule_matmul(f, MatmulParams(tile=(128, 128, 64), stages=2, compute_warp_groups=2))
    assert str(f) == before
    with pytest.raises(ScheduleError, match="suggest_matmul_params: " + match):   # and without
        schedule_matmul(fusion())


def test_a_pinned_depth_over_the_k_tiles_is_refused() -> None:
    with pytest.raises(ScheduleError, match=r"suggest_matmul_params: stages=6 is deeper than the 4 K tiles of the "
                                            r"problem \(K = 256 in tiles of 64\).*pin at most 4 stages"):
        suggest_matmul_params(_matmul((4096, 4096, 256)), tile=(128, 128, 64), persistent=False, stages=6)
    with pytest.raises(ScheduleError, match=r"stages=3 is deeper than the 1 K tiles .*pin at most 2 stages"):
        suggest_matmul_params(_matmul((4096, 4096, 64)), tile=(128, 128, 64), persistent=False, stages=3)
    # K unknown: nothing to check
    assert suggest_matmul_params(_matmul(), tile=(128, 128, 64), stages=6).stages == 6


@pytest.mark.parametrize("pinned,match", [
    ({"tile": (96, 256, 64)}, r"MatmulParams.tile: M 96 is not a multiple of 64"),
    ({"tile": (128, 256, 64), "stages": 5}, r"MatmulParams.stages: 5 stages .* over the 232448-byte limit"),
    ({"tile": (128, 256, 64), "compute_warp_groups": 1}, r"256 fp32 accumulators"),
    ({"ping_pong": True, "persistent": False}, r"MatmulParams.ping_pong"),
    ({"tiles": (128, 128, 64)}, r"suggest_matmul_params: tiles is not a MatmulParams field"),
])
def test_pinned_fields_that_cannot_work_name_the_rule(pinned: dict, match: str) -> None:
    with pytest.raises(ScheduleError, match=match):
        suggest_matmul_params(_matmul((4096, 4096, 4096)), **pinned)


@pytest.mark.parametrize("sms", [0, -3, True, 13.0])
def test_sms_must_be_a_positive_int(sms: object) -> None:
    with pytest.raises(ScheduleError, match=r"suggest_matmul_params: sms .* must be a positive int"):
        suggest_matmul_params(_matmul((4096, 4096, 4096)), sms=sms)  # type: ignore[arg-type]


def test_operand_rules_come_first() -> None:
    with pytest.raises(ScheduleError, match=r"operand a \(T0\) is float; wgmma takes bf16 or fp16"):
        suggest_matmul_params(_matmul((128, 128, 64), dtype=DataType.Float, out_dtype=None))


def _with_epilogue(kind: str, shape: tuple[int, int, int] = (8192, 8192, 8192)) -> Fusion:
    """``relu(a @ b + bias)`` (a float [N] bias) or ``2 (a @ b) + 0.5 C`` (a bf16 [M, N] C), cast to bf16."""
    m, n, k = shape
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k, n), dtype=DataType.BFloat16)
        c = ops.matmul(a, b)
        if kind == "bias":
            bias = fusion.add_input(shape=(n,), dtype=DataType.Float)
            c = ops.relu(ops.add(c, ops.broadcast(bias, [True, False])))
        else:
            cin = fusion.add_input(shape=(m, n), dtype=DataType.BFloat16)
            c = ops.add(ops.mul(c, 2.0), ops.mul(ops.cast(cin, DataType.Float), 0.5))
        fusion.add_output(ops.cast(c, DataType.BFloat16))
    return fusion


@pytest.mark.parametrize("kind, stages, cluster", [("bias", 4, (1, 1)), ("C", 3, (2, 1))])
def test_an_epilogue_keeps_the_tma_store_and_c_takes_clusters(kind: str, stages: int, cluster: tuple) -> None:
    """At 8192^3 a bias changes nothing of the plain arrangement: the persistent 256 x 128 tile, the TMA store
    through sub-tiles of 256 x 32, the bias a shared vector. C's tile lives beside 3 stages of a tile per block, and
    its reads beside the operands' take the clusters of two (B's tile multicast: half its L2 reads), as misaligned
    rows do."""
    fusion = _with_epilogue(kind)
    params = suggest_matmul_params(fusion)
    assert params.persistent == (kind == "bias") and params.cluster == cluster
    sub = 32 if params.persistent else 64
    assert params.tma_store and params.stages == stages and params.epilogue_tile == (params.tile[0], sub)
    schedule_matmul(fusion)           # the suggestion schedules


def test_ping_pong_with_a_bias_takes_the_tma_store() -> None:
    """Ping-pong warp groups TMA-load the bias of their own turn into shared memory, as the cooperative kernel does:
    no global read is left in the epilogue, so the TMA store (register stores ran faster only beside global reads)."""
    params = suggest_matmul_params(_with_epilogue("bias", (4096, 4096, 128)))
    assert params.ping_pong and params.tma_store and params.epilogue_tile is None


# ------------------------------------------------------------------ rows TMA cannot copy
@pytest.mark.parametrize("shape,dtype,loads", [
    ((1234, 4568, 891), DataType.BFloat16, ("Set", "TMA")),        # K odd: plain 2-byte copies of A
    ((1234, 4567, 888), DataType.BFloat16, ("TMA", "Set")),        # N odd: plain copies of B
    ((2000, 3000, 262), DataType.BFloat16, ("CpAsync", "TMA")),    # K even: 4-byte cp.async of A
    ((4096, 4096, 1001), DataType.BFloat16, ("Set", "TMA")),
    ((256, 260, 256), DataType.Half, ("TMA", "CpAsync")),           # N = 260: 8-byte cp.async of B
])
def test_rows_tma_cannot_copy_get_a_pipelined_kernel(shape: tuple[int, int, int], dtype: DataType,
                                                     loads: tuple[str, str]) -> None:
    """An operand whose rows are not 16-byte multiples (what TMA needs) is loaded by the compute warp groups: the
    suggestion is a Pipelined kernel, one tile per block, at least 3 stages (docs/matmul.md, "Any K and any row
    stride"); the problem says how each operand is loaded."""
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    fusion = _matmul(shape, dtype=dtype, out_dtype=dtype)
    assert tuple(load.kind.name for load in matmul_problem(fusion).loads) == loads
    p = suggest_matmul_params(fusion)
    assert not p.warp_specialized and not p.persistent and not p.ping_pong
    assert p.stages >= 3
    schedule_matmul(fusion, p)


@pytest.mark.parametrize("pinned,match", [
    ({"warp_specialized": True}, (r"MatmulParams.warp_specialized: a row of operand a \(T0\) holds K = 891 "
                                  r"bfloat16 elements, 1782 bytes, not a multiple of the 16 TMA needs, so the compute "
                                  r"warp groups load operand A with misaligned vectors of 8 elements .* set "
                                  r"warp_specialized=False")),
    ({"persistent": True}, r"MatmulParams.persistent: .* set persistent=False"),
    ({"stages": 2}, r"MatmulParams.stages: 2 with .* at least 3 stages"),
    ({"stages": 4}, None),
])
def test_a_pinned_arrangement_that_cannot_load_the_rows_is_refused(pinned: dict, match: str | None) -> None:
    fusion = _matmul((1234, 4568, 891))
    if match is None:
        suggest_matmul_params(fusion, **pinned)
        return
    with pytest.raises(ScheduleError, match=match):
        suggest_matmul_params(fusion, **pinned)
    with pytest.raises(ScheduleError, match=match):
        schedule_matmul(_matmul((1234, 4568, 891)), replace(suggest_matmul_params(_matmul((1234, 4568, 891))),
                                                            **pinned))


def test_copies_the_threads_cannot_share_evenly_are_refused() -> None:
    """B K-major (nn.Linear's weight) of odd K (misaligned vectors of 8) in a tile of N = 136, K = 16: 136 x 16 / 8
    copies over 256 threads."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(256, 99), dtype=DataType.BFloat16)
        w = fusion.add_input(shape=(512, 99), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, ops.transpose(w, 0, 1)))
    with pytest.raises(ScheduleError, match=r"MatmulParams.tile: \(128, 136, 16\) with operand B loaded by misaligned "
                                            r"vectors of 8 elements .*: its 136 x 16 tile is 272 copies, which the 256 threads "
                                            r"of 2 compute warp groups must share evenly"):
        suggest_matmul_params(fusion, tile=(128, 136, 16), compute_warp_groups=2)
    suggest_matmul_params(fusion, tile=(128, 128, 16), compute_warp_groups=2)


@pytest.mark.parametrize("shape,tile,split", [
    ((1024, 1024, 32768), (128, 256, 64), 4),
    ((512, 512, 32768), (128, 128, 64), 8),       # 8 splits of 8 big tiles leave half the SMs idle; of 16 128 x 128 not
    ((512, 512, 65536), (128, 256, 64), 16),
    ((384, 2048, 32768), (128, 256, 64), 5),      # 3 x 8 big tiles (M of at most 192: the short tile's own splits)
])
def test_few_tiles_and_a_long_k_split_k(shape: tuple[int, int, int], tile: tuple[int, int, int], split: int) -> None:
    """32 tiles of 128 x 256 on 132 SMs: 4 splits make one wave of blocks, each summing 8192 of K; warp-specialized
    (0.95 of cuBLAS against 0.93 Pipelined at 1024 x 1024 x 32768 on the H100). Where the big tile's splits are
    capped short of a wave, 128 x 128's (split_k_tile)."""
    params = suggest_matmul_params(_matmul(shape))
    assert (params.tile, params.compute_warp_groups, params.split_k) == (tile, 2, split)
    assert params.warp_specialized and not params.persistent and params.register_split == (40, 232)
    params.validate(DataType.BFloat16)


@pytest.mark.parametrize("shape,tile,split", [
    ((1000, 1000, 20000), (256, 128, 64), 4),       # B's rows of 2000 bytes: 0.94 of cuBLAS against 0.81
    ((768, 1512, 20000), (256, 128, 64), 3),        # B's rows of 3024 bytes: 1.04 against 1.00
    ((1000, 1024, 20000), (128, 256, 64), 4),       # only A's rows misaligned: 128 x 256 stayed ahead
    ((600, 2000, 30000), (128, 256, 64), 3),        # 256 x 128's splits predicted slower (two waves of blocks)
])
def test_split_k_takes_256_x_128_where_b_rows_are_misaligned(shape: tuple[int, int, int],
                                                             tile: tuple[int, int, int], split: int) -> None:
    params = suggest_matmul_params(_matmul(shape))
    assert (params.tile, params.split_k) == (tile, split) and params.warp_specialized
    if tile == (256, 128, 64):
        assert "B's rows are not 128-byte multiples" in params.why.reason("tile")


@pytest.mark.parametrize("shape", [(1024, 2048, 8192), (1024, 1024, 1024), (200, 264, 1000), (8192, 8192, 8192),
                                   (128, 8192, 8192)])
def test_no_split_k_where_tiles_fill_the_gpu_or_k_is_short(shape: tuple[int, int, int]) -> None:
    """1024 x 2048: 128 x 128 tiles make a wave (measured faster than 256-wide ones); 1024^3: 16 K tiles; 128 x 8192
    x 8192: 4 splits of 2048 ran 0.74 of cuBLAS against 0.84 without."""
    assert suggest_matmul_params(_matmul(shape)).split_k == 1


def test_a_pinned_persistent_kernel_gets_no_split_k_and_a_warp_specialized_one_keeps_it() -> None:
    params = suggest_matmul_params(_matmul((1024, 1024, 32768)), persistent=True)
    assert params.persistent and params.split_k == 1
    params = suggest_matmul_params(_matmul((1024, 1024, 32768)), warp_specialized=True)
    assert params.warp_specialized and params.split_k == 4


def test_split_k_for_is_its_own_rule() -> None:
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from fusion_ir.schedulers.suggest import split_k_for

    problem = matmul_problem(_matmul((1024, 1024, 32768)))
    assert split_k_for(problem, 132, (128, 256, 64)) == 4
    assert split_k_for(problem, 32, (128, 256, 64)) == 1       # the tiles fill the SMs already
    assert split_k_for(matmul_problem(_matmul()), 132, (128, 256, 64)) == 1   # sizes unknown


@pytest.mark.parametrize("rows, cluster, group", [(1, 1, 1), (3, 1, 3), (8, 1, 8), (10, 1, 8), (37, 1, 8),
                                                  (128, 1, 8), (3, 2, 4), (75, 2, 8), (1, 2, 2), (20, 4, 8)])
def test_the_persistent_group_is_8_rows_of_tiles_or_all_of_them(rows: int, cluster: int, group: int) -> None:
    """The walk is exact (the last group holds the rows left), so the group is 8 rows of tiles wherever there are as
    many, in whole cluster rows: nothing to fit against padding."""
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from fusion_ir.schedulers.suggest import persistent_group_m

    problem = matmul_problem(_matmul((rows * 128 - 5, 4096, 1024)))
    assert persistent_group_m(problem, (128, 256, 64), (cluster, 1)) == group
    assert persistent_group_m(problem, (128, 256, 64), (1, 2), raster="n") == 8     # raster "n": 16 column tiles
    assert persistent_group_m(matmul_problem(_matmul()), (128, 256, 64)) is None     # M unknown


def test_a_persistent_walk_covers_the_problems_tiles_and_no_more() -> None:
    """1234 rows are 10 rows of 128-row tiles: groups of 8 and 2 (``merge_grouped``), so the blocks' loop walks the
    10 x 18 tiles (a split of the rows by 8 merged after the columns walked 16 rows, 6 of them padding); the reason
    says so (``viz --show heuristics``)."""
    from fusion_ir.schedulers import schedule_matmul
    from fusion_ir.schedulers.candidates import matmul_candidates
    params = suggest_matmul_params(_matmul((1234, 4568, 888)), persistent=True, tile=(128, 256, 64))
    assert params.persistent and params.group_m == 8
    assert "the walk covers the 10 rows and no more" in params.why.reason("group_m")
    fusion = _matmul((1234, 4568, 888))
    schedule_matmul(fusion, params)
    out = fusion.outputs[0]
    assert out.loop[0].extent.const_value() == -(-10 * 18 // params.blocks)          # [T / B, B (BIDx), ...]
    assert "GroupedMerge" in out.transforms_string()
    found = matmul_candidates(_matmul((1234, 4568, 888)), 132, limit=99)
    persistent = [c for c in found if c.persistent]
    first = persistent[0]                # the others are the first with its group halved and doubled
    def rows(c) -> int:                  # all the rows of tiles, in whole clusters along M
        return -(-(-(-1234 // c.tile[0])) // c.cluster[0]) * c.cluster[0]

    assert all(c.group_m == min(8, rows(c)) for c in persistent      # 8 rows, or all of them
               if c.tile != first.tile or c.raster == "n")
    assert {c.group_m for c in persistent if c.tile == first.tile and c.raster == "m"} >= {first.group_m}


@pytest.mark.parametrize("shape, tile, cluster", [
    ((1234, 4568, 888), (256, 192, 64), (1, 2)),     # rows of 888 x 2 bytes: 256 x 192 shares A's tile along N
    ((4000, 3000, 2000), (256, 192, 64), (1, 2)),
    ((4096, 4096, 4096), (256, 128, 64), (1, 1)),    # 128-byte rows: no cluster (persistent: PERSISTENT_TILE)
    ((3072, 3072, 3072), (192, 192, 64), (1, 1)),    # persistent too (WAVE_PERSISTENT_TILES)
    ((4000, 3000, 640), (256, 192, 64), (1, 1)),     # 10 K tiles: too short a K for the coupled pipelines
])
def test_misaligned_rows_under_four_waves_get_clusters(shape: tuple[int, int, int], tile: tuple[int, int, int],
                                                       cluster: tuple[int, int]) -> None:
    params = suggest_matmul_params(_matmul(shape))
    assert params.tile == tile and params.cluster == cluster
    assert params.persistent == (shape in ((4096, 4096, 4096), (3072, 3072, 3072)))
    if cluster != (1, 1):
        assert params.why.reason("cluster").startswith("rule misaligned rows")
        params.validate(DataType.BFloat16)


def test_split_k_may_take_more_than_one_wave_of_blocks() -> None:
    """768 x 3072 x 24576 where 2-D clusters may not run (a float result: no TMA store): 72 tiles of 128 x 256 (384 K
    tiles): 5 splits are 360 blocks, 3 waves of a fifth of the work each, predicted faster than one wave of the whole
    unsplit tile or of 96 tiles of 128 x 192."""
    params = suggest_matmul_params(_matmul((768, 3072, 24576), out_dtype=None))
    assert params.split_k == 5 and params.tile == (128, 256, 64)
    assert "3 waves of 1/5" in params.why.reason("split_k")


def test_a_wave_of_2d_clusters_before_more_waves_of_split_k() -> None:
    """With a 16-bit result the same problem runs 120 tiles of 128 x 160 in clusters of 2 x 2, one wave (H100: 0.99
    of cuBLAS against 0.82 for the 5 splits)."""
    params = suggest_matmul_params(_matmul((768, 3072, 24576)))
    assert (params.tile, params.cluster, params.split_k) == ((128, 160, 64), (2, 2), 1)


def test_a_wave_of_2d_clusters_before_split_k() -> None:
    """768 x 3072 x 12288: 120 tiles of 128 x 160 in clusters of 2 x 2 are one wave of the 120 blocks clusters of
    four keep resident, predicted faster than 96 of 128 x 192 or 3 splits of 72 tiles of 128 x 256 (H100: 0.98 of
    cuBLAS against 0.85 and 0.75)."""
    params = suggest_matmul_params(_matmul((768, 3072, 12288)))
    assert params.split_k == 1 and params.tile == (128, 160, 64) and params.cluster == (2, 2)
    assert "rule 2-D clusters: 2 x 2 blocks" in params.why.reason("cluster")


@pytest.mark.parametrize("shape,tile,cluster", [
    ((1536, 1536, 6000), (128, 160, 64), (2, 2)),    # 120 tiles: a wave of clusters of four
    ((448, 2880, 11520), (128, 96, 64), (2, 2)),     # 4 x 30 tiles: a wave; split-K of 48 big tiles predicted slower
    ((384, 4096, 16384), (64, 256, 64), (2, 1)),     # 3 x 26 of 128 x 160 fit, 64 x 256 in pairs predicted faster
    ((1000, 1000, 20000), (256, 128, 64), (1, 1)),   # 4 splits of 32 tiles (256 x 128: B's rows are misaligned)
    ((4096, 4096, 4096), (256, 128, 64), (1, 1)),    # more than a wave: no 2-D cluster
])
def test_2d_clusters_under_a_wave_of_big_tiles(shape, tile, cluster) -> None:
    params = suggest_matmul_params(_matmul(shape))
    assert (params.tile, params.cluster) == (tile, cluster)


def test_a_wave_of_2d_clusters_counts_the_resident_clusters() -> None:
    """128 blocks in clusters of four are two waves on the H100 (30 clusters of four resident: ncu's Max Active
    Clusters), one on a target that lists no residency (whole clusters of its 132 SMs)."""
    import target
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from fusion_ir.schedulers.suggest import _predicted
    problem = matmul_problem(_matmul((256, 16384, 16384)))        # 2 x 128 tiles of 128 x 128
    one = _predicted(problem, 132, ((128, 128, 64), 2, 5.9, (1, 1)))
    four = _predicted(problem, 132, ((128, 128, 64), 2, 5.9, (2, 2)))
    assert four == pytest.approx(1.5 * one)                       # 256 blocks: 3 waves of 120, 2 of 132
    problem = matmul_problem(_matmul((256, 8192, 16384)))         # 2 x 64 tiles: 128 blocks
    assert _predicted(problem, 132, ((128, 128, 64), 2, 5.9, (2, 2))) == pytest.approx(
        2 * _predicted(problem, 132, ((128, 128, 64), 2, 5.9, (1, 1))))
    with target.use(replace(H100, cluster_residency=())):
        assert _predicted(problem, 132, ((128, 128, 64), 2, 5.9, (2, 2))) == pytest.approx(
            _predicted(problem, 132, ((128, 128, 64), 2, 5.9, (1, 1))))


@pytest.mark.parametrize("shape,tile", [
    ((3584, 1792, 8192), (128, 128, 64)),   # K of 128 tiles: 3 waves of 128 x 128 fill better than 2 of 256 x 128
    ((2816, 2048, 3072), (256, 192, 64)),   # 1 wave of 256 x 192 against 2 of 128 x 192 and 3 of 128 x 128
    ((1234, 4568, 888), (256, 192, 64)),    # K of 14 tiles: 1 wave, not 2 of 128 x 192 or 3 of 128 x 128
])
def test_one_to_four_waves_weigh_a_tiles_fixed_cost(shape: tuple[int, int, int], tile: tuple[int, int, int]) -> None:
    """Between one and four waves the rules predict waves x (a tile's work / its rate + TILE_OVERHEAD) for 256 x 128,
    256 x 192, 192 x 192, 128 x 192 and 128 x 128: a smaller tile fills the waves better, but each tile pays the pipeline's fill and the
    epilogue, which a short K does not hide."""
    params = suggest_matmul_params(_matmul(shape))
    assert params.tile == tile and not params.persistent and params.split_k == 1


@pytest.mark.parametrize("shape,tile", [
    ((640, 2560, 16384), (128, 128, 64)),     # not skinny: no 64 x 256 (H100: 0.95 of cuBLAS against 0.75)
    ((1200, 1200, 12000), (128, 128, 64)),    # 1.13 against 0.78
    ((384, 4096, 12000), (64, 256, 64)),      # M of at most 384 rows: 64 x 256 (1.13 against 1.03)
    ((8192, 256, 8192), (64, 256, 64)),       # N of 256 columns (0.93 against 0.86)
])
def test_64_x_256_only_for_skinny_problems(shape, tile) -> None:
    assert suggest_matmul_params(_matmul(shape)).tile == tile


def test_a_compute_loaded_operand_under_a_wave_takes_no_64_x_256_tile() -> None:
    """2000 x 700 x 9000: B's rows of 1400 bytes are no TMA operand; 128 x 128 Pipelined (1.26 of cuBLAS on the
    H100) rather than 64 x 256 (0.30)."""
    params = suggest_matmul_params(_matmul((2000, 700, 9000)))
    assert params.tile == (128, 128, 64) and not params.warp_specialized


def test_misaligned_rows_under_a_wave_run_in_clusters_of_two() -> None:
    """900 x 3000 x 7000: B's rows of 6000 bytes are no 128-byte multiple; 128 tiles of 128 x 192 under a wave, in
    clusters of two sharing B's tile (H100: 0.72 of cuBLAS against 0.55)."""
    params = suggest_matmul_params(_matmul((900, 3000, 7000)))
    assert (params.tile, params.cluster) == ((128, 192, 64), (2, 1))
    assert "rule misaligned rows" in params.why.reason("cluster")


@pytest.mark.parametrize("shape,persistent", [
    ((8192, 8192, 1024), True),      # 16 K tiles, 15.5 waves: predicted 0.90 of 256 x 192 a tile per block
    ((8192, 8192, 2048), True),
    ((7168, 7168, 2048), True),      # 28 rows of tiles: groups of 8, the last of 4
    ((1792, 7168, 2048), True),      # 3 waves
    ((3584, 1792, 4096), False),     # 1.5 waves of 256 x 128 (PERSISTENT_TILE_WAVES); ping-pong on waves
    ((6144, 6144, 6144), True),      # 96 K tiles: past PERSISTENT_K_TILES, predicted no slower (LONG_K_MARGIN)
    ((6144, 2048, 8192), True),      # 128 K tiles: 2.9 waves of 256 x 128 predicted 0.99 of 2 of 256 x 192
    ((6144, 4096, 3072), False),     # predicted 2 % faster than 256 x 192: within PERSISTENT_MARGIN
])
def test_the_persistent_tile_where_predicted_faster(shape: tuple[int, int, int], persistent: bool) -> None:
    params = suggest_matmul_params(_matmul(shape))
    assert (params.persistent and not params.ping_pong) == persistent
    if persistent:
        assert params.tile == (256, 128, 64) and not params.ping_pong and params.index_type == DataType.Int64
        assert params.epilogue_tile == (256, 32) and params.stages == 4 and params.cluster == (1, 1)
        assert params.store_wait == "carried"
        assert params.group_m == min(8, -(-shape[0] // 256))       # 8 rows of tiles, or all of them


@pytest.mark.parametrize("shape", [(4096, 4096, 640), (8192, 2048, 640), (4096, 3072, 768)])
def test_a_short_k_takes_the_persistent_tile_with_a_bias_and_ping_pong_without(shape: tuple[int, int, int]) -> None:
    """K of 9 to 12 tiles: a plain product with rows of 128-byte multiples runs ping-pong (4096 x 4096 x 640 1.03 of
    cuBLAS against 0.99 persistent), relu(a @ b + bias) the persistent 256 x 128 tile (1.03 of cuBLASLt against 0.97
    ping-pong) or a tile per block, and so does the plain one where the rows are not 128-byte multiples."""
    from examples import matmul_epilogue

    plain = suggest_matmul_params(_matmul(shape))
    assert plain.ping_pong and plain.tile == (128, 128, 64) and plain.stages == 6
    assert "rows of 128-byte multiples and no epilogue" in plain.why.summary
    relu = suggest_matmul_params(matmul_epilogue.fusion_of("bias_relu", shape))
    assert not relu.ping_pong and relu.tile[0] == 256
    for shape in [(4000, 3000, 640), (5000, 4000, 640)]:          # rows of 6000 and 8000 bytes
        assert not suggest_matmul_params(_matmul(shape)).ping_pong
    assert suggest_matmul_params(_matmul((5120, 2560, 640))).ping_pong       # 0.86 of cuBLAS against 0.74-0.79
    assert not suggest_matmul_params(_matmul((8192, 8192, 832))).ping_pong   # 13 K tiles


def test_the_persistent_tile_only_for_its_kind_of_problem() -> None:
    """Measured on one 16-bit output with at most a bias: an [M, N] epilogue input or a float result keep their
    rules."""
    from examples import matmul_epilogue

    assert suggest_matmul_params(_matmul((8192, 8192, 2048))).persistent
    for kind in ("alpha_beta", "residual"):
        params = suggest_matmul_params(matmul_epilogue.fusion_of(kind, (8192, 8192, 2048)))
        assert not (params.persistent and params.tile == (256, 128, 64) and params.epilogue_tile == (256, 32))
    assert not suggest_matmul_params(_matmul((8192, 8192, 2048), out_dtype=DataType.Float)).persistent


@pytest.mark.parametrize("kind,shape,persistent", [
    ("bias_relu", (8192, 8192, 2048), True),      # 0.98 of cuBLASLt's fused kernel
    ("bias_relu", (4096, 4096, 4096), True),      # 1.02 against 0.98 a tile per block
    ("bias_gelu", (8192, 8192, 2048), True),      # 0.99 against 0.92: the tanh is no reason to leave it
    ("bias_gelu", (8192, 8192, 1024), True),      # 1.00 against 0.90
    ("bias_gelu", (4096, 8192, 3072), True),      # 1.01 against 0.96
    ("bias_relu", (8192, 8192, 8192), True),      # 128 K tiles: PERSISTENT_LONG_K_MARGIN, as without the bias
    ("bias_relu", (1536, 1536, 8192), False),     # 72 tiles: under PERSISTENT_TILE_WAVES waves
])
def test_the_persistent_tile_takes_a_bias_epilogue_as_a_plain_product(kind: str, shape: tuple[int, int, int],
                                                                      persistent: bool) -> None:
    """With a bias the persistent tile is weighed as without it: its epilogue's math, a gelu's tanh too, costs a tile
    per block the same (the persistent tile had been charged it alone)."""
    from examples import matmul_epilogue

    params = suggest_matmul_params(matmul_epilogue.fusion_of(kind, shape))
    assert params.persistent == persistent == suggest_matmul_params(_matmul(shape)).persistent
    if persistent:
        assert params.tile == (256, 128, 64) and params.index_type == DataType.Int64 and params.stages == 4
        assert params.epilogue_tile == (256, 32)
        assert "persistent 256 x 128" in params.why.summary


def test_epilogue_ops_counts_fp32_ops_and_weighs_special_functions() -> None:
    """relu(a @ b + bias) is 2 ops; the tanh gelu 8 plus the tanh at the special function unit's weight (8 on an
    H100: 16 results per cycle per SM against 128); casts count nothing."""
    from examples import matmul_epilogue
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from target import current

    weight = current().special_function_weight
    assert weight == 8
    assert matmul_problem(_matmul((256, 256, 256))).epilogue_ops == 0
    assert matmul_problem(matmul_epilogue.fusion_of("bias_relu", (256, 256, 256))).epilogue_ops == 2
    assert matmul_problem(matmul_epilogue.fusion_of("bias_gelu", (256, 256, 256))).epilogue_ops == 8 + weight
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(256, 256), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(256, 256), dtype=DataType.BFloat16)
        acc = ops.matmul(a, b)
        fusion.add_output(ops.cast(ops.div(ops.sigmoid(acc), ops.exp(acc)), DataType.BFloat16))
    assert matmul_problem(fusion).epilogue_ops == 2 * weight + weight + (weight + 1)   # sigmoid, exp, div


def test_the_persistent_tile_keeps_a_k_major_a() -> None:
    """A^T (A M-major) at 4096^3 ran 0.92 of cuBLAS with the persistent tile against 0.97 a tile per block."""
    from runtime.tuning import matmul_fusion

    assert suggest_matmul_params(matmul_fusion(4096, 4096, 4096, transpose_b=True)).persistent
    a_t = suggest_matmul_params(matmul_fusion(4096, 4096, 4096, transpose_a=True))
    assert not a_t.persistent and a_t.tile == (256, 128, 64)


def test_a_cluster_no_gpu_of_so_few_sms_holds_is_weighed_as_never_finishing() -> None:
    """sms=2 and 2-D clusters of four blocks among the rivals: none is resident, so its predicted time is infinite,
    not a division by zero."""
    from fusion_ir.schedulers.suggest import CLUSTER_TILES, _predicted
    from fusion_ir.schedulers.matmul_problem import matmul_problem

    problem = matmul_problem(_matmul((128, 256, 8192)))
    tile, groups, rate, cluster = CLUSTER_TILES[0]
    assert cluster[0] * cluster[1] == 4
    assert _predicted(problem, 2, (tile, groups, rate, cluster)) == float("inf")
    assert suggest_matmul_params(_matmul((128, 256, 8192)), sms=2).cluster == (1, 1)


def test_a_symbolic_k_with_known_m_and_n_is_suggested_without_error() -> None:
    """K unknown, M and N constant (under four waves): the persistent tile's K range cannot hold, so a tile per
    block without split-K, and nothing compares None with K."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(4096, -1), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(-1, 4096), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    params = suggest_matmul_params(fusion)
    assert not params.persistent and params.split_k == 1
    schedule_matmul(fusion, params)
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(8192, -1), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(-1, 8192), dtype=DataType.BFloat16)
        fusion.add_output(ops.cast(ops.matmul(a, b), DataType.BFloat16))
    reason = suggest_matmul_params(fusion).why.reason("tile")
    assert "None" not in reason and "K unknown" in reason


@pytest.mark.parametrize("shape", [(3000, 3000, 3000), (1536, 1536, 6000), (5000, 7000, 3000)])
def test_on_one_sm_the_rules_suggest_no_cluster(shape: tuple[int, int, int]) -> None:
    """Rules that pick clusters of two by the problem alone (misaligned rows, four waves and more) drop the cluster
    where the SMs hold none of that size: one SM runs no cluster of two. With the H100's SMs they keep it."""
    from runtime.tuning import matmul_fusion

    one = suggest_matmul_params(matmul_fusion(*shape), sms=1)
    assert one.cluster == (1, 1)
    assert "no cluster of 2 blocks is resident on 1 SMs" in one.why.reason("cluster")
    assert suggest_matmul_params(matmul_fusion(*shape), sms=132).cluster != (1, 1)


@pytest.mark.parametrize("shape", [(3584, 1792, 4096), (3584, 1792, 1024), (2304, 2816, 1024), (6144, 1024, 2048),
                                   (640, 10112, 1152)])
def test_ping_pong_where_its_tiles_fill_the_waves(shape: tuple[int, int, int]) -> None:
    """K of 13 to 64 tiles where the big tiles leave the last wave part idle and 128 x 128 tiles fill theirs: ping-pong
    (3584 x 1792 x 1024 0.96 of cuBLAS against 0.74 for 1.5 waves of 256 x 128), 32-bit indices, 6 stages."""
    params = suggest_matmul_params(_matmul(shape))
    assert params.ping_pong and params.tile == (128, 128, 64) and params.persistent
    assert params.stages == 6 and params.index_type is DataType.Int32 and params.register_split == (40, 232)
    assert "ping-pong on waves" in params.why.summary
    assert params.group_m == min(8, -(-shape[0] // 128))            # 8 rows of tiles, or all of them


@pytest.mark.parametrize("shape,why", [
    ((8192, 8192, 8192), "K of 128 tiles"),
    ((4096, 4096, 4096), "the big tiles fill their waves"),
    ((2048, 2304, 2048), "one wave of 192 x 192"),
    ((2176, 3968, 8448), "K of 132 tiles"),
])
def test_no_ping_pong_on_waves_where_it_is_not_predicted_faster(shape: tuple[int, int, int], why: str) -> None:
    assert not suggest_matmul_params(_matmul(shape)).ping_pong, why


def test_ping_pong_on_waves_only_for_a_plain_unbatched_product() -> None:
    from examples import matmul_epilogue

    assert not suggest_matmul_params(matmul_epilogue.fusion_of("bias_relu", (3584, 1792, 4096))).ping_pong
    assert not suggest_matmul_params(_matmul((3584, 1792, 4096), out_dtype=DataType.Float)).ping_pong
    assert not suggest_matmul_params(_matmul((3500, 1800, 4100))).ping_pong       # rows not 128-byte multiples
    from runtime.tuning import matmul_fusion                 # batched: 4 x 896 x 1792 x 4096 keeps 128 x 128 a
    batched = suggest_matmul_params(matmul_fusion(896, 1792, 4096, batch=4, batched=True))   # tile per block
    assert batched.tile == (128, 128, 64) and not batched.ping_pong


@pytest.mark.parametrize("shape,tile", [
    ((784, 9472, 2944), (128, 256, 64)),     # 4 rows of 256, the last 16 deep: 7 rows of 128, 2 waves, not 3
    ((4128, 10752, 2944), (256, 128, 64)),   # 17 x 84 and 33 x 42 tiles: 11 waves either way, 256 x 128 on a tie
    ((8192, 8192, 2048), (256, 128, 64)),    # both fill their waves: 256 x 128 on a tie
])
def test_the_persistent_tile_either_way_round(shape: tuple[int, int, int], tile: tuple[int, int, int]) -> None:
    params = suggest_matmul_params(_matmul(shape))
    assert params.persistent and not params.ping_pong and params.tile == tile
    assert params.epilogue_tile == (tile[0], 32) and params.index_type is DataType.Int64
    assert f"persistent {tile[0]} x {tile[1]}" in params.why.summary


def test_the_waves_of_a_persistent_kernel_count_the_problems_tiles() -> None:
    """37 rows of 256-row tiles: the exact walk computes 37 x 32 tiles, 9 waves (walked in groups of 13 padded to 39
    rows, they had been 10: 5808 x 12352 x 4096 then ran 0.87 of cuBLAS persistent against 0.97 a tile per block,
    and 0.99 against 0.92 with the exact walk, H100)."""
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from fusion_ir.schedulers.suggest import PERSISTENT_TILE, PERSISTENT_TILE_OVERHEAD, _predicted

    problem = matmul_problem(_matmul((9472, 4096, 2944)))          # 37 x 32 tiles of 256 x 128, 46 K tiles
    per_tile = 256 * 128 * 46 / PERSISTENT_TILE[2] + PERSISTENT_TILE_OVERHEAD
    assert _predicted(problem, 132, PERSISTENT_TILE, overhead=PERSISTENT_TILE_OVERHEAD) == 9 * per_tile
    assert suggest_matmul_params(_matmul((5808, 12352, 4096))).persistent


@pytest.mark.parametrize("shape", [(11184, 1880, 640), (8192, 3000, 640), (9808, 1704, 896), (5000, 7000, 2048),
                                   (12672, 12624, 1472), (8128, 7296, 1616)])
def test_misaligned_rows_from_four_waves_run_persistent_in_clusters_of_two(shape: tuple[int, int, int]) -> None:
    """Four waves or more and rows that are not 128-byte multiples, at any K: the persistent 128 x 256 in clusters
    of two along M, B's tile multicast (11184 x 1880 x 640: 0.84 of cuBLAS against 0.71 without; 12672 x 12624 x
    1472: 0.97 against 0.74 for the tile per block in clusters the rules took from K of 16 tiles), 64-bit indices,
    group_m a whole number of cluster rows."""
    from examples import matmul_epilogue

    params = suggest_matmul_params(_matmul(shape))
    assert params.persistent and params.tile == (128, 256, 64) and params.cluster == (2, 1)
    assert params.index_type is DataType.Int64 and params.group_m % 2 == 0
    assert "misaligned rows" in params.why.reason("cluster")
    if shape[2] >= 16 * 64:     # with C to read and K of 16 tiles or more: a tile per block in clusters of two
        residual = suggest_matmul_params(matmul_epilogue.fusion_of("residual", shape))
        assert not residual.persistent and residual.cluster == (2, 1)
    # where the rules take a tile per block it is not taken (4656 x 2848 x 608: 192 x 192, 0.93 against 0.83)
    assert not suggest_matmul_params(_matmul((4656, 2848, 608))).persistent


@pytest.mark.parametrize("shape, tile", [((8984, 2872, 5480), (256, 160, 64)), ((3984, 4136, 4336), (256, 128, 64)),
                                         ((6336, 2872, 5008), (256, 192, 64)), ((12712, 2832, 3232), (256, 160, 64))])
def test_misaligned_rows_whose_persistent_waves_leave_sms_idle_take_a_tile_per_block(
        shape: tuple[int, int, int], tile: tuple[int, int, int]) -> None:
    """Misaligned rows from four waves, K of at most MISALIGNED_BLOCK_K_TILES tiles, where a tile per block in the
    same clusters of two is predicted at most MISALIGNED_BLOCK_MARGIN of the persistent 128 x 256 (8984 x 2872 x 5480:
    852 tiles of 128 x 256, 6.45 waves; 648 of 256 x 160, 4.9): that tile, not persistent (H100: 0.92 of cuBLAS
    against 0.86)."""
    params = suggest_matmul_params(_matmul(shape))
    assert not params.persistent and params.tile == tile and params.cluster == (2, 1)
    assert "misaligned waves" in params.why.reason("tile") and "tile per block" in params.why.summary


@pytest.mark.parametrize("shape, tile", [((4136, 3624, 13112), (256, 128, 64)), ((7040, 1416, 6856), (256, 192, 64))])
def test_a_tile_per_block_takes_no_256_x_160_where_b_rows_are_misaligned_and_k_is_long(
        shape: tuple[int, int, int], tile: tuple[int, int, int]) -> None:
    """256 x 160 loads B in 64-byte rows, each misaligned row touching three L2 sectors: from
    MISALIGNED_CLUSTER_K_TILES K tiles with B's rows not 128-byte multiples the tile per block is another (4136 x 3624
    x 13112: 256 x 128 in clusters of two, 0.88 of cuBLAS against 0.72 for 256 x 160, H100); at a short K it stays
    among the options."""
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from fusion_ir.schedulers.suggest import WIDE_BIG_TILES, _wide_big_tiles

    params = suggest_matmul_params(_matmul(shape))
    assert not params.persistent and params.tile == tile
    problem = matmul_problem(_matmul(shape))
    assert all(entry[0] != (256, 160, 64) for entry in _wide_big_tiles(problem, problem.k_tiles(64)))
    assert _wide_big_tiles(problem, 8) == WIDE_BIG_TILES
    assert _wide_big_tiles(matmul_problem(_matmul((4096, 4096, 13112))), 205) == WIDE_BIG_TILES   # B aligned


@pytest.mark.parametrize("shape", [(7864, 3144, 12808), (6792, 2400, 8864), (2784, 9568, 5080)])
def test_misaligned_rows_keep_the_persistent_kernel_at_a_long_k_or_where_the_cluster_pads_a_row(
        shape: tuple[int, int, int]) -> None:
    """Past MISALIGNED_BLOCK_K_TILES K tiles the tile per block ran slower although predicted faster (7864 x 3144 x
    12808: 0.81 of cuBLAS against 0.86, H100); at 2784 x 9568 x 5080 the 256 x 160 tile's 11 rows are 12 in clusters
    of two along M, which the prediction counts (it ran 0.78 against 0.89 before it did)."""
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from fusion_ir.schedulers.suggest import MISALIGNED_BLOCK_K_TILES, _misaligned_block

    params = suggest_matmul_params(_matmul(shape))
    assert params.persistent and params.tile == (128, 256, 64) and params.cluster == (2, 1)
    problem = matmul_problem(_matmul(shape))
    k_tiles = problem.k_tiles(64)
    assert _misaligned_block(problem, 132, k_tiles) is None
    if k_tiles > MISALIGNED_BLOCK_K_TILES:      # predicted faster, kept out by K alone
        assert _misaligned_block(problem, 132, MISALIGNED_BLOCK_K_TILES) is not None


@pytest.mark.parametrize("shape, rows", [((9488, 10472, 6400), 75), ((5512, 8792, 6088), 44),
                                         ((9400, 3792, 3528), 74), ((2096, 11824, 576), 17),
                                         ((5976, 9888, 7240), 47)])
def test_persistent_clusters_walk_groups_of_whole_cluster_rows(shape: tuple[int, int, int], rows: int) -> None:
    """In clusters of two along M the group is 8 rows of tiles, 4 cluster rows, the last group the cluster rows
    left; the walk covers the problem's rows, rounded up to whole cluster rows only (9488 rows are 75 rows of 128, 38
    cluster rows: 76 rows, where groups of 4 cluster rows split and merged had walked 80, 0.94 of cuBLAS on an H100
    against 0.98). The tuner's persistent cluster candidates get the same group."""
    from fusion_ir.schedulers import schedule_matmul
    from fusion_ir.schedulers.candidates import matmul_candidates
    from fusion_ir.schedulers.matmul_problem import matmul_problem
    from fusion_ir.schedulers.suggest import persistent_group_m

    params = suggest_matmul_params(_matmul(shape))
    assert params.persistent and params.cluster == (2, 1) and params.group_m == 8
    assert f"fewer where there are fewer ({rows})" in params.why.reason("group_m")    # viz --show heuristics
    fusion = _matmul(shape)
    schedule_matmul(fusion, params)
    out = fusion.outputs[0]               # [T' / (B / 2), B / 2 (BIDx), 2 (BIDy)] over the T' cluster tiles
    cluster_tiles = -(-rows // 2) * -(-shape[1] // params.tile[1])
    assert out.loop[0].extent.const_value() == -(-cluster_tiles // (params.blocks // 2))
    assert "GroupedMerge" in out.transforms_string()
    problem = matmul_problem(_matmul(shape))
    assert persistent_group_m(problem, params.tile, (2, 1)) == params.group_m
    clustered = [c for c in matmul_candidates(_matmul(shape), 132, limit=64)
                 if c.persistent and c.cluster == (2, 1) and c.tile == params.tile]
    assert clustered and all(c.group_m == params.group_m for c in clustered)


@pytest.mark.parametrize("shape", [(3072, 7680, 3200), (1152, 12288, 1408), (6784, 9600, 2048)])
def test_the_persistent_tile_takes_192_x_192_where_it_fills_the_waves(shape: tuple[int, int, int]) -> None:
    """192 x 192 on three compute warp groups (``WAVE_PERSISTENT_TILES``) where its waves are predicted shorter than
    256 x 128's or 128 x 256's (3072 x 7680 x 3200: 1.01 of cuBLAS against 0.92 for 256 x 192 a tile per block, H100);
    the tuner's candidates hold it too; with a bias the persistent tile stays 256 x 128, as measured."""
    from examples import matmul_epilogue
    from fusion_ir.schedulers.candidates import matmul_candidates

    params = suggest_matmul_params(_matmul(shape))
    assert params.persistent and params.tile == (192, 192, 64) and params.compute_warp_groups == 3
    assert params.register_split == (40, 152) and params.cluster == (1, 1) and params.index_type is DataType.Int64
    assert "3 warp groups of 64 x 192" in params.why.reason("tile")
    params.validate(DataType.BFloat16)
    assert any(c.persistent and c.tile == (192, 192, 64) for c in matmul_candidates(_matmul((8192, 8192, 2048)), 132))
    bias = suggest_matmul_params(matmul_epilogue.fusion_of("bias_gelu", shape))
    assert not (bias.persistent and bias.tile == (192, 192, 64))


@pytest.mark.parametrize("rows", [37, 24, 13])
def test_a_pinned_persistent_cluster_gets_a_group_of_whole_cluster_tiles(rows: int) -> None:
    """The grouped order walks whole cluster tiles: a fitted group_m of 13 rows (37 rows of 128) would be refused
    with clusters of two along M; it is fitted in cluster rows instead."""
    params = suggest_matmul_params(_matmul((rows * 128 - 48, 2848, 608)), persistent=True, tile=(128, 256, 64),
                                   cluster=(2, 1), index_type=DataType.Int64)
    assert params.group_m % 2 == 0 and params.cluster == (2, 1)
    params.validate(DataType.BFloat16)
    params = suggest_matmul_params(_matmul((rows * 128 - 48, 2848, 608)), persistent=True, tile=(128, 256, 64),
                                   cluster=(1, 2), raster="n", index_type=DataType.Int64)
    assert params.group_m % 2 == 0 and params.raster == "n"      # whole cluster tiles along a row of A
    params.validate(DataType.BFloat16)


def test_the_new_persistent_arrangements_only_for_a_plain_product() -> None:
    """Measured on plain products: with a bias the persistent tile stays 256 x 128, and an [M, N] epilogue input
    keeps the persistent 128 x 256 without the misaligned rows' cluster."""
    from examples import matmul_epilogue

    relu = suggest_matmul_params(matmul_epilogue.fusion_of("bias_relu", (4128, 10752, 2944)))
    assert not (relu.persistent and relu.tile == (128, 256, 64))
    residual = suggest_matmul_params(matmul_epilogue.fusion_of("residual", (11184, 1880, 640)))
    assert residual.cluster == (1, 1)


def test_the_persistent_256_x_128_tile_carries_its_ring_across_tiles() -> None:
    """CARRIED_STORE_ROWS: the 256 x 128 tile's last 256 x 32 sub-tiles are waited for by the next tile's writes
    (store_wait="carried"), with a bias too; 128 x 256 keeps the wait at the tile's end; the tuner has the other."""
    from examples import matmul_epilogue
    from fusion_ir.schedulers.candidates import matmul_candidates

    for fusion in (_matmul((9792, 4736, 4544)), matmul_epilogue.fusion_of("bias_relu", (8192, 8192, 2048))):
        params = suggest_matmul_params(fusion)
        assert params.tile == (256, 128, 64) and params.persistent and params.epilogue_tile == (256, 32)
        assert params.store_wait == "carried" and "carried" in params.why.reason("store_wait")
        assert replace(params, store_wait="after_boxes") in matmul_candidates(fusion, 132)
    wide = suggest_matmul_params(_matmul((784, 9472, 2944)))     # 7 rows of 128: 2 waves, 4 rows of 256: 3
    assert wide.tile == (128, 256, 64) and wide.store_wait == "after_boxes"
    assert replace(wide, store_wait="carried") in matmul_candidates(_matmul((784, 9472, 2944)), 132)


def test_a_sub_tiled_epilogue_takes_after_boxes_or_carried() -> None:
    base = dict(tile=(256, 128, 64), stages=4, persistent=True, tma_store=True, epilogue_tile=(256, 32),
                index_type=DataType.Int64)
    MatmulParams(**base, store_wait="carried").validate(DataType.BFloat16)
    with pytest.raises(ScheduleError, match=r"MatmulParams.store_wait: 'deferred' with epilogue_tile=\(256, 32\); .*"
                                            r"\"carried\" before the next tile writes them"):
        MatmulParams(**base, store_wait="deferred").validate(DataType.BFloat16)


@pytest.mark.parametrize("pin", [{"tile": (128, 128, 64), "ping_pong": True}, {"tile": (128, 256, 64)},
                                 {"persistent": False}, {"epilogue_tile": None}])
def test_a_pinned_field_that_leaves_no_ring_to_carry_waits_after_the_boxes(pin: dict) -> None:
    """The rules carry the persistent 256 x 128 tile's ring at 8192 x 8192 x 2048; a pinned ping-pong (a whole staging
    tile per group, which carried would need twice over: 263 KB with 6 stages), another tile, a tile per block or no
    sub-tiles keeps the default wait, and the kernel lowers."""
    from lowering import lower

    assert suggest_matmul_params(_matmul((8192, 8192, 2048))).store_wait == "carried"
    fusion = _matmul((8192, 8192, 2048))
    params = suggest_matmul_params(fusion, **pin)
    assert params.store_wait == "after_boxes" and params.why.reason("store_wait").startswith("the default")
    lower(schedule_matmul(fusion, params))


def test_a_carried_wait_counts_its_staging_tiles_as_a_deferred_one() -> None:
    """Ping-pong with a whole staging tile: "carried" keeps a tile per warp group through the tile loop, as "deferred"
    does, where "after_boxes" has the groups take turns on one."""
    from dataclasses import replace as with_fields

    base = MatmulParams(tile=(128, 128, 64), stages=4, compute_warp_groups=2, warp_specialized=True, persistent=True,
                        ping_pong=True, tma_store=True)
    sizes = {w: with_fields(base, store_wait=w).smem_bytes(DataType.BFloat16) for w in ("after_boxes", "deferred",
                                                                                       "carried")}
    assert sizes["carried"] == sizes["deferred"] == sizes["after_boxes"] + 128 * 128 * 2


@pytest.mark.parametrize("shape,persistent", [
    ((14256, 15104, 3072), True),     # 50 waves: 1.00 of cuBLAS against 0.93 for 256 x 192 a tile per block
    ((16384, 16384, 4096), True),     # 62 waves: 1.02 against 0.96
    ((11672, 4480, 2432), True),      # 12 waves: 0.952 against 0.948 for 256 x 160
    ((6144, 4096, 3072), False),      # 5.8 waves: PERSISTENT_MARGIN keeps 256 x 192 (0.96 against 0.93)
])
def test_from_many_waves_the_persistent_tile_is_taken_where_predicted_no_slower(shape: tuple[int, int, int],
                                                                                persistent: bool) -> None:
    """``PERSISTENT_MANY_WAVES``: from 8 waves of 256 x 128 tiles the margin is 1.0 (predicted 0.967-1.000 of the wide
    tile per block on every problem measured there, and faster on all of them); under it, 0.965."""
    from fusion_ir.schedulers import suggest as rules

    params = suggest_matmul_params(_matmul(shape), sms=132)
    assert params.persistent == persistent
    if persistent:
        assert params.tile == (256, 128, 64) and params.store_wait == "carried"
    else:
        assert params.tile[:2] == (256, 192)
    waves = -(-shape[0] // 256) * -(-shape[1] // 128) / 132
    assert (waves >= rules.PERSISTENT_MANY_WAVES) == persistent


def test_a_persistent_kernel_in_clusters_of_four_takes_the_blocks_resident_at_once() -> None:
    """The H100 keeps 30 clusters of four resident (120 blocks of 132 SMs): a pinned persistent kernel in clusters of
    four gets 120 blocks, not the SM count (132 ran a second wave of 12 blocks: 0.47-0.61 of cuBLAS); clusters of two
    (66 resident) keep 132; a pinned count stays."""
    shape = (7424, 10416, 16040)
    four = suggest_matmul_params(_matmul(shape), tile=(128, 256, 64), persistent=True, cluster=(4, 1))
    assert four.blocks == 120 and "resident" in four.why.reason("blocks")
    assert suggest_matmul_params(_matmul(shape), tile=(128, 256, 64), persistent=True, cluster=(2, 1)).blocks == 132
    pinned = suggest_matmul_params(_matmul(shape), tile=(128, 256, 64), persistent=True, cluster=(4, 1), blocks=132)
    assert pinned.blocks == 132
    assert suggest_matmul_params(_matmul(shape), tile=(128, 256, 64), persistent=False, cluster=(2, 2)).blocks == 132


@pytest.mark.parametrize("tile,groups,expected", [
    ((208, 128, 64), 2, None),            # 4 stages of 43 KB and the whole 53 KB tile fit
    ((160, 256, 64), 2, (16, 256)),       # 4 stages of 53 KB leave room for a ring of 16-row sub-tiles only
    ((192, 192, 64), 3, (32, 192)),       # 48-row sub-tiles' ring is 1 KB over, 32-row ones fit
])
def test_a_swapped_tile_is_staged_whole_beside_four_stages_or_in_the_widest_sub_tiles_that_fit(
        tile: tuple, groups: int, expected: tuple | None) -> None:
    from fusion_ir.schedulers.suggest import SWAPPED_STAGES, epilogue_sub_tile

    params = MatmulParams(tile=tile, compute_warp_groups=groups, warp_specialized=True, persistent=True,
                          tma_store=True, swap_ab=True, register_split=None)
    assert epilogue_sub_tile(params) == expected
    sub = replace(params, stages=SWAPPED_STAGES, epilogue_tile=expected)
    assert sub.smem_bytes(DataType.BFloat16) <= 232448
