"""Lane-group reductions (``lowering/analysis/lane_reductions.py``): a reduction whose TIDx axis merges row axes
with an inner reduction axis (``merge_lanes``) lowers to ``WarpShuffleXor`` steps, no block reduction and no shared
workspace; every lane of a group holds the result, which a consumer laid out the same way reads in registers. On
CUDA cores here (a row sum over 4 lanes of each row, then ``x * sum``), against numpy in the simulator; the
wgmma accumulator fragment's case is examples/matmul_row_softmax (tests/examples/test_matmul_row_softmax.py)."""

from __future__ import annotations

import numpy as np
import pytest

from codegen import to_cuda
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, inline_most, ops
from lowering import LoweringError, VerifyError, lower, verify
from lowering import kernel_ir as k
from lowering.analysis.lane_reductions import LaneReduction
from runtime import simulate
from tests.codegen import sample_kernels as s

LANES = 4


def _row_sum_times_x(m: int, c: int, *, rows: int = 8, out_lanes_outer: bool = False,
                     y_thread: ParallelType = ParallelType.TIDx, y_output: bool = False) -> Fusion:
    """``y = sum(x, 1)``, ``out = x * y`` (x ``[m, c]``): ``rows`` rows per block, each row's ``c`` columns over
    ``LANES`` lanes (``[Mo (BIDx), rows x LANES (TIDx), c / LANES]``), y reduced across each row's lanes.
    ``out_lanes_outer``: out's TIDx merges the lanes outside the rows instead; ``y_thread``: y's lane axis bound
    to that index; ``y_output``: y is a fusion output too (in global memory)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(m, c), dtype=DataType.Float)
        y = ops.sum(x, 1)
        yb = ops.broadcast(y, [False, True])
        out = ops.mul(x, yb)
        fusion.add_output(out)
        if y_output:
            fusion.add_output(y)
    if not y_output:
        y.set_memory_type(MemoryType.Local)
    for tv in (y, out):
        tv.split(0, rows)                  # [Mo, rows, C]
        tv.split(2, LANES)                 # [Mo, rows, C / 4, 4]
        if tv is out and out_lanes_outer:
            tv.reorder({3: 1})             # [Mo, 4, rows, C / 4]
        else:
            tv.reorder({3: 2})             # [Mo, rows, 4, C / 4]
        (tv.merge_lanes if tv is y else tv.merge)(1, 2)
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(y_thread if tv is y else ParallelType.TIDx)
    yb.transform_like(out)
    yb.parallelize_like(out)
    inline_most(fusion)
    return fusion


def _statements(kernel: k.Kernel, cls: type) -> list:
    return [n for n in k.walk(kernel.body) if isinstance(n, cls)]


@pytest.mark.parametrize("y_output", [False, True])
def test_row_sum_across_lanes_matches_numpy(y_output: bool) -> None:
    """37 rows (a ragged last block of 8) of 24 columns, 6 per lane; y also an output: its first lanes write it."""
    fusion = _row_sum_times_x(37, 24, y_output=y_output)
    kernel = lower(fusion)
    x = np.random.default_rng(7).standard_normal((37, 24)).astype(np.float32)
    outputs = simulate(kernel, [x], seed=1)
    y = x.astype(np.float64).sum(1)
    np.testing.assert_allclose(outputs[0], x * y[:, None], rtol=1e-5, atol=1e-5)
    if y_output:
        np.testing.assert_allclose(outputs[1], y, rtol=1e-5, atol=1e-5)


def test_the_lanes_combine_by_shuffles_without_shared_memory() -> None:
    traced = lower(_row_sum_times_x(37, 24), trace=True)
    kernel = traced.kernel
    (y,) = traced.analyses.ids.lane_reductions
    lane = traced.analyses.ids.lane_reductions[y]
    assert isinstance(lane, LaneReduction) and lane.lanes == LANES and lane.lane_masks == (1, 2)
    shuffles = _statements(kernel, k.WarpShuffleXor)
    assert [(n.op, n.lane_mask) for n in shuffles] == [("add", 1), ("add", 2)]
    assert not _statements(kernel, k.BlockReduce)
    assert all(a.buffer.memory is not MemoryType.Shared for a in _statements(kernel, k.Allocate))
    cuda = to_cuda(kernel)
    assert "T1_acc[0] = ReduceAdd()(T1_acc[0], warpShflXor(T1_acc[0], 2u));" in cuda
    assert "= blockAllReduce<" not in cuda


def test_an_output_is_written_by_the_first_lane_of_each_group() -> None:
    kernel = lower(_row_sum_times_x(37, 24, y_output=True))
    (write,) = [n for n in k.walk(kernel.body) if isinstance(n, k.IfThenElse)
                and any(isinstance(x, k.Assign) and x.buffer.name == "T1" for x in n.then_body)]
    assert "threadIdx.x % 4" in str(write.cond)


def test_a_consumer_with_another_thread_layout_is_refused() -> None:
    """out's threads (and so y's broadcast T2's) merge the lanes outside the rows: thread t does not hold the
    result of row t / 4."""
    with pytest.raises(LoweringError, match=r"T2 reads T1, a reduction across lane groups \(rTIDx\d+\{32\}: "
                                            r"iS\d+\{8\} merged with 4 lanes\), which leaves each row's result in "
                                            r"the lanes of its group only"):
        lower(_row_sum_times_x(40, 24, out_lanes_outer=True))


def test_a_lane_axis_bound_to_tidy_is_refused() -> None:
    with pytest.raises(LoweringError, match=r"T1 axis rTIDy\d+\{32\} merges row axes with 4 reduction lanes "
                                            r"\(merge_lanes\) but is bound to TIDy: bind it to TIDx"):
        lower(_row_sum_times_x(40, 24, y_thread=ParallelType.TIDy))


def test_a_block_of_partial_warps_is_refused() -> None:
    """3 rows of 4 lanes: 12 threads, and a shuffle with a full mask needs the whole warp."""
    with pytest.raises(LoweringError, match=r"the launched TIDx extent 12 must be a constant multiple of the warp "
                                            r"size \(32\)"):
        lower(_row_sum_times_x(40, 24, rows=3))


# ------------------------------------------------------------------ the kernel-IR rules of WarpShuffleXor
def _shuffle_kernel(node: k.Node, buffer: k.Buffer) -> k.Kernel:
    out = s.global_tensor("T2", (s.I0,))
    return s.make_kernel("k", [k.Allocate(buffer), node, k.Assign(out, s.TX, k.Load(buffer, s.c(0)))], [], [out],
                         (1,), (32,))


def _refused(kernel: k.Kernel, message: str) -> None:
    with pytest.raises(VerifyError, match=message):
        verify(kernel)


def test_verify_accepts_a_shuffle_of_registers() -> None:
    reg = s.local("T1", 1)
    verify(_shuffle_kernel(k.WarpShuffleXor(reg, s.c(0), "max", 16), reg))


@pytest.mark.parametrize("mask", [0, 3, 32])
def test_verify_refuses_a_lane_mask_outside_the_warp(mask: int) -> None:
    reg = s.local("T1", 1)
    _refused(_shuffle_kernel(k.WarpShuffleXor(reg, s.c(0), "add", mask), reg),
             rf"lane mask {mask} must be a power of two below the warp size \(32\)")


def test_verify_refuses_a_shuffle_of_shared_memory() -> None:
    tile = s.shared("T1", 32)
    _refused(_shuffle_kernel(k.WarpShuffleXor(tile, s.c(0), "add", 1), tile),
             r"T1 is in Shared memory; a warp shuffle exchanges registers \(Local\)")


def test_verify_refuses_an_unknown_op() -> None:
    reg = s.local("T1", 1)
    _refused(_shuffle_kernel(k.WarpShuffleXor(reg, s.c(0), "mul", 1), reg), r"WarpShuffleXor op 'mul' is not supported")


def test_verify_refuses_a_shuffle_one_elected_thread_runs() -> None:
    reg = s.local("T1", 1)
    _refused(_shuffle_kernel(k.ElectSync((k.WarpShuffleXor(reg, s.c(0), "add", 1),)), reg),
             r"is inside an ElectSync, which one thread runs; it needs a whole warp")


def test_a_lane_reduction_does_not_touch_the_block_workspace() -> None:
    """Beside a block reduction's workspace, a lane-group reduction's closing step references no shared memory:
    the workspace's live interval does not reach it."""
    from dataclasses import replace

    from lowering.analysis.smem import referenced_buffers
    from lowering.kir_nodes import Buffer

    traced = lower(_row_sum_times_x(37, 24), trace=True)
    a = traced.analyses
    (y,) = a.ids.lane_reductions
    closing = k.TensorOp(tv=y, kind=k.TensorOpKind.BlockReduce, text="", expr=y.definition)
    workspace = Buffer("block_workspace", DataType.Int64, MemoryType.Shared, s.c(32), align=16)
    with_workspace = replace(a.buffers, workspace=workspace)
    assert workspace not in referenced_buffers(closing, with_workspace)
    assert workspace in referenced_buffers(closing, replace(with_workspace, shuffled=frozenset()))
