"""runtime.simulate: the elected thread of ``ElectSync`` is the first lane of warp ``node.warp`` in each block."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir.scalar import Val
from fusion_ir.types import DataType
from lowering import kernel_ir as k
from runtime import SimulationError, simulate
from runtime.sim_scheduler import Task
from runtime.simulator import Simulator
from tests.runtime.kir_builders import BX, TX, TY, assign, elect, global_1d, if_, kernel, load


def marks(warp: int | Val, block: tuple, blocks: int = 3, body_guard: k.Node | None = None) -> np.ndarray:
    """T1[b, t] = 1 where thread t of block b ran the elected body, 0 elsewhere."""
    threads = int(np.prod(block))
    a, out = global_1d("T0"), global_1d("T1", dtype=DataType.Int32)
    linear = TX if len(block) == 1 else TX + TY * block[0]
    where = BX * threads + linear
    node: k.Node = elect([assign(out, where, k.Const(1, DataType.Int32))], warp=warp)
    if body_guard is not None:
        node = if_(body_guard, [node])
    kern = kernel([assign(out, where, k.Const(0, DataType.Int32)), k.BlockSync("zeroed"), node], [a], [out],
                  (blocks,), block)
    (y,) = simulate(kern, [np.zeros(blocks * threads, np.float32)])
    return y.reshape(blocks, threads)


@pytest.mark.parametrize("warp", [0, 4, 7])
def test_elect_runs_once_per_block_in_the_first_lane_of_its_warp(warp: int) -> None:
    y = marks(warp, (256,))
    expected = np.zeros((3, 256), np.int32)
    expected[:, 32 * warp] = 1
    np.testing.assert_array_equal(y, expected)


def test_elect_warp_of_a_two_dimensional_block() -> None:
    # (64, 4): warp 5 is threads (32..63, 2), its first lane is linear thread 160
    y = marks(5, (64, 4))
    assert (np.flatnonzero(y[0]) == [160]).all() and (y.sum(axis=1) == 1).all()


def test_elect_in_a_branch_only_its_warp_takes() -> None:
    """Inside ``threadIdx.x >= 128`` of a 256-thread block, warp 4 elects; the other warps skip the node."""
    y = marks(4, (256,), body_guard=TX.ge(128))
    assert [list(np.flatnonzero(row)) for row in y] == [[128]] * 3


def test_elect_whose_warp_never_reaches_it_runs_nowhere() -> None:
    y = marks(0, (256,), body_guard=TX.ge(128))
    assert y.sum() == 0


def test_elect_first_lane_that_reaches_it() -> None:
    """Lanes 0..15 of warp 0 skip the node: the first lane of the warp that reaches it is elected."""
    y = marks(0, (64,), body_guard=TX.ge(16))
    assert [list(np.flatnonzero(row)) for row in y] == [[16]] * 3


def test_elect_warp_outside_the_block_is_an_error() -> None:
    with pytest.raises(SimulationError, match=r"ElectSync: elects in warp 8, but a block of 256 threads has warps 0..7"):
        marks(8, (256,))


def test_elect_warp_may_be_a_value() -> None:
    """``blockDim.x / 32 - 1``: the last warp of every block, whatever the block size."""
    a, out = global_1d("T0"), global_1d("T1")
    node = k.ElectSync((assign(out, BX * 96 + TX, load(a, BX * 96 + TX)),), Val.symbol("blockDim.x") // 32 - 1)
    kern = kernel([node], [a], [out], (4,), (96,))
    x = np.arange(4 * 96, dtype=np.float32) + 1
    (y,) = simulate(kern, [x])
    expected = np.full_like(x, np.nan)
    expected[64::96] = x[64::96]
    np.testing.assert_array_equal(y, expected)


def test_elect_warp_per_warp_group_runs_once_in_each_group() -> None:
    """Blocks of (128, 2, 1) are two warp groups; ``threadIdx.y * 4`` names the first warp of each."""
    y = marks(TY * 4, (128, 2))
    assert [list(np.flatnonzero(row)) for row in y] == [[0, 128]] * 3
    y = marks(TY * 4, (128, 2), body_guard=TX.ge(8))
    assert [list(np.flatnonzero(row)) for row in y] == [[8, 136]] * 3


def test_elect_is_per_warp_even_in_a_task_of_several_warps(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scheduler runs each warp as a task of its own; the rule does not depend on that. Run as one
    task of every lane, ``threadIdx.y * 4`` still elects once in each (block, warp group)."""
    def run_as_one_task(self: Simulator) -> None:
        for _ in self._root(Task("every lane", np.arange(self.grid.num_lanes), ("all",))):
            pass  # nothing here blocks; the task only yields to (absent) others
        self.async_.finish()

    monkeypatch.setattr(Simulator, "run", run_as_one_task)
    y = marks(TY * 4, (128, 2))
    assert [list(np.flatnonzero(row)) for row in y] == [[0, 128]] * 3
    assert [list(np.flatnonzero(row)) for row in marks(0, (128, 2))] == [[0]] * 3
