"""The simulator runs both branches of a warp-specialized kernel and reports a broken protocol:
a wrong number of pre-arrives, a missing "empty" arrive and a wrong expect-tx byte count deadlock
(naming the barrier, its stage and phase); a setmaxnreg that is not per whole warp group is refused."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import examples
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from runtime import simulate
from runtime.errors import DeadlockError, SimulationError
from runtime.inputs import random_inputs
from tests.helpers import assert_matches

NAMES = ["ws_seed_copy", "ws_tma_pointwise", "ws_row_reduction", "ws_persistent_row_sum"]


def _kernel_and_inputs(name: str, seed: int = 0, size: int = -1):
    """The largest size by default: its loops run past the stage count, so every stage is reused."""
    module = examples.load(name)
    fusion = module.build()
    return fusion, lower(fusion), random_inputs(fusion, module.SIZES[size], seed)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("size", [0, 1, 2])
def test_both_branches_run_to_numpy(name: str, seed: int, size: int) -> None:
    fusion, kernel, inputs = _kernel_and_inputs(name, seed, size)
    assert_matches(fusion, inputs, simulate(kernel, inputs, seed=seed))


def _mutate(kernel: k.Kernel, fn) -> k.Kernel:
    changed = [0]

    def visit(node: k.Node):
        out = fn(node)
        if out is not None:
            changed[0] += 1
        return out

    mutant = replace(kernel, body=k.rewrite(kernel.body, visit))
    assert changed[0], "the mutation changed nothing"
    return mutant


def _in_branch(kernel: k.Kernel, stage: k.Stage, fn) -> k.Kernel:
    def branch(node: k.Node):
        if isinstance(node, k.ForLoop) and node.stage is stage:
            return replace(node, body=k.rewrite(node.body, fn))
        return None

    return _mutate(kernel, branch)


def _deadlock(kernel: k.Kernel, inputs, *fragments: str) -> str:
    with pytest.raises(DeadlockError) as info:
        simulate(kernel, inputs, seed=0)
    text = str(info.value)
    for fragment in fragments:
        assert fragment in text, text
    return text


@pytest.mark.parametrize("name", NAMES)
def test_one_pre_arrive_too_few_deadlocks(name: str) -> None:
    _, kernel, inputs = _kernel_and_inputs(name)

    def fewer(node: k.Node):
        pre_arrives = isinstance(node, k.ForLoop) and node.label == "every stage starts empty"
        if pre_arrives and node.stage is k.Stage.PrePrologue:
            return replace(node, stop=node.stop - 1)
        return None

    _deadlock(_mutate(kernel, fewer), inputs, "waitParity", "_mbar[", "parity")


@pytest.mark.parametrize("name", NAMES)
def test_a_missing_empty_arrive_deadlocks(name: str) -> None:
    _, kernel, inputs = _kernel_and_inputs(name)
    mutant = _in_branch(kernel, k.Stage.ComputeWarp, lambda n: () if isinstance(n, k.MBarrierArrive) else None)
    _deadlock(mutant, inputs, "waitParity", "parity")


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("extra", [16, -16])
def test_a_wrong_expect_tx_byte_count_is_reported(name: str, extra: int) -> None:
    _, kernel, inputs = _kernel_and_inputs(name)

    def skew(node: k.Node):
        if isinstance(node, k.MBarrierArriveExpectTx):
            return replace(node, tx_bytes=node.tx_bytes + extra)
        return None

    mutant = _in_branch(kernel, k.Stage.AsyncWarp, skew)
    if extra > 0:
        _deadlock(mutant, inputs, "tx-count")
    else:
        with pytest.raises(SimulationError):
            simulate(mutant, inputs, seed=0)


def test_setmaxnreg_of_a_warp_split_inside_a_warp_group_is_refused() -> None:
    _, kernel, inputs = _kernel_and_inputs("ws_tma_pointwise")   # block 128 x 3: producer threadIdx.y == 2

    def misalign(node: k.Node):
        if isinstance(node, k.IfThenElse) and node.branch_threads is not None:
            # warp 4 (of warp group 1) joins the producers: it decreases while warps 5..7 increase
            extra = Val.symbol("threadIdx.y").eq(1).logical_and(Val.symbol("threadIdx.x").lt(32))
            return replace(node, cond=node.cond.logical_or(extra))
        return None

    with pytest.raises(SimulationError, match=r"warps of a warp group must execute the same setmaxnreg"):
        simulate(_mutate(kernel, misalign), inputs, seed=0)


def test_setmaxnreg_counts_are_checked() -> None:
    _, kernel, inputs = _kernel_and_inputs("ws_tma_pointwise")
    mutant = _mutate(kernel, lambda n: replace(n, count=44) if isinstance(n, k.SetMaxNReg) and n.increase else None)
    with pytest.raises(SimulationError, match=r"setmaxnreg count 44 must be a multiple of 8"):
        simulate(mutant, inputs, seed=0)


def test_registers_do_not_change_results() -> None:
    module = examples.load("ws_seed_copy")
    fusion = module.build(registers=(40, 232))
    inputs = random_inputs(fusion, module.SIZES[2], 7)
    (out,) = simulate(lower(fusion), inputs, seed=7)
    assert np.array_equal(out, inputs[0])
