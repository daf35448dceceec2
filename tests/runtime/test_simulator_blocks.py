"""``simulate(..., interleave_blocks=seed)``: blocks interleaved at random, so a kernel that reads what
another block writes without any grid-level order reads it too early in some interleavings (lockstep
blocks always see the write, as they run every statement together)."""

from __future__ import annotations

import numpy as np

from lowering import kernel_ir as k
from runtime import simulate
from tests.runtime.kir_builders import BX, FLOAT, TX, assign, ceil_div, fconst, global_1d, if_, kernel, load, sym

N = sym("i0")
GID = BX * 32 + TX


def racy_kernel() -> k.Kernel:
    """Every block copies its 32 elements to T1; then block b's thread 0 adds T1[32 * (b + 1) % n]: an
    element another block wrote, with nothing ordering that block's write before this read."""
    a, out, nxt = global_1d("T0"), global_1d("T1"), global_1d("T2")
    first = (BX + 1) * 32 % N
    body = [
        if_(GID.lt(N), [assign(out, GID, load(a, GID))]),
        if_(TX.eq(0), [assign(nxt, BX, k.BinaryValue("add", load(out, first), fconst(1.0), FLOAT))]),
    ]
    return kernel(body, [a], [out, nxt], (ceil_div(N, 32),), (32,))


def _expected(x: np.ndarray) -> np.ndarray:
    blocks = -(-x.size // 32)
    return np.array([x[(b + 1) * 32 % x.size] + 1 for b in range(blocks)], np.float32)


def test_lockstep_blocks_hide_the_race() -> None:
    x = np.arange(256, dtype=np.float32)
    for seed in range(6):
        _, got = simulate(racy_kernel(), [x], seed=seed)
        np.testing.assert_array_equal(got[:8], _expected(x))


def test_interleaved_blocks_show_the_race() -> None:
    x = np.arange(256, dtype=np.float32)
    wrong = 0
    for seed in range(12):
        _, got = simulate(racy_kernel(), [x], seed=seed, interleave_blocks=seed)
        wrong += not np.array_equal(got[:8], _expected(x))
    assert wrong > 0, "no interleaving read another block's element before it was written"


def test_interleaving_keeps_a_race_free_kernel_right() -> None:
    a, out = global_1d("T0"), global_1d("T1")
    kern = kernel([if_(GID.lt(N), [assign(out, GID, k.BinaryValue("mul", load(a, GID), fconst(2.0), FLOAT))])],
                  [a], [out], (ceil_div(N, 32),), (32,))
    x = np.arange(300, dtype=np.float32)
    for seed in range(4):
        (got,) = simulate(kern, [x], seed=seed, interleave_blocks=seed)
        np.testing.assert_array_equal(got, 2 * x)
