"""runtime.simulate: named barriers (``bar.sync id, threads``), state per block and barrier id."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from lowering import kernel_ir as k
from runtime import DeadlockError, SimulationError, simulate
from tests.codegen.sample_kernels import named_barrier_groups
from tests.runtime.kir_builders import BX, TX, TY, assign, c, fconst, for_, global_1d, if_, kernel, load, shared, sym

SEEDS = range(4)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("n", [1, 300, 1024])
def test_two_warp_groups_each_on_their_own_named_barrier(n: int, seed: int) -> None:
    sample = named_barrier_groups()
    x = sample.make_inputs(n, np.random.default_rng(seed))
    (y,) = simulate(sample.kernel, x, seed=seed)
    np.testing.assert_array_equal(y, sample.reference(*x)[0])


@pytest.mark.parametrize("seed", SEEDS)
def test_without_the_named_barriers_a_group_reads_poison(seed: int) -> None:
    sample = named_barrier_groups()
    broken = k.Kernel(**{**sample.kernel.__dict__,
                         "body": k.rewrite(sample.kernel.body,
                                           lambda n: () if isinstance(n, k.NamedBarrier) else None)})
    x = sample.make_inputs(1024, np.random.default_rng(seed))
    (y,) = simulate(broken, x, seed=seed)
    assert not np.array_equal(y, sample.reference(*x)[0])


def test_a_count_that_never_arrives_deadlocks_naming_the_barrier() -> None:
    x = named_barrier_groups().make_inputs(512, np.random.default_rng(0))
    with pytest.raises(DeadlockError, match=r"bar.sync 1, 192 \(RAW: group 0 staged T1\[0:128\]\) in block "
                                            r"\(0, 0, 0\) \(and 1 more blocks\): named barrier 1 expects 192 "
                                            r"threads, 128 arrived"):
        simulate(named_barrier_groups(count=192).kernel, x)


def test_group_sizes_that_do_not_match_the_count_deadlock() -> None:
    """Three warps meet at a barrier of 64 threads: the first two release it, the third waits alone."""
    out = global_1d("T1")
    body = [k.NamedBarrier(3, c(64)), assign(out, TX, fconst(1.0))]
    kern = kernel(body, [global_1d("T0")], [out], (1,), (96,))
    with pytest.raises(DeadlockError, match="named barrier 3 expects 64 threads, 32 arrived"):
        simulate(kern, [np.zeros(96, np.float32)])


def test_named_barrier_is_reused_in_phases() -> None:
    """The same barrier id completes once per use: a 64-thread block reverses three tiles in turn."""
    a, out, smem = global_1d("T0"), global_1d("T1"), shared("T2", 64)
    i = sym("i1")
    body = [k.Allocate(smem), for_("i1", 0, 3, [
        assign(smem, TX, load(a, i * 64 + TX)), k.NamedBarrier(1, c(64), "RAW"),
        assign(out, i * 64 + TX, load(smem, c(63) - TX)), k.NamedBarrier(1, c(64), "WAR")])]
    kern = kernel(body, [a], [out], (1,), (64,))
    x = np.arange(192, dtype=np.float32)
    for seed in SEEDS:
        (y,) = simulate(kern, [x], seed=seed)
        np.testing.assert_array_equal(y, x.reshape(3, 64)[:, ::-1].reshape(-1))


@pytest.mark.parametrize(("barrier", "message"), [
    (k.NamedBarrier(0, c(32)), r"named barrier ids are 1..15 \(0 is __syncthreads\)"),
    (k.NamedBarrier(16, c(32)), "named barrier ids are 1..15"),
    (k.NamedBarrier(1, c(48)), "named barrier 1 counts 48 threads; bar.sync counts whole warps, a positive multiple of 32"),
    (k.NamedBarrier(1, c(128)), "named barrier 1 counts 128 threads, more than the block's 64"),
    (k.NamedBarrier(1, TX % 2 * 32 + 32), "differs between the threads"),
])
def test_invalid_named_barriers_are_errors(barrier: k.NamedBarrier, message: str) -> None:
    out = global_1d("T1")
    kern = kernel([barrier, assign(out, TX, fconst(1.0))], [global_1d("T0")], [out], (1,), (64,))
    with pytest.raises(SimulationError, match=message):
        simulate(kern, [np.zeros(64, np.float32)])


def test_different_counts_on_one_barrier_are_an_error() -> None:
    out = global_1d("T1")
    body = [if_(TX.lt(32), [k.NamedBarrier(1, c(64))], [k.NamedBarrier(1, c(96))]), assign(out, TX, fconst(1.0))]
    kern = kernel(body, [global_1d("T0")], [out], (1,), (96,))
    with pytest.raises(SimulationError, match="with a count of (64|96) while 32 threads wait there with a count"):
        simulate(kern, [np.zeros(96, np.float32)])


def test_block_sync_and_named_barriers_are_separate_barriers() -> None:
    """A named barrier does not complete a __syncthreads and the other way round."""
    out = global_1d("T1")
    body = [if_(sym("threadIdx.x").lt(64), [k.NamedBarrier(1, c(64))]), k.BlockSync("all"),
            assign(out, TX, fconst(1.0))]
    kern = kernel(body, [global_1d("T0")], [out], (1,), (128,))
    (y,) = simulate(kern, [np.zeros(128, np.float32)])
    np.testing.assert_array_equal(y, np.ones(128, np.float32))


# ---- an id that differs between threads: a barrier per warp group
GROUP_BARRIER = k.NamedBarrier(c(1) + TY, c(128), "RAW: my group staged")


def per_group_mirror(barrier: k.NamedBarrier | None = GROUP_BARRIER, blocks: int = 2) -> k.Kernel:
    """Blocks of (128, 2, 1): warp group ``threadIdx.y`` stages its 128 elements of each of three tiles in
    shared memory, meets on ``bar.sync 1 + threadIdx.y, 128`` and writes the element its group's thread
    ``127 - threadIdx.x`` staged; a second use of the barrier keeps the next tile from overwriting it."""
    a, out, smem = global_1d("T0"), global_1d("T1"), shared("T2", 256)
    i = sym("i1")
    base = (BX * 3 + i) * 256 + TY * 128
    body = [k.Allocate(smem), for_("i1", 0, 3, [
        assign(smem, TY * 128 + TX, load(a, base + TX)), *([barrier] if barrier else []),
        assign(out, base + TX, load(smem, TY * 128 + (c(127) - TX))),
        *([replace(barrier, reason="WAR")] if barrier else [])])]
    return kernel(body, [a], [out], (blocks,), (128, 2))


def mirrored_per_group(x: np.ndarray) -> np.ndarray:
    return x.reshape(-1, 128)[:, ::-1].reshape(-1)


@pytest.mark.parametrize("seed", SEEDS)
def test_each_warp_group_syncs_on_the_barrier_its_id_names(seed: int) -> None:
    x = np.arange(2 * 3 * 256, dtype=np.float32)
    (y,) = simulate(per_group_mirror(), [x], seed=seed)
    np.testing.assert_array_equal(y, mirrored_per_group(x))


@pytest.mark.parametrize("seed", SEEDS)
def test_without_the_per_group_barrier_a_group_reads_what_it_did_not_wait_for(seed: int) -> None:
    x = np.arange(2 * 3 * 256, dtype=np.float32)
    (y,) = simulate(per_group_mirror(None), [x], seed=seed)
    assert not np.array_equal(y, mirrored_per_group(x))


def test_a_group_whose_count_never_arrives_deadlocks_naming_its_barrier() -> None:
    """The last warp of group 1 skips the barrier: group 0 goes on, group 1 waits at barrier 2 forever."""
    out = global_1d("T1")
    skip = TY.eq(1).logical_and(TX.ge(96))
    body = [if_(skip, [], [GROUP_BARRIER]), assign(out, TY * 128 + TX, fconst(1.0))]
    kern = kernel(body, [global_1d("T0")], [out], (2,), (128, 2))
    with pytest.raises(DeadlockError, match=r"bar.sync 1 \+ threadIdx.y, 128 \(RAW: my group staged\) in block "
                                            r"\(0, 0, 0\) \(and 1 more blocks\): named barrier 2 expects 128 "
                                            r"threads, 96 arrived") as err:
        simulate(kern, [np.zeros(256, np.float32)])
    assert "named barrier 1" not in str(err.value)


def test_one_task_may_arrive_at_a_different_barrier_in_each_block() -> None:
    """``1 + blockIdx.x % 2``: warp 0 arrives at barrier 1 in even blocks and 2 in odd ones. Warp 1 of block 1
    skips it, so only that block's barrier 2 stays open, and the deadlock names just that one."""
    out = global_1d("T1")
    barrier = k.NamedBarrier(c(1) + BX % 2, c(64))
    kern = kernel([barrier, assign(out, BX * 64 + TX, fconst(1.0))], [global_1d("T0")], [out], (4,), (64,))
    (y,) = simulate(kern, [np.zeros(256, np.float32)])
    np.testing.assert_array_equal(y, np.ones(256, np.float32))
    skip = BX.eq(1).logical_and(TX.ge(32))
    kern = kernel([if_(skip, [], [barrier]), assign(out, BX * 64 + TX, fconst(1.0))], [global_1d("T0")], [out],
                  (2,), (64,))
    with pytest.raises(DeadlockError, match=r"in block \(1, 0, 0\): named barrier 2 expects 64 threads, 32 arrived"):
        simulate(kern, [np.zeros(128, np.float32)])


@pytest.mark.parametrize(("barrier", "message"), [
    (k.NamedBarrier(TX // 32 * 15, c(32)),
     (r"named barrier ids are 1..15 \(0 is __syncthreads\); the id \(threadIdx.x / 32\) \* 15 is 0 for thread "
      r"\(0, 0, 0\) of block \(0, 0, 0\)")),
    (k.NamedBarrier(c(1) + TX % 2, c(32)),
     (r"the id 1 \+ \(threadIdx.x % 2\) differs within a warp: 1 for thread \(0, 0, 0\) of block \(0, 0, 0\), "
      r"2 for thread \(1, 0, 0\) of block \(0, 0, 0\); bar.sync counts whole warps")),
])
def test_invalid_per_thread_ids_are_errors(barrier: k.NamedBarrier, message: str) -> None:
    out = global_1d("T1")
    kern = kernel([barrier, assign(out, TX, fconst(1.0))], [global_1d("T0")], [out], (1,), (64,))
    with pytest.raises(SimulationError, match=message):
        simulate(kern, [np.zeros(64, np.float32)])


def _two_warps(first: k.NamedBarrier, second: k.NamedBarrier) -> k.Kernel:
    """Warp 0 runs ``first``, warp 1 ``second`` (a block of 64 threads), then each writes its lanes."""
    out = global_1d("T1")
    warp0 = TX.lt(c(32))
    body = [if_(warp0, [first], [second]), assign(out, TX, fconst(1.0))]
    return kernel(body, [global_1d("T0")], [out], (1,), (64,))


def test_bar_arrive_releases_the_waiting_warp() -> None:
    """``bar.arrive`` (``wait=False``) counts toward the barrier without waiting: warp 1 arrives, warp 0 syncs."""
    kern = _two_warps(k.NamedBarrier(2, c(64)), k.NamedBarrier(2, c(64), wait=False))
    for seed in SEEDS:
        (y,) = simulate(kern, [np.zeros(64, np.float32)], seed=seed)
        np.testing.assert_array_equal(y, np.ones(64, np.float32))


def test_a_phase_of_arrives_alone_is_reported() -> None:
    kern = _two_warps(k.NamedBarrier(2, c(64), wait=False), k.NamedBarrier(2, c(64), wait=False))
    with pytest.raises(SimulationError, match="named barrier 2 .* all only arrived .* no thread waits for it"):
        simulate(kern, [np.zeros(64, np.float32)])


def test_an_arrive_no_sync_takes_is_reported_at_exit() -> None:
    kern = _two_warps(k.NamedBarrier(2, c(64), wait=False), k.Comment("nothing"))
    with pytest.raises(SimulationError, match="kernel exit: named barrier 2 .* holds 32 arrivals"):
        simulate(kern, [np.zeros(64, np.float32)])
