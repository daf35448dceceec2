"""IterDomain maps between tensors and transform replay (fusion_ir/replay.py)."""

import pytest

from fusion_ir import Fusion, ScheduleError, Split, ops, replay


def chain():
    """t3 = exp(t0 + t1), t4 = sum(t3, 1)."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = fusion.add_input(ndim=2)
        t2 = ops.add(t0, t1)
        t3 = ops.exp(t2)
        t4 = ops.sum(t3, [1])
        fusion.add_output(t4)
    return fusion, t0, t1, t2, t3, t4


def test_producer_to_consumer_root():
    fusion, t0, t1, t2, t3, t4 = chain()
    assert replay.producer_to_consumer_root(t2, t3) == dict(zip(t2.logical, t3.root))
    assert replay.producer_to_consumer_root(t1, t2) == dict(zip(t1.logical, t2.root))
    with pytest.raises(ValueError, match="T0 is not a producer of T3"):
        replay.producer_to_consumer_root(t0, t3)


def test_loop_map_extends_through_identical_transforms():
    fusion, t0, t1, t2, t3, t4 = chain()
    t3.split(1, 32)
    t2.split(1, 32)
    m = replay.loop_map(t2, t3)
    assert [m[i] for i in t2.loop] == t3.loop
    t2.merge(0)                     # a transform t3 does not have: the merged axis maps to nothing
    assert t2.loop[0] not in replay.loop_map(t2, t3)


def test_loop_map_does_not_extend_through_different_factors():
    fusion, t0, t1, t2, t3, t4 = chain()
    t3.split(1, 32)
    t2.split(1, 64)
    m = replay.loop_map(t2, t3)
    assert t2.loop[0] in m and t2.loop[1] not in m and t2.loop[2] not in m


def test_root_map_between_follows_dataflow_in_both_directions():
    fusion, t0, t1, t2, t3, t4 = chain()
    down = replay.root_map_between(t0, t4)
    assert down == {t0.root[0]: t4.root[0], t0.root[1]: t4.root[1]}
    up = replay.root_map_between(t4, t1)
    assert up[t4.root[0]] is t1.root[0]
    # A reduction output feeds no root axis of its consumer for the reduced axis.
    with Fusion() as f2:
        a = f2.add_input(ndim=2)
        r = ops.sum(a, [1])
        o = ops.neg(r)
    assert replay.root_map_between(a, o) == {a.root[0]: o.root[0]}


def test_root_map_between_unconnected_tensors():
    fusion, t0, t1, t2, t3, t4 = chain()
    other = Fusion()
    with other:
        u = other.add_input(ndim=1)
    assert replay.root_map_between(t0, t1) == {t0.root[0]: t1.root[0], t0.root[1]: t1.root[1]}
    with pytest.raises(ScheduleError, match="T0 and T0 are not connected by dataflow and differ in rank"):
        replay.root_map_between(u, t0)


def test_replay_transforms_applies_splits_and_merges():
    fusion, t0, t1, t2, t3, t4 = chain()
    t3.merge(0).split(0, 128)
    leaves = list(t2.logical)
    c2p = {c: p for p, c in replay.producer_to_consumer_root(t2, t3).items()}
    new, m = replay.replay_transforms(fusion, t3.transforms, c2p, leaves)
    assert [type(t).__name__ for t in new] == ["Merge", "Split"]
    assert [str(i.extent) for i in leaves] == ["ceilDiv(i0 * i1, 128)", "128"]
    assert m[t3.loop[0]] is leaves[0] and m[t3.loop[1]] is leaves[1]


def test_replay_skips_unmapped_splits_and_forwards_half_mapped_merges():
    fusion, t0, t1, t2, t3, t4 = chain()
    t3.split(1, 8).merge(0, 1)
    only_first = {t3.root[0]: t2.root[0]}
    leaves = [t2.root[0]]
    new, m = replay.replay_transforms(fusion, t3.transforms, only_first, leaves)
    assert new == [] and leaves == [t2.root[0]]
    assert m[t3.loop[0]] is t2.root[0]      # the merge forwards its mapped input


def test_replay_refuses_to_merge_reduction_with_iteration():
    fusion, t0, t1, t2, t3, t4 = chain()
    t3.merge(0)
    leaves = list(t4.logical)
    ident = dict(zip(t3.root, t4.root))
    with pytest.raises(ScheduleError, match=r"T4: transform_like: cannot merge reduction axis with iteration axis"):
        replay.replay_transforms(fusion, t3.transforms, ident, leaves, target=t4, what="transform_like")


def test_same_transform_and_ancestors():
    fusion, t0, t1, t2, t3, t4 = chain()
    t3.split(1, 32).split(0, 4).merge(0, 1)
    s1, s2, mg = t3.transforms
    assert replay.same_transform(s1, Split(s1.input, s1.outer, s1.inner, 32, True))
    assert not replay.same_transform(s1, Split(s1.input, s1.outer, s1.inner, 32, False))
    assert not replay.same_transform(s1, mg)
    # Loop: [merge(split(i0)), ceilDiv(i1, 32), 32]; each axis needs only its own history.
    assert replay.ancestors_transforms(t3, [t3.loop[-1]]) == [s1]
    assert replay.ancestors_transforms(t3, [t3.loop[0]]) == [s2, mg]
    assert replay.ancestors_transforms(t3, list(t3.loop)) == [s1, s2, mg]
