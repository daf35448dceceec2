"""codegen/block_reduce.cuh: ``blockAllReduce`` combines within warps by shuffles and meets across warps
once in shared memory (two barriers in all), takes no barrier when a segment lies within one warp, and keeps
the shared-memory tree (a barrier per halving step) for segments the shuffles cannot follow. Read from the
PTX nvcc makes of scheduled kernels (the results are checked on the GPU by
tests/runtime/test_block_reduce_gpu.py)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

import pytest

from codegen import to_cuda
from codegen.nvcc import NVCC_ARCH_FLAGS, nvcc_available
from examples import _reduction_fusions as fusions
from fusion_ir.schedulers import reduction
from lowering import lower

pytestmark = pytest.mark.skipif(not nvcc_available(), reason="nvcc is not installed")


def _ptx(source: str) -> str:
    with tempfile.TemporaryDirectory(prefix="block_reduce_") as tmp:
        src = Path(tmp) / "kernel.cu"
        src.write_text(source)
        out = Path(tmp) / "kernel.ptx"
        subprocess.run([shutil.which("nvcc") or "nvcc", *NVCC_ARCH_FLAGS, "-ptx", "-o", str(out), str(src)],
                       check=True, capture_output=True, text=True)
        return out.read_text()


def _reduction_ptx(shape: tuple[int, int], axis: int, **params: int) -> str:
    fusion = fusions.reduction(shape, "sum", axis)
    p = replace(reduction.SCHEDULER.suggest(fusion, None), **params)
    reduction.SCHEDULER.apply(fusion, p)
    return _ptx(to_cuda(lower(fusion)))


def _count(ptx: str, pattern: str) -> int:
    return len(re.findall(pattern, ptx))


BARRIER = r"\b(?:bar|barrier)\.sync(?:\.aligned)?\s"
SHUFFLE = r"\bshfl\.sync\.bfly\.b32\b"


def test_a_row_over_512_threads_meets_once_across_warps() -> None:
    ptx = _reduction_ptx((64, 1 << 14), 1, threads_x=512, threads_y=1, grid_splits=1)
    assert _count(ptx, SHUFFLE) == 9           # 5 steps within each warp, 4 over the 16 warps' partials
    assert _count(ptx, BARRIER) == 2           # the partials written, then the workspace free again


def test_a_segment_within_one_warp_takes_no_barrier() -> None:
    ptx = _reduction_ptx((64, 256), 1, threads_x=32, threads_y=4, grid_splits=1)
    assert _count(ptx, SHUFFLE) == 5
    assert _count(ptx, BARRIER) == 0


def test_columns_on_lanes_reduce_rows_by_strided_shuffles() -> None:
    """Outer: 4 columns on TIDx, 64 rows on TIDy; a warp holds 8 rows of each column (lane masks 4, 8, 16),
    one reduction per vector element, each with its two barriers."""
    ptx = _reduction_ptx((1024, 16), 0, threads_x=4, threads_y=64, grid_splits=1, vectorize=4)
    assert _count(ptx, SHUFFLE) >= 3
    assert _count(ptx, BARRIER) <= 2 * 4


def test_a_non_power_of_two_segment_keeps_the_tree() -> None:
    ptx = _reduction_ptx((64, 96 * 4), 1, threads_x=96, threads_y=1, grid_splits=1, unroll=1)
    assert _count(ptx, SHUFFLE) == 0
    assert _count(ptx, BARRIER) > 2
