"""The GPU target (target/): one description every layer reads. A made-up target with less shared
memory moves the refusals of the matmul scheduler, of lower() and of the launch plan together."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import target
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ScheduleError, ops
from fusion_ir.schedulers import MatmulParams, schedule_matmul, suggest_matmul_params
from lowering import LoweringError, lower
from runtime import LaunchError
from runtime.arrays import as_array_arg
from runtime.launch_plan import plan_launch

SMALL = dataclasses.replace(target.H100, name="small sm_90", smem_per_block=64 * 1024, smem_per_sm=96 * 1024)


def staged(nbytes: int) -> Fusion:
    """One row of ``nbytes / 4`` floats per block, staged through shared memory."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, nbytes // 4), dtype=DataType.Float)
        y = ops.exp(x)
        fusion.add_output(y)
    c = x.cache_after()
    c.set_memory_type(MemoryType.Shared)
    y.axis(0).parallelize(ParallelType.BIDx)
    c.compute_at(y, 1)
    return fusion


def matmul(m: int = 256, n: int = 256, k: int = 256) -> Fusion:
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(m, k), dtype=DataType.BFloat16)
        b = fusion.add_input(shape=(k, n), dtype=DataType.BFloat16)
        fusion.add_output(ops.matmul(a, b))
    return fusion


# ---------------------------------------------------------------- the description
def test_the_h100_is_the_default_and_sm_90a() -> None:
    t = target.current()
    assert t is target.H100 is target.DEFAULT_TARGET
    assert t.compute_capability == (9, 0) and t.arch == "sm_90a" and t.virtual_arch == "compute_90a"
    assert t.smem_per_block == 232448 and t.smem_per_sm == 233472 and t.sm_count == 132
    assert t.registers_per_sm == 65536 and t.max_registers_per_thread == 255 and t.max_threads_per_block == 1024
    assert t.warp_size * t.warps_per_group == t.warp_group_size == 128
    assert t.wgmma.n_values()[0] == 8 and t.wgmma.n_values()[-1] == 256 and t.wgmma.k_for(2) == 16
    assert t.tma.max_box == 256 and t.tma.max_rank == 5 and t.tma.swizzle_spans == (32, 64, 128)
    assert (t.max_cluster_size, t.max_cluster_size_non_portable) == (8, 16)


def test_another_gpu_is_one_value() -> None:
    assert target.H200 == dataclasses.replace(target.H100, name="H200 SXM")
    assert target.H100_PCIE.sm_count == 114 and target.H100_PCIE.smem_per_block == target.H100.smem_per_block
    assert target.H100.with_sm_count(7).sm_count == 7 and target.H100.sm_count == 132
    with pytest.raises(ValueError, match="with_sm_count: 0 must be a positive int"):
        target.H100.with_sm_count(0)


def test_use_installs_a_target_for_the_block_only() -> None:
    with target.use(SMALL) as t:
        assert target.current() is t is SMALL
        with target.use(target.H200):
            assert target.current() is target.H200
        assert target.current() is SMALL
    assert target.current() is target.H100
    with pytest.raises(TypeError, match="is not a Target"):
        with target.use("sm_90"):  # type: ignore[arg-type]
            pass


# ---------------------------------------------------------------- every layer follows it
def test_a_smaller_shared_memory_changes_the_matmul_schedulers_refusal() -> None:
    params = MatmulParams(tile=(128, 256, 64), stages=4)
    params.validate(DataType.BFloat16)                       # 197,664 bytes fit an H100
    schedule_matmul(matmul(), params)
    with target.use(SMALL):
        with pytest.raises(ScheduleError, match=r"over the 65536-byte limit of a block"):
            params.validate(DataType.BFloat16)
        fusion = matmul()
        before = str(fusion)
        with pytest.raises(ScheduleError, match=r"4 stages of A \(128 x 64\) and B \(64 x 256\)"):
            schedule_matmul(fusion, params)
        assert str(fusion) == before
        MatmulParams(tile=(64, 128, 64), stages=2, compute_warp_groups=1).validate(DataType.BFloat16)


def test_the_suggestion_and_the_persistent_blocks_follow_the_sm_count() -> None:
    assert MatmulParams().blocks == 132
    with target.use(target.H100_PCIE):
        assert MatmulParams().blocks == 114
        assert suggest_matmul_params(matmul(8192, 8192, 8192)).blocks == 114
    assert suggest_matmul_params(matmul(8192, 8192, 8192)).blocks == 132


def test_a_smaller_shared_memory_changes_lowers_refusal() -> None:
    lower(staged(100 * 1024))
    with target.use(SMALL):
        with pytest.raises(LoweringError, match=r"102400 bytes of shared memory per block, over the limit of "
                                                r"65536 bytes \(64 KiB\) of small sm_90"):
            lower(staged(100 * 1024))
        lower(staged(64 * 1024))


def test_a_smaller_shared_memory_changes_the_launch_check() -> None:
    kernel = lower(staged(100 * 1024))                        # lowered for the H100
    inputs = [as_array_arg(np.zeros((4, 100 * 1024 // 4), np.float32), "input 0")]
    assert plan_launch(kernel, inputs).smem_bytes >= 100 * 1024
    with target.use(SMALL):
        with pytest.raises(LaunchError, match=r"needs \d+ bytes of shared memory per block; small sm_90 allows at "
                                              r"most 65536"):
            plan_launch(kernel, inputs)


def test_fewer_threads_per_block_changes_lowers_refusal() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        y = ops.exp(x)
        fusion.add_output(y)
    y.split(1, 512)
    y.axis(0).parallelize(ParallelType.BIDx)
    y.axis(2).parallelize(ParallelType.TIDx)
    lower(fusion)
    with target.use(dataclasses.replace(target.H100, max_threads_per_block=256)):
        with pytest.raises(LoweringError, match="limit of 256 threads per block"):
            lower(fusion)


def test_cluster_blocks_count_the_resident_clusters() -> None:
    """A wave of one-block-per-SM clusters: the H100's 132 SMs hold 66 clusters of two, 30 of four and 15 of eight
    (ncu's Max Active Clusters); a size it does not list, or another SM count, assumes whole clusters of the SMs."""
    assert [target.H100.cluster_blocks(c) for c in (1, 2, 4, 8)] == [132, 132, 120, 120]
    assert target.H100.cluster_blocks(16) == 128
    assert target.H100.with_sm_count(114).cluster_blocks(4) == 112
    assert target.H100.with_sm_count(132) is target.H100
    with pytest.raises(ValueError, match="cluster_blocks: 0 must be a positive int"):
        target.H100.cluster_blocks(0)
