"""One test per pass of what it guarantees, plus LoweringError cases."""

from dataclasses import replace

import pytest

import examples
from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, ScheduleError, inline_most, ops
from lowering import LoweringError, lower
from lowering import kernel_ir as k
from lowering.pipeline import PASS_NAMES


def _nodes(kernel, kind):
    return [n for n in k.walk(kernel.body) if isinstance(n, kind)]


def _pointwise(n_split: int = 128):
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2)
        b = fusion.add_input(ndim=2)
        t = ops.add(a, b)
        out = ops.exp(t)
        fusion.add_output(out)
    return fusion, t, out


def test_trace_keeps_every_pass_in_pipeline_order():
    traced = lower(examples.load("pointwise_2d").build(), trace=True)
    assert [r.name for r in traced.passes] == PASS_NAMES
    assert traced.after("indexing") is traced.passes[PASS_NAMES.index("indexing")].kernel
    with pytest.raises(KeyError, match="unknown pass"):
        traced.after("nope")


# ---- id_graph
def test_shared_axis_takes_consumer_binding():
    fusion, t, out = _pointwise()
    out.split(1, 128)
    t.compute_at(out, 2)
    out.axis(0).parallelize(ParallelType.BIDx)       # after compute_at: t's axis 0 is still Serial
    out.axis(2).parallelize(ParallelType.TIDx)
    kernel = lower(fusion)
    assert kernel.grid[0] == out.loop[0].extent
    # t's axis 0 took out's BIDx binding: no serial loop over i0 is left for it
    assert all(f.stop != out.loop[0].extent for f in _nodes(kernel, k.ForLoop))


def test_conflicting_bindings_on_a_shared_loop_are_a_lowering_error():
    fusion, t, out = _pointwise()
    out.split(1, 128)
    t.compute_at(out, 2)
    out.axis(0).parallelize(ParallelType.BIDx)
    with pytest.raises(Exception, match="conflicts"):
        t.axis(0).parallelize(ParallelType.BIDy)     # caught at schedule time ...
    t.loop[0].parallel_type = ParallelType.BIDy      # ... and at lowering when set behind the API's back
    with pytest.raises(LoweringError, match=r"conflicting parallel bindings.*BIDx.*BIDy|BIDy.*BIDx"):
        lower(fusion)


def test_producer_axes_that_do_not_map_are_a_lowering_error():
    fusion, t, out = _pointwise()
    out.split(1, 128)
    t.split(1, 64)                  # a different split than the consumer's
    t.inline_at(0)
    t.compute_at_pos = 2            # force an inconsistent state behind the API's back
    with pytest.raises(LoweringError, match="does not map to axis 1 of consumer"):
        lower(fusion)


# ---- loop_nest
def test_a_loop_that_cannot_be_shared_names_the_tensors_whose_loops_sit_between():
    """The TMA tile T5 opens the tile loop, then the broadcast T3 (with the cast T2 inside) opens its own
    loop over w at the same level, and T6, T5's consumer, can no longer share T5's."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        w = fusion.add_input(ndim=1, dtype=DataType.Half)
        out = ops.mul(x, ops.broadcast(ops.cast(w, DataType.Float), [True, False]))
        fusion.add_output(out)
    tile = x.cache_after(LoadStoreOpType.TMA)
    tile.cache_after()
    out.split(1, 128)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    tile.compute_at(out, 2)
    tile.axis(2).parallelize(ParallelType.Bulk)
    inline_most(fusion)
    with pytest.raises(LoweringError, match=r"T5 is computed at position 2 of T6, but the loop nest cannot share "
                                            r"loop iS\d+\{ceilDiv\(i1, 128\)\} between them \(the loops of T2, T3 sit "
                                            r"between them, emitted after T5 and before T6\)"):
        lower(fusion)


def test_thread_block_and_bulk_axes_are_not_loops():
    kernel = lower(examples.load("pointwise_2d").build())
    loops = _nodes(kernel, k.ForLoop)
    assert len(loops) == 1 and "ceilDiv(i1, 128)" in loops[0].label


def test_reduction_init_precedes_its_loop_and_block_reduce_follows():
    kernel = lower(examples.load("inner_reduction").build())
    body = list(kernel.body)
    kinds = [type(n).__name__ for n in body]
    loop_at = kinds.index("ForLoop")
    assert "Assign" in kinds[:loop_at]                       # the init
    assert "BlockReduce" in kinds[loop_at:]


def _serial_sum(dtype: DataType) -> Fusion:
    """A row sum of a ``dtype`` input into a ``dtype`` output, no thread-parallel reduction axis."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 300), dtype=dtype)
        out = ops.sum(x, [1])
        fusion.add_output(out)
    out.axis(0).parallelize(ParallelType.TIDx)
    inline_most(fusion)
    return fusion


@pytest.mark.parametrize("dtype", [DataType.Half, DataType.BFloat16])
def test_a_serial_16_bit_sum_accumulates_in_a_float_accumulator(dtype: DataType):
    kernel = lower(_serial_sum(dtype))
    out = kernel.outputs[0]
    acc = next(n.buffer for n in k.walk(kernel.body) if isinstance(n, k.Allocate) and n.buffer.name == "T1_acc")
    assert acc.dtype is DataType.Float and acc.memory is MemoryType.Local
    assigns = [n for n in k.walk(kernel.body) if isinstance(n, k.Assign)]
    assert [(n.buffer.name, n.reduce_op) for n in assigns] == [("T1_acc", None), ("T1_acc", "add"), (out.name, None)]
    final = assigns[-1].value
    assert isinstance(final, k.CastValue) and final.dtype is dtype and final.x.buffer is acc
    loop_at = next(i for i, n in enumerate(kernel.body) if isinstance(n, k.ForLoop))
    assert not any(isinstance(n, k.Assign) and n.buffer is out for n in k.walk((kernel.body[loop_at],)))
    assert not any(isinstance(n, k.Allocate) and n.buffer.name == "block_workspace" for n in k.walk(kernel.body))


def test_a_serial_float_sum_still_accumulates_in_its_tensor():
    kernel = lower(_serial_sum(DataType.Float))
    assert not any(isinstance(n, k.Allocate) and n.buffer.name.endswith("_acc") for n in k.walk(kernel.body))


def test_producer_shares_exactly_its_compute_at_loops():
    traced = lower(examples.load("nested_compute_at").build(), trace=True)
    nest = traced.after("loop_nest")
    top = [n for n in nest.body if isinstance(n, k.ForLoop)]
    assert len(top) == 2                                      # T1's own loop, then the shared one
    inner_ops = [n.tensor for n in k.walk(top[1].body) if isinstance(n, k.TensorOp)]
    assert inner_ops == ["T2", "T3", "T4"]


# ---- allocation
def test_local_excludes_thread_axes_and_shared_includes_them():
    kernel = lower(examples.load("nested_compute_at").build())
    allocs = {a.buffer.name: a.buffer for a in _nodes(kernel, k.Allocate)}
    assert allocs["T2"].memory is MemoryType.Local and allocs["T2"].size.const_value() == 1
    assert allocs["T1"].memory is MemoryType.Shared and "32" in str(allocs["T1"].size)


def test_symbolic_local_allocation_is_a_lowering_error():
    fusion, t, out = _pointwise()
    out.split(1, 128)
    t.compute_at(out, 1)            # t holds a whole row in registers
    with pytest.raises(LoweringError, match=r"T\d+ is in Local memory but its allocation .* symbolic size"):
        lower(fusion)


def test_global_intermediate_is_a_lowering_error():
    fusion, t, out = _pointwise()
    t.set_memory_type(MemoryType.Global)
    with pytest.raises(LoweringError, match="Global intermediate"):
        lower(fusion)


# ---- smem_reuse
def _four_op_chain() -> tuple[Fusion, tuple]:
    """``d = ((x + 1) * 2 + y) * 3`` of two [4, 64] inputs, with its intermediates a, b, c."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 64))
        y = fusion.add_input(shape=(4, 64))
        a = ops.add(x, 1.0)
        b = ops.mul(a, 2.0)
        c = ops.add(b, y)
        d = ops.mul(c, 3.0)
        fusion.add_output(d)
    return fusion, (a, b, c, d)


def test_dead_shared_buffers_share_memory_after_a_sync():
    fusion, (a, b, c, d) = _four_op_chain()
    for tv in (a, b, c, d):
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.TIDx)
    a.set_memory_type(MemoryType.Shared)
    c.set_memory_type(MemoryType.Shared)
    kernel = lower(fusion)
    allocs = {n.buffer.name: n for n in _nodes(kernel, k.Allocate)}
    a_alloc, c_alloc = allocs[f"T{a.name}"], allocs[f"T{c.name}"]
    assert a_alloc.offset == c_alloc.offset                 # c reuses a's memory
    assert kernel.smem_bytes.const_value() == 64 * 4
    syncs = [n for n in kernel.body if isinstance(n, k.BlockSync)]
    assert any("reuses" in s.reason for s in syncs)
    from runtime import simulate
    from tests.helpers import assert_matches, random_inputs

    inputs = random_inputs(fusion, [(4, 64), (4, 64)], seed=3)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


@pytest.mark.parametrize("apart", ["a", "c"])
def test_a_buffer_kept_apart_shares_no_memory_and_needs_no_reuse_barrier(apart: str):
    """``set_shared_reuse(False)`` on either buffer: c gets memory of its own, the block holds both, and the barrier
    before c's first write (c taking a's memory) is gone; the result still matches."""
    fusion, (a, b, c, d) = _four_op_chain()
    for tv in (a, b, c, d):
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.TIDx)
    a.set_memory_type(MemoryType.Shared)
    c.set_memory_type(MemoryType.Shared)
    {"a": a, "c": c}[apart].set_shared_reuse(False)
    kernel = lower(fusion)
    allocs = {n.buffer.name: n for n in _nodes(kernel, k.Allocate)}
    assert allocs[f"T{a.name}"].offset != allocs[f"T{c.name}"].offset
    assert kernel.smem_bytes.const_value() == 2 * 64 * 4
    assert not any("reuses" in s.reason for s in _nodes(kernel, k.BlockSync))
    from runtime import simulate
    from tests.helpers import assert_matches, random_inputs

    inputs = random_inputs(fusion, [(4, 64), (4, 64)], seed=3)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


def test_set_shared_reuse_refuses_what_is_not_a_shared_bool():
    fusion, (a, b, c, d) = _four_op_chain()
    with pytest.raises(ScheduleError, match=r"set_shared_reuse: T\d+ is in Local memory"):
        a.set_shared_reuse(False)
    a.set_memory_type(MemoryType.Shared)
    with pytest.raises(ScheduleError, match="must be a bool"):
        a.set_shared_reuse(0)
    before = fusion.state_fingerprint()
    a.set_shared_reuse(False)
    assert fusion.state_fingerprint() != before and "shared memory: its own" in a.transforms_string()


def test_the_smem_plan_keys_buffers_and_statements_by_the_objects_themselves():
    """Live intervals are found by the Buffer, the buffers a reuse takes over are Buffers, and the position
    of a statement is that of the very object: two equal statements at two places are two entries."""
    from lowering.analysis import smem

    fusion, (a, b, c, d) = _four_op_chain()
    for tv in (a, b, c, d):
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.TIDx)
    a.set_memory_type(MemoryType.Shared)
    c.set_memory_type(MemoryType.Shared)
    traced = lower(fusion, trace=True)
    plan = traced.analyses.smem
    a_buf, c_buf = traced.analyses.buffers.buffers[a], traced.analyses.buffers.buffers[c]
    assert plan.lives[c_buf].reuses == (a_buf,) and plan.reusers() == {c_buf: (a_buf,)}
    assert plan.lives[a_buf].end < plan.lives[c_buf].start
    kernel = traced.after("async_copies")
    first, last = k.BlockSync(reason="same"), k.BlockSync(reason="same")
    kernel = replace(kernel, body=(first, *kernel.body, last))
    ranges = smem.build(kernel, traced.analyses.buffers, traced.analyses.mma).ranges
    assert ranges[first] == (1, 1) and ranges[last][0] > 1
    assert k.BlockSync(reason="same") not in ranges


def test_shared_buffers_of_one_loop_body_share_memory_and_the_body_ends_with_a_barrier():
    """a dies before c is first written in every iteration, so c takes a's memory; the next iteration writes
    a again, so the body ends with a barrier (one: the syncs pass adds no second one there)."""
    fusion, (a, b, c, d) = _four_op_chain()
    for tv in (a, b, c, d):
        tv.axis(1).parallelize(ParallelType.TIDx)
    a.set_memory_type(MemoryType.Shared)
    c.set_memory_type(MemoryType.Shared)
    for tv in (a, b, c):
        tv.compute_at(d, 1)
    kernel = lower(fusion)
    (loop,) = [n for n in kernel.body if isinstance(n, k.ForLoop)]
    allocs = {n.buffer.name: n for n in loop.body if isinstance(n, k.Allocate)}
    assert allocs[f"T{a.name}"].offset == allocs[f"T{c.name}"].offset
    assert isinstance(loop.body[-1], k.BlockSync) and "takes back the memory" in loop.body[-1].reason
    assert not isinstance(loop.body[-2], k.BlockSync)
    from runtime import simulate
    from tests.helpers import assert_matches, random_inputs

    inputs = random_inputs(fusion, [(4, 64), (4, 64)], seed=4)
    assert_matches(fusion, inputs, simulate(kernel, inputs))


# ---- syncs
def test_raw_sync_between_shared_writer_and_reader():
    kernel = lower(examples.load("smem_staging").build())
    kinds = [type(n).__name__ for n in kernel.body]
    loops = [i for i, kind in enumerate(kinds) if kind == "ForLoop"]
    assert kinds[loops[0] + 1] == "BlockSync"
    assert "RAW" in kernel.body[loops[0] + 1].reason


def test_war_sync_at_end_of_loop_that_rewrites_shared_buffer():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        s = ops.set(x)
        out = ops.mul(s, 2.0)
        fusion.add_output(out)
    out.split(1, 32)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    s.compute_at(out, 2)
    s.set_memory_type(MemoryType.Shared)
    s.split(2, 32, inner_split=False)        # written by one thread, read by all
    kernel = lower(fusion)
    loop = _nodes(kernel, k.ForLoop)[0]
    assert isinstance(loop.body[-1], k.BlockSync) and "WAR" in loop.body[-1].reason


def test_a_tma_store_reader_is_a_field_of_the_hazard_not_a_prefix_of_its_reason():
    """The fence before a TMA store's barrier comes from the hazard's ``async_reader`` flag; a reason is text
    and is printed as it is, whatever it starts with."""
    from lowering.passes.syncs import _apply, _Hazard

    body = (k.Comment("write"), k.Comment("read"))
    text = _Hazard(1, "async: a reason that starts like a flag")
    assert _apply(body, (), {(): {text}}) == (body[0], k.BlockSync(reason=text.reason), body[1])
    store = _Hazard(1, "RAW: T3 written, then read by a TMA store", async_reader=True)
    assert _apply(body, (), {(): {store}}) == (body[0], k.FenceAsyncProxy(), k.BlockSync(reason=store.reason),
                                                body[1])


def test_one_barrier_for_a_plain_and_a_tma_store_reader_keeps_the_fence():
    """Two hazards before one statement share a barrier (the first reason in order names it); when one of the
    readers is a TMA store, the writers still fence their writes to the async proxy before it."""
    from lowering.passes.syncs import _apply, _Hazard

    body = (k.Comment("write"), k.Comment("read"))
    plain = _Hazard(1, "RAW: T2 written, then read")
    store = _Hazard(1, "RAW: T3 written, then read by a TMA store", async_reader=True)
    assert _apply(body, (), {(): {plain, store}}) == (body[0], k.FenceAsyncProxy(), k.BlockSync(reason=plain.reason),
                                                      body[1])


# ---- indexing
def test_no_tensor_op_survives_and_non_divisible_split_is_predicated():
    kernel = lower(examples.load("pointwise_1d").build())
    assert not _nodes(kernel, k.TensorOp)
    conds = [str(n.cond) for n in _nodes(kernel, k.IfThenElse)]
    assert any("< i0" in c for c in conds)


def test_divisible_constant_split_has_no_predicate():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(1024,))
        out = ops.neg(x)
        fusion.add_output(out)
    out.split(0, 128)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    kernel = lower(fusion)
    assert not _nodes(kernel, k.IfThenElse)


def test_vectorized_copy_becomes_one_vector_access():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1)
        out = ops.add(x, 1.0)
        fusion.add_output(out)
    cache = x.cache_after()
    out.split(0, 4)
    out.split(0, 128)
    from fusion_ir import transform_like, parallelize_like

    transform_like(out)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    parallelize_like(out)
    cache.axis(2).parallelize(ParallelType.Vectorize)
    inline_most(fusion)
    kernel = lower(fusion)
    vec = [a for a in _nodes(kernel, k.Assign) if a.vector == 4]
    assert len(vec) == 1 and vec[0].buffer.name == f"T{cache.name}"
    assert any("multiple of 4" in c.message for c in kernel.checks)


# ---- launch
def test_launch_dims_and_extent_checks():
    fusion, t, out = _pointwise()
    out.split(1, 128)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(2).parallelize(ParallelType.TIDx)
    t.transform_like(out)
    inline_most(fusion)
    kernel = lower(fusion)
    assert str(kernel.grid[0]) == "i0" and kernel.block[0].const_value() == 128
    assert any("equal extents" in c.message for c in kernel.checks)


def test_lower_rejects_non_fusion_and_empty_fusion():
    with pytest.raises(LoweringError, match="expected a Fusion"):
        lower("nope")
    with pytest.raises(LoweringError, match="no outputs"):
        lower(Fusion())


def test_int32_fusion_lowers():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Int32)
        out = ops.mul(x, 3)
        fusion.add_output(out)
    out.split(0, 64)
    out.axis(1).parallelize(ParallelType.TIDx)
    kernel = lower(fusion)
    assert kernel.outputs[0].dtype is DataType.Int32


def test_a_non_divisible_split_of_an_inner_part_predicates_that_part():
    """[i0/8, 8] then 8 split by 3: the 8-axis index runs to 8, which root predicates alone would
    send to the next row of 8; the inner part gets its own predicate, outer parts never do."""
    from lowering.index_math import axes_needing_predicate

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.neg(x)
        fusion.add_output(out)
    out.split(0, 8)
    out.split(1, 3)                                   # [ceilDiv(i0, 8), ceilDiv(8, 3) = 3, 3]
    inner8 = out.loop[1].definition.input
    assert axes_needing_predicate(out) == {inner8}
    conds = [str(n.cond) for n in k.walk(lower(fusion).body) if isinstance(n, k.IfThenElse)]
    assert any("< 8" in c for c in conds)
    out2 = Fusion()
    with out2:
        y = out2.add_input(ndim=1, dtype=DataType.Float)
        z = ops.neg(y)
        out2.add_output(z)
    z.split(0, 8)
    z.split(0, 3)                                     # outer part split: the root predicate suffices
    assert axes_needing_predicate(z) == set()
