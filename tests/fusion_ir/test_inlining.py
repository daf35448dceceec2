"""inline_at / inline_most and transform_like / parallelize_like over a DAG (fusion_ir/inlining.py)."""

import pytest

import fusion_ir
from fusion_ir import Fusion, LoadStoreOpType, ParallelType, ScheduleError, ops
from fusion_ir.replay import loop_map

BIDx, TIDx, Serial = ParallelType.BIDx, ParallelType.TIDx, ParallelType.Serial


def extents(tv):
    return [str(i.extent) for i in tv.loop]


def bindings(tv):
    return [i.parallel_type for i in tv.loop]


def pointwise():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = fusion.add_input(ndim=2)
        t2 = ops.add(t0, t1)
        t3 = ops.exp(t2)
        fusion.add_output(t3)
    return fusion, t0, t1, t2, t3


def broadcast_dag():
    """z = relu(x * broadcast(b, [True, False]))."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        b = fusion.add_input(ndim=1)
        bb = ops.broadcast(b, [True, False])
        y = ops.mul(x, bb)
        z = ops.relu(y)
        fusion.add_output(z)
    return fusion, x, b, bb, y, z


def reduction_dag():
    """o = sum(exp(x), 1) * 2."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        e = ops.exp(x)
        r = ops.sum(e, [1])
        o = ops.mul(r, 2.0)
        fusion.add_output(o)
    return fusion, x, e, r, o


# ---- transform_like / parallelize_like ------------------------------------
def test_transform_and_parallelize_like_pointwise():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.merge(0).split(0, 128)
    t3.axis(0).parallelize(BIDx)
    t3.axis(1).parallelize(TIDx)
    fusion_ir.transform_like(t3)
    fusion_ir.parallelize_like(t3)
    assert extents(t2) == extents(t3) == ["ceilDiv(i0 * i1, 128)", "128"]
    assert bindings(t2) == [BIDx, TIDx]
    assert t0.transforms == [] and t1.transforms == []          # inputs are left alone by default
    assert [loop_map(t2, t3)[i] for i in t2.loop] == t3.loop


def test_transform_like_broadcast_dag():
    fusion, x, b, bb, y, z = broadcast_dag()
    z.merge(0).split(0, 128)
    z.axis(0).parallelize(BIDx)
    z.axis(1).parallelize(TIDx)
    fusion_ir.transform_like(z)
    fusion_ir.parallelize_like(z)
    assert extents(y) == ["ceilDiv(i0 * i1, 128)", "128"]
    # The broadcast axis (extent 1) merges away: 1 * i2 folds to i2.
    assert extents(bb) == ["ceilDiv(i2, 128)", "128"]
    assert bindings(bb) == bindings(y) == [BIDx, TIDx]
    fusion_ir.inline_most(fusion)
    assert (bb.compute_at_pos, y.compute_at_pos) == (2, 2)


def test_transform_like_reduction_dag():
    fusion, x, e, r, o = reduction_dag()
    r.split(1, 32)
    r.axis(0).parallelize(BIDx)
    r.axis(2).parallelize(TIDx)
    fusion_ir.transform_like(r)
    fusion_ir.parallelize_like(r)
    assert extents(e) == ["i0", "ceilDiv(i1, 32)", "32"]
    assert bindings(e) == [BIDx, Serial, TIDx]
    assert extents(o) == ["i0"] and bindings(o) == [BIDx]   # the consumer has no reduction axis to split
    assert e.loop[1].is_reduction is False and r.loop[1].is_reduction


def test_transform_like_of_one_tensor_keeps_reference_order():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.split(1, 4).reorder({2: 0})
    t2.transform_like(t3)
    assert extents(t2) == ["4", "i0", "ceilDiv(i1, 4)"]


def test_parallelize_like_restricted_types():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.axis(0).parallelize(BIDx)
    t3.axis(1).parallelize(TIDx)
    fusion_ir.parallelize_like(t3, [t2], types=[TIDx])
    assert bindings(t2) == [Serial, TIDx]


# ---- inline_at / inline_most ----------------------------------------------
def test_inline_most_pointwise_inlines_fully():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.split(1, 128)
    fusion_ir.transform_like(t3)
    fusion_ir.inline_most(fusion)
    assert t2.compute_at_pos == 3 and t3.max_producer_pos == 3
    assert t0.compute_at_pos == 0 and t3.compute_at_pos == 0


def test_inline_most_stops_at_reduction_axis():
    fusion, x, e, r, o = reduction_dag()
    r.split(1, 32)
    fusion_ir.transform_like(r)
    fusion_ir.inline_most(fusion)
    assert e.compute_at_pos == 3            # inlined into the reduction loops
    assert r.compute_at_pos == 1            # its own reduction axes stay outside


def test_inline_most_stops_at_vectorize_and_bulk():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        c = ops.set(x)
        y = ops.exp(c)
        fusion.add_output(y)
    y.split(1, 4)
    fusion_ir.transform_like(y)
    c.axis(2).parallelize(ParallelType.Vectorize)
    fusion_ir.inline_most(fusion)
    assert c.compute_at_pos == 2

    fusion2 = Fusion()
    with fusion2:
        a = fusion2.add_input(ndim=2)
        b = ops.exp(a)
        fusion2.add_output(b)
    tma = a.cache_after(LoadStoreOpType.TMA)
    b.split(1, 64)
    fusion_ir.transform_like(b)
    tma.axis(2).parallelize(ParallelType.Bulk)
    fusion_ir.inline_most(fusion2)
    assert tma.compute_at_pos == 2


def test_inline_most_stops_where_consumer_axes_differ():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.split(1, 128)                          # t2 is not transformed like t3
    fusion_ir.inline_most(fusion)
    assert t2.compute_at_pos == 1


def test_inline_most_never_moves_a_tensor_out():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        m = ops.max(x, [1])
        bm = ops.broadcast(m, [False, True])
        y = ops.sub(x, bm)
        fusion.add_output(y)
    m.compute_at(y, 1)
    fusion_ir.inline_most(fusion)
    assert m.compute_at_pos == 1 and bm.compute_at_pos >= 1


def test_inline_most_of_given_tensors_only():
    fusion, t0, t1, t2, t3 = pointwise()
    c0 = t0.cache_after()
    fusion_ir.inline_most(fusion, [c0])
    assert c0.compute_at_pos == 2 and t2.compute_at_pos == 0


def test_inline_at_positions_and_propagated_bindings():
    fusion, t0, t1, t2, t3 = pointwise()
    t3.split(1, 128)
    t3.axis(0).parallelize(BIDx)
    t3.axis(2).parallelize(TIDx)
    t2.transform_like(t3)
    assert t2.max_inline_position() == 3
    t2.inline_at(-2)
    assert t2.compute_at_pos == 2 and bindings(t2) == [BIDx, Serial, Serial]
    t2.inline_at(3)
    assert bindings(t2) == [BIDx, Serial, TIDx]
    t2.inline_at(0)                     # an explicit inline_at may lower the position
    assert t2.compute_at_pos == 0


def test_inline_at_past_the_limit_names_the_reason():
    fusion, x, e, r, o = reduction_dag()
    with pytest.raises(ScheduleError, match=r"T2: inline_at: position 2 .*axis 1 \(rS5\{i1\}\) is a reduction axis"):
        r.inline_at(2)


# ---- persistent buffers (fusion_ir/persistent.py) -------------------------
def softmax_dag():
    """out = e / broadcast(sum(e)), e = exp(x - broadcast(max(x))); every tensor split by 128."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        e = ops.exp(ops.sub(x, ops.broadcast(ops.max(x, [1]), [False, True])))
        s = ops.sum(e, [1])
        out = ops.div(e, ops.broadcast(s, [False, True]))
        fusion.add_output(out)
    for tv in fusion.used_tensors():
        if not tv.is_input:
            tv.split(1, 128)
            tv.axis(0).parallelize(BIDx)
            tv.axis(2).parallelize(TIDx)
    return fusion, x, e, s, out


def test_inline_most_stops_a_persistent_buffer_before_its_reduced_axis():
    from fusion_ir.persistent import unmappable_axes

    fusion, _, e, s, out = softmax_dag()
    (why,) = unmappable_axes(e).values()
    assert why.reduction is s and why.reader is out
    fusion_ir.inline_most(fusion)
    assert e.compute_at_pos == 1
    assert all(tv.compute_at_pos == tv.max_inline_position() for tv in fusion.used_tensors()
               if not tv.is_input and tv.consumers())


def test_inline_at_past_a_persistent_axis_names_the_reduction_and_the_reader():
    _, _, e, s, out = softmax_dag()
    with pytest.raises(ScheduleError, match=rf"past the largest legal position 1 .*T{s.name} reduces .* before "
                                            rf"T{out.name} reads it again.*persistent buffer"):
        e.inline_at(3)
