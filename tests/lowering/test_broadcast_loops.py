"""Loop-only broadcasts bound into thread indices (``lowering/analysis/broadcast_loops.py``): a per-row tensor laid
out as rows merged with a loop broadcast of a quad's 4 lanes (``broadcast_loop``) is computed by every lane of the
quad into its registers, read there by a lane-group reduction's rows and by the quad's threads of a tensor laid out
as rows x lanes: no shared memory, no barrier. The simulator against numpy (examples/row_softmax_lanes too), and
the layouts the lowering refuses."""

from __future__ import annotations

import numpy as np
import pytest

import examples
from fusion_ir import DataType, Fusion, MemoryType, ParallelType, TensorView, inline_most, ops
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate

M, C, ROWS, LANES = 100, 16, 64, 4


def _row_max_times_x(*, per_row=None, lanes_outside_rows: bool = False) -> tuple[Fusion, TensorView]:
    """``v = max(x, 1) * 2``, ``out = x * v`` (x ``[M, C]``): ``max`` and ``out`` over ``[M / 64 (BIDx), 64 rows x 4
    lanes (TIDx), C / 4]`` (the max a lane group), ``v`` ``per_row(v)`` (default: rows x a loop broadcast of the
    lanes, TIDx). ``lanes_outside_rows``: out's TIDx merges the lanes outside the rows."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(M, C), dtype=DataType.Float)
        m = ops.max(x, 1)
        v = ops.mul(m, 2.0)
        vb = ops.broadcast(v, [False, True])
        out = ops.mul(x, vb)
        fusion.add_output(out)
    for tv in (m, v, vb):
        tv.set_memory_type(MemoryType.Local)
    for tv in (m, out):
        tv.split(0, ROWS).split(2, LANES, inner_split=False)          # [Mo, 64, 4, C / 4]
        if tv is out and lanes_outside_rows:
            tv.reorder({2: 1})                                         # [Mo, 4, 64, C / 4]
        (tv.merge_lanes if tv is m else tv.merge)(1, 2)
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.TIDx)
    (per_row or _rows_times_lanes)(v)
    vb.transform_like(out)
    vb.parallelize_like(out)
    inline_most(fusion)
    return fusion, v


def _rows_times_lanes(v: TensorView) -> None:
    v.split(0, ROWS).broadcast_loop(2, LANES).merge(1, 2)             # [Mo, 64 x b4]
    v.axis(0).parallelize(ParallelType.BIDx)
    v.axis(1).parallelize(ParallelType.TIDx)


def _want(x: np.ndarray) -> np.ndarray:
    return x * 2 * x.max(axis=1, keepdims=True)


def test_each_lane_computes_the_row_value_in_registers() -> None:
    fusion, v = _row_max_times_x()
    kernel = lower(fusion)
    x = np.random.default_rng(0).standard_normal((M, C)).astype(np.float32)
    (out,) = simulate(kernel, [x])
    np.testing.assert_allclose(out, _want(x), rtol=1e-6)
    allocs = {n.buffer.name: n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate)}
    assert allocs[f"T{v.name}"].memory is MemoryType.Local and allocs[f"T{v.name}"].size.const_value() == 1
    assert not [b for b in allocs.values() if b.memory is MemoryType.Shared]
    assert not [n for n in k.walk(kernel.body) if isinstance(n, (k.BlockSync, k.BlockReduce))]
    assert [d.const_value() for d in kernel.block] == [ROWS * LANES, 1, 1]


def test_the_example_matches_numpy_without_shared_memory() -> None:
    ex = examples.load("row_softmax_lanes")
    kernel = lower(ex.build())
    for seed in (0, 1):
        x = (np.random.default_rng(seed).standard_normal((ex.M, ex.C)) * 4).astype(np.float32)
        (out,) = simulate(kernel, [x], seed=seed)
        np.testing.assert_allclose(out, ex.reference(x), rtol=1e-5, atol=1e-7)
    assert not [n for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.memory is MemoryType.Shared]
    assert not [n for n in k.walk(kernel.body) if isinstance(n, k.BlockSync)]
    shuffles = [(n.op, n.lane_mask) for n in k.walk(kernel.body) if isinstance(n, k.WarpShuffleXor)]
    assert shuffles == [("max", 1), ("max", 2), ("add", 1), ("add", 2)]


def test_refuses_a_consumer_whose_lanes_are_outside_its_rows() -> None:
    """Thread ``t`` of out holds row ``t % 64``, the lanes of v's row ``t / 4`` are other threads."""
    fusion, v = _row_max_times_x(lanes_outside_rows=True)
    with pytest.raises(LoweringError, match=rf"T{v.name} axis iTIDx\d+\{{256\}} is bound to TIDx, but consumer "
                                            rf"T\d+ has no axis mapped to it.*T{v.name} holds each value in the 4 "
                                            r"threads of iTIDx\d+\{256\} = iS\d+\{64\} merged with loop broadcast "
                                            r"bS\d+\{4\}"):
        lower(fusion)


def _own_axis(v: TensorView) -> None:
    v.split(0, ROWS).broadcast_loop(2, LANES)                          # [Mo, 64, b4]
    v.axis(0).parallelize(ParallelType.BIDx)
    v.axis(1).parallelize(ParallelType.TIDx)


def _unrolled(v: TensorView) -> None:
    v.split(0, ROWS).broadcast_loop(2, LANES).merge(1, 2)
    v.axis(0).parallelize(ParallelType.BIDx)
    v.axis(1).parallelize(ParallelType.Unroll)


@pytest.mark.parametrize("per_row,message", [
    (_own_axis, r"loop broadcast bS\d+\{4\} \(broadcast_loop\) is a loop axis of its own; merge it"),
    (_unrolled, r"loop broadcast bS\d+\{4\} \(broadcast_loop\) is part of iUR\d+\{256\}, bound to Unroll; merge it"),
])
def test_refuses_a_loop_broadcast_outside_a_thread_axis(per_row, message: str) -> None:
    fusion, v = _row_max_times_x(per_row=per_row)
    with pytest.raises(LoweringError, match=rf"T{v.name}: {message}"):
        lower(fusion)


def test_refuses_a_loop_broadcast_in_shared_memory() -> None:
    fusion, v = _row_max_times_x()
    v.set_memory_type(MemoryType.Shared)
    with pytest.raises(LoweringError, match=rf"T{v.name}: loop broadcast bS\d+\{{4\}} \(broadcast_loop\) is bound to "
                                            r"TIDx in iTIDx\d+\{256\}, so 4 threads compute each element; T\d+ is in "
                                            r"Shared memory"):
        lower(fusion)


def test_refuses_a_loop_broadcast_merged_into_a_reduction() -> None:
    """A block reduction over rows x 4 lanes would add each row 4 times."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(32, 8), dtype=DataType.Float)
        y = ops.sum(x, 0)
        fusion.add_output(y)
    y.broadcast_loop(1, LANES).merge(0, 1)                             # [r32 x b4, 8]
    y.axis(0).parallelize(ParallelType.TIDx)
    with pytest.raises(LoweringError, match=rf"T{y.name}: loop broadcast bS\d+\{{4\}} \(broadcast_loop\) is merged "
                                            r"into reduction axis rTIDx\d+\{128\}: a reduction across those threads "
                                            r"would count each value 4 times"):
        lower(fusion)
