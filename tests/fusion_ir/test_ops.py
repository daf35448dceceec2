"""Ops that define tensors (fusion_ir/ops.py)."""

import pytest

from fusion_ir import (
    BinaryOp,
    BroadcastOp,
    CastOp,
    DataType,
    Fusion,
    IterType,
    LoadStoreOp,
    MemoryType,
    MmaOp,
    ReductionOp,
    ScheduleError,
    UnaryOp,
    ops,
)
from fusion_ir.ops import BINARY_OPS, UNARY_OPS


def iter_types(tv):
    return [i.iter_type for i in tv.logical]


IT, R, B = IterType.Iteration, IterType.Reduction, IterType.Broadcast


@pytest.mark.parametrize("name", UNARY_OPS)
def test_unary_ops(name):
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2, dtype=DataType.Half)
        t1 = getattr(ops, name)(t0)
    assert isinstance(t1.definition, UnaryOp) and t1.definition.op == name
    assert t1.definition.inputs == [t0]
    assert t1.dtype is DataType.Half and t1.memory_type is MemoryType.Local
    assert [str(i.extent) for i in t1.root] == ["i0", "i1"]
    assert not set(t1.root) & set(t0.root)          # a fresh domain, mapped through the expression


def test_unary_math_on_ints_promotes_to_float():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=1, dtype=DataType.Int32)
        assert ops.exp(t0).dtype is DataType.Float
        assert ops.neg(t0).dtype is DataType.Int32
        assert ops.abs(t0).dtype is DataType.Int32


@pytest.mark.parametrize("name", BINARY_OPS)
def test_binary_ops_with_tensors_and_scalars(name):
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = fusion.add_input(ndim=2)
        fn = getattr(ops, name)
        t2 = fn(t0, t1)
        t3 = fn(t0, 2.0)
        t4 = fn(3, t1)
    for tv, ins in ((t2, [t0, t1]), (t3, [t0, 2.0]), (t4, [3, t1])):
        assert isinstance(tv.definition, BinaryOp) and tv.definition.op == name
        assert tv.definition.inputs == ins
        assert tv.dtype is DataType.Float
    assert t2.producers() == [t0, t1] and t3.producers() == [t0]
    # Symbolic extents of both operands are recorded as equal for the runtime to check.
    assert any("axis 0 of input T0 and axis 0 of input T1" in why for why in (c.message for c in fusion.extent_constraints))


def test_binary_dtype_promotion():
    fusion = Fusion()
    with fusion:
        h = fusion.add_input(ndim=1, dtype=DataType.Half)
        bf = fusion.add_input(ndim=1, dtype=DataType.BFloat16)
        i = fusion.add_input(ndim=1, dtype=DataType.Int32)
        assert ops.add(h, h).dtype is DataType.Half
        assert ops.add(h, bf).dtype is DataType.Float
        assert ops.add(i, h).dtype is DataType.Half
        assert ops.add(i, 1).dtype is DataType.Int32
        assert ops.div(i, i).dtype is DataType.Float
        assert ops.mul(i, 1.5).dtype is DataType.Float


def test_broadcast_and_numpy_style_binary():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        b = fusion.add_input(ndim=1)
        bb = ops.broadcast(b, [True, False])
        y = ops.add(bb, x)
    assert isinstance(bb.definition, BroadcastOp) and bb.definition.is_broadcast_dims == (True, False)
    assert iter_types(bb) == [B, IT]
    assert str(bb.root[0].extent) == "1" and str(bb.root[1].extent) == "i2"
    # The broadcast axis resolves to the other operand's extent.
    assert iter_types(y) == [IT, IT] and [str(i.extent) for i in y.root] == ["i0", "i2"]
    assert bb.definition.root_map(b) == {bb.root[1]: b.root[0]}


def test_cast():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=1)
        t1 = ops.cast(t0, DataType.BFloat16)
    assert isinstance(t1.definition, CastOp) and t1.dtype is DataType.BFloat16


def test_set_is_a_load_store():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(4, 8))
        t1 = ops.set(t0)
    assert isinstance(t1.definition, LoadStoreOp)
    assert [i.extent.const_value() for i in t1.root] == [4, 8]


@pytest.mark.parametrize("op, init", [("sum", 0.0), ("max", float("-inf"))])
def test_reductions(op, init):
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=3)
        t1 = getattr(ops, op)(t0, [0, -1])
    d = t1.definition
    assert isinstance(d, ReductionOp) and d.op == op and d.axes == (0, 2) and d.init == init
    assert iter_types(t1) == [R, IT, R]
    assert t1.has_reduction and [str(i.extent) for i in t1.shape_ids] == ["i1"]


def test_reduction_of_a_reduction_drops_reduced_axes():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=3)
        t1 = ops.sum(t0, 1)
        t2 = ops.max(t1, 0)
    assert iter_types(t2) == [R, IT]
    assert [str(i.extent) for i in t2.root] == ["i0", "i2"]


def test_matmul_has_m_n_k_domains():
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(64, 32), dtype=DataType.Half)
        b = fusion.add_input(shape=(32, 128), dtype=DataType.Half)
        c = ops.matmul(a, b)
    assert isinstance(c.definition, MmaOp) and c.dtype is DataType.Float
    assert [i.extent.const_value() for i in c.root] == [64, 128, 32]
    assert iter_types(c) == [IT, IT, R]
    m, n, k = c.root
    assert c.definition.root_map(a) == {m: a.logical[0], k: a.logical[1]}
    assert c.definition.root_map(b) == {k: b.logical[0], n: b.logical[1]}


def test_batched_matmul_maps_the_batch_axes():
    """``[B, M, K] @ [B, K, N] -> [B, M, N, rK]``; a 2-D operand is broadcast over the batch (no batch axis to map)."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(3, 64, 32), dtype=DataType.Half)
        b = fusion.add_input(shape=(3, 32, 128), dtype=DataType.Half)
        w = fusion.add_input(shape=(32, 128), dtype=DataType.Half)
        c = ops.matmul(a, b)
        d = ops.matmul(a, w)
    assert [i.extent.const_value() for i in c.root] == [3, 64, 128, 32]
    assert iter_types(c) == [IT, IT, IT, R]
    bb, m, n, k = c.root
    assert c.definition.root_map(a) == {bb: a.logical[0], m: a.logical[1], k: a.logical[2]}
    assert c.definition.root_map(b) == {bb: b.logical[0], k: b.logical[1], n: b.logical[2]}
    *_, nd, kd = d.root
    assert [i.extent.const_value() for i in d.root] == [3, 64, 128, 32]
    assert d.definition.root_map(w) == {kd: w.logical[0], nd: w.logical[1]}


def test_batched_matmul_batch_axes_align_from_the_right():
    """torch.matmul's rule: [2, 3, M, K] @ [3, K, N] -> [2, 3, M, N]; the reference evaluator is np.matmul."""
    import numpy as np

    from fusion_ir.reference import evaluate

    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(2, 3, 8, 16), dtype=DataType.Float)
        b = fusion.add_input(shape=(3, 16, 24), dtype=DataType.Float)
        c = ops.matmul(a, b)
        fusion.add_output(c)
    assert c.definition.root_map(b)[c.root[1]] is b.logical[0]
    assert c.root[0] not in c.definition.root_map(b)
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 3, 8, 16)), rng.standard_normal((3, 16, 24))
    (out,) = evaluate(fusion, [x.astype(np.float32), y.astype(np.float32)])
    assert out.shape == (2, 3, 8, 24)
    assert np.allclose(out, np.matmul(x, y), rtol=1e-4, atol=1e-4)


def test_batched_matmul_refuses_a_size_1_batch_axis_against_a_larger_one():
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(shape=(1, 64, 32), dtype=DataType.Half)
        b = fusion.add_input(shape=(4, 32, 64), dtype=DataType.Half)
        with pytest.raises(ScheduleError, match=r"matmul: batch axis 0 of T0 \(iS0\{1\}\) and batch axis 0 of T1 "
                                                r"\(iS3\{4\}\) differ and one is of size 1"):
            ops.matmul(a, b)


def test_batched_matmul_records_unequal_batch_extents():
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=3, dtype=DataType.Half)
        b = fusion.add_input(ndim=3, dtype=DataType.Half)
        ops.matmul(a, b)
    messages = [c.message for c in fusion.extent_constraints]
    assert "matmul: batch axis 0 of T0 and batch axis 0 of T1 must have equal extents" in messages


@pytest.mark.parametrize("build, fragment", [
    (lambda f, x, y: ops.add(x, ops.sum(y, 0)), r"add: T0 has rank 2 and T2 has rank 1"),
    (lambda f, x, y: ops.sum(x, 2), r"sum: axis 2 is out of range for T0 of rank 2"),
    (lambda f, x, y: ops.sum(x, [0, 0]), r"sum: axes \[0, 0\] must be a non-empty list of distinct axes"),
    (lambda f, x, y: ops.broadcast(x, [True, False]), r"broadcast: T0 has rank 2 .* keeps 1 axes"),
    (lambda f, x, y: ops.add(1, 2), r"add: at least one operand must be a TensorView"),
    (lambda f, x, y: ops.add(x, "a"), r"scalar operand 'a' must be an int or a float"),
    (lambda f, x, y: ops.cast(x, "float"), r"cast: 'float' is not a DataType"),
    (lambda f, x, y: ops.exp(3.0), r"exp: expected a TensorView, got float"),
    (lambda f, x, y: ops.matmul(x, ops.sum(y, 0)), r"matmul: T0 \(rank 2\) and T2 \(rank 1\) must both have at least 2 axes"),
    (lambda f, x, y: f.add_output(x), r"add_output: T0 is a fusion input"),
    (lambda f, x, y: f.add_input(ndim=2, shape=(2, 2)), r"add_input: give exactly one of ndim= or shape="),
    (lambda f, x, y: f.add_input(shape=(2, 0)), r"add_input: shape \(2, 0\) must hold positive integers"),
])
def test_op_errors(build, fragment):
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        y = fusion.add_input(ndim=2)
        with pytest.raises(ScheduleError, match=fragment):
            build(fusion, x, y)


def test_ops_need_an_active_fusion_of_their_operands():
    f1, f2 = Fusion(), Fusion()
    with f1:
        x = f1.add_input(ndim=1)
    with pytest.raises(ScheduleError, match="no active fusion"):
        ops.exp(x)
    with f2:
        with pytest.raises(ScheduleError, match="T0 belongs to another fusion"):
            ops.exp(x)
