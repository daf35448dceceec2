"""rfactor: a partial reduction over chosen axes and a final one over the rest (fusion_ir/rfactor.py)."""

import pytest

from fusion_ir import Fusion, ParallelType, ReductionOp, ScheduleError, ops


def sum_2d(shape=None):
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2) if shape is None else fusion.add_input(shape=shape)
        t1 = ops.sum(t0, [1])
        fusion.add_output(t1)
    return fusion, t0, t1


def kinds(ids):
    return "".join(i.iter_type.value for i in ids)


def test_rfactor_outer_reduction_axis():
    fusion, t0, t1 = sum_2d()
    t1.split(1, 32)
    partial = t1.rfactor([1])
    # The partial reduces over ceilDiv(i1, 32) and keeps the 32 lanes as iteration.
    assert kinds(partial.loop) == "iri"
    assert [str(i.extent) for i in partial.loop] == ["i0", "ceilDiv(i1, 32)", "32"]
    assert kinds(partial.root) == "ir" and kinds(partial.logical) == "iri"
    # The original now reduces the remaining 32 lanes of the partial.
    assert kinds(t1.loop) == "ir" and [str(i.extent) for i in t1.loop] == ["i0", "32"]
    assert t1.root == t1.logical == t1.loop and t1.transforms == []
    # Rewiring: t0 -> partial -> t1, both reductions with the same op.
    assert isinstance(partial.definition, ReductionOp) and partial.definition.inputs == [t0]
    assert t1.definition.inputs == [partial] and t1.definition.op == "sum"
    assert fusion.topological_order() == [t0, partial, t1]
    assert [e.output for e in fusion.exprs] == [partial, t1]


def test_rfactor_inner_reduction_axis():
    fusion, t0, t1 = sum_2d()
    t1.split(1, 32)
    partial = t1.rfactor([2])
    assert kinds(partial.loop) == "iir"
    assert kinds(t1.loop) == "ir" and str(t1.loop[1].extent) == "ceilDiv(i1, 32)"


def test_rfactor_prints_both_tensors():
    fusion, t0, t1 = sum_2d()
    t1.split(1, 32)
    partial = t1.rfactor([1])
    text = str(fusion)
    assert "T2_l_float[iS6{i0}, rS8{ceilDiv(i1, 32)}, iS9{32}]\n   = reduction( T0_g_float" in text
    assert "T1_g_float[iS10{i0}, rS11{32}]\n   = reduction( T2_l_float[iS6{i0}, rS8{ceilDiv(i1, 32)}, iS9{32}]" in text
    assert partial.transforms_string() == "\n".join([
        "T2:",
        " root domain : (iS6{i0}, rS7{i1})",
        " logical domain : (iS6{i0}, rS8{ceilDiv(i1, 32)}, iS9{32})",
        "  Split: rS7{i1} by factor 32 -> rS8{ceilDiv(i1, 32)}, iS9{32} (inner split)",
        " loop domain : (iS6{i0}, rS8{ceilDiv(i1, 32)}, iS9{32})",
    ])
    assert t1.transforms_string() == "\n".join([
        "T1:",
        " root domain : (iS10{i0}, rS11{32})",
        " loop domain : (iS10{i0}, rS11{32})",
    ])


def test_rfactor_two_reduction_axes_keeps_parallel_types():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(4, 64, 128))
        t1 = ops.sum(t0, [1, 2])
        fusion.add_output(t1)
    t1.split(2, 32)
    t1.axis(0).parallelize(ParallelType.BIDx)
    t1.axis(3).parallelize(ParallelType.TIDx)
    partial = t1.rfactor([1, 3])
    assert kinds(partial.loop) == "irir"
    assert [i.extent.const_value() for i in partial.loop] == [4, 64, 4, 32]
    assert [i.parallel_type for i in partial.loop] == [ParallelType.BIDx, ParallelType.Serial,
                                                       ParallelType.Serial, ParallelType.TIDx]
    assert kinds(t1.loop) == "ir" and [i.extent.const_value() for i in t1.loop] == [4, 4]
    assert t1.loop[0].parallel_type is ParallelType.BIDx


def test_rfactor_with_iteration_transforms_replays_them_on_the_final_tensor():
    fusion, t0, t1 = sum_2d(shape=(256, 1024))
    t1.split(1, 128).split(0, 32)          # [8, 32, r8, r128]
    partial = t1.rfactor([2])
    assert kinds(partial.loop) == "iiri"
    assert [i.extent.const_value() for i in t1.loop] == [8, 32, 128] and kinds(t1.loop) == "iir"
    assert [type(t).__name__ for t in t1.transforms] == ["Split"]


def test_partial_can_be_computed_at_the_final_reduction():
    fusion, t0, t1 = sum_2d()
    t1.split(1, 32)
    partial = t1.rfactor([1])
    partial.compute_at(t1, 2)
    assert partial.compute_at_pos == 2
    assert [str(i.extent) for i in partial.loop] == ["i0", "32", "ceilDiv(i1, 32)"]


def test_rfactor_shifts_the_final_tensors_later_axes_down_and_keeps_the_partials():
    """What docs/tutorial.md and docs/schedule_rules.md say about axis indices after rfactor."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=3)
        t1 = ops.sum(t0, [1])
        fusion.add_output(t1)
    t1.split(1, 64)                                  # [i0, r{ceilDiv(i1, 64)}, r{64}, i2]
    t1.axis(3).parallelize(ParallelType.TIDy)
    before = list(t1.loop)
    partial = t1.rfactor([1])
    assert kinds(partial.loop) == "irii"
    assert [str(i.extent) for i in partial.loop] == ["i0", "ceilDiv(i1, 64)", "64", "i2"]
    assert kinds(t1.loop) == "iri" and [str(i.extent) for i in t1.loop] == ["i0", "64", "i2"]
    assert t1.axis(2).parallel_type is ParallelType.TIDy  # the old axis 3
    assert t1.axis(-1).id is t1.axis(2).id
    assert not any(i in t1.loop or i in partial.loop for i in before)
    assert t1.root == t1.loop and t1.transforms == []


def test_an_axis_handle_from_before_rfactor_is_refused_not_applied_to_the_next_axis():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=3)
        t1 = ops.sum(t0, [1])
        fusion.add_output(t1)
    t1.split(1, 64)
    lanes = t1.axis(2)                               # r{64}; after rfactor, index 2 is i2
    kept = t1.axis(3)                                # i2, which survives as axis 2
    t1.rfactor([1])
    with pytest.raises(ScheduleError, match=r"T1: parallelize: the handle tv.axis\(2\) to rS7\{64\} is stale"):
        lanes.parallelize(ParallelType.TIDx)
    assert all(i.parallel_type is ParallelType.Serial for i in t1.loop)
    with pytest.raises(ScheduleError, match="is stale"):
        kept.parallelize(ParallelType.TIDx)          # a new IterDomain replaced it too
