"""Generated CUDA of TMA and circular-buffered schedules: the seed's structure, goldens, and an
nvcc sm_90a compile (no errors, no warnings) of every schedule the lowering tests simulate.

Set UPDATE_GOLDEN=1 to rewrite the golden sources on purpose.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import examples
from codegen import to_cuda
from codegen.nvcc import compile_check, nvcc_available
from lowering import lower
from tests.lowering.pipeline_cases import pipeline_cases

GOLDEN = Path(__file__).parent / "golden"
needs_nvcc = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")


def kernel_body(source: str) -> str:
    return source[source.index('extern "C" __global__'):]


def line_of(lines: list[str], pattern: str, start: int = 0) -> int:
    for n in range(start, len(lines)):
        if re.search(pattern, lines[n]):
            return n
    raise AssertionError(f"no line matching {pattern!r} after line {start}:\n" + "\n".join(lines[start:]))


@pytest.mark.parametrize("name,stages", [("seed_double_buffer", 2), ("seed_circular_buffer", 3)])
def test_seed_kernels_have_the_seed_structure(name: str, stages: int) -> None:
    body = kernel_body(to_cuda(lower(examples.load(name).build())))
    lines = body.splitlines()
    assert "const __grid_constant__ TensorMap tmap_T0" in lines[0]
    # pre-prologue: the elected thread initializes one mbarrier per stage, then the block syncs
    n = line_of(lines, r"if \(threadIdx\.x == 0\)")
    n = line_of(lines, rf"for \(int64_t s\d+ = 0; s\d+ < {stages}; \+\+s\d+\)", n)
    n = line_of(lines, r"mbarrier::init\(", n)
    n = line_of(lines, r"__syncthreads\(\);", n)
    # prologue: prefetch = stages - 1 loads (fewer when the loop is shorter), unrolled
    n = line_of(lines, r"// prologue loop", n)
    n = line_of(lines, rf"for \(int64_t (i\d+) = 0; \1 < min64\({stages - 1}, ceilDiv\(i0, 32\)\); \+\+\1\)", n)
    n = line_of(lines, r"mbarrier::arriveExpectTx\(.*, 128\);", n)
    n = line_of(lines, r"Hopper::cpAsyncBulkTensorTileG2S\(", n)
    # main: issue stage i + prefetch, then wait on stage i % stages, then copy out
    n = line_of(lines, r"// main loop", n)
    n = line_of(lines, rf"for \(int64_t (i\d+) = 0; \1 < ceilDiv\(i0, 32\) - {stages - 1}; \+\+\1\)", n)
    issue = line_of(lines, rf"arriveExpectTx\(toSmem\(&T2_mbar\[\(i\d+ \+ {stages - 1}\) % {stages}\]\)", n)
    tma = line_of(lines, rf"cpAsyncBulkTensorTileG2S\(.*\(i\d+ \+ {stages - 1}\) \* 32\);", issue)
    wait = line_of(lines, rf"mbarrier::waitParity\(toSmem\(&T2_mbar\[i\d+ % {stages}\]\), \(i\d+ / {stages}\) % 2\);",
                   tma)
    copy = line_of(lines, r"T1\.data\[.*\] = T2\[", wait)
    # epilogue: the last iterations wait and copy, with no loads
    epi = line_of(lines, r"// epilogue loop", copy)
    post = line_of(lines, r"// post-epilogue loop", epi)
    assert "cpAsyncBulkTensorTileG2S" not in "\n".join(lines[epi:post])
    assert re.search(r"mbarrier::waitParity", "\n".join(lines[epi:post]))
    # post-epilogue: a block sync, then the elected thread invalidates every mbarrier
    assert "__syncthreads();" in "\n".join(lines[epi:post])
    line_of(lines, r"mbarrier::inval\(", post)


@pytest.mark.parametrize("name", ["seed_circular_buffer", "tma_add"])
def test_golden_kernel(name: str) -> None:
    """The kernel function itself; the helpers it pastes in are checked by the sample goldens."""
    source = kernel_body(to_cuda(lower(examples.load(name).build())))
    path = GOLDEN / f"example_{name}.cu"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(source)
    assert source == path.read_text()


SCHEDULES = {name: build for name, build, _ in pipeline_cases()}


@needs_nvcc
@pytest.mark.parametrize("name", sorted(SCHEDULES))
def test_every_pipeline_schedule_compiles_for_sm90a(name: str) -> None:
    resources = compile_check(to_cuda(lower(SCHEDULES[name]())))
    assert resources.registers > 0


@pytest.mark.parametrize("m,n,k,pragma", [
    (1024, 1001, 1024, "#pragma unroll 1"),   # B's odd rows: plain copies through the threads' registers
    (2000, 3000, 263, "#pragma unroll 1"),    # A's odd rows: plain copies
    (2000, 3000, 262, "#pragma unroll"),      # 4-byte cp.async: nothing held in registers
])
def test_a_prologue_of_plain_copies_stays_rolled(m: int, n: int, k: int, pragma: str) -> None:
    """Unrolled, a prologue of plain copies has every stage's loads in flight at once in the threads' registers
    (1024 x 1001 x 1024 spilled 456 bytes); a prologue of cp.async loads is unrolled, as one of TMA loads is
    (test_seed_kernels_have_the_seed_structure)."""
    from fusion_ir.schedulers import schedule_matmul
    from runtime.tuning import matmul_fusion

    lines = [line.strip() for line in to_cuda(lower(schedule_matmul(matmul_fusion(m, n, k)))).splitlines()]
    prologues = [n for n, line in enumerate(lines) if line.startswith("// prologue loop")]
    assert prologues and all(lines[n + 1] == pragma for n in prologues), [lines[n + 1] for n in prologues]
