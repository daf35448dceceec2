"""runtime.simulate: TMA, mbarriers and the async proxy on hand-written pipelines, and their mutations."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from lowering import kernel_ir as k
from lowering.kernel_ir import Stage
from runtime import DeadlockError, InputError, SimulationError, simulate
from tests.runtime.kir_builders import (
    BX,
    INT64,
    TX,
    TY,
    assign,
    binary,
    c,
    ceil_div,
    elect,
    fconst,
    for_,
    global_1d,
    global_2d,
    if_,
    kernel,
    load,
    local,
    remove_nodes,
    shared,
    sym,
)

N = sym("i0")
BLOCKS = 4
SEEDS = range(5)


def tile_pipeline(stages: int, tokens: bool = False) -> k.Kernel:
    """``T2 = 2 * T0``: each of 4 blocks streams its tiles of 128 floats through a Pipelined TMA circular
    buffer (stages, prefetch = stages - 1), in the structure of seed 001: init loop, prologue, main loop
    issuing tile ``i + prefetch`` then waiting on tile ``i``, epilogue, inval loop. Waits use the parity
    of the loop index, or with ``tokens`` the seed's per-stage token array in shared memory."""
    S, P, box = stages, stages - 1, 128
    a, out = global_1d("T0"), global_1d("T2")
    tmap = k.TensorMapParam("tmap_T0", a, (box,))
    smem, mbar, token = shared("T1", S * box), shared("T3", S, INT64), shared("T4", S, INT64)
    tiles = ceil_div(ceil_div(N, box), BLOCKS)
    first = BX * tiles

    def issue(j: k.Val) -> k.Node:
        stage = j % S
        return elect([
            k.MBarrierArriveExpectTx(mbar, stage, c(box * 4), token if tokens else None, stage if tokens else None),
            k.TmaLoad(smem, stage * box, tmap, ((first + j) * box,), mbar, stage),
        ])

    def consume(i: k.Val) -> list[k.Node]:
        stage, g = i % S, (first + i) * box + TX
        wait = (k.MBarrierWait(mbar, stage, token, stage) if tokens
                else k.MBarrierWaitParity(mbar, stage, (i // S) % 2))
        return [wait, if_(g.lt(N), [assign(out, g, binary("mul", load(smem, stage * box + TX), fconst(2.0)))])]

    i1, i2, i3, i4, i5 = (sym(f"i{n}") for n in range(1, 6))
    body = [
        k.Allocate(smem), k.Allocate(mbar), *([k.Allocate(token)] if tokens else []),
        elect([for_("i1", 0, S, [k.MBarrierInit(mbar, i1, c(1))], stage=Stage.PrePrologue)]),
        k.BlockSync("init: mbarriers"),
        for_("i2", 0, P, [issue(i2)], stage=Stage.Prologue),
        *([k.BlockSync("RAW: tokens of the prologue stored")] if tokens else []),
        for_("i3", 0, tiles - P, [issue(i3 + P), *consume(i3), k.BlockSync("WAR: T1 stage refilled")],
             stage=Stage.Main),
        for_("i4", tiles - P, tiles, consume(i4), stage=Stage.Epilogue),
        k.BlockSync("WAR: mbarriers invalidated after every wait"),
        elect([for_("i5", 0, S, [k.MBarrierInval(mbar, i5)], stage=Stage.PostEpilogue)]),
    ]
    fill = k.RuntimeCheck(tiles.ge(S), f"T1: the loop of {tiles} tiles fails to fill the circular buffer of {S} "
                                       f"stages", k.InputRule.PIPELINE_FILL, "T1")
    return kernel(body, [a], [out], (BLOCKS,), (box,), tensor_maps=(tmap,), checks=(fill,))


def warp_specialized_pipeline(stages: int, block_x: int = 128, nvfuser_style: bool = False) -> k.Kernel:
    """The same stream, warp-specialized on TIDy: threadIdx.y == 1 is the AsyncWarp (its elected thread waits
    on 'empty' and issues TMA onto 'full'), threadIdx.y == 0 the ComputeWarp (waits on 'full', computes,
    arrives on 'empty'). ``nvfuser_style`` adds what nvFuser generates around it: register reallocation,
    the AsyncWarp's ``return``, and pre-arrives on the 'empty' barriers instead of a flipped first parity."""
    S, box = stages, block_x
    a, out = global_1d("T0"), global_1d("T2")
    tmap = k.TensorMapParam("tmap_T0", a, (box,))
    smem, full, empty = shared("T1", S * box), shared("T3", S, INT64), shared("T4", S, INT64)
    tiles = ceil_div(ceil_div(N, box), BLOCKS)
    i1, i2, i3, i5, i6 = (sym(f"i{n}") for n in (1, 2, 3, 5, 6))
    g = (BX * tiles + i3) * box + TX
    empty_parity = (i2 // S) % 2 if nvfuser_style else (i2 // S + 1) % 2
    producer: list[k.Node] = [for_("i2", 0, tiles, [
        elect(warp=box // 32, body=[
            k.MBarrierWaitParity(empty, i2 % S, empty_parity),
            k.MBarrierArriveExpectTx(full, i2 % S, c(box * 4)),
            k.TmaLoad(smem, (i2 % S) * box, tmap, ((BX * tiles + i2) * box,), full, i2 % S),
        ]),
    ], stage=Stage.AsyncWarp)]
    consumer: list[k.Node] = [for_("i3", 0, tiles, [
        k.MBarrierWaitParity(full, i3 % S, (i3 // S) % 2),
        if_(g.lt(N), [assign(out, g, binary("mul", load(smem, (i3 % S) * box + TX), fconst(2.0)))]),
        k.MBarrierArrive(empty, i3 % S),
    ], stage=Stage.ComputeWarp)]
    if nvfuser_style:
        # setmaxnreg acts on whole warp groups: only a block whose rows are warp groups shares registers
        dec, inc = ([k.SetMaxNReg(40, increase=False)], [k.SetMaxNReg(232, increase=True)]) if box % 128 == 0 \
            else ([], [])
        producer = [*dec, *producer, k.Return()]
        consumer = [*inc, for_("i6", 0, S, [k.MBarrierArrive(empty, i6)]), *consumer]
    body = [
        k.Allocate(smem), k.Allocate(full), k.Allocate(empty),
        elect([for_("i1", 0, S, [k.MBarrierInit(full, i1, c(1)), k.MBarrierInit(empty, i1, c(box))])]),
        k.BlockSync("init: mbarriers"),
        if_(TY.eq(1), producer, consumer),
        k.BlockSync("before inval"),
        elect([for_("i5", 0, S, [k.MBarrierInval(full, i5), k.MBarrierInval(empty, i5)])]),
    ]
    return kernel(body, [a], [out], (BLOCKS,), (box, 2), tensor_maps=(tmap,))


def stream(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


def reported(kern: k.Kernel, x: np.ndarray, seed: int) -> str:
    """How the simulator reports a broken kernel: 'wrong' result, or the error class name."""
    try:
        (y,) = simulate(kern, [x], seed=seed)
    except SimulationError as e:
        return type(e).__name__
    return "correct" if np.array_equal(y, 2 * x) else "wrong"


# ---------------------------------------------------------------- Pipelined
@pytest.mark.parametrize("tokens", [False, True])
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("seed", SEEDS)
def test_tma_pipeline_matches_numpy(stages: int, seed: int, tokens: bool) -> None:
    x = stream(BLOCKS * 8 * 128 - 37, seed)  # 8 tiles per block, the last one partly out of bounds
    (y,) = simulate(tile_pipeline(stages, tokens), [x], seed=seed)
    np.testing.assert_array_equal(y, 2 * x)


def test_tma_pipeline_with_tiles_entirely_out_of_bounds() -> None:
    x = stream(30 * 128 - 5)  # 30 tiles over 4 blocks of 8: the last block's final two tiles are all padding
    (y,) = simulate(tile_pipeline(2), [x])
    np.testing.assert_array_equal(y, 2 * x)


def test_a_hand_built_pipeline_too_short_for_its_stages_is_refused_by_its_check() -> None:
    """This kernel's prologue always issues P loads, so it carries a check of its own (lowered
    pipelines clamp the prologue instead)."""
    with pytest.raises(InputError, match="fails to fill the circular buffer"):
        simulate(tile_pipeline(4), [stream(BLOCKS * 3 * 128)])


@pytest.mark.parametrize("seed", SEEDS)
def test_mutation_without_parity_wait_reads_poison(seed: int) -> None:
    broken = remove_nodes(tile_pipeline(2), k.MBarrierWaitParity)
    assert reported(broken, stream(BLOCKS * 8 * 128, seed), seed) in ("wrong", "SimulationError")


@pytest.mark.parametrize("seed", SEEDS)
def test_mutation_without_arrive_expect_tx_deadlocks(seed: int) -> None:
    broken = remove_nodes(tile_pipeline(2), k.MBarrierArriveExpectTx)
    with pytest.raises(DeadlockError, match=r"mbarrier T3\[0\] of block \d+ for the phase with parity 0 to "
                                            r"complete.*; .*1 of 1 arrivals pending, tx-count -512"):
        simulate(broken, [stream(BLOCKS * 8 * 128, seed)], seed=seed)


def without_war_sync(kern: k.Kernel) -> k.Kernel:
    return remove_nodes(kern, k.BlockSync, lambda n: n.reason == "WAR: T1 stage refilled")


@pytest.mark.parametrize("seed", SEEDS)
def test_mutation_without_war_sync_overwrites_a_stage_still_being_read(seed: int) -> None:
    """Without the WAR barrier the elected warp refills a stage the other warps have not read yet; with
    the seed's token waits they then wait for the refill and read the wrong tile, or read a token
    the elected thread has not stored yet."""
    x = stream(BLOCKS * 8 * 128, seed)
    assert reported(without_war_sync(tile_pipeline(2, tokens=True)), x, seed) in ("wrong", "SimulationError")


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("seed", SEEDS)
def test_mutation_without_war_sync_is_reported(stages: int, seed: int) -> None:
    """With parity waits, warps that fall a whole phase behind wait for a parity that never comes back."""
    assert reported(without_war_sync(tile_pipeline(stages)), stream(BLOCKS * 8 * 128, seed), seed) != "correct"


def test_uninitialized_and_invalidated_barriers_are_errors() -> None:
    x = stream(BLOCKS * 8 * 128)
    with pytest.raises(SimulationError, match=r"mbarrier T3\[0\] of block \d+, which is not initialized"):
        simulate(remove_nodes(tile_pipeline(2), k.MBarrierInit), [x])
    kern = tile_pipeline(2)
    smem, mbar, tmap = kern.body[0].buffer, kern.body[1].buffer, kern.tensor_maps[0]
    hasty = k.ElectSync((k.MBarrierArriveExpectTx(mbar, c(0), c(512)),
                         k.TmaLoad(smem, c(0), tmap, (BX * 1024,), mbar, c(0)),
                         k.MBarrierInval(mbar, c(0))))
    in_flight = r"inval of mbarrier T3\[0\] of block \d+ while 1 TMA copies on it are still in flight"
    with pytest.raises(SimulationError, match=in_flight):
        simulate(k.Kernel(**{**kern.__dict__, "body": kern.body[:4] + (hasty,)}), [x])


def test_trace_records_block_zero_pipeline_events() -> None:
    trace: list[dict] = []
    simulate(tile_pipeline(2), [stream(BLOCKS * 8 * 128)], trace=trace)
    kinds = {e["kind"] for e in trace}
    assert {"mbarrier.init", "mbarrier.arrive_expect_tx", "tma.issue", "tma.land", "mbarrier.phase_complete",
            "mbarrier.wait_parity", "mbarrier.wait_parity.done", "mbarrier.inval"} <= kinds
    issues = [e for e in trace if e["kind"] == "tma.issue"]
    assert len(issues) == 8 and [e["index"] for e in issues] == [0, 1] * 4
    assert [e["coords"][0] for e in issues] == [128 * t for t in range(8)]
    completes = [e["phase"] for e in trace if e["kind"] == "mbarrier.phase_complete" and e["index"] == 0]
    assert completes == [1, 2, 3, 4]
    assert all(e["step"] <= f["step"] for e, f in itertools.pairwise(trace))


# ---------------------------------------------------------------- warp specialization
@pytest.mark.parametrize("nvfuser_style", [False, True])
@pytest.mark.parametrize("block_x", [128, 16])  # 16: producer and consumer lanes share one warp
@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("seed", SEEDS)
def test_warp_specialized_pipeline_matches_numpy(block_x: int, stages: int, seed: int, nvfuser_style: bool) -> None:
    x = stream(BLOCKS * 6 * block_x - 3, seed)
    (y,) = simulate(warp_specialized_pipeline(stages, block_x, nvfuser_style), [x], seed=seed)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("block_x", [128, 16])
def test_warp_specialized_consumer_that_never_releases_a_stage_deadlocks(block_x: int) -> None:
    broken = remove_nodes(warp_specialized_pipeline(2, block_x), k.MBarrierArrive)
    with pytest.raises(DeadlockError) as info:
        simulate(broken, [stream(BLOCKS * 6 * block_x)])
    message = str(info.value)
    assert "mbarrier T4[0]" in message and "parity 0" in message      # the AsyncWarp waits on 'empty'
    assert "mbarrier T3[0]" in message and "parity 1" in message      # the ComputeWarp waits on 'full'


# ---------------------------------------------------------------- token form, 2-D boxes, stores, cp.async
def single_load_kernel(shared_token: bool) -> k.Kernel:
    """One TMA box per block with the token form: arriveExpectTx returns the token, wait(token)."""
    a, out = global_1d("T0"), global_1d("T2")
    tmap = k.TensorMapParam("tmap_T0", a, (128,))
    smem, mbar = shared("T1", 128), shared("T3", 1, INT64)
    token = shared("T4", 1, INT64) if shared_token else local("T4", 1, INT64)
    arrive = k.MBarrierArriveExpectTx(mbar, c(0), c(512), token, c(0))
    copy = k.TmaLoad(smem, c(0), tmap, (BX * 128,), mbar, c(0))
    wait = k.MBarrierWait(mbar, c(0), token, c(0))
    if shared_token:  # every thread waits on the token the elected thread stored
        middle = [elect([arrive, copy]), k.BlockSync("token written"), wait]
    else:             # nvFuser's form: the elected thread waits, a block sync publishes the data
        middle = [elect([arrive, copy, wait]), k.BlockSync("RAW: T1 loaded")]
    g = BX * 128 + TX
    body = [
        k.Allocate(smem), k.Allocate(mbar), k.Allocate(token),
        elect([k.MBarrierInit(mbar, c(0), c(1))]),
        k.BlockSync("init: mbarrier"),
        *middle,
        if_(g.lt(N), [assign(out, g, binary("mul", load(smem, TX), fconst(2.0)))]),
        k.BlockSync("before inval"),
        elect([k.MBarrierInval(mbar, c(0))]),
    ]
    return kernel(body, [a], [out], (ceil_div(N, 128),), (128,), tensor_maps=(tmap,))


@pytest.mark.parametrize("shared_token", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_token_form_single_tma_load(shared_token: bool, seed: int) -> None:
    x = stream(1000, seed)
    (y,) = simulate(single_load_kernel(shared_token), [x], seed=seed)
    np.testing.assert_array_equal(y, 2 * x)


@pytest.mark.parametrize("seed", SEEDS)
def test_token_form_without_the_wait_is_reported(seed: int) -> None:
    broken = remove_nodes(single_load_kernel(shared_token=False), k.MBarrierWait)
    assert reported(broken, stream(8 * 128, seed), seed) in ("wrong", "SimulationError")


def test_wait_on_a_token_nobody_stored_is_an_error() -> None:
    broken = remove_nodes(single_load_kernel(shared_token=True), k.MBarrierArriveExpectTx)
    with pytest.raises(SimulationError, match=r"reads token T4\[0\], which no arriveExpectTx stored"):
        simulate(broken, [stream(1000)])


def tile_2d_kernel(store: bool) -> k.Kernel:
    """A 4 x 32 TMA box per block of (32, 4) threads, copied to a padded output (out-of-bounds boxes read 0);
    with ``store`` the tile is written back through a TMA store instead of by the threads."""
    a = global_2d("T0")
    rows, cols = ceil_div(sym("i0"), 4) * 4, ceil_div(sym("i1"), 32) * 32
    out = k.Buffer("T2", a.dtype, a.memory, rows * cols, (rows, cols), (sym("T2_stride0"), sym("T2_stride1")),
                   is_param=True)
    tmap_in = k.TensorMapParam("tmap_T0", a, (32, 4))
    tmap_out = k.TensorMapParam("tmap_T2", out, (32, 4))
    smem, mbar, result = shared("T1", 128), shared("T3", 1, INT64), shared("T5", 128)
    by = sym("blockIdx.y")
    origin = (by * 4, BX * 32)
    r, col = by * 4 + TY, BX * 32 + TX
    body: list[k.Node] = [
        k.Allocate(smem), k.Allocate(mbar), k.Allocate(result),
        elect([k.MBarrierInit(mbar, c(0), c(1))]),
        k.BlockSync("init"),
        elect([k.MBarrierArriveExpectTx(mbar, c(0), c(512)), k.TmaLoad(smem, c(0), tmap_in, origin, mbar, c(0))]),
        k.MBarrierWaitParity(mbar, c(0), c(0)),
    ]
    if store:
        body += [
            assign(result, TY * 32 + TX, binary("add", load(smem, TY * 32 + TX), fconst(1.0))),
            k.FenceAsyncProxy(),
            k.BlockSync("RAW: T5 written"),
            elect([k.TmaStore(result, c(0), tmap_out, origin), k.AsyncCommit(k.AsyncKind.Bulk), k.AsyncWait(k.AsyncKind.Bulk, 0)]),
        ]
    else:
        body += [assign(out, r * sym("T2_stride0") + col, binary("add", load(smem, TY * 32 + TX), fconst(1.0)))]
    body += [k.BlockSync("before inval"), elect([k.MBarrierInval(mbar, c(0))])]
    return kernel(body, [a], [out], (ceil_div(sym("i1"), 32), ceil_div(sym("i0"), 4)), (32, 4),
                  tensor_maps=(tmap_in, tmap_out))


@pytest.mark.parametrize("seed", SEEDS)
def test_2d_tma_box_zero_fills_out_of_bounds(seed: int) -> None:
    x = np.random.default_rng(seed).standard_normal((10, 68)).astype(np.float32)
    (y,) = simulate(tile_2d_kernel(store=False), [x], seed=seed)
    expected = np.zeros((12, 96), np.float32)
    expected[:10, :68] = x
    np.testing.assert_array_equal(y, expected + 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_tma_store_writes_only_in_bounds_elements(seed: int) -> None:
    x = np.random.default_rng(seed).standard_normal((10, 68)).astype(np.float32)
    (y,) = simulate(tile_2d_kernel(store=True), [x], seed=seed)
    np.testing.assert_array_equal(y[:10, :68], x + 1)  # the padded output is the tensor map's whole tensor


def cp_async_kernel(wait: bool) -> k.Kernel:
    """Each thread cp.asyncs 4 floats into shared memory; after the wait and a block sync it reads another
    thread's vector."""
    a, out, smem = global_1d("T0"), global_1d("T2"), shared("T1", 512)
    g = (BX * 128 + TX) * 4
    body: list[k.Node] = [
        k.Allocate(smem),
        k.CpAsync(smem, TX * 4, a, g, vector=4, pred=g.lt(N)),
        k.AsyncCommit(k.AsyncKind.CpAsync),
    ]
    if wait:
        body.append(k.AsyncWait(k.AsyncKind.CpAsync, 0))
    other = (127 - TX) * 4
    body += [
        k.BlockSync("RAW: T1"),
        for_("i2", 0, 4, [if_(((BX * 128 + 127 - TX) * 4 + sym("i2")).lt(N), [
            assign(out, (BX * 128 + 127 - TX) * 4 + sym("i2"), load(smem, other + sym("i2")))])]),
    ]
    return kernel(body, [a], [out], (ceil_div(N, 512),), (128,))


@pytest.mark.parametrize("seed", SEEDS)
def test_cp_async_with_wait_group(seed: int) -> None:
    x = stream(2000, seed)
    (y,) = simulate(cp_async_kernel(wait=True), [x], seed=seed)
    np.testing.assert_array_equal(y, x)


def test_trace_events_name_async_groups_by_their_printed_strings() -> None:
    """The trace is a serialized format (``viz --show pipeline`` reads it): an async group is the string the
    kernel-IR listing prints (``AsyncKind.value``), never the enum."""
    trace: list[dict] = []
    simulate(cp_async_kernel(wait=True), [stream(2000)], trace=trace)
    groups = [(e["kind"], e["group"]) for e in trace if e["kind"] in ("async.commit", "async.wait")]
    assert ("async.commit", "cp.async") in groups and ("async.wait", "cp.async") in groups
    assert all(type(group) is str for _, group in groups)


def test_cp_async_without_wait_group_reads_poison_for_some_seed() -> None:
    x = stream(4 * 512)
    results = [simulate(cp_async_kernel(wait=False), [x], seed=s)[0] for s in SEEDS]
    assert any(np.isnan(y).any() for y in results)
