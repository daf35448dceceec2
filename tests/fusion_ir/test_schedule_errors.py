"""Schedules that must fail: each call raises ScheduleError naming the tensor and the rule, and changes nothing.

Like Halide's error tests: one row per invalid call. Every row checks the message fragment and that
``state_fingerprint()`` of every fusion involved is the same before and after the failed call.
"""

from types import SimpleNamespace

import pytest

import fusion_ir
from fusion_ir import (
    DataType,
    Fusion,
    LoadStoreOpType,
    MemoryType,
    ParallelType,
    Pipelined,
    ScheduleError,
    WarpSpecialized,
    ops,
)

PT = ParallelType
TMA = LoadStoreOpType.TMA


# ---- fusions the rows start from -------------------------------------------------
def pointwise():
    """T3 = exp(T2), T2 = T0 + T1 (T0, T1: 2-D symbolic inputs)."""
    f = Fusion()
    with f:
        t0 = f.add_input(ndim=2)
        t1 = f.add_input(ndim=2)
        t2 = ops.add(t0, t1)
        t3 = ops.exp(t2)
        f.add_output(t3)
    return SimpleNamespace(f=f, t0=t0, t1=t1, t2=t2, t3=t3)


def pointwise_split():
    """pointwise() with T3 = [i0, ceilDiv(i1, 4), 4] (i1 constant 1024)."""
    f = Fusion()
    with f:
        t0 = f.add_input(shape=(64, 1024))
        t1 = f.add_input(shape=(64, 1024))
        t2 = ops.add(t0, t1)
        t3 = ops.exp(t2)
        f.add_output(t3)
    t3.split(1, 4)
    return SimpleNamespace(f=f, t0=t0, t1=t1, t2=t2, t3=t3)


def reduction():
    """T3 = sum(T1, 1) * 2 with T1 = exp(T0): T2 = [i0, r1]."""
    f = Fusion()
    with f:
        x = f.add_input(ndim=2)
        e = ops.exp(x)
        r = ops.sum(e, [1])
        o = ops.mul(r, 2.0)
        f.add_output(o)
    return SimpleNamespace(f=f, x=x, e=e, r=r, o=o)


def softmax_max():
    """T3 = T0 - broadcast(max(T0, 1)): T1 = [i0, r1], T2 = [i0, b]."""
    f = Fusion()
    with f:
        x = f.add_input(ndim=2)
        m = ops.max(x, [1])
        bm = ops.broadcast(m, [False, True])
        y = ops.sub(x, bm)
        f.add_output(y)
    return SimpleNamespace(f=f, x=x, m=m, bm=bm, y=y)


def broadcast_of_1d():
    """T4 = T2 + broadcast(T1, [False, True]) with T1 = exp(T0): T1 = [i0], T3 = [i0, b]."""
    f = Fusion()
    with f:
        v = f.add_input(ndim=1)
        e = ops.exp(v)
        out = ops.add(f.add_input(ndim=2), ops.broadcast(e, [False, True]))
        f.add_output(out)
    return SimpleNamespace(f=f, v=v, e=e, out=out)


def transposed():
    """T3 = T2 + T1 with T2 = transpose(T0) (T0, T1: 2-D symbolic inputs)."""
    f = Fusion()
    with f:
        t0 = f.add_input(ndim=2)
        t1 = f.add_input(ndim=2)
        t2 = ops.transpose(t0, 0, 1)
        t3 = ops.add(t2, t1)
        f.add_output(t3)
    return SimpleNamespace(f=f, t0=t0, t1=t1, t2=t2, t3=t3)


def in_fusion(call):
    """``call`` with the row's fusion active (ops need ``with fusion:``)."""
    def run(ns):
        with ns.f:
            call(ns)
    return run


def tma_cached():
    """The DESIGN.md fusion: T4 = cache_after(T0, TMA) feeding T2 = T4 + T1, T3 = exp(T2) split by 256."""
    ns = pointwise()
    ns.t3.split(1, 256)
    ns.c = ns.t0.cache_after(TMA)
    return ns


def tma_of_intermediate():
    """T1 = set(T0) kept in global memory, T3 = TMA load of T1, T2 = exp(T3) (shape 8 x 64)."""
    f = Fusion()
    with f:
        x = f.add_input(shape=(8, 64))
        s = ops.set(x)
        y = ops.exp(s)
        f.add_output(y)
    s.set_memory_type(MemoryType.Global)
    c = s.cache_after(TMA)
    return SimpleNamespace(f=f, x=x, s=s, c=c, y=y)


def small_cached():
    """T4 = set-cache of T0 (8 x 4 floats) feeding the pointwise fusion."""
    f = Fusion()
    with f:
        t0 = f.add_input(shape=(8, 4))
        t1 = f.add_input(shape=(8, 4))
        t2 = ops.add(t0, t1)
        t3 = ops.exp(t2)
        f.add_output(t3)
    c = t0.cache_after()
    return SimpleNamespace(f=f, t0=t0, t1=t1, t2=t2, t3=t3, c=c)


def two_consumers():
    """T1 = exp(T0) feeds T2 = T1 * 2 (output, split by 4) and T3 = T1 + T0 (output, not split)."""
    f = Fusion()
    with f:
        t0 = f.add_input(ndim=2)
        t1 = ops.exp(t0)
        t2 = ops.mul(t1, 2.0)
        t3 = ops.add(t1, t0)
        f.add_output(t2)
        f.add_output(t3)
    t2.split(1, 4)
    return SimpleNamespace(f=f, t0=t0, t1=t1, t2=t2, t3=t3)


def two_fusions():
    """Two pointwise fusions: a.* and b.* (b's tensors have the same names T0..T3)."""
    a, b = pointwise(), pointwise()
    return SimpleNamespace(a=a, b=b, fa=a.f, fb=b.f)


def matmul():
    f = Fusion()
    with f:
        a = f.add_input(shape=(64, 32), dtype=DataType.Half)
        b = f.add_input(shape=(32, 64), dtype=DataType.Half)
        c = ops.matmul(a, b)
        f.add_output(c)
    return SimpleNamespace(f=f, a=a, b=b, c=c)


def row_max_of_3():
    """T1 = max(T0, 1) with T0 [4, 3]: T1 = [iS2{4}, rS3{3}]."""
    f = Fusion()
    with f:
        x = f.add_input(shape=(4, 3))
        m = ops.max(x, 1)
        f.add_output(m)
    return SimpleNamespace(f=f, x=x, m=m)


def split_reduction():
    """T1 = sum(T0, 1) with T1 = [i0, r ceilDiv(i1, 32), r32]."""
    f = Fusion()
    with f:
        t0 = f.add_input(ndim=2)
        t1 = ops.sum(t0, [1])
        f.add_output(t1)
    t1.split(1, 32)
    return SimpleNamespace(f=f, t0=t0, t1=t1)


def _chain(*steps):
    def run(ns):
        for step in steps:
            step(ns)
        return ns
    return run


def with_(build, *steps):
    """A builder that runs ``build`` and then the given valid scheduling steps."""
    def make():
        ns = build()
        _chain(*steps)(ns)
        return ns
    make.__name__ = build.__name__
    return make


# ---- the catalog ------------------------------------------------------------------
CASES = [
    # axis out of range / not an integer
    ("split-axis-out-of-range", pointwise, lambda n: n.t3.split(2, 4),
     r"T3: split: axis 2 is out of range for a tensor with 2 loop axes"),
    ("split-negative-axis-out-of-range", pointwise, lambda n: n.t3.split(-3, 4),
     r"T3: split: axis -3 is out of range"),
    ("split-axis-not-int", pointwise, lambda n: n.t3.split("1", 4),
     r"T3: split: axis '1' is not an integer"),
    ("merge-axis-out-of-range", pointwise, lambda n: n.t3.merge(0, 5),
     r"T3: merge: axis 5 is out of range for a tensor with 2 loop axes"),
    ("merge-last-axis", pointwise, lambda n: n.t3.merge(1),
     r"T3: merge: axis 1 \(iS7\{i1\}\) is the last loop axis"),
    ("merge-with-itself", pointwise, lambda n: n.t3.merge(0, -2),
     r"T3: merge: cannot merge axis 0 \(iS6\{i0\}\) with itself"),
    ("reorder-source-out-of-range", pointwise, lambda n: n.t3.reorder({2: 0}),
     r"T3: reorder: axis 2 is out of range for a tensor with 2 loop axes"),
    ("reorder-target-out-of-range", pointwise, lambda n: n.t3.reorder({0: -3}),
     r"T3: reorder: axis -3 is out of range"),
    ("parallelize-axis-out-of-range", pointwise, lambda n: n.t3.parallelize(2, PT.TIDx),
     r"T3: parallelize: axis 2 is out of range for a tensor with 2 loop axes"),
    ("axis-out-of-range", pointwise, lambda n: n.t3.axis(2),
     r"T3: axis: axis 2 is out of range for a tensor with 2 loop axes"),
    ("axis-negative-out-of-range", pointwise, lambda n: n.t3.axis(-3).parallelize(PT.TIDx),
     r"T3: axis: axis -3 is out of range"),
    ("axis-bool", pointwise, lambda n: n.t3.axis(True),
     r"T3: axis: axis True is not an integer"),

    # split factor
    ("split-factor-zero", pointwise, lambda n: n.t3.split(1, 0),
     r"T3: split: factor 0 for axis 1 \(iS7\{i1\}\) must be a positive integer"),
    ("split-factor-negative", pointwise, lambda n: n.t3.split(1, -4),
     r"T3: split: factor -4 for axis 1 .* must be a positive integer"),
    ("split-factor-float", pointwise, lambda n: n.t3.split(0, 2.0),
     r"T3: split: factor 2.0 for axis 0 \(iS6\{i0\}\) must be a positive integer"),
    ("split-factor-bool", pointwise, lambda n: n.t3.split(0, True),
     r"T3: split: factor True for axis 0 .* must be a positive integer"),
    ("split-inside-compute-at", with_(pointwise, lambda n: n.t2.compute_at(n.t3, 1)),
     lambda n: n.t2.split(0, 4),
     r"T2: split: axis 0 \(iS4\{i0\}\) is inside the compute-at position 1"),
    ("split-inside-produce-position", with_(pointwise, lambda n: n.t2.compute_at(n.t3, 1)),
     lambda n: n.t3.split(0, 4),
     r"T3: split: axis 0 \(iS6\{i0\}\) is inside the produce position 1"),
    ("split-bulk-axis", with_(tma_cached, lambda n: n.c.split(1, 256), lambda n: n.c.axis(2).parallelize(PT.Bulk)),
     lambda n: n.c.split(2, 2),
     r"T4: split: axis 2 \(iB13\{256\}\) is Bulk-parallel; split it before parallelizing"),
    ("merge-vectorize-axis", with_(small_cached, lambda n: n.c.axis(1).parallelize(PT.Vectorize)),
     lambda n: n.c.merge(0),
     r"T4: merge: axis 1 \(iV9\{4\}\) is Vectorize-parallel"),
    ("split-thread-axis", with_(pointwise, lambda n: n.t3.axis(1).parallelize(PT.TIDx)),
     lambda n: n.t3.split(1, 32),
     r"T3: split: axis 1 \(iTIDx7\{i1\}\) is TIDx-parallel; split it before parallelizing"),
    ("merge-block-axis", with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.BIDx)),
     lambda n: n.t3.merge(0),
     r"T3: merge: axis 0 \(iBIDx6\{i0\}\) is BIDx-parallel; merge it before parallelizing"),
    ("compute-at-drops-own-binding",
     with_(pointwise_split, lambda n: n.t2.split(1, 2), lambda n: n.t2.axis(2).parallelize(PT.TIDx)),
     lambda n: n.t2.compute_at(n.t3, 2),
     r"T2: compute_at: axis 2 \(iTIDx\d+\{2\}\) is TIDx-parallel, but position 2 replays T3's transforms of it "
     r"differently and the binding would be lost; compute_at first, then split and parallelize T2's remaining axes"),
    ("transform-like-drops-binding", with_(pointwise_split, lambda n: n.t2.axis(1).parallelize(PT.TIDx)),
     lambda n: n.t2.transform_like(n.t3),
     r"T2: transform_like: axis 1 \(iTIDx5\{1024\}\) is TIDx-parallel, but replaying T3's transforms remakes it "
     r"differently and the binding would be lost"),

    # merge reduction with iteration
    ("merge-reduction-with-iteration", reduction, lambda n: n.r.merge(0, 1),
     r"T2: merge: cannot merge reduction axis with iteration axis \(axis 0 \(iS4\{i0\}\) and axis 1 \(rS5\{i1\}\)\)"),
    ("merge-grouped-group-zero", pointwise, lambda n: n.t3.merge_grouped(0, 1, 0),
     r"T3: merge_grouped: group must be a positive int \(indices of axis 0 \(iS6\{i0\}\) walked per index of axis 1 "
     r"\(iS7\{i1\}\)\), got 0"),
    ("merge-grouped-reduction", reduction, lambda n: n.r.merge_grouped(0, 1, 2),
     r"T2: merge_grouped: axis 1 \(rS5\{i1\}\) is a reduction axis; a grouped order walks iteration \(or "
     r"broadcast\) axes"),
    ("merge-lanes-of-three", row_max_of_3, lambda n: n.m.merge_lanes(0, 1),
     r"T1: merge_lanes: the inner axis axis 1 \(rS3\{3\}\) must have a constant extent that is a power of two from 2 "
     r"to the warp size \(32\): its lanes reduce by warp shuffles"),
    ("broadcast-loop-extent-zero", pointwise, lambda n: n.t2.broadcast_loop(0, 0),
     r"T2: broadcast_loop: extent 0 must be a positive integer \(a loop-only broadcast has a constant extent\)"),
    ("broadcast-loop-position-out-of-range", pointwise, lambda n: n.t2.broadcast_loop(3, 4),
     (r"T2: broadcast_loop: position 3 must be an integer in \[-3, 2\] \(where the new axis goes among 2 loop axes; "
      r"negative counts from the end\)")),
    ("broadcast-loop-inside-shared-loops", with_(pointwise, lambda n: n.t2.inline_at(1)),
     lambda n: n.t2.broadcast_loop(0, 4),
     (r"T2: broadcast_loop: position 0 is inside the loops T2 shares \(compute-at position 1, produce position 0\); "
      r"insert loop broadcasts before compute_at")),
    ("transform-like-merges-reduction-with-iteration", with_(reduction, lambda n: n.e.merge(0)),
     lambda n: n.r.transform_like(n.e),
     r"T2: transform_like: cannot merge reduction axis with iteration axis \(iS4\{i0\} and rS5\{i1\}\)"),
    ("fusion-transform-like-merges-reduction", with_(reduction, lambda n: n.e.merge(0)),
     lambda n: fusion_ir.transform_like(n.e),
     r"T2: transform_like: cannot merge reduction axis with iteration axis"),

    # reorder maps that are not a permutation
    ("reorder-duplicate-targets", pointwise, lambda n: n.t3.reorder({0: 1, 1: 1}),
     r"T3: reorder: map \{0: 1, 1: 1\} is not a permutation \(two axes go to one position\)"),
    ("reorder-duplicate-sources", pointwise, lambda n: n.t3.reorder({0: 1, -2: 0}),
     r"T3: reorder: map \{0: 1, -2: 0\} is not a permutation \(an old axis appears twice\)"),
    ("reorder-not-a-dict", pointwise, lambda n: n.t3.reorder([1, 0]),
     r"T3: reorder: expected a dict \{old: new\}, got list"),
    ("reorder-inside-compute-at", with_(pointwise_split, lambda n: n.t2.compute_at(n.t3, 2)),
     lambda n: n.t2.reorder({0: 1}),
     r"T2: reorder: map \{0: 1\} moves axes inside the compute-at/produce position 2"),

    # compute_at
    ("compute-at-into-producer", pointwise, lambda n: n.t2.compute_at(n.t1, 1),
     r"T2: compute_at: T1 is not a consumer of T2"),
    ("compute-at-into-unrelated", with_(pointwise, lambda n: setattr(n, "c1", n.t1.cache_after())),
     lambda n: n.t2.compute_at(n.c1, 1),
     r"T2: compute_at: T4 is not a consumer of T2"),
    ("compute-at-into-itself", pointwise, lambda n: n.t2.compute_at(n.t2, 1),
     r"T2: compute_at: T2 is not a consumer of T2"),
    ("compute-at-of-input", pointwise, lambda n: n.t0.compute_at(n.t2, 1),
     r"T0: compute_at: T0 is a fusion input"),
    ("compute-at-position-too-large", pointwise, lambda n: n.t2.compute_at(n.t3, 3),
     r"T2: compute_at: position 3 is out of range for consumer T3 with 2 loop axes \(valid: -3..2\)"),
    ("compute-at-position-too-negative", pointwise, lambda n: n.t2.compute_at(n.t3, -4),
     r"T2: compute_at: position -4 is out of range for consumer T3"),
    ("compute-at-position-not-int", pointwise, lambda n: n.t2.compute_at(n.t3, 1.0),
     r"T2: compute_at: position 1.0 is not an integer"),
    ("compute-at-past-reduction", softmax_max, lambda n: n.m.compute_at(n.y, 2),
     r"T1: compute_at: position 2 needs axis 1 \(bS5\{1\}\) of T2, which has no counterpart in T1 "
     r"\(T1 has reduction axis rS3\{i1\}; reduction axes are never inlined\)"),
    ("compute-at-past-trailing-broadcast", broadcast_of_1d, lambda n: n.e.compute_at(n.out, 2),
     r"T1: compute_at: position 2 needs axis 1 \(bS5\{1\}\) of T3, which has no counterpart in T1 \(a broadcast axis "
     r"after the last axis they share: computed inside its loop, T1 would only be repeated\); compute at position <= 1"),
    ("compute-at-past-consumer-bulk",
     with_(tma_of_intermediate, lambda n: n.c.axis(1).parallelize(PT.Bulk)),
     lambda n: n.s.compute_at(n.c, 2),
     r"T1: compute_at: position 2 is past Bulk axis 1 \(iB7\{64\}\) of T3; Bulk axes are never inlined"),
    ("compute-at-own-bulk-axis", with_(tma_cached, lambda n: n.c.axis(0).parallelize(PT.Bulk)),
     lambda n: n.c.compute_at(n.t3, 1),
     r"T4: compute_at: axis 0 \(iB10\{i0\}\) of T4 is Bulk-parallel; Bulk axes are never inlined"),
    ("compute-at-past-consumer-vectorize",
     with_(pointwise_split, lambda n: n.t3.axis(2).parallelize(PT.Vectorize)),
     lambda n: n.t2.compute_at(n.t3, 3),
     r"T2: compute_at: position 3 is past Vectorize axis 2 \(iV9\{4\}\) of T3; Vectorize axes are never inlined"),
    ("compute-at-own-vectorize-axis", with_(small_cached, lambda n: n.c.axis(1).parallelize(PT.Vectorize)),
     lambda n: n.c.compute_at(n.t2, 2),
     r"T4: compute_at: axis 1 \(iV9\{4\}\) of T4 is Vectorize-parallel; Vectorize axes are never inlined"),
    ("compute-at-conflicting-binding",
     with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.BIDx), lambda n: n.t2.axis(0).parallelize(PT.TIDy)),
     lambda n: n.t2.compute_at(n.t3, 1),
     r"T2: compute_at: axis 0 \(iTIDy4\{i0\}\) of T2 is bound to TIDy but shares the loop of iBIDx6\{i0\} of T3, "
     r"bound to BIDx; conflicting parallel bindings"),
    ("compute-at-duplicate-binding",
     with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.TIDx), lambda n: n.t2.axis(1).parallelize(PT.TIDx)),
     lambda n: n.t2.compute_at(n.t3, 1),
     r"T2: compute_at: axis 0 \(iTIDx4\{i0\}\) and axis 1 \(iTIDx5\{i1\}\) would both be bound to TIDx"),
    ("compute-at-other-consumer-unmapped", two_consumers, lambda n: n.t1.compute_at(n.t2, 2),
     r"T1: compute_at: T1 also feeds T3, whose loop axis 1 \(iS7\{i1\}\) is not T1's axis 1 .* "
     r"must share those loops with all its consumers"),

    ("transform-like-after-inlining", with_(pointwise, lambda n: n.t2.compute_at(n.t3, 1)),
     lambda n: n.t3.transform_like(n.t2),
     r"T3: transform_like: T3 is already inlined \(compute-at position 0, produce position 1\); "
     r"propagate transforms before compute_at"),

    # inline_at
    ("inline-at-past-reduction", reduction, lambda n: n.r.inline_at(2),
     r"T2: inline_at: position 2 is past the largest legal position 1 \(axis 1 \(rS5\{i1\}\) is a reduction axis\)"),
    ("inline-at-past-vectorize", with_(small_cached, lambda n: n.c.axis(1).parallelize(PT.Vectorize)),
     lambda n: n.c.inline_at(2),
     r"T4: inline_at: position 2 is past the largest legal position 1 \(axis 1 \(iV9\{4\}\) is Vectorize-parallel\)"),
    ("inline-at-conflicting-binding",
     with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.BIDx), lambda n: n.t2.axis(0).parallelize(PT.TIDy)),
     lambda n: n.t2.inline_at(1),
     r"T2: inline_at: axis 0 \(iTIDy4\{i0\}\) would share the loop of iBIDx6\{i0\} of T3, bound to BIDx, "
     r"but is bound to TIDy by T2; conflicting parallel bindings"),
    ("inline-at-duplicate-binding",
     with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.TIDx), lambda n: n.t2.axis(1).parallelize(PT.TIDx)),
     lambda n: n.t2.inline_at(1),
     r"T2: inline_at: axis 0 \(iTIDx4\{i0\}\) and axis 1 \(iTIDx5\{i1\}\) would both be bound to TIDx"),
    ("inline-at-out-of-range", pointwise, lambda n: n.t2.inline_at(3),
     r"T2: inline_at: position 3 is out of range for 2 loop axes"),
    ("inline-at-without-consumer", pointwise, lambda n: n.t3.inline_at(1),
     r"T3: inline_at: T3 has no consumer to be inlined into"),
    ("inline-at-unmapped-axis", with_(pointwise, lambda n: n.t3.split(1, 8)), lambda n: n.t2.inline_at(2),
     r"T2: inline_at: position 2 .*axis 1 \(iS5\{i1\}\) does not map to its consumers' axis 1"),

    # parallelize
    ("two-axes-on-tidx", with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.TIDx)),
     lambda n: n.t3.axis(1).parallelize(PT.TIDx),
     r"T3: parallelize: axis 1 \(iS7\{i1\}\) and axis 0 \(iTIDx6\{i0\}\) are both bound to TIDx"),
    ("two-axes-on-bidx", with_(pointwise_split, lambda n: n.t3.axis(2).parallelize(PT.BIDx)),
     lambda n: n.t3.axis(0).parallelize(PT.BIDx),
     r"T3: parallelize: axis 0 \(iS6\{64\}\) and axis 2 \(iBIDx9\{4\}\) are both bound to BIDx"),
    ("bulk-on-non-tma", pointwise, lambda n: n.t2.axis(1).parallelize(PT.Bulk),
     r"T2: parallelize: Bulk on axis 1 \(iS5\{i1\}\) needs a tensor loaded by TMA"),
    ("bulk-on-set-cache", small_cached, lambda n: n.c.axis(1).parallelize(PT.Bulk),
     r"T4: parallelize: Bulk on axis 1 \(iS9\{4\}\) needs a tensor loaded by TMA"),
    ("vectorize-32-bytes", with_(pointwise, lambda n: n.t3.split(1, 8)),
     lambda n: n.t3.axis(2).parallelize(PT.Vectorize),
     r"T3: parallelize: Vectorize width 8 on axis 2 \(iS9\{8\}\) is 32 bytes, over the 16-byte limit"),
    ("vectorize-width-3", with_(pointwise, lambda n: n.t3.split(1, 3)),
     lambda n: n.t3.axis(2).parallelize(PT.Vectorize),
     r"T3: parallelize: Vectorize width 3 on axis 2 \(iS9\{3\}\) is not a power of two"),
    ("misaligned-vectorize-not-a-copy", with_(pointwise, lambda n: n.t3.split(1, 4)),
     lambda n: n.t3.axis(2).parallelize(PT.MisalignedVectorize),
     r"T3: parallelize: MisalignedVectorize on axis 2 \(iS9\{4\}\) needs a plain copy of a fusion input "
     r"\(cache_after\(LoadStoreOpType.Set\)\); T3 is not one"),
    ("misaligned-vectorize-one-element", with_(pointwise, lambda n: setattr(n, "c", n.t0.cache_after().split(1, 1))),
     lambda n: n.c.axis(2).parallelize(PT.MisalignedVectorize),
     r"T4: parallelize: MisalignedVectorize on axis 2 \(iS11\{1\}\) copies 1 x float = 4 bytes; a misaligned "
     r"vector is 4, 8 or 16 bytes of at least two elements of at most 4 bytes"),
    ("vectorize-symbolic-extent", pointwise, lambda n: n.t3.axis(1).parallelize(PT.Vectorize),
     r"T3: parallelize: Vectorize on axis 1 \(iS7\{i1\}\) needs a constant extent"),
    ("vectorize-inside-compute-at", with_(pointwise_split, lambda n: n.t2.compute_at(n.t3, 3)),
     lambda n: n.t2.axis(2).parallelize(PT.Vectorize),
     r"T2: parallelize: axis 2 \(iS11\{4\}\) is inside the compute-at position 3; Vectorize axes are never inlined"),
    ("bulk-inside-produce-position", with_(tma_of_intermediate, lambda n: n.s.compute_at(n.c, 2)),
     lambda n: n.c.axis(1).parallelize(PT.Bulk),
     r"T3: parallelize: axis 1 \(iS7\{64\}\) is inside the produce position 2 .* Bulk axes are never inlined"),
    ("vectorize-reduction-axis", with_(reduction, lambda n: n.r.split(1, 4)),
     lambda n: n.r.axis(2).parallelize(PT.Vectorize),
     r"T2: parallelize: Vectorize on reduction axis 2 \(rS8\{4\}\) is not supported"),
    ("bidx-on-reduction", reduction, lambda n: n.r.axis(1).parallelize(PT.BIDx),
     r"T2: parallelize: reduction axis 1 \(rS5\{i1\}\) cannot be bound to BIDx"),
    ("mma-on-non-matmul", pointwise, lambda n: n.t3.axis(1).parallelize(PT.Mma),
     r"T3: parallelize: Mma on axis 1 \(iS7\{i1\}\) needs a tensor defined by matmul"),
    ("parallelize-input", pointwise, lambda n: n.t0.axis(0).parallelize(PT.BIDx),
     r"T0: parallelize: T0 is a fusion input; it is not computed, so axis 0 \(iS0\{i0\}\) is no loop to bind: "
     r"parallelize the tensors that read it \(or a cache_after of it\)"),
    ("parallelize-stale-axis",
     with_(tma_cached, lambda n: setattr(n, "ax", n.c.axis(1)), lambda n: n.c.compute_at(n.t3, 2)),
     lambda n: n.ax.parallelize(PT.Bulk),
     r"T4: parallelize: the handle tv.axis\(1\) to iS11\{i1\} is stale: a split, merge, rfactor or compute_at has "
     r"replaced that axis since; take tv.axis\(i\) again"),
    ("parallelize-not-a-parallel-type", pointwise, lambda n: n.t3.axis(0).parallelize("TIDx"),
     r"T3: parallelize: 'TIDx' is not a ParallelType"),
    ("parallelize-conflicts-with-consumer",
     with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.BIDx), lambda n: n.t2.compute_at(n.t3, 1)),
     lambda n: n.t2.axis(0).parallelize(PT.TIDy),
     r"T2: parallelize: axis 0 \(iBIDx4\{i0\}\) shares its loop with iBIDx6\{i0\} of T3 \(compute_at\), "
     r"which is bound to BIDx; binding it to TIDy conflicts"),
    ("parallelize-conflicts-with-producer",
     with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.BIDx), lambda n: n.t2.compute_at(n.t3, 1)),
     lambda n: n.t3.axis(0).parallelize(PT.TIDx),
     r"T3: parallelize: axis 0 \(iBIDx6\{i0\}\) shares its loop with iBIDx4\{i0\} of T2 \(compute_at\)"),
    ("fusion-parallelize-like-other-fusion", two_fusions, lambda n: fusion_ir.parallelize_like(n.a.t3, [n.b.t1]),
     r"parallelize_like: T1 belongs to another fusion than the one being scheduled"),
    ("parallelize-like-duplicate-binding",
     with_(pointwise, lambda n: n.t3.axis(0).parallelize(PT.TIDx), lambda n: n.t2.axis(1).parallelize(PT.TIDx)),
     lambda n: n.t2.parallelize_like(n.t3),
     r"T2: parallelize: axis 0 \(iS4\{i0\}\) and axis 1 \(iTIDx5\{i1\}\) are both bound to TIDx"),

    # circular buffering
    ("circular-buffer-input", pointwise, lambda n: n.t0.circular_buffer(2),
     r"T0: circular_buffer: only a tensor defined by a load/cache op can be circular-buffered; "
     r"T0 is a fusion input"),
    ("circular-buffer-add", pointwise, lambda n: n.t2.circular_buffer(2),
     r"T2: circular_buffer: only a tensor defined by a load/cache op .* T2 is defined by a binary op"),
    ("circular-buffer-reduction", reduction, lambda n: n.r.circular_buffer(3),
     r"T2: circular_buffer: .* T2 is defined by a reduction"),
    ("circular-buffer-stages-1", tma_cached, lambda n: n.c.circular_buffer(1),
     r"T4: circular_buffer: stages must be an integer >= 2, got 1"),
    ("circular-buffer-stages-float", tma_cached, lambda n: n.c.circular_buffer(2.0),
     r"T4: circular_buffer: stages must be an integer >= 2, got 2.0"),
    ("circular-buffer-prefetch-equals-stages", tma_cached, lambda n: n.c.circular_buffer(4, 4),
     r"T4: circular_buffer: prefetch 4 is outside \[-stages, stages\) = \[-4, 4\)"),
    ("circular-buffer-prefetch-below-minus-stages", tma_cached, lambda n: n.c.circular_buffer(4, -5),
     r"T4: circular_buffer: prefetch -5 is outside \[-stages, stages\) = \[-4, 4\)"),
    ("circular-buffer-prefetch-float", tma_cached, lambda n: n.c.circular_buffer(4, 1.0),
     r"T4: circular_buffer: prefetch 1.0 is outside \[-stages, stages\) = \[-4, 4\)"),
    ("circular-buffer-stages-auto-typo", tma_cached, lambda n: n.c.circular_buffer("Auto"),
     r"T4: circular_buffer: stages must be an integer >= 2, got 'Auto' \(or \"auto\""),
    ("circular-buffer-auto-prefetch-float", tma_cached, lambda n: n.c.circular_buffer("auto", 1.0),
     r"T4: circular_buffer: prefetch 1.0 must be an integer \(with stages=\"auto\""),
    ("circular-buffer-registers-16", tma_cached,
     lambda n: n.c.circular_buffer(4, type=WarpSpecialized(num_registers=(16, 232))),
     r"T4: circular_buffer: num_registers decrease 16 is outside \[24, 256\]"),
    ("circular-buffer-registers-264", tma_cached,
     lambda n: n.c.circular_buffer(4, type=WarpSpecialized(num_registers=(40, 264))),
     r"T4: circular_buffer: num_registers increase 264 is outside \[24, 256\]"),
    ("circular-buffer-registers-100", tma_cached,
     lambda n: n.c.circular_buffer(4, type=WarpSpecialized(num_registers=(100, 232))),
     r"T4: circular_buffer: num_registers decrease 100 is not a multiple of 8"),
    ("circular-buffer-decrease-over-increase", tma_cached,
     lambda n: n.c.circular_buffer(4, type=WarpSpecialized(num_registers=(232, 40))),
     r"T4: circular_buffer: num_registers decrease 232 is greater than increase 40"),
    ("circular-buffer-registers-not-a-pair", tma_cached,
     lambda n: n.c.circular_buffer(4, type=WarpSpecialized(num_registers=[40, 232])),
     r"T4: circular_buffer: num_registers must be a pair \(decrease, increase\) of integers"),
    ("warp-specialized-on-bidx", tma_cached,
     lambda n: n.c.circular_buffer(4, type=WarpSpecialized(on=PT.BIDx)),
     r"T4: circular_buffer: WarpSpecialized\(on=BIDx\) must be on TIDx, TIDy or TIDz"),
    ("circular-buffer-bad-type", tma_cached, lambda n: n.c.circular_buffer(4, type="pipelined"),
     r"T4: circular_buffer: type must be Pipelined\(\) or WarpSpecialized\(...\), got 'pipelined'"),

    # caches and memory
    ("cache-before-input", pointwise, lambda n: n.t0.cache_before(),
     r"T0: cache_before: T0 is a fusion input; inputs are not computed"),
    ("cache-before-tma-load", pointwise, lambda n: n.t3.cache_before(TMA),
     r"T3: cache_before: TMA is a load; use cache_after on an input"),
    ("cache-before-after-compute-at", with_(pointwise, lambda n: n.t2.compute_at(n.t3, 1)),
     lambda n: n.t3.cache_before(),
     r"T3: cache_before: T3 is already inlined \(compute-at position 0, produce position 1\); "
     r"cache before compute_at"),
    ("cache-after-tma-of-local", pointwise, lambda n: n.t2.cache_after(TMA),
     r"T2: cache_after: a TMA load reads global memory, but T2 is in Local memory"),
    ("cache-after-cp-async-of-shared", with_(pointwise, lambda n: n.t2.set_memory_type(MemoryType.Shared)),
     lambda n: n.t2.cache_after(LoadStoreOpType.CpAsync),
     r"T2: cache_after: a CpAsync load reads global memory, but T2 is in Shared memory"),
    ("cache-after-tma-store", pointwise, lambda n: n.t0.cache_after(LoadStoreOpType.TMAStore),
     r"T0: cache_after: TMAStore is a store; use cache_before on an output"),
    ("cache-after-inlined", with_(pointwise, lambda n: n.t2.compute_at(n.t3, 1)),
     lambda n: n.t2.cache_after(),
     r"T2: cache_after: T2 is already inlined \(compute-at position 1, produce position 0\)"),
    ("cache-before-tma-store-of-local", pointwise, lambda n: n.t2.cache_before(LoadStoreOpType.TMAStore),
     r"T2: cache_before: a TMAStore writes global memory; the tensor must be in Global memory"),
    ("cache-after-not-an-op-type", pointwise, lambda n: n.t0.cache_after("TMA"),
     r"T0: cache_after: 'TMA' is not a LoadStoreOpType"),
    ("set-load-type-not-async", transposed, lambda n: n.t2.set_load_type(LoadStoreOpType.StMatrix),
     (r"T2: set_load_type: StMatrix for T2; a copy becomes a TMA or cp.async load only \(LoadStoreOpType.TMA, "
      r"LoadStoreOpType.CpAsync\)")),
    ("set-allocation-domain-of-a-local", pointwise, lambda n: n.t2.set_allocation_domain(n.t2.loop),
     r"T2: set_allocation_domain: T2 is in Local memory; only a Shared buffer takes an allocation domain"),
    ("set-load-type-of-a-computed-tensor", transposed, lambda n: n.t3.set_load_type(TMA),
     r"T3: set_load_type: T3 is defined by a binary op; only a tensor defined by a plain copy"),
    ("set-load-type-of-an-input", transposed, lambda n: n.t0.set_load_type(TMA),
     r"T0: set_load_type: T0 is a fusion input"),
    ("set-load-type-after-a-transform", with_(transposed, lambda n: n.t2.split(0, 4)),
     lambda n: n.t2.set_load_type(TMA), r"T2: set_load_type: T2 is already scheduled; set its load type first"),
    ("transpose-dim-out-of-range", transposed, in_fusion(lambda n: ops.transpose(n.t0, 0, 2)),
     r"transpose: dim1 2 is not an axis of T0 of rank 2; an axis is an int in \[-2, 2\)"),
    ("permute-not-a-permutation", transposed, in_fusion(lambda n: ops.permute(n.t1, [1, -1])),
     r"permute: dims \[1, -1\] must name each of the 2 axes of T1 exactly once"),
    ("memory-type-not-a-memory-type", pointwise, lambda n: n.t2.set_memory_type("shared"),
     r"T2: set_memory_type: 'shared' is not a MemoryType"),
    ("input-to-shared", pointwise, lambda n: n.t0.set_memory_type(MemoryType.Shared),
     r"T0: set_memory_type: T0 is a fusion input and must stay in Global memory"),
    ("output-to-local", pointwise, lambda n: n.t3.set_memory_type(MemoryType.Local),
     r"T3: set_memory_type: T3 is a fusion output and must stay in Global memory"),
    ("tma-load-to-local", tma_cached, lambda n: n.c.set_memory_type(MemoryType.Local),
     r"T4: set_memory_type: T4 is loaded by TMA, which writes Shared memory"),

    # tensors of another fusion
    ("compute-at-into-other-fusion", two_fusions, lambda n: n.a.t2.compute_at(n.b.t3, 1),
     r"T2: compute_at: T3 belongs to another fusion than T2"),
    ("transform-like-other-fusion", two_fusions, lambda n: n.a.t2.transform_like(n.b.t3),
     r"T2: transform_like: T3 belongs to another fusion than T2"),
    ("parallelize-like-other-fusion", two_fusions, lambda n: n.a.t2.parallelize_like(n.b.t3),
     r"T2: parallelize_like: T3 belongs to another fusion than T2"),
    ("fusion-transform-like-other-fusion", two_fusions, lambda n: fusion_ir.transform_like(n.a.t3, [n.b.t2]),
     r"transform_like: T2 belongs to another fusion than the one being scheduled"),
    ("inline-most-other-fusion", two_fusions, lambda n: fusion_ir.inline_most(n.fa, [n.a.t2, n.b.t2]),
     r"inline_most: T2 belongs to another fusion"),

    # rfactor
    ("rfactor-non-reduction", pointwise, lambda n: n.t3.rfactor([0]),
     r"T3: rfactor: T3 is not defined by a reduction"),
    ("rfactor-all-reduction-axes", split_reduction, lambda n: n.t1.rfactor([1, 2]),
     r"T1: rfactor: axes \[1, 2\] cover every reduction axis \(axis 1 \(rS4\{ceilDiv\(i1, 32\)\}\), "
     r"axis 2 \(rS5\{32\}\)\); at least one reduction axis must stay outside the rfactor axes"),
    ("rfactor-iteration-axis", split_reduction, lambda n: n.t1.rfactor([0]),
     r"T1: rfactor: axis 0 \(iS2\{i0\}\) is not a reduction axis"),
    ("rfactor-axis-out-of-range", split_reduction, lambda n: n.t1.rfactor([3]),
     r"T1: rfactor: axis 3 is out of range for a tensor with 3 loop axes"),
    ("rfactor-no-axes", split_reduction, lambda n: n.t1.rfactor([]),
     r"T1: rfactor: give at least one reduction axis"),
    ("rfactor-repeated-axis", split_reduction, lambda n: n.t1.rfactor([1, -2]),
     r"T1: rfactor: axes \[1, -2\] repeat an axis"),
    ("rfactor-stale-axis-handle", with_(split_reduction, lambda n: setattr(n, "lanes", n.t1.axis(2)),
                                        lambda n: n.t1.rfactor([1])),
     lambda n: n.lanes.parallelize(PT.TIDx),
     r"T1: parallelize: the handle tv.axis\(2\) to rS5\{32\} is stale: a split, merge, rfactor or compute_at has replaced "
     r"that axis since; take tv.axis\(i\) again"),
    ("split-stale-axis-handle", with_(pointwise, lambda n: setattr(n, "a", n.t3.axis(1)), lambda n: n.t3.split(1, 4)),
     lambda n: n.a.parallelize(PT.TIDx),
     r"T3: parallelize: the handle tv.axis\(1\) to iS7\{i1\} is stale"),
    ("rfactor-of-partial", with_(split_reduction, lambda n: setattr(n, "p", n.t1.rfactor([1]))),
     lambda n: n.p.rfactor([1]),
     r"T2: rfactor: T2 is already the partial result of an rfactor; rfactor the final reduction instead"),
    ("rfactor-after-inlining", with_(split_reduction, lambda n: setattr(n, "c", n.t0.cache_after()),
                                     lambda n: n.c.compute_at(n.t1, 1)),
     lambda n: n.t1.rfactor(1),
     r"T1: rfactor: T1 is already inlined \(compute-at position 0, produce position 1\)"),
    ("rfactor-axis-not-int", split_reduction, lambda n: n.t1.rfactor(["1"]),
     r"T1: rfactor: axis '1' is not an integer"),
    ("rfactor-unsplit-single-axis", reduction, lambda n: n.r.rfactor([1]),
     r"T2: rfactor: axes \[1\] cover every reduction axis \(axis 1 \(rS5\{i1\}\)\)"),

    # matmul
    ("mma-merge-m-with-k", matmul, lambda n: n.c.merge(0, 2),
     r"T2: merge: cannot merge reduction axis with iteration axis"),
]


def fingerprints(ns: SimpleNamespace) -> list[str]:
    fusions = {id(v): v for v in vars(ns).values() if isinstance(v, Fusion)}
    return [f.state_fingerprint() for f in fusions.values()]


@pytest.mark.parametrize("build, call, fragment", [pytest.param(b, c, m, id=i) for i, b, c, m in CASES])
def test_invalid_schedule_raises_and_changes_nothing(build, call, fragment):
    ns = build()
    before = fingerprints(ns)
    assert before, "the builder must expose its fusion(s)"
    with pytest.raises(ScheduleError, match=fragment):
        call(ns)
    assert fingerprints(ns) == before


def test_catalog_is_large_and_ids_are_unique():
    ids = [c[0] for c in CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 45


def test_schedule_error_is_a_value_error():
    assert issubclass(ScheduleError, ValueError)


def test_valid_variants_of_the_catalog_rules_pass():
    """The boundaries just inside each rule are accepted."""
    n = tma_cached()
    n.c.circular_buffer(4, -4)                                           # prefetch == -stages
    n.c.circular_buffer(2, 1, type=WarpSpecialized(on=PT.TIDx, num_registers=(24, 256)))
    n.c.circular_buffer(3, type=WarpSpecialized(num_registers=(232, 232)))
    n.c.circular_buffer(3, type=Pipelined(uses_mbarrier_for_war=True))
    n.c.compute_at(n.t3, 2)
    n.c.axis(2).parallelize(PT.Bulk)
    n.t3.reorder({0: 0})
    p = pointwise()
    p.t3.split(1, 4).axis(2).parallelize(PT.Vectorize)                  # 4 floats = 16 bytes
    p.t3.split(0, 1)


def test_rules_table_messages_come_from_the_catalog():
    """docs/schedule_rules.md quotes real messages: each example is raised by a row above."""
    import re
    from pathlib import Path

    doc = Path(__file__).parents[2] / "docs" / "schedule_rules.md"
    raised = set()
    for _, build, call, _ in CASES:
        try:
            call(build())
        except ScheduleError as e:
            raised.add(str(e))
    rows = re.findall(r"^\| (.*?) \| .* \| `([^`]*)` \|$", doc.read_text(), re.M)
    assert len(rows) >= 50
    missing = [msg for method, msg in rows if not method.startswith("ops") and msg not in raised]
    assert missing == []
