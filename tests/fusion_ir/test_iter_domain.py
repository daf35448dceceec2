"""IterDomains and the Split/Merge history (fusion_ir/iter_domain.py)."""

from fusion_ir import DataType, Fusion, IterDomain, IterType, Merge, ParallelType, Split, Val, ops
from fusion_ir.iter_domain import merged_type, split_extents


def make_2d(shape=None):
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2) if shape is None else fusion.add_input(shape=shape)
        t1 = ops.exp(t0)
        fusion.add_output(t1)
    return fusion, t1


def test_label_is_nvfuser_notation():
    i = IterDomain(Val.symbol("i0"), IterType.Iteration, ParallelType.BIDx, name=3)
    assert i.label() == "iBIDx3{i0}"
    assert IterDomain(Val.const(256), IterType.Iteration, ParallelType.Bulk, name=6).label() == "iB6{256}"
    assert IterDomain(Val.const(1), IterType.Broadcast, name=2).label() == "bS2{1}"
    assert IterDomain(Val.symbol("i1"), IterType.Reduction, ParallelType.TIDx, name=5).label() == "rTIDx5{i1}"
    assert IterDomain(Val.const(4), name=9, parallel_type=ParallelType.Vectorize).label() == "iV9{4}"


def test_iter_domains_compare_by_identity():
    a = IterDomain(Val.const(4), name=1)
    b = IterDomain(Val.const(4), name=1)
    assert a != b and a == a
    assert len({a, b}) == 2


def test_split_extents():
    e = Val.symbol("i1")
    assert [str(x) for x in split_extents(e, 256, inner_split=True)] == ["ceilDiv(i1, 256)", "256"]
    assert [str(x) for x in split_extents(e, 4, inner_split=False)] == ["4", "ceilDiv(i1, 4)"]
    assert [str(x) for x in split_extents(Val.const(1024), 256, inner_split=True)] == ["4", "256"]


def test_inner_split_on_tensor():
    _, t1 = make_2d()
    t1.split(1, 256)
    outer, inner = t1.loop[1], t1.loop[2]
    assert str(outer.extent) == "ceilDiv(i1, 256)" and inner.extent == Val.const(256)
    s = t1.transforms[0]
    assert isinstance(s, Split) and s.inner_split and s.factor == 256
    assert s.input is t1.root[1] and s.outputs == (outer, inner)
    assert outer.definition is s and inner.definition is s
    assert t1.root[1].definition is None


def test_outer_split_on_tensor():
    _, t1 = make_2d(shape=(8, 1000))
    t1.split(1, 4, inner_split=False)
    assert [str(i.extent) for i in t1.loop] == ["8", "4", "250"]
    assert "outer split" in str(t1.transforms[0])
    _, t2 = make_2d(shape=(8, 1001))
    t2.outer_split(1, 4)
    assert [str(i.extent) for i in t2.loop] == ["8", "4", "251"]


def test_split_negative_axis_and_constant_folding():
    _, t1 = make_2d(shape=(64, 1024))
    t1.split(-1, 256)
    assert [str(i.extent) for i in t1.loop] == ["64", "4", "256"]


def test_merge_extent_and_history():
    _, t1 = make_2d()
    t1.merge(0)
    assert t1.ndim == 1
    m = t1.transforms[0]
    assert isinstance(m, Merge) and m.inputs == (t1.root[0], t1.root[1])
    assert str(t1.loop[0].extent) == "i0 * i1"
    assert str(m) == f"Merge: {t1.root[0].label()} and {t1.root[1].label()} -> {t1.loop[0].label()}"


def test_merge_non_adjacent_axes_lands_at_the_smaller_position():
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(shape=(2, 3, 5))
        t1 = ops.neg(t0)
        fusion.add_output(t1)
    t1.merge(0, 2)
    assert [str(i.extent) for i in t1.loop] == ["10", "3"]


def test_merged_type():
    it = IterDomain(Val.const(4), IterType.Iteration)
    rd = IterDomain(Val.const(4), IterType.Reduction)
    bc = IterDomain(Val.const(1), IterType.Broadcast)
    assert merged_type(it, it) is IterType.Iteration
    assert merged_type(rd, rd) is IterType.Reduction
    assert merged_type(bc, bc) is IterType.Broadcast
    assert merged_type(bc, it) is IterType.Iteration
    assert merged_type(bc, rd) is IterType.Reduction


def test_split_then_merge_round_trip_extent():
    _, t1 = make_2d(shape=(16, 1024))
    t1.split(1, 128).merge(0, 1)
    assert [str(i.extent) for i in t1.loop] == ["128", "128"]
    assert [type(t).__name__ for t in t1.transforms] == ["Split", "Merge"]


def test_dtype_sizes():
    assert DataType.Float.size == 4 and DataType.Half.size == 2 and DataType.BFloat16.size == 2
    assert DataType.Int32.short_name == "int"
