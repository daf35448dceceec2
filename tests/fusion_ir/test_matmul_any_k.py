"""schedule_matmul of operands whose rows are not 16-byte multiples (K = 8, 100, 263, 1000; an odd N; an odd M of
a transposed A): TMA cannot load them, so the compute warp groups do, with cp.async of 8 or 4 bytes or plain 2-byte
copies, into the swizzled tile the wgmma descriptors read, zero-filled past the tensor's edges; the other operand
stays TMA when its rows allow. The kernels match numpy in the simulator for A @ B, A @ B^T and A^T @ B, batched,
with fused epilogues, at sizes no tile divides, over several seeds (docs/matmul.md, "Any K and any row stride")."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ScheduleError, SmemSwizzle, ops
from fusion_ir.exprs import load_kind
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from fusion_ir.schedulers.matmul_problem import matmul_problem
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs

CP, SET, TMA = LoadStoreOpType.CpAsync, LoadStoreOpType.Set, LoadStoreOpType.TMA
TWO_GROUPS = {"tile": (128, 64, 32), "stages": 3, "compute_warp_groups": 2}
ONE_GROUP = {"tile": (64, 64, 64), "stages": 4, "compute_warp_groups": 1}


def _fusion(m: int, n: int, k: int, transpose_a: bool = False, transpose_b: bool = False, batch: tuple = (),
            dtype: DataType = DataType.BFloat16, epilogue: str = "none",
            out_dtype: DataType | None = None) -> tuple[Fusion, list[tuple[int, ...]]]:
    """``a @ b`` of constant shapes (``transpose_a``: a is ``transpose`` of a [K, M] input; ``transpose_b``: b of an
    [N, K] one), with ``epilogue`` ``bias_relu`` (a float [N] bias) or ``alpha_beta`` (C [M, N] bf16)."""
    shapes = [batch + ((k, m) if transpose_a else (m, k)), batch + ((n, k) if transpose_b else (k, n))]
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=shapes[0], dtype=dtype)
        b = fusion.add_input(shape=shapes[1], dtype=dtype)
        r = len(shapes[0])
        c = ops.matmul(ops.transpose(a, r - 2, r - 1) if transpose_a else a,
                       ops.transpose(b, r - 2, r - 1) if transpose_b else b)
        if epilogue == "bias_relu":
            shapes.append((n,))
            bias = fusion.add_input(shape=(n,), dtype=DataType.Float)
            c = ops.relu(ops.add(c, ops.broadcast(bias, [True] * (r - 1) + [False])))
        elif epilogue == "alpha_beta":
            shapes.append(batch + (m, n))
            extra = fusion.add_input(shape=batch + (m, n), dtype=DataType.BFloat16)
            c = ops.add(ops.mul(c, 2.0), ops.mul(ops.cast(extra, DataType.Float), 0.5))
        if out_dtype is not None:
            c = ops.cast(c, out_dtype)
        fusion.add_output(c)
    return fusion, shapes


def _check(fusion: Fusion, shapes: list, params: MatmulParams | None, seeds: tuple[int, ...] = (0, 1),
           tol: float = 1e-5) -> None:
    schedule_matmul(fusion, params)
    kernel = lower(fusion)
    for seed in seeds:
        inputs = random_inputs(fusion, shapes, seed=700 + seed)
        assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed), tol=tol)


# ------------------------------------------------------------------ how each operand is loaded
@pytest.mark.parametrize("m,n,k,ta,tb,loads", [
    (200, 136, 8, False, False, (TMA, TMA)),       # 16 bytes: TMA
    (200, 136, 100, False, False, (CP, TMA)),      # 200 bytes: 8-byte cp.async
    (200, 136, 262, False, False, (CP, TMA)),      # 524 bytes: 4-byte cp.async
    (200, 136, 263, False, False, (SET, TMA)),     # odd: plain 2-byte copies
    (200, 137, 96, False, False, (TMA, SET)),      # N odd: B's rows
    (201, 136, 96, True, False, (SET, TMA)),       # A^T: rows of M
    (200, 137, 263, False, True, (SET, SET)),      # A @ B^T: both K-major, rows of K
])
def test_each_operand_is_loaded_by_what_its_rows_allow(m: int, n: int, k: int, ta: bool, tb: bool,
                                                       loads: tuple) -> None:
    fusion, _ = _fusion(m, n, k, ta, tb)
    assert tuple(load.kind for load in matmul_problem(fusion).loads) == loads
    schedule_matmul(fusion, MatmulParams(**TWO_GROUPS))
    acc = next(tv for tv in fusion.used_tensors() if type(tv.definition).__name__ == "MmaOp")
    for tile, kind in zip(acc.definition.inputs, loads):
        assert load_kind(tile) is kind and tile.memory_type is MemoryType.Shared
        assert tile.swizzle is not SmemSwizzle.NONE        # the layout the wgmma descriptor reads, whoever writes it
        assert (tile.allocation is None) is (kind is TMA)  # the box layout, its loads spread over the threads


# ------------------------------------------------------------------ in the simulator
@pytest.mark.parametrize("k_extent", [8, 100, 263, 1000])
def test_any_k_matches_numpy(k_extent: int) -> None:
    """A's rows of K: TMA (8), 8-byte cp.async (100, 1000), plain copies (263); M and N no tile divides. K = 8 and
    1000 show the zero fill: one K tile mostly past K, and a last tile of 40 of 64."""
    params = ONE_GROUP if k_extent == 1000 else TWO_GROUPS
    fusion, shapes = _fusion(200, 136, k_extent)
    _check(fusion, shapes, MatmulParams(**params))


@pytest.mark.parametrize("m,n,k,ta,tb", [
    (200, 137, 100, False, False),     # B's odd rows of N: plain copies, A by cp.async; an odd output row
    (200, 264, 263, False, True),      # A @ B^T (nn.Linear): both K-major, plain copies of both
    (200, 264, 262, False, True),      # the same with 4-byte cp.async of both
    (201, 136, 100, True, False),      # A^T @ B: A's rows of M = 201, M-major plain copies
    (202, 137, 96, True, False),       # A^T M-major by 4-byte cp.async, B N-major by plain copies
    (200, 136, 263, True, True),       # A^T @ B^T: A by TMA (rows of M = 200), B's rows of K = 263
])
def test_each_layout_with_unaligned_rows_matches_numpy(m: int, n: int, k: int, ta: bool, tb: bool) -> None:
    fusion, shapes = _fusion(m, n, k, ta, tb)
    _check(fusion, shapes, MatmulParams(**TWO_GROUPS), seeds=(0, 1, 2))


def test_fp16_matches_numpy() -> None:
    fusion, shapes = _fusion(130, 72, 75, dtype=DataType.Half)
    _check(fusion, shapes, MatmulParams(tile=(64, 64, 32), stages=3, compute_warp_groups=1))


def test_batched_matches_numpy() -> None:
    """[2, M, K] @ [2, K, N] with K = 100: a batch's rows start 8-byte aligned too (M K is a multiple of 4)."""
    fusion, shapes = _fusion(72, 40, 100, batch=(2,))
    _check(fusion, shapes, MatmulParams(tile=(64, 64, 32), stages=3, compute_warp_groups=1))


@pytest.mark.parametrize("epilogue,out_dtype", [("bias_relu", DataType.BFloat16), ("alpha_beta", DataType.BFloat16)])
def test_fused_epilogues_with_an_odd_n_match_numpy(epilogue: str, out_dtype: DataType) -> None:
    """N = 137: the output's rows are odd (no 2-element stores, no TMA store), and C's rows too: each thread reads
    its elements of C from global memory instead of a TMA-loaded tile."""
    fusion, shapes = _fusion(200, 137, 100, epilogue=epilogue, out_dtype=out_dtype)
    _check(fusion, shapes, MatmulParams(**TWO_GROUPS), tol=1e-2)


def test_the_suggested_kernel_matches_numpy() -> None:
    fusion, shapes = _fusion(150, 100, 263, transpose_b=True)
    params = suggest_matmul_params(fusion)
    assert not params.warp_specialized and not params.persistent
    _check(fusion, shapes, None)


@pytest.mark.parametrize("m, n, k_extent, ta, tb, tile", [
    (4096, 4096, 1001, False, False, (128, 256, 64)),    # A's rows odd: A's side of the tile short
    (4096, 4096, 1001, True, True, (256, 128, 64)),      # A^T [K, M] TMA-loaded, B^T [N, K] odd: B's side short
])
def test_the_suggestion_orients_the_tile_and_narrows_indices_for_a_compute_loaded_operand(
        m: int, n: int, k_extent: int, ta: bool, tb: bool, tile: tuple[int, int, int]) -> None:
    fusion, _ = _fusion(m, n, k_extent, transpose_a=ta, transpose_b=tb, out_dtype=DataType.BFloat16)
    params = suggest_matmul_params(fusion, sms=132)
    assert params.tile == tile and params.index_type is DataType.Int32
    reasons = {r.name: r.reason for r in params.why.fields}
    assert "32-bit" in reasons["index_type"]
    assert ("compute-loaded" in reasons["tile"]) == (not ta)   # the rules' 256 x 128 needed turning only for A


# ------------------------------------------------------------------ what the lowering makes of it
def _kernel(k_extent: int) -> k.Kernel:
    fusion, _ = _fusion(200, 136, k_extent)
    schedule_matmul(fusion, MatmulParams(**TWO_GROUPS))
    return lower(fusion)


def _main_loop(kernel: k.Kernel) -> k.ForLoop:
    return next(n for n in k.walk(kernel.body) if isinstance(n, k.ForLoop) and n.stage is k.Stage.Main)


@pytest.mark.parametrize("k_extent,copy", [(100, k.CpAsync), (263, k.Assign)])
def test_the_writes_are_fenced_before_the_barrier_the_mma_follows(k_extent: int, copy: type) -> None:
    """Each iteration waits for its copies (cp.async), fences them for the async proxy, then syncs the block, and
    only then issues the wgmma; the next stage's loads come after the MMAs (two stages ahead: no empty
    mbarriers)."""
    body = _main_loop(_kernel(k_extent)).body
    kinds = [type(n) for n in body]
    fence, sync = kinds.index(k.FenceAsyncProxy), kinds.index(k.BlockSync)
    assert fence + 1 == sync
    first_mma = next(j for j, n in enumerate(body) if any(isinstance(x, k.Mma) for x in k.walk((n,))))
    last_copy = max(j for j, n in enumerate(body) if any(isinstance(x, copy) for x in k.walk((n,))))
    assert sync < first_mma < last_copy
    if copy is k.CpAsync:
        waits = [n for n in body if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.CpAsync]
        assert len(waits) == 1 and kinds.index(k.AsyncWait) < fence
        assert waits[0].pending == 0      # 3 stages, prefetch 1: the group issued after the wait is not counted
    assert not any(isinstance(n, k.MBarrierArrive) for n in k.walk(body))


def test_out_of_bounds_elements_are_zero_filled() -> None:
    """The copies past K (and M) copy zero source bytes (cp.async) or zero their elements (misaligned vectors of
    plain copies: one condition per element, the K bound of each)."""
    cp = [n for n in k.walk(_kernel(100).body) if isinstance(n, k.CpAsync)]
    assert cp and all(n.pred is not None and n.vector == 4 for n in cp)
    plain = [n for n in k.walk(_kernel(263).body) if isinstance(n, k.Assign) and n.valid is not None]
    assert plain and all(n.vector == 8 and len(n.valid) == 8 for n in plain)
    for n in plain:
        assert all("263" in str(c) for c in n.valid) and len(set(map(str, n.valid))) == 8


def test_a_tma_store_of_odd_rows_is_refused() -> None:
    fusion, _ = _fusion(200, 137, 100, out_dtype=DataType.BFloat16)
    with pytest.raises(ScheduleError, match=r"MatmulParams.tma_store: a row of the output T\d+ holds N = 137 "
                                            r"bfloat16 elements, 274 bytes; a TMA store needs rows of a multiple of "
                                            r"16 bytes: set tma_store=False"):
        schedule_matmul(fusion, MatmulParams(**TWO_GROUPS, tma_store=True))


@pytest.mark.parametrize("ta,k_extent,epilogue,wait", [(False, 263, "none", "after_boxes"),
                                                        (True, 100, "alpha_beta", "deferred")])
def test_a_tma_store_epilogue_with_compute_loaded_operands_matches_numpy(ta: bool, k_extent: int, epilogue: str,
                                                                         wait: str) -> None:
    """N = 264 (16-byte output rows): the stmatrix + TMA-store epilogue (and C's TMA-loaded tile) after a mainloop
    whose A the compute warp groups load (what the suggestion picks for 4096 x 4096 x 1001)."""
    fusion, shapes = _fusion(200, 264, k_extent, transpose_a=ta, epilogue=epilogue, out_dtype=DataType.BFloat16)
    params = MatmulParams(tile=(128, 128, 64), stages=3, compute_warp_groups=2, tma_store=True, store_wait=wait)
    _check(fusion, shapes, params, seeds=(0,), tol=1e-2)


@pytest.mark.parametrize("k_extent,transpose_b", [(100, True), (263, True), (100, False)])
def test_tiles_outside_a_circular_buffer_are_fenced_by_the_syncs_pass(monkeypatch: pytest.MonkeyPatch,
                                                                      k_extent: int, transpose_b: bool) -> None:
    """Without circular buffering (the scheduler's pipeline taken out), the syncs pass orders the copies before the
    MMAs: its block sync, or the one a TMA operand's token wait already put there (K = 100, B by TMA), gets the
    fence.proxy.async the generic-proxy writes need; without it the simulator reports the missing fence."""
    from fusion_ir.schedulers import matmul as matmul_scheduler
    from runtime import SimulationError
    from tests.runtime.kir_builders import remove_nodes

    monkeypatch.setattr(matmul_scheduler, "_circular_buffer_operands", lambda *args: None)
    fusion, shapes = _fusion(72, 40, k_extent, transpose_b=transpose_b)
    schedule_matmul(fusion, MatmulParams(tile=(64, 64, 32), stages=3, compute_warp_groups=1))
    kernel = lower(fusion)
    assert sum(isinstance(n, k.FenceAsyncProxy) for n in k.walk(kernel.body)) == 1
    inputs = random_inputs(fusion, shapes, seed=9)
    assert_matches(fusion, inputs, simulate(kernel, inputs))
    with pytest.raises(SimulationError, match="missing fence.proxy.async: wgmma"):
        simulate(remove_nodes(kernel, k.FenceAsyncProxy), inputs)
