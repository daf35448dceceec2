"""CUDA of the TMA store's two waits (``MatmulParams.store_wait``) in the seed-000 kernels: the order of the
staging tile's stmatrix, barriers, stores and bulk waits in the compute warp groups' tile loop, and nvcc
compiling each without spills."""

from __future__ import annotations

import re

import pytest

from codegen import compile_check, nvcc_available, to_cuda
from examples import matmul_ping_pong, matmul_ws_persistent
from lowering import lower

needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not on PATH")
# the test that runs a body in one elected thread: lane 0 of a warp, by thread index
ELECTED = re.compile(r"^\s*if \(.*threadIdx\.x\b.* == .*\) \{$")
EXAMPLES = {"cooperative": matmul_ws_persistent, "ping_pong": matmul_ping_pong}
MARKS = {
    "wait.read": "Hopper::cpAsyncBulkWaitGroupRead<0>();",
    "wait.all": "Hopper::cpAsyncBulkWaitGroup<0>();",
    "store": "Hopper::cpAsyncBulkTensorTileS2G(",
    "commit": "Hopper::cpAsyncBulkCommitGroup();",
    "stmatrix": "stmatrixX4(",
    "fence": "fenceAsyncProxy();",
    "RAW": "// RAW: T6 written, then read by a TMA store",
    "WAR": "// WAR: T6 is rewritten next iteration",
    "guard": "// WAR: T6 is rewritten here, after its TMA stores' wait",
}


def _events(arrangement: str, mode: str) -> tuple[list[str], str]:
    """The marks, in order, in the compute warp groups' tile loop (the second ``for (int i4``), and the
    source after that loop."""
    source = to_cuda(lower(EXAMPLES[arrangement].build(store_wait=mode)))
    body = source[source.index('extern "C" __global__'):]
    start = [m.start() for m in re.finditer(r"for \(int i4 = ", body)][1]
    events: list[str] = []
    depth = 0
    lines = body[start:].splitlines()
    for n, line in enumerate(lines):
        events.extend(name for name, mark in MARKS.items() if mark in line)
        depth += line.count("{") - line.count("}")
        if depth == 0:
            return events, "\n".join(lines[n + 1:])
    raise AssertionError("the tile loop does not close")


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_after_boxes_waits_once_after_the_stores(arrangement: str) -> None:
    events, after = _events(arrangement, "after_boxes")
    # one store statement (in an unrolled loop over the boxes), then the one wait
    assert events == ["stmatrix", "fence", "RAW", "store", "commit", "wait.read", "WAR"]
    assert MARKS["wait.all"] not in after and MARKS["wait.read"] not in after


@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_deferred_waits_before_the_guard_and_after_the_loop(arrangement: str) -> None:
    events, after = _events(arrangement, "deferred")
    assert events == ["wait.read", "guard", "stmatrix", "fence", "RAW", "store", "commit"]
    final = after.index(MARKS["wait.all"])
    assert final < after.index("__syncthreads();  // every wait on T4_mbar done before inval")
    # the thread that issued the stores: elected in the first warp of the block (cooperative) or of each warp
    # group (ping-pong)
    source = to_cuda(lower(EXAMPLES[arrangement].build(store_wait="deferred")))
    store = source.index(MARKS["store"])
    elect_store = next(line.strip() for line in reversed(source[:store].splitlines()) if ELECTED.search(line))
    elect_wait = after[:final].rstrip().splitlines()[-1].strip()
    # the same warp (test_store_waits compares the kernel IR; here a hoisted name may stand for the expression)
    assert ELECTED.search(elect_wait) and ELECTED.search(elect_store)
    assert ("tidY == 0" in elect_wait) == ("tidY == 0" in elect_store) == (arrangement == "cooperative")


@needs_nvcc
@pytest.mark.parametrize("mode", ["after_boxes", "deferred"])
@pytest.mark.parametrize("arrangement", sorted(EXAMPLES))
def test_both_store_waits_compile_without_spills(arrangement: str, mode: str) -> None:
    resources = compile_check(to_cuda(lower(EXAMPLES[arrangement].build(store_wait=mode))))
    assert not resources.spills and resources.stack_bytes == 0
    assert resources.registers <= 168
