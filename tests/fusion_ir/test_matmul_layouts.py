"""schedule_matmul with transposed operands: ``ops.matmul(ops.transpose(a_km, 0, 1), ...)`` (A M-major) and
``ops.matmul(a, ops.transpose(b_nk, 0, 1))`` (B K-major, nn.Linear's weight): the scheduler makes each transpose
of an input the TMA load of that input (``set_load_type``), so the input is read in place in its own major
order, and the kernel matches numpy in the simulator for all four layouts at sizes the tile does not divide."""

from __future__ import annotations

import itertools

import pytest

from examples.matmul_epilogue import epilogue as fused_epilogue
from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ScheduleError, ops
from fusion_ir.exprs import LoadStoreOp, load_kind
from fusion_ir.schedulers import MatmulLayout, MatmulParams, schedule_matmul
from fusion_ir.schedulers.matmul_problem import matmul_problem
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

LAYOUTS = list(itertools.product((False, True), repeat=2))      # (transpose_a, transpose_b)


def _ids(layout: tuple[bool, bool]) -> str:
    return f"{'AT' if layout[0] else 'A'}_{'BT' if layout[1] else 'B'}"


def _fusion(transpose_a: bool, transpose_b: bool, dtype: DataType = DataType.BFloat16, epilogue: str = "none",
            out_dtype: DataType | None = None) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=dtype)
        b = fusion.add_input(ndim=2, dtype=dtype)
        c = ops.matmul(ops.transpose(a, 0, 1) if transpose_a else a, ops.transpose(b, 0, 1) if transpose_b else b)
        if epilogue != "none":
            extra = fusion.add_input(ndim=2, dtype=dtype) if epilogue == "alpha_beta" else \
                fusion.add_input(ndim=1, dtype=DataType.Float)
            c = fused_epilogue(epilogue, c, extra)
        if out_dtype is not None:
            c = ops.cast(c, out_dtype)
        fusion.add_output(c)
    return fusion


def _shapes(transpose_a: bool, transpose_b: bool, m: int, n: int, k: int, epilogue: str = "none") -> list[tuple]:
    shapes = [(k, m) if transpose_a else (m, k), (n, k) if transpose_b else (k, n)]
    if epilogue == "alpha_beta":
        return shapes + [(m, n)]
    return shapes + [(n,)] if epilogue != "none" else shapes


# ------------------------------------------------------------------ the schedule
@pytest.mark.parametrize("layout", LAYOUTS, ids=_ids)
def test_a_transposed_input_is_loaded_in_place(layout: tuple[bool, bool]) -> None:
    fusion = _fusion(*layout)
    assert matmul_problem(fusion).layout == MatmulLayout(a_mn_major=layout[0], b_mn_major=not layout[1])
    schedule_matmul(fusion, MatmulParams(tile=(128, 128, 64), stages=3, compute_warp_groups=1))
    acc = next(tv for tv in fusion.used_tensors() if tv.definition is not None and type(tv.definition).__name__
               == "MmaOp")
    for operand, source, transposed in zip(acc.definition.inputs, fusion.inputs, layout):
        assert load_kind(operand) is LoadStoreOpType.TMA and operand.memory_type is MemoryType.Shared
        assert operand.definition.inputs == [source]               # no copy, no transposing kernel in between
        assert operand.definition.permutation == ((1, 0) if transposed else None)
    copies = [e for e in fusion.exprs if isinstance(e, LoadStoreOp) and e.op_type is LoadStoreOpType.Set]
    assert [e.output for e in copies] == fusion.outputs               # the output's store only


def test_a_transpose_the_epilogue_also_reads_is_refused() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        bt = ops.transpose(b, 0, 1)
        fusion.add_output(ops.add(ops.matmul(a, bt), ops.cast(bt, DataType.Float)))
    with pytest.raises(ScheduleError, match=r"operand b \(T2\), a transpose of input T1, is also read by T4"):
        schedule_matmul(fusion, MatmulParams(tile=(64, 64, 64), stages=2, compute_warp_groups=1))


def test_an_operand_computed_before_its_transpose_is_refused() -> None:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, ops.transpose(ops.neg(b), 0, 1)))
    with pytest.raises(ScheduleError, match=r"operand b \(T3\) of the matmul must be a fusion input or a transpose "
                                            r"of one"):
        schedule_matmul(fusion, MatmulParams(tile=(64, 64, 64), stages=2, compute_warp_groups=1))


@pytest.mark.parametrize("where", ["output", "C"])
def test_a_transpose_in_the_epilogue_is_refused(where: str) -> None:
    """The epilogue is laid out [M, N] as the accumulator's fragment: a transposed result, or a C given [N, M] and
    transposed, is refused by the scheduler rather than scheduled in the wrong layout."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        c = ops.matmul(a, b)
        if where == "output":
            fusion.add_output(ops.transpose(ops.relu(c), 0, 1))
        else:
            c_nm = fusion.add_input(ndim=2, dtype=DataType.Float)
            fusion.add_output(ops.add(c, ops.transpose(c_nm, 0, 1)))
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=r"schedule_matmul: T\d+ permutes its axes \(dims \[1, 0\]\); the matmul "
                                            r"epilogue is laid out \[M, N\]"):
        schedule_matmul(fusion, MatmulParams(tile=(64, 64, 64), stages=2, compute_warp_groups=1))
    assert fusion.state_fingerprint() == before


def test_the_row_rule_names_the_transposed_input() -> None:
    """a [K, M] has rows of M elements: M = 100 bf16 is 200 bytes, not a multiple of 16, so TMA cannot load it and
    the compute warp groups do (cp.async of 4 elements), which a 2-stage pipeline cannot hold."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(64, 100), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(64, 64), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(ops.transpose(a, 0, 1), b))
    with pytest.raises(ScheduleError, match=r"MatmulParams.stages: 2 with a row of input T0 \(operand a, T2, is its "
                                            r"transpose\) holds M = 100 bfloat16 elements, 200 bytes, .* cp.async of 4 "
                                            r"elements"):
        schedule_matmul(fusion, MatmulParams(tile=(64, 64, 64), stages=2, compute_warp_groups=1))


def test_a_refused_schedule_leaves_the_transposes_as_they_were() -> None:
    """An epilogue that reads C in two places is refused inside the schedule's transaction, after the operands
    became TMA loads: they are copies again."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        b = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        c = fusion.add_input(ndim=2, dtype=DataType.BFloat16)
        acc = ops.matmul(ops.transpose(a, 0, 1), ops.transpose(b, 0, 1))
        twice = ops.add(ops.add(acc, ops.cast(c, DataType.Float)), ops.mul(ops.cast(c, DataType.Float), 0.5))
        fusion.add_output(ops.cast(twice, DataType.BFloat16))
    before = fusion.state_fingerprint()
    params = MatmulParams(tile=(64, 64, 64), stages=2, warp_specialized=True, persistent=True, ping_pong=True,
                          blocks=2)
    with pytest.raises(ScheduleError, match=r"reads T\d+ \(\[M, N\]\) in 2 places"):
        schedule_matmul(fusion, params)
    assert fusion.state_fingerprint() == before
    assert all(load_kind(e.output) is LoadStoreOpType.Set for e in fusion.exprs if isinstance(e, LoadStoreOp))


def test_a_k_major_b_takes_any_multiple_of_8_columns() -> None:
    """B N-major is laid out in chunks of the widest swizzle row that divides N (N a multiple of 16); K-major,
    rows of TK: N = 40 works."""
    params = MatmulParams(tile=(64, 40, 64), stages=2, compute_warp_groups=1)
    with pytest.raises(ScheduleError, match="N 40 makes a row of B's N-major tile 80 bytes; B is laid out in chunks "
                                            "of swizzle rows of 32, 64 or 128 bytes, the widest that divides N, so N "
                                            "must be a multiple of 16"):
        params.validate(DataType.BFloat16)
    params.validate(DataType.BFloat16, layout=MatmulLayout(b_mn_major=False))
    MatmulParams(tile=(64, 48, 64), stages=2, compute_warp_groups=1).validate(DataType.BFloat16)   # 3 x 32 bytes


@pytest.mark.parametrize("tile,chunk", [((256, 160, 64), 32), ((128, 96, 64), 32), ((64, 48, 64), 16),
                                        ((128, 192, 64), 64)])
def test_an_n_major_b_takes_chunks_of_the_widest_swizzle_row_dividing_n(tile: tuple, chunk: int) -> None:
    """160 columns: 5 chunks of 32 in 64-byte rows; 48: 3 of 16 in 32-byte rows; 192: 3 of 64 in 128-byte rows."""
    fusion = _fusion(False, False)                       # symbolic sizes, B N-major
    params = MatmulParams(tile=tile, stages=3, compute_warp_groups=tile[0] // 128 or 1, warp_specialized=True)
    schedule_matmul(fusion, params)
    b_s = next(tv for tv in fusion.used_tensors() if type(tv.definition).__name__ == "MmaOp").definition.inputs[1]
    assert b_s.swizzle.span == chunk * 2 and b_s.loop[-1].extent.const_value() == chunk
    inputs = random_inputs(fusion, [(200, 136), (136, 336)], seed=4)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs, seed=0), tol=1e-5)


# ------------------------------------------------------------------ in the simulator
SIZES = [(96, 80, 40), (200, 136, 88)]          # M, N, K: no tile below divides them (M, N, K multiples of 8)
SMALL = {"tile": (64, 64, 32), "stages": 2, "compute_warp_groups": 1}
MODES = {
    "pipelined": ({**SMALL}, {}),
    "fp16": ({**SMALL, "stages": 3}, {"dtype": DataType.Half}),
    "two_groups": ({"tile": (128, 64, 32), "stages": 2, "compute_warp_groups": 2}, {}),
    "k16_rows": ({"tile": (64, 32, 16), "stages": 4, "compute_warp_groups": 1}, {}),
    "ws": ({**SMALL, "warp_specialized": True}, {}),
    "persistent": ({**SMALL, "persistent": True, "blocks": 3, "group_m": 2}, {}),
    "ws_persistent_tma_store": ({**SMALL, "warp_specialized": True, "persistent": True, "blocks": 3,
                                 "tma_store": True}, {"out_dtype": DataType.BFloat16}),
    "ping_pong": ({**SMALL, "compute_warp_groups": 2, "warp_specialized": True, "persistent": True,
                   "ping_pong": True, "blocks": 2}, {}),
    "bias_relu": ({**SMALL}, {"epilogue": "bias_relu", "out_dtype": DataType.BFloat16}),
    "alpha_beta_tma_store": ({**SMALL, "tma_store": True, "warp_specialized": True},
                             {"epilogue": "alpha_beta", "out_dtype": DataType.BFloat16}),
    "fp16_bias_gelu_persistent": ({**SMALL, "persistent": True, "blocks": 2},
                                  {"dtype": DataType.Half, "epilogue": "bias_gelu"}),
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("layout", LAYOUTS, ids=_ids)
def test_each_layout_matches_numpy(layout: tuple[bool, bool], mode: str) -> None:
    params, build = MODES[mode]
    fusion = _fusion(*layout, **build)
    schedule_matmul(fusion, MatmulParams(**params))
    kernel = lower(fusion)
    out_dtype = build.get("out_dtype")
    tol = 1e-2 if out_dtype is not None else 1e-5
    for n, (m, nn, k) in enumerate(SIZES):
        inputs = random_inputs(fusion, _shapes(*layout, m, nn, k, build.get("epilogue", "none")), seed=600 + n)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=n), tol=tol)


@pytest.mark.parametrize("layout", [(False, True), (True, True)], ids=_ids)
def test_a_k_major_b_of_48_columns_matches_numpy(layout: tuple[bool, bool]) -> None:
    fusion = _fusion(*layout)
    schedule_matmul(fusion, MatmulParams(tile=(64, 48, 64), stages=2, compute_warp_groups=1))
    inputs = random_inputs(fusion, _shapes(*layout, 72, 104, 72), seed=650)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


@pytest.mark.parametrize("tile,transpose_b", [((128, 96, 64), True), ((256, 160, 64), True), ((256, 160, 64), False)])
def test_a_whole_tile_tma_store_of_n_no_widest_row_divides_matches_numpy(tile: tuple, transpose_b: bool) -> None:
    """The staged output tile of a TMA store without sub-tiles goes out in boxes of the widest swizzle row that
    divides N (96: 3 of 32; 160: 5 of 32): boxes of 64 columns ran past the tile into the next tile's columns."""
    fusion = _fusion(False, transpose_b, out_dtype=DataType.BFloat16)
    schedule_matmul(fusion, MatmulParams(tile=tile, stages=3, compute_warp_groups=tile[0] // 128,
                                         warp_specialized=True, tma_store=True))
    shapes = _shapes(False, transpose_b, 200, 336, 72)
    inputs = random_inputs(fusion, shapes, seed=6)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs, seed=0), tol=1e-2)
