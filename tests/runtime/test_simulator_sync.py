"""runtime.simulate: __syncthreads, block reductions and deadlocks between the warps of a block."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.types import ParallelType
from lowering import kernel_ir as k
from runtime import DeadlockError, simulate
from tests.runtime.kir_builders import (
    BX,
    TX,
    TY,
    assign,
    c,
    ceil_div,
    fconst,
    for_,
    global_1d,
    if_,
    kernel,
    load,
    local,
    remove_nodes,
    shared,
    sym,
)

N = sym("i0")
GID = BX * 128 + TX
SEEDS = range(4)


def staging_kernel(sync_inside_predicate: bool = False) -> k.Kernel:
    """Each block reverses its 128-element tile through shared memory."""
    a, out, smem = global_1d("T0"), global_1d("T1"), shared("T2", 128)
    partner = BX * 128 + (127 - TX)
    fill = [assign(smem, TX, load(a, GID))]
    sync = [k.BlockSync("RAW: T2 written, then read")]
    body = [k.Allocate(smem)]
    if sync_inside_predicate:
        body += [if_(GID.lt(N), fill + sync)]
    else:
        body += [if_(GID.lt(N), fill)] + sync
    body += [if_(GID.lt(N).logical_and(partner.lt(N)), [assign(out, GID, load(smem, 127 - TX))])]
    return kernel(body, [a], [out], (ceil_div(N, 128),), (128,))


def reversed_tiles(x: np.ndarray) -> np.ndarray:
    return x.reshape(-1, 128)[:, ::-1].reshape(-1)


@pytest.mark.parametrize("seed", SEEDS)
def test_shared_memory_staging_with_block_sync(seed: int) -> None:
    x = np.random.default_rng(seed).standard_normal(1024).astype(np.float32)
    (y,) = simulate(staging_kernel(), [x], seed=seed)
    np.testing.assert_array_equal(y, reversed_tiles(x))


@pytest.mark.parametrize("seed", SEEDS)
def test_missing_raw_sync_reads_poison(seed: int) -> None:
    """Warps run apart without the barrier: a warp reads its partner warp's tile before it is written."""
    x = np.ones(1024, dtype=np.float32)
    racy = remove_nodes(staging_kernel(), k.BlockSync)
    (y,) = simulate(racy, [x], seed=seed)
    assert np.isnan(y).any()


def test_block_sync_inside_divergent_if_deadlocks() -> None:
    # 1000 elements: in the last block threads 104..127 skip the barrier but stay alive at the reconvergence point
    x = np.ones(1000, dtype=np.float32)
    with pytest.raises(DeadlockError, match=r"__syncthreads\(\) \(RAW: T2 written, then read\) in block \(7, 0, 0\)"):
        simulate(staging_kernel(sync_inside_predicate=True), [x])


def test_threads_at_different_barriers_deadlock() -> None:
    out = global_1d("T1")
    body = [
        if_(TX.lt(64), [k.BlockSync("first")], [k.BlockSync("second")]),
        assign(out, TX, fconst(1.0)),
    ]
    kern = kernel(body, [global_1d("T0")], [out], (1,), (128,))
    with pytest.raises(DeadlockError, match="wait at different barriers"):
        simulate(kern, [np.zeros(128, np.float32)])


def test_block_sync_after_early_return_waits_only_for_live_threads() -> None:
    """Threads that returned have exited: the barrier does not wait for them (as on sm_70+)."""
    x = np.arange(1000, dtype=np.float32)
    a, out, smem = global_1d("T0"), global_1d("T1"), shared("T2", 128)
    body = [
        k.Allocate(smem),
        if_(GID.ge(N), [k.Return()]),
        assign(smem, TX, load(a, GID)),
        k.BlockSync("RAW"),
        assign(out, GID, load(smem, TX)),
    ]
    kern = kernel(body, [a], [out], (ceil_div(N, 128),), (128,))
    (y,) = simulate(kern, [x])
    np.testing.assert_array_equal(y, x)


def reduce_kernel(op: str, dims: tuple[ParallelType, ...], divergent: bool = False) -> k.Kernel:
    """Block (32, 4): row r of T0 (r = blockIdx.x * 4 + threadIdx.y) has 32 elements, one per threadIdx.x."""
    a, out, acc, ws = global_1d("T0"), global_1d("T1", "i1"), local("T2", 1), shared("T3", 128, k.DataType.Int64)
    elem = (BX * 4 + TY) * 32 + TX
    init = 0.0 if op == "add" else float("-inf")
    reduce = k.BlockReduce(acc, c(0), load(acc, 0), op, dims, init, ws)
    out_index = BX * 4 + TY if ParallelType.TIDy not in dims else BX
    body: list[k.Node] = [
        k.Allocate(ws), k.Allocate(acc),
        assign(acc, 0, fconst(init)),
        if_(elem.lt(N), [assign(acc, 0, load(a, elem))]),
        if_(TX.lt(16), [reduce]) if divergent else reduce,
        if_(TX.eq(0).logical_and(TY.eq(0) if ParallelType.TIDy in dims else c(1)),
            [assign(out, out_index, load(acc, 0))]),
    ]
    return kernel(body, [a, global_1d("T4", "i1")], [out], (ceil_div(N, 128),), (32, 4))


@pytest.mark.parametrize("op", ["add", "max"])
def test_block_reduce_over_tidx_matches_numpy(op: str) -> None:
    rows = 40  # 10 blocks of 4 rows
    x = np.random.default_rng(5).standard_normal(rows * 32).astype(np.float32)
    (y,) = simulate(reduce_kernel(op, (ParallelType.TIDx,)), [x, np.zeros(rows, np.float32)])
    ref = x.reshape(rows, 32).astype(np.float64)
    np.testing.assert_allclose(y, ref.sum(axis=1) if op == "add" else ref.max(axis=1), rtol=1e-5, atol=1e-6)


def test_block_reduce_over_the_whole_block() -> None:
    x = np.random.default_rng(6).standard_normal(10 * 128 - 50).astype(np.float32)
    (y,) = simulate(reduce_kernel("add", (ParallelType.TIDx, ParallelType.TIDy)), [x, np.zeros(10, np.float32)])
    ref = np.concatenate([x, np.zeros(50, np.float32)]).reshape(10, 128).astype(np.float64).sum(axis=1)
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-5)


def test_block_reduce_in_divergent_code_deadlocks() -> None:
    x = np.ones(128, dtype=np.float32)
    with pytest.raises(DeadlockError, match="blockReduce<add> into T2"):
        simulate(reduce_kernel("add", (ParallelType.TIDx,), divergent=True), [x, np.zeros(4, np.float32)])


def test_block_sync_in_a_loop_with_continue_deadlocks() -> None:
    out = global_1d("T1")
    body = [for_("i2", 0, 3, [if_(TX.eq(5), [k.Continue()]), k.BlockSync("loop")]), assign(out, TX, fconst(0.0))]
    kern = kernel(body, [global_1d("T0")], [out], (1,), (64,))
    with pytest.raises(DeadlockError, match=r"not reached by every thread.*thread \(5, 0, 0\)"):
        simulate(kern, [np.zeros(64, np.float32)])
