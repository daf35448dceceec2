"""Mutations of the row softmax of a matmul (examples/matmul_row_softmax), whose row max and row sum combine the
4 lanes of each quad by ``shfl.xor`` 1 and 2: a wrong lane mask or a missing step leaves a thread with another row's
or only part of its row's max or sum, and the simulator's result no longer matches numpy; a shuffle some lanes of
the warp skip is reported."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from examples import matmul_row_softmax as ex
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.runtime.kir_builders import mutate, remove_nodes

SIZE = (200, 136, 64)          # M, K, N


def _error(kernel: k.Kernel) -> float:
    inputs = ex.make_inputs(*SIZE, seed=5)
    (out,) = simulate(kernel, inputs, seed=5)
    want = ex.reference(*inputs)
    return float(np.nanmax(np.abs(np.asarray(out, dtype=np.float64) - want)) / np.abs(want).max())


@pytest.fixture(scope="module")
def kernel() -> k.Kernel:
    return lower(ex.build(*SIZE))


def _remask(op: str, old: int, new: int):
    def fn(node: k.Node) -> tuple | None:
        if isinstance(node, k.WarpShuffleXor) and node.op == op and node.lane_mask == old:
            return (replace(node, lane_mask=new),)
        return None
    return fn


def test_unmutated_kernel_matches(kernel: k.Kernel) -> None:
    assert _error(kernel) <= ex.TOLERANCE


@pytest.mark.parametrize("op", ["max", "add"])
@pytest.mark.parametrize("old,new", [(2, 4), (1, 8), (1, 2)])
def test_a_wrong_lane_mask_breaks_the_result(kernel: k.Kernel, op: str, old: int, new: int) -> None:
    """Masks past the quad mix in other rows' values; masks 2 and 2 combine a lane with one partner twice."""
    assert _error(mutate(kernel, _remask(op, old, new))) > 10 * ex.TOLERANCE


@pytest.mark.parametrize("op", ["max", "add"])
@pytest.mark.parametrize("mask", [1, 2])
def test_a_missing_step_breaks_the_result(kernel: k.Kernel, op: str, mask: int) -> None:
    mutated = remove_nodes(kernel, k.WarpShuffleXor, lambda n: n.op == op and n.lane_mask == mask)
    assert _error(mutated) > 10 * ex.TOLERANCE


def test_a_shuffle_some_lanes_skip_is_reported(kernel: k.Kernel) -> None:
    """The row sum's first step run by lanes 0..2 of each quad only: lane 3 is the partner of lane 2."""
    def guard(node: k.Node) -> tuple | None:
        if isinstance(node, k.WarpShuffleXor) and node.op == "add" and node.lane_mask == 1:
            return (k.IfThenElse((Val.symbol("threadIdx.x") % 4).lt(3), (node,)),)
        return None
    with pytest.raises(SimulationError, match=r"reads the register of lane \d+ of its warp \(lane mask 1\), which "
                                              r"does not execute the shuffle"):
        _error(mutate(kernel, guard))
