"""Mutations of the rescaled sum accumulated in place (examples/matmul_rescaled): the rescale of each J writes the
registers the previous J's wgmmas accumulate into asynchronously, so it must come after the wgmma.wait_group that
retires them and before the wgmma.fence of the next wgmmas; the simulator reports a kernel that breaks either, and
one that leaves the rescale out does not match numpy."""

from __future__ import annotations

from dataclasses import replace

import pytest

from examples import matmul_rescaled
from lowering import kernel_ir as k
from lowering import lower
from runtime import SimulationError, simulate
from tests.helpers import assert_matches, random_inputs

SIZE = (3, 200, 136, 64)      # J, M, N, K: one K tile per J, so nothing but the rescale touches the next J's state


def _lowered(stages: int = 1, size: tuple[int, int, int, int] = SIZE) -> tuple:
    fusion = matmul_rescaled.build(*size, stages=stages)
    return fusion, lower(fusion)


def _run(fusion, kernel: k.Kernel, size: tuple[int, int, int, int] = SIZE) -> None:
    inputs = random_inputs(fusion, matmul_rescaled.input_shapes(*size), seed=5)
    assert_matches(fusion, inputs, simulate(kernel, inputs, seed=5), tol=matmul_rescaled.TOLERANCE)


def _j_loop(kernel: k.Kernel) -> tuple[list[k.Node], int, k.ForLoop]:
    """The kernel's top-level statements, the position of the loop over J, and that loop."""
    body = list(kernel.body)
    for at, node in enumerate(body):
        if isinstance(node, k.ForLoop) and any(isinstance(x, k.Mma) for x in k.walk(node.body)):
            return body, at, node
    raise AssertionError("no loop holds the wgmmas")


def _with_j_body(kernel: k.Kernel, j_body: list[k.Node]) -> k.Kernel:
    body, at, loop = _j_loop(kernel)
    body[at] = replace(loop, body=tuple(j_body))
    return replace(kernel, body=tuple(body))


def _rescale_at(j_body: list[k.Node]) -> int:
    mmas = {x.acc for x in k.walk(tuple(j_body)) if isinstance(x, k.Mma)}
    return next(j for j, n in enumerate(j_body) if any(isinstance(x, k.Assign) and x.buffer in mmas
                                                        for x in k.walk((n,))))


def test_unmutated_kernels_match() -> None:
    _run(*_lowered())
    size = (3, 200, 136, 200)
    fusion, kernel = _lowered(stages=3, size=size)
    _run(fusion, kernel, size)


def test_rescale_without_the_wait_is_reported() -> None:
    """The K loop's wait_group removed: the next J rescales registers a committed wgmma still accumulates into."""
    fusion, kernel = _lowered()
    _, _, loop = _j_loop(kernel)
    j_body = list(loop.body)
    k_at = next(j for j, n in enumerate(j_body) if any(isinstance(x, k.Mma) for x in k.walk((n,))))
    k_loop = j_body[k_at]
    waits = [n for n in k_loop.body if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Wgmma]
    assert waits == [k.AsyncWait(k.AsyncKind.Wgmma, 0)]
    j_body[k_at] = replace(k_loop, body=tuple(n for n in k_loop.body if n not in waits))
    with pytest.raises(SimulationError, match=r"a rescale of T\d+\[.*\] .* while a wgmma not yet retired by "
                                              r"wgmma.wait_group accumulates into it"):
        _run(fusion, _with_j_body(kernel, j_body))


def test_rescale_before_the_wait_after_a_pipelined_k_loop_is_reported() -> None:
    """K in a circular buffer: its last wgmmas stay in flight until the wait after the K loop; the wait removed,
    the next J's rescale writes their registers."""
    size = (3, 200, 136, 200)
    fusion, kernel = _lowered(stages=3, size=size)
    _, _, loop = _j_loop(kernel)
    j_body = list(loop.body)
    drain = max(j for j, n in enumerate(j_body) if n == k.AsyncWait(k.AsyncKind.Wgmma, 0))
    del j_body[drain]
    with pytest.raises(SimulationError, match=r"a rescale of T\d+\[.*\] .* while a wgmma not yet retired"):
        _run(fusion, _with_j_body(kernel, j_body), size)


def test_rescale_after_the_fence_is_reported() -> None:
    """The rescale moved from before the K loop to right after its wgmma.fence: the wgmmas accumulate into
    registers an ordinary store wrote since the thread's last fence."""
    fusion, kernel = _lowered()
    _, _, loop = _j_loop(kernel)
    j_body = list(loop.body)
    rescale = j_body.pop(_rescale_at(j_body))
    k_at = next(j for j, n in enumerate(j_body) if any(isinstance(x, k.Mma) for x in k.walk((n,))))
    k_loop = j_body[k_at]
    inner = list(k_loop.body)
    fence = next(j for j, n in enumerate(inner) if isinstance(n, k.WgmmaFence))
    inner.insert(fence + 1, rescale)
    j_body[k_at] = replace(k_loop, body=tuple(inner))
    with pytest.raises(SimulationError, match=r"missing wgmma.fence: T\d+\[\d+\] .* was written by an ordinary store "
                                              r"after the thread's last wgmma.fence, and wgmma .* accumulates into it"):
        _run(fusion, _with_j_body(kernel, j_body))


def test_rescale_left_out_does_not_match() -> None:
    fusion, kernel = _lowered()
    _, _, loop = _j_loop(kernel)
    j_body = list(loop.body)
    del j_body[_rescale_at(j_body)]
    with pytest.raises(AssertionError, match="relative error"):
        _run(fusion, _with_j_body(kernel, j_body))
