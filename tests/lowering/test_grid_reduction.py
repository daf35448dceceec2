"""``lowering/grid_reduction.py`` and the ``grid_reduction`` pass: a reduction axis bound to BIDz becomes
partials in a global work buffer, a fence, a barrier, a semaphore arrival and, in the last block only, the
partials summed in split order, with the reduction's consumers moved into that block."""

from __future__ import annotations

import pytest

import examples
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ScheduleError, ops
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from lowering.grid_reduction import SPLIT_UNROLL


def kinds(body: tuple) -> list[type]:
    return [type(n) for n in body]


def test_plain_reduction_lowers_to_the_protocol_in_order() -> None:
    kernel = lower(examples.load("grid_reduction").build())
    assert [s.buffer.name for s in kernel.scratch] == ["T1_work", "T1_sem"]
    assert [s.zeroed for s in kernel.scratch] == [False, True]
    assert kernel.params[-2:] == tuple(s.buffer for s in kernel.scratch)
    body = kernel.body
    fence = next(j for j, n in enumerate(body) if isinstance(n, k.GridFence))
    # the partials written, fenced, a barrier, the arrival, then the last block's branch
    assert isinstance(body[fence - 1], k.ForLoop)
    assert isinstance(body[fence - 1].body[0], k.Assign) and body[fence - 1].body[0].buffer.name == "T1_work"
    assert kinds(body[fence:fence + 4]) == [k.GridFence, k.BlockSync, k.SemaphoreArrive, k.IfThenElse]
    arrive, last = body[fence + 2], body[fence + 3]
    assert arrive.semaphore.name == "T1_sem" and arrive.name == "last_T1"
    assert str(last.cond) == "last_T1 != 0"
    assert body[fence + 4:] == ()          # nothing left for the other blocks
    # in the last block: the sum over the splits in order, the semaphore reset, the output written
    total = last.then_body[0]
    splits = next(n for n in total.body if isinstance(n, k.ForLoop))
    assert isinstance(splits, k.ForLoop) and str(splits.start) == "0" and str(splits.stop) == "3"
    assert splits.unroll == SPLIT_UNROLL == 8   # 8 partials' loads in flight, the adds still in split order
    writes = [n.buffer.name for n in k.walk(last.then_body) if isinstance(n, k.Assign)]
    assert writes == ["T1_acc", "T1_acc", "T1_sem", "T1"]


def test_split_k_matmul_runs_its_epilogue_in_the_last_block_only() -> None:
    kernel = lower(examples.load("matmul_split_k").build())
    top = kernel.body
    arrive = next(j for j, n in enumerate(top) if isinstance(n, k.SemaphoreArrive))
    # the accumulators are complete (wgmma.wait_group 0) before their partials are written
    before = list(k.walk(top[:arrive]))
    wait = max(j for j, n in enumerate(before) if isinstance(n, k.AsyncWait) and n.kind is k.AsyncKind.Wgmma)
    first_write = next(j for j, n in enumerate(before) if isinstance(n, k.Assign) and n.buffer.name == "T3_work")
    assert wait < first_write
    # every store of the output is inside the last block's branch
    for j, node in enumerate(top):
        writes_out = any(isinstance(n, k.Assign) and n.buffer.name == "T2" for n in k.walk((node,)))
        assert not writes_out or (j > arrive and isinstance(node, k.IfThenElse) and str(node.cond) == "last_T3 != 0")
    # no blockIdx.z == 0 predicate on the output: the last block may be any split
    assert "blockIdx.z == 0" not in str(kernel)


def _row_sum() -> tuple[Fusion, object]:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    return fusion, out


def test_a_reduction_axis_on_bidx_is_refused_at_schedule_time() -> None:
    _, out = _row_sum()
    with pytest.raises(ScheduleError, match=r"cannot be bound to BIDx; grid reductions .* run on BIDz only"):
        out.axis(1).parallelize(ParallelType.BIDx)


def test_a_grid_and_block_reduction_together_is_refused() -> None:
    fusion, out = _row_sum()
    out.split(1, 32)
    out.axis(1).parallelize(ParallelType.BIDz)
    out.axis(2).parallelize(ParallelType.TIDx)
    with pytest.raises(LoweringError, match="reduces over both a thread index and a block index"):
        lower(fusion)


def test_a_grid_reduction_inside_a_loop_is_refused() -> None:
    fusion, out = _row_sum()
    out.split(1, 4, inner_split=False)   # [I0 (serial loop), rBIDz, rS]
    out.axis(1).parallelize(ParallelType.BIDz)
    with pytest.raises(LoweringError, match="grid reduction would run inside loop .* once per launch"):
        lower(fusion)


def test_verify_requires_a_zeroed_scratch_semaphore_and_the_whole_block() -> None:
    from dataclasses import replace

    from lowering.verify import VerifyError, verify

    kernel = lower(examples.load("grid_reduction").build())
    work, sem = kernel.scratch
    with pytest.raises(VerifyError, match=r"semaphore T1_sem must be a zeroed kernel scratch buffer .* \(rule grid-sync\)"):
        verify(replace(kernel, scratch=(work, replace(sem, zeroed=False))))

    def elected(n: k.Node):
        return k.ElectSync((n,)) if isinstance(n, k.SemaphoreArrive) else None

    with pytest.raises(VerifyError, match="inside an ElectSync"):
        verify(replace(kernel, body=k.rewrite(kernel.body, elected)))


def test_a_consumer_spanning_bidz_or_a_second_grid_reduction_after_one_is_refused() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        rows = ops.sum(x, [1])
        wide = ops.broadcast(rows, [False, True])
        out = ops.add(wide, x)
        fusion.add_output(out)
    rows.split(1, 4, inner_split=False)
    rows.axis(0).parallelize(ParallelType.BIDx)
    rows.axis(1).parallelize(ParallelType.BIDz)
    for tv in (wide, out):
        tv.split(1, 4, inner_split=False)
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.BIDz)
    with pytest.raises(LoweringError, match=r"computed from the grid reduction of T\d+, whose last block alone"):
        lower(fusion)

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3, dtype=DataType.Float)
        inner = ops.sum(x, [2])
        outer = ops.sum(inner, [1])
        fusion.add_output(outer)
    for tv in (inner, outer):
        tv.split(-1, 2, inner_split=False)
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(-2).parallelize(ParallelType.BIDz)
    inner.axis(1).parallelize(ParallelType.TIDx)
    inner.set_memory_type(MemoryType.Shared)
    with pytest.raises(LoweringError, match="is a grid reduction computed from the grid reduction of"):
        lower(fusion)
