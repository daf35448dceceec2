"""Bugs the schedule fuzzer found, one test each, reduced to the smallest schedule that showed them."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import (
    DataType,
    Fusion,
    LoadStoreOpType,
    MemoryType,
    ParallelType,
    ScheduleError,
    TensorView,
    inline_most,
    ops,
    parallelize_like,
    transform_like,
)
from fusion_ir.reference import as_stored, evaluate
from fuzz.case import case_inputs
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from runtime import simulate

PT = ParallelType


def test_int_max_reduction_starts_from_the_lowest_int() -> None:
    """max over int32 started from -inf, which an int register cannot hold (OverflowError in the simulator)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Int32)
        out = ops.max(x, [0])
        fusion.add_output(out)
    assert out.definition.init == -(2**31)
    fusion.auto_schedule = False          # one thread, as found
    inline_most(fusion)
    inputs = [np.array([-7, -3, -9], dtype=np.int32)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])


def test_float_max_reduction_still_starts_from_minus_infinity() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        fusion.add_output(ops.max(x, [0]))
    assert fusion.outputs[0].definition.init == float("-inf")


def test_block_binding_reaching_a_reduction_axis_is_a_lowering_error() -> None:
    """A BIDx producer inlined into a sum's reduction loop made the reduction a grid reduction: wrong sums."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        copy = ops.set(x)
        out = ops.sum(copy, [0])
        fusion.add_output(out)
    cache = x.cache_after()
    cache.axis(0).parallelize(PT.BIDx)
    inline_most(fusion)   # cache -> copy -> the reduction loop of out: one loop bound to BIDx
    with pytest.raises(LoweringError, match="grid reductions are not supported"):
        lower(fusion)


@pytest.mark.parametrize("binding", [PT.BIDy, PT.TIDy, PT.TIDx])
def test_producer_bound_to_an_index_its_consumer_does_not_share_is_a_lowering_error(binding: ParallelType) -> None:
    """A Local producer bound to a thread/block index was read by other threads/blocks: stale values."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        copy = ops.set(x)
        out = ops.broadcast(copy, [True, False])
        fusion.add_output(out)
    out.split(-1, 8)
    out.axis(0).parallelize(PT.BIDx)
    out.axis(-1).parallelize(PT.TIDx)
    inline_most(fusion)   # copy stays outside: out's axis 0 is a broadcast
    copy.axis(0).parallelize(binding)
    with pytest.raises(LoweringError, match=f"T{copy.name} axis .* is bound to {binding.name}"):
        lower(fusion)


def test_thread_bound_producer_in_shared_memory_is_read_by_other_threads() -> None:
    """The same schedule with the producer in Shared memory lowers and matches numpy."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        copy = ops.set(x)
        out = ops.broadcast(copy, [True, False])
        fusion.add_output(out)
    out.split(-1, 8)
    out.axis(-1).parallelize(PT.TIDx)
    inline_most(fusion)
    copy.split(0, 8)
    copy.axis(1).parallelize(PT.TIDy)
    copy.set_memory_type(MemoryType.Shared)
    inputs = [np.arange(20, dtype=np.float32)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])



def test_reference_of_an_rfactor_over_unsplit_axes() -> None:
    """rfactor of an unsplit axis left logical == root, so reference.evaluate reduced twice (AxisError)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        out = ops.sum(x, [0, 1])
        fusion.add_output(out)
    out.rfactor([0])
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.testing.assert_array_equal(evaluate(fusion, [a])[0], a.sum())


def test_rfactor_of_an_unsplit_partial_is_rejected() -> None:
    """The partial of an rfactor over unsplit axes could itself be rfactored."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        out = ops.sum(x, [0, 1])
        fusion.add_output(out)
    partial = out.rfactor([0])
    with pytest.raises(ScheduleError, match="already the partial result of an rfactor"):
        partial.rfactor([0])


@pytest.mark.parametrize("inner_split", [True, False])
def test_vectorizing_a_split_of_an_outer_axis_is_a_lowering_error(inner_split: bool) -> None:
    """Vectorize on a split of axis 0 of a 2-D tensor read strided elements as one vector (misaligned access)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(8, 6))
        out = ops.broadcast(x, [False, False, True])
        fusion.add_output(out)
    out.split(0, 2, inner_split=inner_split)
    out.axis(1).parallelize(PT.Vectorize)
    with pytest.raises(LoweringError, match="Vectorize axis .* does not cover consecutive elements"):
        lower(fusion)


def test_vectorizing_the_inner_split_of_the_innermost_axis_still_lowers() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        out = ops.broadcast(ops.set(x), [False, False, True])
        fusion.add_output(out)
    out.split(1, 4)
    transform_like(out)
    out.axis(2).parallelize(PT.Vectorize)
    inline_most(fusion)
    inputs = [np.arange(24, dtype=np.float32).reshape(3, 8)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])


def test_a_global_output_read_by_other_threads_is_synced() -> None:
    """The syncs pass ordered only Shared buffers, so a fusion output written by thread 0 was read
    by other threads without __syncthreads."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        y = ops.neg(x)
        total = ops.sum(y, [0])
        fusion.add_output(total)
        fusion.add_output(y)       # y is an output and is read by the reduction
    total.split(0, 2, inner_split=False)
    total.axis(1).parallelize(PT.TIDx)
    inputs = [np.ones(65, dtype=np.float32)]
    outputs = simulate(lower(fusion), inputs)
    for got, want in zip(outputs, evaluate(fusion, inputs)):
        np.testing.assert_array_equal(got, want)


def test_a_non_divisible_split_of_an_inner_axis_is_predicated() -> None:
    """Indexing predicated only root axes, so the out-of-range tail of a non-divisible split of an
    inner split axis wrote the next element."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(1, 2, 1))
        out = ops.neg(x)
        fusion.add_output(out)
    x.cache_after()
    out.split(1, 1)
    out.split(1, 1)           # [1, 2, 1, 1, 1]: axis 2 is the inner part of a split, extent 1
    transform_like(out)
    out.axis(1).parallelize(PT.BIDx)
    out.axis(0).parallelize(PT.TIDx)
    out.split(2, 2)           # extent 1 split by 2: its index 1 lands on the next BIDx element
    inputs = [np.array([1, 3], dtype=np.float32).reshape(1, 2, 1)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])


def test_block_reduction_workspace_is_live_during_the_reduction() -> None:
    """smem reuse saw no use of block_workspace (the BlockReduce comes later, from indexing), so a
    shared buffer still read after the reduction was placed on top of it."""
    from lowering import kernel_ir as kir

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(1,))
        total = ops.sum(ops.broadcast(x, [False, True]), [0])
        y = ops.neg(x)
        fusion.add_output(total)
        fusion.add_output(y)
    total.split(0, 2)
    total.axis(1).parallelize(PT.TIDx)
    x.cache_after(LoadStoreOpType.CpAsync)   # shared, read before and after the block reduction
    kernel = lower(fusion)
    shared = {n.buffer.name: n for n in kir.walk(kernel.body)
              if isinstance(n, kir.Allocate) and n.buffer.memory is MemoryType.Shared}
    (cache,) = [name for name in shared if name != "block_workspace"]
    spans = [(shared[n].offset.const_value(), shared[n].offset.const_value() + shared[n].buffer.nbytes.const_value())
             for n in ("block_workspace", cache)]
    assert spans[0][1] <= spans[1][0] or spans[1][1] <= spans[0][0], spans
    inputs = [np.array([3.0], dtype=np.float32)]
    for got, want in zip(simulate(kernel, inputs), evaluate(fusion, inputs)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("second", [LoadStoreOpType.Set, LoadStoreOpType.CpAsync, LoadStoreOpType.TMA])
def test_caching_the_source_of_a_global_memory_load_again_is_rejected(second: LoadStoreOpType) -> None:
    """A second cache_after of an input moved the cp.async load's source into registers: every element
    was copied from the same register after the loop had overwritten it."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        out = ops.broadcast(x, [True, False])
        fusion.add_output(out)
    x.cache_after(LoadStoreOpType.CpAsync)
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match="loads T0 with CpAsync, which reads global memory"):
        x.cache_after(second)
    assert fusion.state_fingerprint() == before


def test_the_source_of_a_global_memory_load_stays_in_global_memory() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(8, 64))
        s = ops.set(x)
        fusion.add_output(ops.exp(s))
    s.set_memory_type(MemoryType.Global)
    s.cache_after(LoadStoreOpType.TMA)
    with pytest.raises(ScheduleError, match="which reads global memory; T1 must stay in Global memory"):
        s.set_memory_type(MemoryType.Shared)


def test_shared_buffer_read_in_every_iteration_of_a_loop_is_live_through_the_loop() -> None:
    """smem reuse ended a buffer's life at its last read inside a loop body, so the block-reduction
    workspace written later in the same body overwrote it before the next iteration read it."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(2, 1))
        total = ops.sum(ops.neg(x), [1])
        fusion.add_output(total)
    total.split(1, 2)
    total.axis(2).parallelize(PT.TIDx)
    inline_most(fusion)
    x.cache_after(LoadStoreOpType.CpAsync)   # read in each iteration of the row loop, before the reduction
    inputs = [np.array([[1.0], [2.0]], dtype=np.float32)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])


def test_compute_at_drops_the_producers_own_split_of_a_shared_axis() -> None:
    """compute_at kept the producer's earlier split of an axis it then shared with the consumer, so the
    loop domain held the axis and its split halves: the producer's loops ran over every element twice."""
    from fuzz.properties import domain_problem

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(1, 2))
        y = ops.add(x, 1.0)
        out = ops.neg(y)
        fusion.add_output(out)
        fusion.add_output(y)
    y.split(1, 1)
    y.compute_at(out, -1)
    assert domain_problem(fusion) is None
    assert [i.extent.const_value() for i in y.loop] == [1, 2]
    inputs = [np.array([[1.0, 2.0]], dtype=np.float32)]
    for got, want in zip(simulate(lower(fusion), inputs), evaluate(fusion, inputs)):
        np.testing.assert_array_equal(got, want)


def test_vectorizing_a_split_that_runs_past_its_input_is_a_lowering_error() -> None:
    """A Vectorize axis of 2 split from an axis of extent 1 was masked off whole by the predicate, so
    its consumer read a cache that was never written (NaN)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        out = ops.neg(x)
        fusion.add_output(out)
    cache = x.cache_after()
    out.split(-1, 1)
    out.split(-1, 2)          # [i0, 1, 2]: the 2 is a split of an axis of extent 1
    transform_like(out)
    cache.axis(-1).parallelize(PT.Vectorize)
    inline_most(fusion)
    with pytest.raises(LoweringError, match="which do not divide it: a vector would run past its end"):
        lower(fusion)


def test_a_loop_shared_by_a_broadcast_and_a_concrete_axis_runs_the_concrete_extent() -> None:
    """A producer's broadcast axis inlined into one consumer's concrete axis and another's broadcast
    axis gave the shared loop the extent of whichever member came last: 1, not i1."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        y = fusion.add_input(ndim=2)
        column = ops.broadcast(x, [False, True])
        total = ops.add(column, y)
        negated = ops.neg(column)
        fusion.add_output(negated)
        fusion.add_output(total)
    inline_most(fusion)
    inputs = [np.array([1.0, 5.0], dtype=np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)]
    for got, want in zip(simulate(lower(fusion), inputs), evaluate(fusion, inputs)):
        np.testing.assert_array_equal(got, want)


def test_an_output_read_by_blocks_that_did_not_write_it_is_a_lowering_error() -> None:
    """An output not bound to BIDx is written by block 0 only, while its consumer read it in every
    block: a cross-block race that the simulator, running blocks in lockstep, cannot show."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        y = ops.neg(x)
        z = ops.add(y, 1.0)
        fusion.add_output(z)
        fusion.add_output(y)
    z.axis(0).parallelize(PT.BIDx)
    with pytest.raises(LoweringError, match="only blocks with blockIdx.x == 0 write T1"):
        lower(fusion)
    y.axis(0).parallelize(PT.BIDx)       # each block writes the element it reads
    inputs = [np.arange(5, dtype=np.float32)]
    for got, want in zip(simulate(lower(fusion), inputs), evaluate(fusion, inputs)):
        np.testing.assert_array_equal(got, want)


def test_an_output_bound_to_threads_is_read_by_other_threads_of_its_block() -> None:
    """The cross-thread rule allows a fusion output (Global) as well as Shared memory: the syncs pass orders it."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        y = ops.neg(x)
        z = ops.broadcast(y, [True, False])
        fusion.add_output(z)
        fusion.add_output(y)
    y.axis(0).parallelize(PT.TIDx)
    z.split(1, 4)
    z.axis(2).parallelize(PT.TIDy)      # z reads y's elements from other threads
    inputs = [np.arange(10, dtype=np.float32)]
    for got, want in zip(simulate(lower(fusion), inputs), evaluate(fusion, inputs)):
        np.testing.assert_array_equal(got, want)


def _sum_to_scalar() -> tuple[Fusion, TensorView, TensorView]:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        out = ops.sum(x, [0])
        fusion.add_output(out)
    return fusion, x, out


def test_a_tma_store_of_a_0d_output_is_a_schedule_error() -> None:
    """A 0-D output through a TMA store reached the TMA analysis with an empty box (IndexError)."""
    fusion, _, out = _sum_to_scalar()
    with pytest.raises(ScheduleError, match="T1: cache_before: T1 is 0-D; a TMA store .* at least one dimension"):
        out.cache_before(LoadStoreOpType.TMAStore)
    cache = out.cache_before()              # a plain store of the same output still lowers and simulates
    inline_most(fusion)
    inputs = [np.arange(10, dtype=np.float32)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])
    assert cache.shape_ids == []


def test_a_tma_load_of_a_0d_input_is_a_schedule_error() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=0)
        fusion.add_output(ops.neg(x))
    with pytest.raises(ScheduleError, match="T0: cache_after: T0 is 0-D; a TMA load .* at least one dimension"):
        x.cache_after(LoadStoreOpType.TMA)
    x.cache_after(LoadStoreOpType.CpAsync)  # cp.async copies one element
    inputs = [np.array(3.0, dtype=np.float32)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])


@pytest.mark.parametrize("kind", ["load", "store"])
def test_the_tma_analysis_names_a_0d_tensor(kind: str) -> None:
    """The lowering's own guard, for a 0-D TMA copy made around the schedule checks."""
    if kind == "store":
        fusion, _, out = _sum_to_scalar()
        out.cache_before()
        out.definition.op_type = LoadStoreOpType.TMAStore
        name = out.name
    else:
        fusion = Fusion()
        with fusion:
            x = fusion.add_input(ndim=0)
            fusion.add_output(ops.neg(x))
        cache = x.cache_after(LoadStoreOpType.CpAsync)
        cache.definition.op_type = LoadStoreOpType.TMA
        name = cache.name
    with pytest.raises(LoweringError, match=f"T{name} .*0-D.* a TMA box needs at least one dimension"):
        lower(fusion)


def _cached_input_beside_a_dead_op() -> Fusion:
    """``ops.neg(x)`` twice, one never used; x's cp.async cache is double-buffered."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        ops.neg(x)                          # dead: on no path to an output
        fusion.add_output(ops.neg(x))
    cache = x.cache_after(LoadStoreOpType.CpAsync)
    inline_most(fusion)
    cache.circular_buffer(2, 0)
    return fusion


_DEAD_OP_SCRIPT = """
import numpy as np
from tests.fuzz.test_regressions import _cached_input_beside_a_dead_op
from lowering import lower
from runtime import simulate
(got,) = simulate(lower(_cached_input_beside_a_dead_op()), [np.arange(10, dtype=np.float32)])
assert (got == -np.arange(10, dtype=np.float32)).all(), got
"""


def test_lowering_ignores_a_dead_consumer_of_a_circular_buffer() -> None:
    """The circular-buffer analysis asked whether every reader of the cache (the dead op's tensor
    among them, absent from the IterDomain model) is a wgmma accumulator: a KeyError, or not,
    depending on the order of a set, so on the hash seed."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for seed in ("0", "1", "2", "4"):        # each failed (KeyError: IterDomain) before the fix
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(root)}
        done = subprocess.run([sys.executable, "-c", _DEAD_OP_SCRIPT], cwd=root, env=env, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, f"PYTHONHASHSEED={seed}:\n{done.stderr}"


def test_the_id_model_lists_only_live_consumers() -> None:
    from lowering.analysis import id_model

    fusion = _cached_input_beside_a_dead_op()
    cache = fusion.outputs[0].producers()[0]
    dead, out = cache.consumers()
    assert dead not in fusion.used_tensors()
    assert id_model.build(fusion).consumers(cache) == [out]


def test_a_dead_reduction_does_not_make_a_persistent_buffer() -> None:
    """A dead sum and a dead reader of its broadcast made T1 look like a persistent buffer in the lowering's
    register-size check, which named the dead tensors as the reason."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        t1 = ops.exp(x)
        fusion.add_output(ops.add(t1, 1.0))
        total = ops.sum(t1, [1])
        ops.add(t1, ops.broadcast(total, [False, True]))     # dead
    t1.compute_at(fusion.outputs[0], 1)
    with pytest.raises(LoweringError, match="T1 is in Local memory but its allocation") as raised:
        lower(fusion)
    assert "persistent" not in str(raised.value)
    t1.set_memory_type(MemoryType.Shared)
    inputs = [np.arange(12, dtype=np.float32).reshape(3, 4) / 10]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_allclose(got, evaluate(fusion, inputs)[0], rtol=1e-6)


def shared_producer_of_a_split_row_sum() -> Fusion:
    """A row sum split outer by 8 with the rest on TIDx, its |x| producer in shared memory."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        t1 = ops.abs(x)
        t2 = ops.sum(t1, [1])
        fusion.add_output(t2)
    t2.split(1, 8, inner_split=False)          # [i0, 8, ceilDiv(i1, 8)]
    t2.axis(2).parallelize(PT.TIDx)
    t1.transform_like(t2)
    t1.parallelize_like(t2)
    t1.set_memory_type(MemoryType.Shared)
    inline_most(fusion)
    return fusion


@pytest.mark.parametrize("shape", [(3, 20), (2, 64), (4, 7)])
def test_a_shared_buffer_offset_is_not_hoisted_out_of_the_hosts_reach(shape: tuple[int, int]) -> None:
    """T1's shared-memory offset (after the block-reduction workspace, whose size is the symbolic thread
    count) was hoisted into a Let h0 like an index, so the host, laying shared memory out from the
    Allocate offsets, could not evaluate it: every input failed with 'symbol h0 is not bound'."""
    fusion = shared_producer_of_a_split_row_sum()
    kernel = lower(fusion)
    inputs = [np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32)]
    (got,) = simulate(kernel, inputs)
    np.testing.assert_allclose(got, np.abs(inputs[0]).sum(axis=1), rtol=1e-5)


def test_a_fusion_output_in_global_memory_cannot_be_circular_buffered() -> None:
    """An output defined by a set (a load op) was accepted by circular_buffer, and lowering raised a bare
    KeyError in the circular-buffer analysis: it has no allocation to rotate through."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=1)
        t2 = ops.set(t0)
        fusion.add_output(ops.add(t0, t2))
        fusion.add_output(t2)
    inline_most(fusion)
    with pytest.raises(ScheduleError, match=r"T1: circular_buffer: T1 is a fusion output in Global memory"):
        t2.circular_buffer(2, 0)
    lower(fusion)


def test_a_circular_buffered_cache_cannot_move_to_global_memory() -> None:
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=1)
        fusion.add_output(ops.neg(t0))
    c = t0.cache_after()
    inline_most(fusion)
    c.circular_buffer(2, 0)
    with pytest.raises(ScheduleError, match=r"set_memory_type: T\d+ is circular-buffered"):
        c.set_memory_type(MemoryType.Global)


def _outer_difference(rebroadcast: bool) -> Fusion:
    """``x[:, None] - neg(x)[None, :]`` of one input reaching both axes (the exact map puts both axes
    of the difference in one class), optionally broadcast once more to a third axis."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(5,), dtype=DataType.Float)
        t1 = ops.neg(t0)
        column = ops.broadcast(t1, [False, True])
        row = ops.broadcast(ops.neg(t1), [True, False])
        diff = ops.sub(column, row)
        fusion.add_output(ops.broadcast(diff, [False, False, True]) if rebroadcast else diff)
    return fusion


@pytest.mark.parametrize("rebroadcast", [False, True])
def test_a_producer_whose_axes_share_an_exact_class_is_read_by_its_root_map(rebroadcast: bool) -> None:
    """Both axes of ``diff`` come from one input, so the exact map holds them (and the output's two
    loop axes) in one class; reading ``diff`` took the index of one loop for both of its axes
    (``T5[i9 + i9 * 5]``: the diagonal) where the root map says ``T5[i9 + i8 * 5]``. Found as an
    Int32 tensor plus a float scalar, divided, broadcast and output (the promotion was right)."""
    fusion = _outer_difference(rebroadcast)
    fusion.auto_schedule = False           # the one-thread kernel's indexing is the subject
    x = np.arange(5, dtype=np.float32)
    (got,) = simulate(lower(fusion), [x])
    np.testing.assert_array_equal(got, evaluate(fusion, [x])[0])
    np.testing.assert_array_equal(got.reshape(5, 5), -x[:, None] - x[None, :])


def test_int_plus_float_scalar_divided_and_broadcast_matches_numpy() -> None:
    """The fuzzer's case: a Bool cast to Int32, plus 1.0 (Float, as nvFuser promotes), an Int32 column
    divided by that Float row, broadcast to a third axis."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(39,), dtype=DataType.Bool)
        t1 = ops.cast(t0, DataType.Int32)
        t2 = ops.add(t1, 1.0)
        t4 = ops.broadcast(t2, [True, False])
        t5 = ops.broadcast(t1, [False, True])
        t6 = ops.div(t5, t4)
        fusion.add_output(ops.broadcast(t6, [False, False, True]))
        fusion.add_output(t5)
    fusion.set_index_type(DataType.Int32)
    fusion.auto_schedule = False          # one thread, as found
    assert (t2.dtype, t6.dtype) == (DataType.Float, DataType.Float)
    inputs = [np.random.default_rng(984).random(39) < 0.5]
    for got, want in zip(simulate(lower(fusion), inputs, seed=984), evaluate(fusion, inputs)):
        np.testing.assert_allclose(got, want, rtol=1e-6)


def _sum_matches_the_rounded_reference(fusion: Fusion, shapes: list[tuple[int, ...]], dtypes: list[str],
                                       seed: int, *, strided: bool) -> None:
    """Integer-valued inputs make every partial sum exact in float: a kernel that accumulates in float and
    rounds once to the 16-bit output gives the reference's sum rounded to that type, bit for bit."""
    inputs = case_inputs(shapes, dtypes, [seed, 0], specials=False, strided=strided)
    outputs = simulate(lower(fusion), inputs, seed=seed)
    for out, got, want in zip(fusion.outputs, outputs, evaluate(fusion, inputs)):
        np.testing.assert_array_equal(np.asarray(got, np.float64), as_stored(out.dtype, want).astype(np.float64))


def test_a_serial_bf16_sum_accumulates_in_float() -> None:
    """A bfloat16 sum of 300 elements with no thread-parallel reduction axis added into the bfloat16 output
    itself: 692 for 684 (8 bits of mantissa lose the small terms once the sum passes 256)."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=4, dtype=DataType.BFloat16)
        t1 = fusion.add_input(ndim=4, dtype=DataType.Float)
        t2 = fusion.add_input(ndim=4, dtype=DataType.BFloat16)
        t3 = ops.abs(t2)
        ops.div(t0, ops.add(t3, 1))
        t8 = ops.sum(t3, [0, 1, 2, 3])
        t10 = ops.set(t8)
        fusion.add_output(t10)
    t1.cache_after(LoadStoreOpType.CpAsync)
    transform_like(t10)
    parallelize_like(t10)
    inline_most(fusion)
    kernel = lower(fusion)
    acc = [n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.name == f"T{t8.name}_acc"]
    assert [b.dtype for b in acc] == [DataType.Float]
    _sum_matches_the_rounded_reference(fusion, [(4, 5, 3, 5)] * 3, ["bfloat16", "float32", "bfloat16"], 2063,
                                       strided=True)


def test_a_serial_half_sum_accumulates_in_float() -> None:
    """A half sum of 680 squares over unrolled loops, through a Shared half partial, added into the half
    output itself: 4220 for 4394 (past 2048 half steps by 2, then 4, and small terms round away)."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(1, 1, 680, 1), dtype=DataType.Half)
        t1 = ops.mul(t0, t0)
        t3 = ops.sum(t1, [0, 1])
        t6 = ops.sum(t3, [0, 1])
        fusion.add_output(t6)
    t6.split(-2, 5, inner_split=True)
    t6.split(-1, 2)
    transform_like(t6)
    t6.axis(0).parallelize(ParallelType.Unroll)
    t6.axis(1).parallelize(ParallelType.Unroll)
    parallelize_like(t6)
    inline_most(fusion)
    t3.set_memory_type(MemoryType.Shared)
    t1.set_memory_type(MemoryType.Shared)
    _sum_matches_the_rounded_reference(fusion, [(1, 1, 680, 1)], ["float16"], 184, strided=False)


def _cast_then_broadcast() -> tuple[Fusion, TensorView, TensorView, TensorView]:
    """``out[i, j] = x[i, j] * broadcast(cast(w))[j]``, ``out`` split into ``[i, j/128, 128]``."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        w = fusion.add_input(ndim=1, dtype=DataType.Half)
        cast = ops.cast(w, DataType.Float)
        wb = ops.broadcast(cast, [True, False])
        out = ops.mul(x, wb)
        fusion.add_output(out)
    out.split(1, 128)
    return fusion, cast, wb, out


def test_compute_at_a_shallower_position_drops_the_loop_broadcast_it_no_longer_needs() -> None:
    """Computed at 2, the cast gained a loop broadcast for the broadcast's axis; computed again at 0, its loop
    domain was rebuilt without it but it stayed recorded: loop != transforms(root + loop broadcasts)."""
    from fuzz.properties import domain_problem

    fusion, cast, _, out = _cast_then_broadcast()
    cast.compute_at(out, 2)
    assert cast.loop[0].is_broadcast and len(cast.loop_broadcasts) == 1
    assert domain_problem(fusion) is None
    cast.compute_at(out, 0)
    assert not cast.loop_broadcasts and not any(i.is_broadcast for i in cast.loop)
    assert domain_problem(fusion) is None


def test_compute_at_through_a_path_keeps_only_the_loop_broadcasts_it_replays() -> None:
    """The cast, on the path of a later compute_at of the input's cache at a shallower position, was replayed
    without the loop broadcast an earlier compute_at gave it, which stayed recorded."""
    from fuzz.properties import domain_problem

    fusion, cast, _, out = _cast_then_broadcast()
    cache = fusion.inputs[1].cache_after()
    cast.compute_at(out, 2)
    assert cast.loop_broadcasts
    cache.compute_at(out, 0)
    assert domain_problem(fusion) is None
    cache.compute_at(out, 2)
    assert domain_problem(fusion) is None and cast.loop[0].is_broadcast
    inputs = [np.ones((3, 300), np.float32), np.arange(300).astype(np.float16)]
    np.testing.assert_allclose(simulate(lower(fusion), inputs)[0], evaluate(fusion, inputs)[0])


def test_transform_like_and_cache_before_keep_loop_broadcasts_consistent() -> None:
    """A tensor whose loop broadcasts outlived its inlining (inline_at(0)) kept them recorded after
    transform_like rebuilt its loop from the logical domain."""
    from fuzz.properties import domain_problem

    fusion, cast, _, out = _cast_then_broadcast()
    transform_like(out)
    inline_most(fusion)
    assert cast.loop_broadcasts
    cast.inline_at(0)
    cast.transform_like(out)
    assert not cast.loop_broadcasts
    assert domain_problem(fusion) is None


def test_a_shallower_compute_at_through_a_path_tensor_with_a_loop_broadcast() -> None:
    """The fuzzer's case (seed 102): inline_most gave T2 a loop broadcast; the CpAsync cache computed at
    position 0 of T5 replayed T2 (on the path) without it, and it stayed recorded."""
    from fuzz.properties import domain_problem

    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2, dtype=DataType.Int32)
        t3 = ops.abs(ops.sub(t0, t0))
        t5 = ops.rsqrt(ops.add(t3, 1.0))
        fusion.add_output(ops.sin(ops.broadcast(t5, [False, True, False])))
    t9 = fusion.outputs[0]
    t10 = t0.cache_after(LoadStoreOpType.CpAsync)
    transform_like(t9)
    t9.axis(2).parallelize(PT.BIDx)
    inline_most(fusion)
    t10.compute_at(t5, -3)
    assert domain_problem(fusion) is None


def test_shared_memory_sized_by_the_extents_over_the_limit_is_a_size_refusal() -> None:
    """A cp.async cache whose shared tile grows with the extents (padded splits): at (1, 1, 7) it needs
    262144 bytes. That was a LaunchError, which the fuzzer took for a broken kernel; it is a refusal of
    those sizes, an InputError with a size rule naming the largest shared buffer."""
    from fusion_ir import parallelize_like
    from lowering.kernel_ir import InputRule
    from runtime import InputError

    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=3)
        t1 = ops.neg(t0)
        ops.max(t0, [0])                  # unused, as the fuzzer drew it
        t6 = ops.add(t0, t1)
        fusion.add_output(t6)
    t7 = t0.cache_after(LoadStoreOpType.CpAsync)
    t6.split(1, 64)
    t6.split(-1, 2)
    transform_like(t6)
    t6.axis(2).parallelize(PT.TIDx)
    parallelize_like(t6)
    inline_most(fusion)
    t7.split(1, 128)
    kernel = lower(fusion)
    x = np.ones((1, 1, 1), np.float32)
    np.testing.assert_array_equal(simulate(kernel, [x])[0], x - x)
    with pytest.raises(InputError, match=r"needs 262144 bytes of shared memory per block.*the largest is T\d+") as e:
        simulate(kernel, [np.ones((1, 1, 7), np.float32)])
    assert e.value.rule is InputRule.SHARED_MEMORY and e.value.rule.is_size_rule and e.value.subject is not None


def _broadcast_merged_into_its_own_loop(rows: int, inline: bool) -> Fusion:
    """``x[:, None, None, None] + y``, every axis merged into one; the broadcast tensor in a loop of its own
    (or inlined into the output's)."""
    fusion = Fusion()
    with fusion:
        y = fusion.add_input(shape=(rows, 1, 1, 2), dtype=DataType.Float)
        x = fusion.add_input(shape=(rows,), dtype=DataType.Float)
        b = ops.broadcast(x, [False, True, True, True])
        fusion.add_output(ops.add(b, y))
    out = fusion.outputs[0]
    for _ in range(3):
        out.merge(0)
    transform_like(out)
    if inline:
        inline_most(fusion)
    return fusion


@pytest.mark.parametrize("rows", [1, 2, 3])
@pytest.mark.parametrize("inline", [False, True], ids=["own_loop", "inlined"])
def test_a_broadcast_merged_into_a_loop_of_its_own_is_indexed_with_its_own_extents(rows: int, inline: bool) -> None:
    """The broadcast tensor's merged axis spans ``rows`` elements in its own loop and allocation, but its indices
    took the broadcast's extent where the output resolves it (2): it wrote ``T[i] = x[i / 2]`` and the output
    read ``T[i]`` past its end (out of bounds at 1 row, wrong numbers at 2)."""
    fusion = _broadcast_merged_into_its_own_loop(rows, inline)
    rng = np.random.default_rng(rows)
    inputs = [rng.integers(-50, 50, (rows, 1, 1, 2)).astype(np.float32), rng.integers(-50, 50, rows).astype(np.float32)]
    (got,) = simulate(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])


@pytest.mark.gpu
def test_a_broadcast_merged_into_a_loop_of_its_own_matches_numpy_on_the_gpu() -> None:
    from runtime import execute

    fusion = _broadcast_merged_into_its_own_loop(3, inline=False)
    rng = np.random.default_rng(5)
    inputs = [rng.integers(-50, 50, (3, 1, 1, 2)).astype(np.float32), rng.integers(-50, 50, 3).astype(np.float32)]
    (got,) = execute(lower(fusion), inputs)
    np.testing.assert_array_equal(got, evaluate(fusion, inputs)[0])


def test_an_empty_block_binding_still_launches_the_outputs_it_does_not_bind() -> None:
    """Only ``b = -y`` binds blockIdx.x; with ``y`` empty the grid had 0 blocks and ``a = -x`` was never
    written (NaN). A launch extent is at least 1 when an output has no axis bound there."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        y = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = ops.neg(y)
        fusion.add_output(b)
        fusion.add_output(ops.neg(x))
    b.axis(0).parallelize(PT.BIDx)
    kernel = lower(fusion)
    inputs = [np.array([3.0], np.float32), np.zeros(0, np.float32)]
    got = simulate(kernel, inputs)
    for g, want in zip(got, evaluate(fusion, inputs)):
        np.testing.assert_array_equal(g, want)


def test_a_reduction_over_an_empty_thread_bound_axis_writes_its_init() -> None:
    """The block had 0 threads (a LaunchError); now at least one, the empty axis predicated off."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.axis(0).parallelize(PT.BIDx)
    out.axis(1).parallelize(PT.TIDx)
    kernel = lower(fusion)
    for shape in [(3, 0), (3, 5)]:
        inputs = [np.arange(np.prod(shape), dtype=np.float32).reshape(shape)]
        np.testing.assert_array_equal(simulate(kernel, inputs)[0], evaluate(fusion, inputs)[0])


def test_a_broadcast_bound_to_a_block_outside_the_loop_that_resolves_it_is_refused() -> None:
    """``T2 = broadcast(y)``, its merged blockIdx.x axis spanning the broadcast, was computed outside the loop
    where ``x / T2`` resolves it: block k held element k of T2, not the element the reader needs (NaN)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3, dtype=DataType.Float)
        y = fusion.add_input(ndim=2, dtype=DataType.Float)
        b = ops.broadcast(y, [False, False, True])
        t = ops.abs(b)
        out = ops.div(x, ops.add(t, 1))
        fusion.add_output(out)
    out.merge(1)
    transform_like(out)
    out.axis(1).parallelize(PT.BIDx)
    parallelize_like(out)
    t.compute_at(out, 2)
    out_producers = [p for p in out.producers() if not p.is_input]
    for p in out_producers:
        p.compute_at(out, 2)
    with pytest.raises(LoweringError, match=rf"T{b.name} axis .* is bound to BIDx and made from a broadcast that "
                                            rf"consumer T{t.name} resolves"):
        lower(fusion)


@pytest.mark.parametrize("rows,cols", [(1, 1), (3, 300), (4, 640)])
def test_a_pipeline_inside_another_loop_waits_for_its_readers_before_it_runs_again(rows: int, cols: int) -> None:
    """A cp.async pipeline on the inner loop of a two-row tile: the next row's prologue loaded stage 0 while
    slower warps still read it in the previous row's epilogue (NaN in the simulator, a race on the GPU)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        out = ops.neg(x)
        fusion.add_output(out)
    cache = x.cache_after(LoadStoreOpType.CpAsync)
    out.split(-1, 128)
    out.split(0, 2)
    out.axis(0).parallelize(PT.BIDx)
    out.axis(-1).parallelize(PT.TIDx)
    cache.compute_at(out, 3)
    cache.circular_buffer(2)
    kernel = lower(fusion)
    assert any(isinstance(n, k.BlockSync) and "next run of the pipeline" in n.reason for n in k.walk(kernel.body))
    inputs = [np.arange(rows * cols, dtype=np.float32).reshape(rows, cols) + 1]
    for seed in range(3):
        np.testing.assert_array_equal(simulate(kernel, inputs, seed=seed)[0], evaluate(fusion, inputs)[0])
    # the mutation: without the barrier a slower warp reads the stage the next row's copies are refilling
    from tests.runtime.kir_builders import remove_nodes

    mutant = remove_nodes(kernel, k.BlockSync, lambda n: "next run of the pipeline" in n.reason)
    assert any(np.isnan(simulate(mutant, inputs, seed=seed)[0]).any() for seed in range(3))


def test_a_block_walking_tiles_with_a_thread_split_skips_them_together() -> None:
    """``[T / 1 / 2, 2 (TIDx), 1 (BIDx)]``: the tile loop's skip past the end read threadIdx.x, so one thread
    continued past the block barrier the other waited at (a deadlock). Only warp groups specialized on a
    dimension take their own tiles; a block walks them together."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=DataType.Float)
        a = ops.abs(x)
        b = ops.add(a, 1.0)
        out = ops.add(a, b)
        fusion.add_output(out)
    out.split(1, 1)
    out.split(1, 2)
    transform_like(out)
    inline_most(fusion)
    b.set_memory_type(MemoryType.Shared)
    a.axis(-1).parallelize(PT.BIDx)
    a.axis(2).parallelize(PT.TIDx)
    parallelize_like(a)
    kernel = lower(fusion)
    skips = [n.cond for n in k.walk(kernel.body) if isinstance(n, k.IfThenElse)
             and n.then_body == (k.Continue(),)]
    assert skips and not any("threadIdx" in str(c) for c in skips)
    for shape in [(1, 1), (2, 3), (3, 8)]:
        inputs = [np.arange(np.prod(shape), dtype=np.float32).reshape(shape) - 4]
        np.testing.assert_array_equal(simulate(kernel, inputs)[0], evaluate(fusion, inputs)[0])


def test_empty_outputs_bound_to_an_empty_thread_axis_launch_nothing() -> None:
    """Every output binds its empty axis to threadIdx.x: the block had 0 threads, a LaunchError; there is
    nothing to compute, so nothing is launched."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.neg(x)
        fusion.add_output(out)
    out.axis(0).parallelize(PT.TIDx)
    kernel = lower(fusion)
    (got,) = simulate(kernel, [np.zeros(0, np.float32)])
    assert got.shape == (0,)
    np.testing.assert_array_equal(simulate(kernel, [np.ones(3, np.float32)])[0], -np.ones(3))


def test_a_cache_before_of_a_cp_async_load_into_registers_is_refused_before_indexing() -> None:
    """``cache_before`` of a cp.async cache gave its load to a Local tensor: the verifier caught cp.async into
    registers after indexing (an internal rule broken); now the id graph refuses it, naming the tensor."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        fusion.add_output(ops.neg(x))
    cache = x.cache_after(LoadStoreOpType.CpAsync)
    loaded = cache.cache_before(LoadStoreOpType.Set)
    with pytest.raises(LoweringError, match=rf"T{loaded.name} is loaded by CpAsync, which copies global memory into "
                                            rf"shared memory; T{loaded.name} is in Local memory") as e:
        lower(fusion)
    assert e.value.lowering_step == "id_graph"


def test_auto_stages_that_fit_only_with_reuse_are_refused_by_the_schedule() -> None:
    """``stages="auto"`` sizes the pipeline beside every other shared buffer; the schedule's estimate let the
    epilogue reuse the operands' memory, so it accepted a 192 x 192 tile with a C tile and a TMA store that
    the lowering's depth choice then refused (a LoweringError after a schedule that had passed)."""
    from fuzz.matmul import MatmulCase, check_matmul_case
    from fusion_ir.schedulers import MatmulParams

    params = MatmulParams(tile=(192, 192, 64), stages="auto", compute_warp_groups=3, tma_store=True)
    case = MatmulCase(params=params, dtype=DataType.BFloat16, epilogue="alpha_beta", m=1, n=8, k=8, seed=0,
                      suggested=None)
    assert check_matmul_case(case) == "refused"
    with pytest.raises(ScheduleError, match=r"\"auto\" sizes the pipeline beside every other shared buffer"):
        params.validate(DataType.BFloat16, 2)


@pytest.mark.parametrize("tma_store", [False, True])
@pytest.mark.parametrize("epilogue", ["alpha_beta", "none"])
def test_an_8_column_tile_of_a_k_major_b_loads_c_unswizzled_or_is_refused(tma_store: bool, epilogue: str) -> None:
    """A K-major B (given [N, K]) allows N = 8, but C's 16-byte tile row has no swizzle mode (a KeyError in
    the scheduler); it is now loaded unswizzled. A TMA-store epilogue stages through stmatrix.x4, which needs
    16 columns: refused by the parameters, not a LoweringError after scheduling."""
    from fuzz.matmul import MatmulCase, check_matmul_case
    from fusion_ir.schedulers import MatmulParams

    params = MatmulParams(tile=(64, 8, 64), stages=2, compute_warp_groups=1, tma_store=tma_store)
    case = MatmulCase(params=params, dtype=DataType.BFloat16, epilogue=epilogue, m=70, n=24, k=8, seed=0,
                      suggested=None, transpose_b=True)
    assert check_matmul_case(case) == ("refused" if tma_store else "matched")


def test_a_broadcast_read_twice_before_an_rfactored_reduction_is_not_a_persistent_buffer() -> None:
    """``sum(neg(x * w[None, :]) * w[None, :], 1)`` with a symbolic ``w``: the rfactored reduction's block and
    grid stages iterate what its partial keeps of the column axis and depend on it, and the persistent-buffer
    analysis took them for a later reader of the broadcast ``w`` (there is no broadcast of the reduction): the
    broadcast was kept whole per thread, a symbolic register buffer, a LoweringError."""
    from fusion_ir.persistent import unmappable_axes
    from fusion_ir.schedulers import schedule

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(3, 1000), dtype=DataType.Float)
        w = fusion.add_input(ndim=1, dtype=DataType.Float)
        t = ops.broadcast(w, [True, False])
        fusion.add_output(ops.sum(ops.mul(ops.neg(ops.mul(x, t)), t), [1]))
    params = schedule(fusion, sizes=[(3, 1000), (1000,)])
    assert params.scheduler == "reduction" and params.grid_splits > 1
    assert unmappable_axes(t, set(fusion.used_tensors())) == {}
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-2, 2, (3, 1000)).astype(np.float32), rng.uniform(-2, 2, 1000).astype(np.float32)]
    (out,) = simulate(fusion, inputs)
    expected = (-(inputs[0].astype(np.float64) * inputs[1]) * inputs[1]).sum(1)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("axis", [1, 0], ids=["inner", "outer"])
def test_an_output_inlined_into_a_reduction_beside_a_vectorized_cache_is_emitted_after_the_cache(axis: int) -> None:
    """``t = neg(x)`` an output and ``sum(t - w[None, :])``: emitted first (as an output), ``t`` opened the
    loop it shares with ``t - w`` before the cache of ``w`` (computed one loop out, its vector axis not inlined)
    was emitted, and the lowering could not share that loop (a LoweringError). What the consumer needs at a
    shallower position now comes before the output too."""
    from fusion_ir.schedulers import schedule

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(8, 64), dtype=DataType.Float)
        w = fusion.add_input(shape=(64,), dtype=DataType.Float)
        t = ops.neg(x)
        fusion.add_output(t)
        fusion.add_output(ops.sum(ops.sub(t, ops.broadcast(w, [True, False])), [axis]))
    assert schedule(fusion).scheduler == "reduction"
    rng = np.random.default_rng(0)
    inputs = [rng.uniform(-2, 2, (8, 64)).astype(np.float32), rng.uniform(-2, 2, 64).astype(np.float32)]
    neg, total = simulate(lower(fusion), inputs)
    x64, w64 = inputs[0].astype(np.float64), inputs[1].astype(np.float64)
    np.testing.assert_array_equal(neg, -inputs[0])
    np.testing.assert_allclose(total, (-x64 - w64).sum(axis), rtol=1e-5, atol=1e-5)


def test_an_output_two_ops_before_the_one_that_reads_a_cache_is_emitted_after_the_cache() -> None:
    """``t = x + 2`` an output, ``sum(maximum(float(t), w[None, :]), 0)``: the cache of ``w`` is read by a consumer of
    ``t``'s consumer, not by its consumer, so bringing only the consumers' needs forward still emitted it inside
    the loop ``t`` shares with them (found as a pointwise case of the scheduler fuzzer ending in a sum)."""
    from fuzz.schedulers import InputDef, SchedulerCase, check

    case = SchedulerCase((32, 64), (InputDef((0, 1), DataType.BFloat16, True), InputDef((1,), DataType.BFloat16, False)),
                         (("cast", DataType.Half), ("scalar", "add", 2.0), ("cast", DataType.Float),
                          ("binary", "maximum", 1), ("sum", 0)), also_output=1)
    assert check(case) == "reduction"
