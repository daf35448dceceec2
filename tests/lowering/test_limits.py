"""Launch limits at lower() (lowering/limits.py) and the persistent-buffer register check
(lowering/persistent_buffers.py)."""

from __future__ import annotations

import pytest

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, inline_most, ops
from lowering import LoweringError, lower
from target import H100


def pointwise(threads: int, ndim: int = 2) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=ndim)
        y = ops.exp(x)
        fusion.add_output(y)
    y.split(1, threads)
    y.axis(0).parallelize(ParallelType.BIDx)
    y.axis(2).parallelize(ParallelType.TIDx)
    return fusion


def test_a_block_of_1024_threads_lowers() -> None:
    lower(pointwise(H100.max_threads_per_block))


def test_a_block_over_1024_threads_names_the_axis_and_the_limit() -> None:
    with pytest.raises(LoweringError) as e:
        lower(pointwise(2048))
    msg = str(e.value)
    assert "2048 threads" in msg and "limit of 1024 threads per block" in msg
    assert "axis 2 (iTIDx" in msg and "of T1" in msg


def test_threads_over_the_limit_across_two_dimensions() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        y = ops.neg(x)
        fusion.add_output(y)
    y.split(0, 64).split(2, 32)          # [ceilDiv(i0, 64), 64, ceilDiv(i1, 32), 32]
    y.axis(1).parallelize(ParallelType.TIDy)
    y.axis(3).parallelize(ParallelType.TIDx)
    with pytest.raises(LoweringError, match=r"2048 threads \(TIDx 32 x TIDy 64 x TIDz 1\)") as e:
        lower(y.fusion)
    assert "TIDx is 32 from axis 3" in str(e.value) and "TIDy is 64 from axis 1" in str(e.value)


def test_symbolic_thread_counts_stay_a_run_time_check() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        y = ops.neg(x)
        fusion.add_output(y)
    y.axis(1).parallelize(ParallelType.TIDx)   # i1 threads: known only at launch
    lower(fusion)


def staged(tile: int, rows: int = 4) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(rows, tile), dtype=DataType.Float)
        y = ops.exp(x)
        fusion.add_output(y)
    c = x.cache_after()
    c.set_memory_type(MemoryType.Shared)
    y.axis(0).parallelize(ParallelType.BIDx)
    c.compute_at(y, 1)
    return fusion


def test_shared_memory_at_the_limit_lowers() -> None:
    lower(staged(H100.smem_per_block // 4))


def test_shared_memory_over_227_kib_names_the_buffer_and_the_limit() -> None:
    with pytest.raises(LoweringError) as e:
        lower(staged(H100.smem_per_block // 4 + 1))
    msg = str(e.value)
    assert "232452 bytes of shared memory" in msg and "limit of 232448 bytes (227 KiB)" in msg
    assert "T2 (Shared float[58113] = 232452 B)" in msg


def softmax(memory: MemoryType) -> Fusion:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        e = ops.exp(ops.sub(x, ops.broadcast(ops.max(x, [1]), [False, True])))
        fusion.add_output(ops.div(e, ops.broadcast(ops.sum(e, [1]), [False, True])))
    for tv in fusion.used_tensors():
        if not tv.is_input:
            tv.split(1, 128)
            tv.axis(0).parallelize(ParallelType.BIDx)
            tv.axis(2).parallelize(ParallelType.TIDx)
    e.set_memory_type(memory)
    inline_most(fusion)
    return fusion


def test_a_symbolic_persistent_buffer_in_registers_says_to_use_shared_memory() -> None:
    with pytest.raises(LoweringError) as e:
        lower(softmax(MemoryType.Local))
    msg = str(e.value)
    assert msg.startswith("T4 is a persistent buffer (T5 reduces")
    assert "T4.set_memory_type(MemoryType.Shared)" in msg and "split its axes by a constant" in msg


def test_the_same_persistent_buffer_in_shared_memory_lowers() -> None:
    lower(softmax(MemoryType.Shared))
