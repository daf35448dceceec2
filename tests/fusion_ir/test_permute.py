"""ops.permute and ops.transpose: a copy whose output root maps to the input's logical axes permuted (nvFuser's
``Set.Permute``), in the IR, the printer, the reference, the scheduling API (``set_load_type``) and, scheduled,
in the simulator against numpy at sizes no split divides."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, LoadStoreOpType, MemoryType, ParallelType, ScheduleError, SmemSwizzle, ops
from fusion_ir.exprs import LoadStoreOp, load_kind
from fusion_ir.reference import evaluate
from lowering import lower
from runtime import simulate
from tests.helpers import assert_matches, random_inputs


def _schedule_pointwise(fusion: Fusion, block: int = 32) -> None:
    """The output flattened and split over blocks of threads; every other tensor transformed like it and inlined."""
    from fusion_ir import inline_most

    (out,) = fusion.outputs
    while out.ndim > 1:
        out.merge(0, 1)
    out.split(0, block)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    for tv in fusion.used_tensors():
        if not tv.is_input and tv is not out:
            tv.transform_like(out)
            tv.parallelize_like(out)
    inline_most(fusion)


# ------------------------------------------------------------------ the IR
def test_transpose_swaps_two_axes_and_maps_the_output_root_to_them() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(3, 5, 7))
        t = ops.transpose(x, 0, -1)
    assert [i.extent.const_value() for i in t.root] == [7, 5, 3]
    d = t.definition
    assert isinstance(d, LoadStoreOp) and d.permutation == (2, 1, 0) and d.op_type is LoadStoreOpType.Set
    assert d.root_map(x) == {t.root[0]: x.logical[2], t.root[1]: x.logical[1], t.root[2]: x.logical[0]}


def test_permute_takes_negative_dims_and_keeps_broadcast_axes() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 6))
        b = ops.broadcast(x, [False, True, False])       # [4, b1, 6]
        p = ops.permute(b, [-1, 0, 1])                   # [6, 4, b1]
    assert [i.extent.const_value() for i in p.root] == [6, 4, 1]
    assert p.root[2].is_broadcast and not p.root[0].is_broadcast
    assert p.definition.permutation == (2, 0, 1)


def test_permute_of_a_reduction_result_permutes_its_materialized_axes() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(3, 5, 7))
        s = ops.sum(x, [1])                              # [3, r5, 7]
        p = ops.transpose(s, 0, 1)                       # [7, 3]
    assert [i.extent.const_value() for i in p.root] == [7, 3]
    assert p.definition.root_map(s) == {p.root[0]: s.logical[2], p.root[1]: s.logical[0]}


@pytest.mark.parametrize("call,message", [
    (lambda x: ops.transpose(x, 0, 2), (r"transpose: dim1 2 is not an axis of T0 of rank 2; an axis is an int in "
                                        r"\[-2, 2\)")),
    (lambda x: ops.transpose(x, -3, 0), r"transpose: dim0 -3 is not an axis of T0 of rank 2"),
    (lambda x: ops.transpose(x, True, 0), r"transpose: dim0 True is not an axis of T0"),
    (lambda x: ops.permute(x, [0, 0]), r"permute: dims \[0, 0\] must name each of the 2 axes of T0 exactly once"),
    (lambda x: ops.permute(x, [1, -1]), r"permute: dims \[1, -1\] must name each of the 2 axes of T0 exactly once"),
    (lambda x: ops.permute(x, [1]), r"permute: dims \[1\] must name each of the 2 axes of T0 exactly once"),
    (lambda x: ops.permute(x, [0, 1, 2]), r"permute: dims\[2\] 2 is not an axis of T0 of rank 2"),
    (lambda x: ops.permute(x, [0, 1.0]), r"permute: dims\[1\] 1.0 is not an axis of T0"),
    (lambda x: ops.permute(x, 1), r"permute: dims 1 for T0 must be a sequence of 2 axes"),
    (lambda x: ops.transpose(3, 0, 1), r"transpose: expected a TensorView, got int"),
])
def test_bad_dims_name_the_tensor_the_argument_and_the_rule(call, message: str) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 6))
        before = len(fusion.exprs)
        with pytest.raises(ScheduleError, match=message):
            call(x)
    assert len(fusion.exprs) == before


def test_the_printer_shows_a_permute_and_its_dims() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 6))
        fusion.add_output(ops.permute(x, [1, 0]))
    assert "T1_g_float[iS2{6}, iS3{4}]\n   = Set.Permute( T0_g_float[iS0{4}, iS1{6}], dims = {1, 0} );" in str(fusion)


def test_the_reference_transposes() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(2, 3, 4))
        y = fusion.add_input(shape=(4, 2, 3))
        fusion.add_output(ops.sub(ops.permute(x, [2, 0, 1]), y))
    xs, ys = np.arange(24.0).reshape(2, 3, 4), np.ones((4, 2, 3))
    (out,) = evaluate(fusion, [xs, ys])
    np.testing.assert_array_equal(out, np.transpose(xs, (2, 0, 1)) - 1)


def test_shape_mismatches_name_the_input_axis_through_the_permute() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4, 6))
        y = fusion.add_input(shape=(4, 6))
        ops.add(ops.transpose(x, 0, 1), y)
    assert any("axis 1 of input T0 (axis 0 of T2)" in c.message for c in fusion.extent_constraints)


# ------------------------------------------------------------------ set_load_type
def _transposed_input() -> tuple[Fusion, object, object]:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        t = ops.transpose(x, 0, 1)
        out = ops.mul(t, 2.0)
        fusion.add_output(out)
    return fusion, t, out


def test_set_load_type_makes_the_permute_a_tma_load_of_its_input() -> None:
    fusion, t, _ = _transposed_input()
    t.set_load_type(LoadStoreOpType.TMA, swizzle=SmemSwizzle.B32)
    assert load_kind(t) is LoadStoreOpType.TMA and t.memory_type is MemoryType.Shared
    assert t.definition.permutation == (1, 0) and t.definition in fusion.exprs and t.swizzle is SmemSwizzle.B32
    assert "= Set.TMA.Permute( T0_g_float[iS0{i0}, iS1{i1}], dims = {1, 0} );" in str(fusion)


@pytest.mark.parametrize("case,message", [
    ("stmatrix", r"set_load_type: StMatrix for T1; a copy becomes a TMA or cp.async load only"),
    ("not_a_copy", r"set_load_type: T2 is defined by a binary op; only a tensor defined by a plain copy"),
    ("input", r"set_load_type: T0 is a fusion input"),
    ("local_source", r"set_load_type: a TMA load reads global memory, but T3 copies T1, which is in Local memory"),
    ("scheduled", r"set_load_type: T1 is already scheduled"),
    ("twice", r"set_load_type: T1 is defined by a TMA copy"),
])
def test_set_load_type_refuses(case: str, message: str) -> None:
    fusion, t, out = _transposed_input()
    x = fusion.inputs[0]
    if case == "stmatrix":
        call = lambda: t.set_load_type(LoadStoreOpType.StMatrix)
    elif case == "not_a_copy":
        call = lambda: out.set_load_type(LoadStoreOpType.TMA)
    elif case == "input":
        call = lambda: x.set_load_type(LoadStoreOpType.TMA)
    elif case == "local_source":
        with fusion:
            again = ops.transpose(t, 0, 1)
        call = lambda: again.set_load_type(LoadStoreOpType.TMA)
    elif case == "scheduled":
        t.split(0, 8)
        call = lambda: t.set_load_type(LoadStoreOpType.TMA)
    else:
        t.set_load_type(LoadStoreOpType.TMA)
        call = lambda: t.set_load_type(LoadStoreOpType.TMA)
    before = fusion.state_fingerprint()
    with pytest.raises(ScheduleError, match=message):
        call()
    assert fusion.state_fingerprint() == before


def test_the_swizzle_row_of_a_transposed_tma_load_is_the_inputs_innermost_axis() -> None:
    """x is [I, J]: a box row runs along J, which is axis 0 of transpose(x). A 16 x 8 box (I x J) of floats has
    32-byte rows: a 32-byte swizzle fits, a 64-byte one does not."""
    _, t, out = _transposed_input()
    t.set_load_type(LoadStoreOpType.TMA)
    out.split(0, 8).split(2, 16).reorder({1: 2, 2: 1})     # [J/8, I/16, 8, 16]
    t.compute_at(out, 2)
    t.reorder({2: 3, 3: 2})                                 # [.., 16 (I), 8 (J)]: the input's order
    t.axis(2).parallelize(ParallelType.Bulk)
    t.axis(3).parallelize(ParallelType.Bulk)
    t.set_swizzle(SmemSwizzle.B32)
    with pytest.raises(ScheduleError, match=r"makes a TMA box row of 8 x float = 32 bytes, but a row of T1's B64 "
                                            r"swizzle is exactly 64 bytes"):
        t.set_swizzle(SmemSwizzle.B64)


# ------------------------------------------------------------------ scheduled, in the simulator
def test_pointwise_transpose_matches_numpy() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        y = fusion.add_input(ndim=2)
        fusion.add_output(ops.exp(ops.add(ops.transpose(x, 0, 1), y)))
    _schedule_pointwise(fusion)
    inputs = random_inputs(fusion, [(37, 19), (19, 37)], seed=1)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


def test_permutes_of_three_axes_match_numpy() -> None:
    """Two permutes in a row (one undoing the other but for a swap) and a broadcast operand."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=3)
        w = fusion.add_input(ndim=1)
        p = ops.permute(ops.permute(x, [2, 0, 1]), [0, 2, 1])     # x [A, B, C] -> [C, A, B] -> [C, B, A]
        fusion.add_output(ops.mul(p, ops.broadcast(w, [False, True, True])))
    _schedule_pointwise(fusion, block=64)
    inputs = random_inputs(fusion, [(5, 7, 9), (9,)], seed=2)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


def test_a_sum_over_a_transposed_axis_matches_numpy() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(13, 29))
        t = ops.transpose(x, 0, 1)
        fusion.add_output(ops.relu(ops.sum(t, [1])))                      # the sum over x's rows
    out = fusion.outputs[0]
    s = out.producers()[0]
    for tv in (s, out):
        tv.split(0, 8)
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.TIDx)
    s.compute_at(out, 2)
    t.compute_at(s, 2)                                                    # one row of t per thread
    inputs = random_inputs(fusion, [(13, 29)], seed=3)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


def test_a_transpose_of_a_reduction_result_matches_numpy() -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(7, 11, 5))
        s = ops.sum(x, [1])                                        # [A, rB, C], computed whole in registers
        fusion.add_output(ops.neg(ops.transpose(s, 0, 1)))         # [C, A]
    out = fusion.outputs[0]
    out.merge(0, 1).split(0, 32)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    inputs = random_inputs(fusion, [(7, 11, 5)], seed=4)
    assert_matches(fusion, inputs, simulate(lower(fusion), inputs))


@pytest.mark.parametrize("dtype,shape", [(DataType.Float, (37, 44)), (DataType.Half, (37, 40))])
def test_a_transposed_tma_load_reads_the_input_in_place(dtype: DataType, shape: tuple[int, int]) -> None:
    """``transpose(x)`` TMA-loaded box by box from x [I, J] in x's own order, read transposed by the threads;
    I and J not multiples of the box (TMA zero-fills past the edges, the stores are predicated)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2, dtype=dtype)
        t = ops.transpose(x, 0, 1)
        fusion.add_output(ops.mul(ops.cast(t, DataType.Float), 2.0))
    out = fusion.outputs[0]
    cast = out.producers()[0]
    t.set_load_type(LoadStoreOpType.TMA)
    row = 16 // dtype.size * 2                               # 32-byte box rows
    for tv in (cast, out):
        tv.split(0, row).split(2, 8).reorder({1: 2, 2: 1})  # [J/row, I/8, row, 8]
        tv.axis(0).parallelize(ParallelType.BIDx)
        tv.axis(1).parallelize(ParallelType.BIDy)
        tv.axis(2).parallelize(ParallelType.TIDy)
        tv.axis(3).parallelize(ParallelType.TIDx)
    cast.compute_at(out, 4)
    t.compute_at(cast, 2)
    t.reorder({2: 3, 3: 2})                                  # the box in x's order: [8 (I), row (J)]
    t.axis(2).parallelize(ParallelType.Bulk)
    t.axis(3).parallelize(ParallelType.Bulk)
    t.set_swizzle(SmemSwizzle.B32)
    traced = lower(fusion, trace=True)
    box = traced.analyses.tma.boxes[t]
    assert box.dims == (t.root[1], t.root[0]) and box.box == (8, row)    # x's dimensions, outermost first
    inputs = random_inputs(fusion, [shape], seed=5)
    assert_matches(fusion, inputs, simulate(traced.kernel, inputs))
