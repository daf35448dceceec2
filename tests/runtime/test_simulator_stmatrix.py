"""runtime.simulate executes stmatrix (a warp's 8 x 8 matrices from registers to shared memory) and checks
the TMA store's async-proxy rules: the source is read until the issuing thread's bulk wait, and ordinary
stores reach it only through fence.proxy.async and a barrier. Mutations must fail."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from fusion_ir.reference import round_bf16
from fusion_ir.scalar import Val
from fusion_ir.types import DataType, MemoryType, SmemSwizzle
from lowering import kernel_ir as k
from lowering.layout import swizzle_index, wgmma_accumulator
from runtime import SimulationError, simulate
from tests.runtime.kir_builders import (
    BX,
    INT64,
    TX,
    assign,
    c,
    elect,
    fconst,
    for_,
    global_1d,
    global_2d,
    if_,
    insert_after,
    kernel,
    load,
    local,
    remove_nodes,
    shared,
    sym,
)
from tests.runtime.wgmma_builders import Spec, at, matmul_kernel, operands

BF16, F16 = DataType.BFloat16, DataType.Half
SEEDS = (0, 1, 2)   # seed 0 lands copies only when a wait forces them
LANE, WARP = TX % 32, TX // 32


# ---------------------------------------------------------------- the stmatrix model, in numpy
def stmatrix_reference(regs: np.ndarray, addr: np.ndarray, count: int, size: int, trans: bool = False) -> np.ndarray:
    """What one warp's ``stmatrix.x{count}`` leaves in a ``size``-element buffer (NaN elsewhere), straight from
    the PTX description: ``regs`` [32 lanes, 2 count] (register m = elements 2m, 2m + 1), ``addr`` [32]. With
    ``trans``, the row lane ``8m + r`` addresses holds column ``r`` of matrix ``m``: element ``j`` of it is row ``j``,
    held by lane ``4 j + r / 2``, half ``r % 2``."""
    out = np.full(size, np.nan, np.float32)
    for m in range(count):
        for r in range(8):
            if trans:
                row = [regs[4 * j + r // 2, 2 * m + r % 2] for j in range(8)]
            else:
                row = [regs[4 * r + q, 2 * m + e] for q in range(4) for e in range(2)]
            out[addr[8 * m + r]:addr[8 * m + r] + 8] = row
    return out


def small_kernel(count: int, dtype: DataType = BF16, address: Val | None = None, blocks: int = 2) -> k.Kernel:
    """One warp per block: lane l loads its 2 count registers from T0[block][l][:], one stmatrix writes rows
    at ``address`` (default: a permutation of the rows, 8 elements apart) of a shared T1, and every lane
    copies T1 to T2[block]."""
    regs, size = 2 * count, 64 * count
    x, y = global_1d("T0", dtype=dtype), global_1d("T2", dtype=dtype)
    tile, frag = shared("T1", size, dtype), local("T3", regs, dtype)
    if address is None:
        address = (LANE * 5 + 3) % (8 * count) * 8
    e = sym("e")
    body: list[k.Node] = [
        k.Allocate(tile), k.Allocate(frag),
        for_("e", 0, regs, [assign(frag, e, load(x, (BX * 32 + TX) * regs + e))], unroll=True),
        k.StMatrix(tile, address, frag, c(0), count),
        k.BlockSync("RAW: the tile is written"),
        for_("e", 0, 2 * count, [assign(y, BX * size + e * 32 + TX, load(tile, e * 32 + TX))], unroll=True),
    ]
    return kernel(body, [x], [y], (blocks,), (32,))


def small_inputs(count: int, blocks: int = 2, dtype: DataType = BF16) -> np.ndarray:
    x = np.random.default_rng(count).standard_normal(blocks * 32 * 2 * count).astype(np.float32)
    return x.astype(np.float16) if dtype is F16 else round_bf16(x)


@pytest.mark.parametrize("dtype", [BF16, F16])
@pytest.mark.parametrize("count", [1, 2, 4])
def test_stmatrix_matches_the_ptx_description(count: int, dtype: DataType) -> None:
    x = small_inputs(count, dtype=dtype)
    (y,) = simulate(small_kernel(count, dtype), [x])
    addr = (np.arange(32) * 5 + 3) % (8 * count) * 8
    for b in range(2):
        regs = x.reshape(2, 32, 2 * count)[b].astype(np.float32)
        np.testing.assert_array_equal(y.reshape(2, -1)[b].astype(np.float32),
                                      stmatrix_reference(regs, addr, count, 64 * count))


@pytest.mark.parametrize("count", [1, 2, 4])
def test_stmatrix_trans_stores_each_matrix_transposed(count: int) -> None:
    x = small_inputs(count)
    kern = small_kernel(count)
    kern = replace(kern, body=k.rewrite(kern.body, lambda n: replace(n, trans=True) if isinstance(n, k.StMatrix)
                                        else None))
    (y,) = simulate(kern, [x])
    addr = (np.arange(32) * 5 + 3) % (8 * count) * 8
    for b in range(2):
        regs = x.reshape(2, 32, 2 * count)[b].astype(np.float32)
        want = stmatrix_reference(regs, addr, count, 64 * count, trans=True)
        np.testing.assert_array_equal(y.reshape(2, -1)[b].astype(np.float32), want)
        if count > 1:    # not the plain store's
            assert not np.array_equal(want, stmatrix_reference(regs, addr, count, 64 * count))


@pytest.mark.parametrize(("change", "match"), [
    (lambda n: replace(n, count=3), r"3 matrices; stmatrix stores 1, 2 or 4"),
    (lambda n: replace(n, dst_index=n.dst_index + 4), r"not 16-byte aligned"),
    (lambda n: replace(n, dst_index=n.dst_index + 8 * 32), r"out-of-bounds access T1\[.*stmatrix"),
    (lambda n: replace(n, src_index=c(1)), r"registers T3\[1:9\] \(8 elements for x4\) are out of bounds"),
])
def test_stmatrix_errors(change: object, match: str) -> None:
    kern = small_kernel(4)
    broken = replace(kern, body=k.rewrite(kern.body, lambda n: change(n) if isinstance(n, k.StMatrix) else None))
    with pytest.raises(SimulationError, match=match):
        simulate(broken, [small_inputs(4)])


def test_stmatrix_of_32_bit_elements_is_an_error() -> None:
    kern = small_kernel(1, DataType.Float)
    with pytest.raises(SimulationError, match=r"holds Float elements; stmatrix stores 16-bit elements"):
        simulate(kern, [np.zeros(2 * 32 * 2, np.float32)])


def test_stmatrix_by_part_of_a_warp_is_an_error() -> None:
    kern = small_kernel(2)
    broken = replace(kern, body=k.rewrite(kern.body, lambda n: (if_(LANE.lt(c(16)), [n]),)
                                          if isinstance(n, k.StMatrix) else None))
    with pytest.raises(SimulationError, match=r"only 16 of the 32 threads of warp 0 of block \(0, 0, 0\) execute"):
        simulate(broken, [small_inputs(2)])


def test_stmatrix_in_a_partial_warp_is_an_error() -> None:
    kern = replace(small_kernel(1), block=(c(48), c(1), c(1)))
    with pytest.raises(SimulationError, match=r"warp 1 of block \(0, 0, 0\) has only 16 threads"):
        simulate(kern, [np.zeros(2 * 48 * 2, np.float32)])


# ---------------------------------------------------------------- a wgmma accumulator tile, stored by stmatrix
def epilogue_kernel(n: int, swizzle: bool, out: str = "tma", blocks: int = 2, *,
                    address: object = None, matrices: object = None) -> k.Kernel:
    """T2[64 blocks, n] = T0 (bf16) through a warp group's accumulator fragment: thread t loads register r from
    T0 at ``wgmma_accumulator(t, r)``, then stmatrix.x4 per pair of 8-wide column blocks writes the 64 x n tile
    T1, plain [64][n] or 128-byte swizzled [n / 64][64][64]; fence.proxy.async, __syncthreads, and T1 goes
    out by TMA stores (``out="tma"``) or plain copies (``"copy"``).

    ``address(warp, lane, m, i2) -> (row, col)`` replaces the row each lane addresses, ``matrices(i2)`` the
    (column block, row half) of the four matrices (both mutations)."""
    x, y = global_2d("T0", dtype=BF16), global_2d("T2", dtype=BF16)
    layout = SmemSwizzle.B128 if swizzle else SmemSwizzle.NONE
    tile = k.Buffer("T1", BF16, MemoryType.Shared, c(64 * n), align=1024, swizzle=layout)
    frag = local("T3", n // 2, BF16)
    r, i2, e = sym("r"), sym("i2"), sym("e")
    row0 = BX * 64

    def place(row: Val, col: Val) -> Val:
        """Element (row, col) of the tile in T1."""
        if not swizzle:
            return row * n + col
        return swizzle_index(col // 64 * 4096 + row * 64 + col % 64, SmemSwizzle.B128, 2)

    m = LANE // 8   # the matrix whose row this lane addresses
    if matrices is None:
        col_block, half = i2 * 2 + m // 2, m % 2
    else:
        col_block, half = matrices(i2, m)
    row, col = WARP * 16 + half * 8 + LANE % 8, col_block * 8
    if address is not None:
        row, col = address(WARP, LANE, m, i2)
    frow, fcol = wgmma_accumulator(TX, r)
    body: list[k.Node] = [
        k.Allocate(tile, c(0)), k.Allocate(frag),
        for_("r", 0, n // 2, [assign(frag, r, load(x, at(x, row0 + frow, fcol)))], unroll=True),
        for_("i2", 0, n // 16, [k.StMatrix(tile, place(row, col), frag, i2 * 8, 4)], unroll=True),
        k.FenceAsyncProxy(),
        k.BlockSync("RAW: the tile is written"),
    ]
    maps: tuple[k.TensorMapParam, ...] = ()
    if out == "tma":
        box = (64, 64) if swizzle else (n, 64)
        tmap = k.TensorMapParam("tmap_T2", y, box, swizzle=layout)
        maps = (tmap,)
        chunks = n // 64 if swizzle else 1
        body.append(elect([*[k.TmaStore(tile, c(j * 4096), tmap, (row0, c(j * 64))) for j in range(chunks)],
                           k.AsyncCommit(k.AsyncKind.Bulk), k.AsyncWait(k.AsyncKind.Bulk, 0)]))
    else:
        idx = e * 128 + TX
        body.append(for_("e", 0, 64 * n // 128, [
            assign(y, at(y, row0 + idx // n, idx % n), load(tile, place(idx // n, idx % n)))]))
    return kernel(body, [x], [y], (blocks,), (128,), tensor_maps=maps, smem=64 * n * 2)


def tile_input(n: int, blocks: int = 2, seed: int = 0) -> np.ndarray:
    return round_bf16(np.random.default_rng(seed).standard_normal((64 * blocks, n)).astype(np.float32))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("out", ["tma", "copy"])
@pytest.mark.parametrize("swizzle", [False, True], ids=["plain", "b128"])
@pytest.mark.parametrize("n", [64, 128, 256])
def test_accumulator_tile_through_stmatrix(n: int, swizzle: bool, out: str, seed: int) -> None:
    x = tile_input(n, seed=seed)
    (y,) = simulate(epilogue_kernel(n, swizzle, out), [x], seed=seed)
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("mutation", [
    # lane l addresses the row its registers hold (l / 4) instead of row l % 8 of matrix l / 8
    {"address": lambda w, lane, m, i2: (w * 16 + lane // 4, (i2 * 2) * 8)},
    # the lane's matrix taken as l % 4 (a transposed lane decomposition)
    {"address": lambda w, lane, m, i2: (w * 16 + (lane % 4) % 2 * 8 + lane // 4, (i2 * 2 + lane % 4 // 2) * 8)},
    # the four matrices in (row half, column block) order instead of (column block, row half)
    {"matrices": lambda i2, m: (i2 * 2 + m % 2, m // 2)},
], ids=["row-of-the-registers", "transposed-lanes", "matrix-order"])
@pytest.mark.parametrize("swizzle", [False, True], ids=["plain", "b128"])
def test_wrong_lane_addressing_gives_wrong_numbers(mutation: dict, swizzle: bool) -> None:
    x = tile_input(128)
    (y,) = simulate(epilogue_kernel(128, swizzle, **mutation), [x])
    assert not np.array_equal(y, x)


def test_stmatrix_over_an_unretired_wgmma_operand_is_an_error() -> None:
    kern = matmul_kernel(Spec(n=64, fill="stores"))
    sa, _ = operands(Spec(n=64, fill="stores"))
    frag = local("T9", 8, BF16)
    broken = insert_after(kern, k.Mma, [k.Allocate(frag), k.StMatrix(sa, LANE * 8, frag, c(0), 4)])
    x = [round_bf16(np.ones((64, 64), np.float32))] * 2
    # the stmatrix of one warp may also run before another warp's wgmma, which then reads its unfenced stores
    with pytest.raises(SimulationError, match=r"stmatrix.x4 from T9 into T3 .* overwrites T3.* uncommitted wgmma|"
                                              r"missing fence.proxy.async: wgmma .* reads T3"):
        simulate(broken, x)


# ---------------------------------------------------------------- TMA store: the source until the bulk wait
def two_tile_kernel(n: int = 64, alloc_in_loop: bool = False) -> k.Kernel:
    """Each block stores two 64 x n tiles (T0 rows 128 b .. 128 b + 127) through one shared tile: before
    rewriting it, the elected thread waits for the previous store to finish reading (bulk wait 0) and a
    __syncthreads orders that wait before every warp's stmatrix. With ``alloc_in_loop`` the tile's Allocate
    is the loop body's first statement (as the persistent lowering places it), executed while the previous
    tile's store may still read the tile."""
    x, y = global_2d("T0", dtype=BF16), global_2d("T2", dtype=BF16)
    tile = k.Buffer("T1", BF16, MemoryType.Shared, c(64 * n), align=1024)
    frag = local("T3", n // 2, BF16)
    tmap = k.TensorMapParam("tmap_T2", y, (n, 64))
    r, i2, t = sym("r"), sym("i2"), sym("t")
    row0 = BX * 128 + t * 64
    m = LANE // 8
    row, col = WARP * 16 + m % 2 * 8 + LANE % 8, (i2 * 2 + m // 2) * 8
    frow, fcol = wgmma_accumulator(TX, r)
    alloc: list[k.Node] = [k.Allocate(tile, c(0)), k.Allocate(frag)]
    body: list[k.Node] = [
        *([] if alloc_in_loop else alloc),
        for_("t", 0, 2, [
            *(alloc if alloc_in_loop else []),
            elect([k.AsyncWait(k.AsyncKind.Bulk, 0)]),
            k.BlockSync("WAR: the previous TMA store has read the tile"),
            for_("r", 0, n // 2, [assign(frag, r, load(x, at(x, row0 + frow, fcol)))], unroll=True),
            for_("i2", 0, n // 16, [k.StMatrix(tile, row * n + col, frag, i2 * 8, 4)], unroll=True),
            k.FenceAsyncProxy(),
            k.BlockSync("RAW: the tile is written"),
            elect([k.TmaStore(tile, c(0), tmap, (row0, c(0))), k.AsyncCommit(k.AsyncKind.Bulk)]),
        ]),
        elect([k.AsyncWait(k.AsyncKind.Bulk, 0)]),
    ]
    return kernel(body, [x], [y], (2,), (128,), tensor_maps=(tmap,), smem=64 * n * 2)


def without_bulk_wait(kern: k.Kernel, first: bool) -> k.Kernel:
    """The kernel without its first (in the loop) or last (at kernel end) ``AsyncWait("bulk")``."""
    waits = [n for n in k.walk(kern.body) if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Bulk]
    victim = waits[0 if first else -1]
    return remove_nodes(kern, k.AsyncWait, lambda n: n is victim)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alloc_in_loop", [False, True], ids=["alloc-once", "alloc-in-loop"])
def test_two_tiles_through_one_tma_store_source(alloc_in_loop: bool, seed: int) -> None:
    """An Allocate executed again does not poison what a store not yet retired reads (it writes nothing)."""
    x = tile_input(64, blocks=4, seed=seed)
    (y,) = simulate(two_tile_kernel(alloc_in_loop=alloc_in_loop), [x], seed=seed)
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("alloc_in_loop", [False, True], ids=["alloc-once", "alloc-in-loop"])
def test_rewriting_the_source_before_the_bulk_wait_is_an_error(alloc_in_loop: bool, seed: int) -> None:
    broken = without_bulk_wait(two_tile_kernel(alloc_in_loop=alloc_in_loop), first=True)
    with pytest.raises(SimulationError, match=r"stmatrix.x4 from T3 into T1 .* writes T1\[.*rewritten while a TMA "
                                              r"store may still read it.*committed but not retired"):
        simulate(broken, [tile_input(64, blocks=4)], seed=seed)


def test_a_store_into_the_source_before_the_bulk_wait_is_an_error() -> None:
    kern = epilogue_kernel(64, swizzle=False, blocks=1)
    broken = insert_after(kern, k.AsyncCommit, [assign(sym_tile(kern), c(5), k.Const(0.0, BF16))])
    with pytest.raises(SimulationError, match=r"a store to T1\[5\] writes T1\[5:6\] \(block \(0, 0, 0\)\): staging "
                                              r"tile rewritten before the store's read finished, the source of a TMA "
                                              r"store rewritten while a TMA store may still read it"):
        simulate(broken, [tile_input(64, blocks=1)])


def sym_tile(kern: k.Kernel) -> k.Buffer:
    return next(n.buffer for n in kern.body if isinstance(n, k.Allocate) and n.buffer.name == "T1")


def _commit_nothing_first(kern: k.Kernel) -> k.Kernel:
    """An empty bulk group committed before anything: the kernel commits (as ``verify`` asks of one that
    waits), yet its stores stay uncommitted."""
    return replace(kern, body=(k.AsyncCommit(k.AsyncKind.Bulk),) + kern.body)


def test_an_uncommitted_store_is_not_retired_by_the_wait() -> None:
    kern = epilogue_kernel(64, swizzle=False, blocks=1)
    broken = _commit_nothing_first(remove_nodes(kern, k.AsyncCommit))
    broken = insert_after(broken, k.AsyncWait, [assign(sym_tile(kern), c(5), k.Const(0.0, BF16))])
    with pytest.raises(SimulationError, match=r"rewritten while a TMA store may still read it; the TMA store from T1 "
                                              r"issued by .* not committed"):
        simulate(broken, [tile_input(64, blocks=1)])


def test_a_tma_load_into_the_source_before_the_bulk_wait_is_an_error() -> None:
    """A float tile: T1 = T0 + 1 by the threads, TMA-stored to T2, then a TMA load of T0 into T1 before the wait."""
    a, out = global_1d("T0"), global_1d("T2")
    tmap_in, tmap_out = k.TensorMapParam("tmap_T0", a, (32,)), k.TensorMapParam("tmap_T2", out, (32,))
    tile, mbar = shared("T1", 32), shared("T4", 1, INT64)
    body: list[k.Node] = [
        k.Allocate(tile), k.Allocate(mbar),
        elect([k.MBarrierInit(mbar, c(0), c(1))]),
        assign(tile, TX, k.BinaryValue("add", load(a, TX), fconst(1.0), DataType.Float)),
        k.FenceAsyncProxy(),
        k.BlockSync("RAW: the tile is written; the mbarrier is initialized"),
        elect([k.TmaStore(tile, c(0), tmap_out, (c(0),)), k.AsyncCommit(k.AsyncKind.Bulk),
               k.MBarrierArriveExpectTx(mbar, c(0), c(128)), k.TmaLoad(tile, c(0), tmap_in, (c(0),), mbar, c(0)),
               k.AsyncWait(k.AsyncKind.Bulk, 0)]),
        k.MBarrierWaitParity(mbar, c(0), c(0)),
        k.BlockSync("before inval"), elect([k.MBarrierInval(mbar, c(0))]),
    ]
    kern = kernel(body, [a], [out], (1,), (32,), tensor_maps=(tmap_in, tmap_out))
    x = np.arange(32, dtype=np.float32)
    with pytest.raises(SimulationError, match=r"TMA load into T1 \(issued\) writes T1\[0:32\] .* rewritten while a "
                                              r"TMA store may still read it"):
        simulate(kern, [x])
    fixed = remove_nodes(kern, k.AsyncWait)
    fixed = insert_after(fixed, k.AsyncCommit, [k.AsyncWait(k.AsyncKind.Bulk, 0)])
    (y,) = simulate(fixed, [x])
    np.testing.assert_array_equal(y, x + 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_exit_before_the_bulk_wait_is_an_error(seed: int) -> None:
    """The last wait removed: the thread exits while its store may still read the block's shared memory."""
    broken = without_bulk_wait(two_tile_kernel(), first=False)
    with pytest.raises(SimulationError, match=r"exits while the TMA store from T1 issued by .* may still read T1: "
                                              r"the store was committed but no AsyncWait"):
        simulate(broken, [tile_input(64, blocks=4)], seed=seed)
    uncommitted = _commit_nothing_first(remove_nodes(epilogue_kernel(64, False, blocks=1), k.AsyncCommit))
    with pytest.raises(SimulationError, match=r"exits while the TMA store .* was never committed"):
        simulate(uncommitted, [tile_input(64, blocks=1)], seed=seed)


# ---------------------------------------------------------------- TMA store: fence.proxy.async
@pytest.mark.parametrize("swizzle", [False, True], ids=["plain", "b128"])
def test_missing_fence_before_the_tma_store_is_an_error(swizzle: bool) -> None:
    broken = remove_nodes(epilogue_kernel(128, swizzle), k.FenceAsyncProxy)
    with pytest.raises(SimulationError, match=r"missing fence.proxy.async: TMA store from T1 \(block \(0, 0, 0\)\) "
                                              r"reads T1\[.*executed no fence.proxy.async after the write"):
        simulate(broken, [tile_input(128)])


def test_fence_after_the_barrier_is_an_error() -> None:
    """The fence must come between the write and the barrier that orders the write before the store."""
    kern = remove_nodes(epilogue_kernel(64, False), k.FenceAsyncProxy)
    broken = insert_after(kern, k.BlockSync, [k.FenceAsyncProxy()])
    with pytest.raises(SimulationError, match=r"missing fence.proxy.async: .* arrived at no barrier after the fence"):
        simulate(broken, [tile_input(64)])


def test_missing_fence_in_the_two_tile_loop_is_an_error() -> None:
    broken = remove_nodes(two_tile_kernel(), k.FenceAsyncProxy)
    with pytest.raises(SimulationError, match=r"missing fence.proxy.async"):
        simulate(broken, [tile_input(64, blocks=4)])


def test_one_warp_needs_the_fence_but_no_barrier() -> None:
    """A single warp writes the tile and its elected thread stores it: the fence suffices, its absence fails."""
    a, out = global_1d("T0"), global_1d("T2")
    tmap = k.TensorMapParam("tmap_T2", out, (32,))
    tile = shared("T1", 32)
    body: list[k.Node] = [
        k.Allocate(tile),
        assign(tile, TX, k.BinaryValue("add", load(a, TX), fconst(1.0), DataType.Float)),
        k.FenceAsyncProxy(),
        elect([k.TmaStore(tile, c(0), tmap, (c(0),)), k.AsyncCommit(k.AsyncKind.Bulk), k.AsyncWait(k.AsyncKind.Bulk, 0)]),
    ]
    kern = kernel(body, [a], [out], (1,), (32,), tensor_maps=(tmap,))
    x = np.arange(32, dtype=np.float32)
    (y,) = simulate(kern, [x])
    np.testing.assert_array_equal(y, x + 1)
    with pytest.raises(SimulationError, match=r"missing fence.proxy.async"):
        simulate(remove_nodes(kern, k.FenceAsyncProxy), [x])
