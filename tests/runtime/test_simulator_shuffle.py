"""runtime.simulate: ``WarpShuffleXor`` reads the partner lane's register (lane ^ mask) as it was before the step,
so butterfly steps all-reduce each aligned group of lanes; a partner that does not execute the shuffle is an
error (``shfl.sync`` with a full mask)."""

from __future__ import annotations

import numpy as np
import pytest

from lowering import kernel_ir as k
from runtime import SimulationError, simulate
from tests.runtime.kir_builders import BX, TX, assign, c, global_1d, if_, kernel, load, local

BLOCKS, THREADS = 2, 64


def _shuffled(steps: list[tuple[str, int]], guard=None) -> tuple[np.ndarray, np.ndarray]:
    """x per thread, then ``reg = op(reg, reg of lane ^ mask)`` for each step; the input and the result."""
    x_buf, out = global_1d("T0"), global_1d("T1")
    reg = local("T2", 1)
    where = BX * THREADS + TX
    shuffles: list[k.Node] = [k.WarpShuffleXor(reg, c(0), op, mask) for op, mask in steps]
    if guard is not None:
        shuffles = [if_(guard, shuffles)]
    body = [k.Allocate(reg), assign(reg, 0, load(x_buf, where)), *shuffles, assign(out, where, load(reg, 0))]
    kern = kernel(body, [x_buf], [out], (BLOCKS,), (THREADS,))
    x = np.random.default_rng(3).permutation(BLOCKS * THREADS).astype(np.float32)
    (y,) = simulate(kern, [x])
    return x, y


def test_two_steps_sum_each_quad_into_every_lane() -> None:
    x, y = _shuffled([("add", 1), ("add", 2)])
    np.testing.assert_array_equal(y, np.repeat(x.reshape(-1, 4).sum(1), 4))


def test_five_steps_take_the_max_of_the_warp() -> None:
    x, y = _shuffled([("max", m) for m in (1, 2, 4, 8, 16)])
    np.testing.assert_array_equal(y, np.repeat(x.reshape(-1, 32).max(1), 32))


def test_one_step_reads_the_partner_before_it_writes() -> None:
    """lanes 2l and 2l + 1 swap sums: each gets x[2l] + x[2l + 1], not a value updated by its partner first."""
    x, y = _shuffled([("add", 1)])
    np.testing.assert_array_equal(y, x + x.reshape(-1, 2)[:, ::-1].reshape(-1))


def test_a_wrong_mask_reduces_other_lanes() -> None:
    """Masks 2 and 4 pair lanes of different quads: the result is not the quads' sums."""
    x, y = _shuffled([("add", 2), ("add", 4)])
    assert not np.array_equal(y, np.repeat(x.reshape(-1, 4).sum(1), 4))


def test_a_partner_that_does_not_shuffle_is_an_error() -> None:
    with pytest.raises(SimulationError, match=r"a warp shuffle of T2\[0\]: thread \(\d+, 0, 0\) of block \(0, 0, 0\) "
                                              r"reads the register of lane \d+ of its warp \(lane mask 1\), which does "
                                              r"not execute the shuffle"):
        _shuffled([("add", 1)], guard=(TX % 4).lt(3))
