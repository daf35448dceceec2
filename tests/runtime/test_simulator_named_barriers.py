"""runtime.simulate: named barriers (``bar.sync id, threads``), state per block and barrier id."""

from __future__ import annotations

import numpy as np
import pytest

from lowering import kernel_ir as k
from runtime import DeadlockError, SimulationError, simulate
from tests.codegen.sample_kernels import named_barrier_groups
from tests.runtime.kir_builders import TX, assign, c, fconst, for_, global_1d, if_, kernel, load, shared, sym

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
    (k.NamedBarrier(1, c(48)), "the thread count is 48; it must be a positive multiple of 32"),
    (k.NamedBarrier(1, c(128)), "the thread count 128 exceeds the block's 64 threads"),
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
