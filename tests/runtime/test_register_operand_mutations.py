"""Mutations of the back-to-back matmul (examples/matmul_b2b), whose second wgmma reads its A operand from
registers: a wgmma reads those registers asynchronously, from its wgmma.fence until the wait_group that retires
it, and the simulator reports a kernel that writes them in between."""

from __future__ import annotations

from dataclasses import replace

import pytest

from examples import matmul_b2b
from fusion_ir.scalar import Val
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.helpers import assert_matches, random_inputs
from tests.runtime.kir_builders import fconst

SIZES = (200, 136, 64, 64)      # M, K1, N1, N2


def _lowered() -> tuple:
    fusion = matmul_b2b.build(*SIZES)
    return fusion, lower(fusion)


def _run(fusion, kernel: k.Kernel) -> None:
    inputs = random_inputs(fusion, matmul_b2b.input_shapes(*SIZES), seed=5)
    assert_matches(fusion, inputs, simulate(kernel, inputs, seed=5), tol=matmul_b2b.TOLERANCE)


def _register_run(kernel: k.Kernel) -> tuple[list[k.Node], int, k.Buffer]:
    """The kernel's top-level statements, the position of the loop of wgmmas with a register A, and that A."""
    body = list(kernel.body)
    for at, node in enumerate(body):
        mmas = [x for x in k.walk((node,)) if isinstance(x, k.Mma) and isinstance(x.a, k.RegisterFragment)]
        if mmas:
            return body, at, mmas[0].a.buffer
    raise AssertionError("no wgmma reads a register A operand")


def test_unmutated_kernel_matches() -> None:
    _run(*_lowered())


def test_registers_rewritten_before_the_wait_are_reported() -> None:
    """The wait moved past a write of the operand's registers (as the next tile's A would be computed)."""
    fusion, kernel = _lowered()
    body, at, operand = _register_run(kernel)
    assert isinstance(body[at + 1], k.AsyncCommit) and isinstance(body[at + 2], k.AsyncWait)
    body.insert(at + 2, k.Assign(operand, Val.const(3), fconst(0.0)))
    with pytest.raises(SimulationError, match=rf"overwrites {operand.name}\[3:4\] .* still reads as its A operand"):
        _run(fusion, replace(kernel, body=tuple(body)))


def test_registers_rewritten_without_a_wait_are_reported() -> None:
    """The wait removed: the operand's registers are rewritten under the committed, unretired wgmma."""
    fusion, kernel = _lowered()
    body, at, operand = _register_run(kernel)
    del body[at + 2]                                   # the wait_group after the register run
    body.insert(at + 2, k.Assign(operand, Val.const(0), fconst(1.0)))
    with pytest.raises(SimulationError, match=r"committed wgmma that no wgmma.wait_group has retired yet"):
        _run(fusion, replace(kernel, body=tuple(body)))


def test_operand_written_after_the_fence_is_reported() -> None:
    """The fence moved before the statements that compute the operand: the wgmma reads registers written since
    the thread's last wgmma.fence."""
    fusion, kernel = _lowered()
    body, at, operand = _register_run(kernel)
    fence = body[at - 1]
    assert isinstance(fence, k.WgmmaFence)
    del body[at - 1]
    writes = next(j for j, n in enumerate(body) if any(isinstance(x, k.Assign) and x.buffer == operand
                                                      for x in k.walk((n,))))
    body.insert(writes, fence)
    with pytest.raises(SimulationError, match=rf"missing wgmma.fence: {operand.name}\[\d+\] .* reads it as its A "
                                              r"operand"):
        _run(fusion, replace(kernel, body=tuple(body)))


def test_fence_removed_is_reported() -> None:
    fusion, kernel = _lowered()
    body, at, _ = _register_run(kernel)
    assert isinstance(body[at - 1], k.WgmmaFence)
    del body[at - 1]
    with pytest.raises(SimulationError, match="missing wgmma.fence"):
        _run(fusion, replace(kernel, body=tuple(body)))
