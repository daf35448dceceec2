"""inline_most picks positions that lower (fusion_ir/inlining.py, fusion_ir/persistent.py).

Drawn fusions chain pointwise ops, reductions and broadcasts of their results back into
later ops (the softmax / layer-norm shape, where a tensor is read by a reduction and, after
it, by a later op). Every tensor gets one schedule (a split, block and thread bindings, some
tensors in shared memory), then ``inline_most``. The property: ``lower`` accepts the result
and the simulator matches numpy. The one error allowed is a buffer left in registers with a
symbolic size (and for a persistent buffer, the error says so and suggests shared memory).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fusion_ir import Fusion, MemoryType, ParallelType, ScheduleError, TensorView, inline_most, ops
from fusion_ir.persistent import first_unmappable_loop_axis
from fusion_ir.reference import evaluate
from lowering import LoweringError, lower
from runtime import simulate
from tests.fuzz.profiles import budget, profile_name
from tests.helpers import rel_error

UNARY = ("neg", "abs", "tanh", "sin")
BINARY = ("add", "sub", "mul", "maximum", "minimum")


@dataclass(frozen=True)
class Step:
    kind: str        # "unary", "binary", "normalize"
    op: str
    a: int           # operand indices into the list of 2-D tensors made so far
    b: int
    axis: int = 1    # the reduced axis of "normalize"


@dataclass(frozen=True)
class Drawn:
    shape: tuple[int, int]
    symbolic: bool
    n_inputs: int
    outer: bool              # every reduction is over rows (axis 0) instead of columns
    steps: tuple[Step, ...]
    reduction_output: bool
    factor: int
    bind_rows: bool
    bind_threads: bool
    shared: frozenset[int]   # indices of 2-D tensors put in shared memory


@st.composite
def drawn_fusions(draw: st.DrawFn) -> Drawn:
    n_inputs = draw(st.integers(1, 2))
    n_steps = draw(st.integers(1, 6))
    outer = draw(st.booleans()) and draw(st.booleans())  # a quarter reduce over rows instead of columns
    steps = []
    count = n_inputs
    normalize_at = draw(st.integers(0, n_steps - 1))
    for k in range(n_steps):
        kind = "normalize" if k == normalize_at else draw(st.sampled_from(["unary", "binary", "normalize"]))
        a = draw(st.integers(0, count - 1))
        b = draw(st.integers(0, count - 1))
        if kind == "unary":
            op = draw(st.sampled_from(UNARY))
        elif kind == "binary":
            op = draw(st.sampled_from(BINARY))
        else:
            op = draw(st.sampled_from(["sum", "max"])) + "/" + draw(st.sampled_from(["sub", "mul", "add", "div"]))
        steps.append(Step(kind, op, a, b, 0 if outer else 1))
        count += 1
    return Drawn(
        shape=(draw(st.integers(1, 5)), draw(st.integers(1, 40))),
        symbolic=draw(st.booleans()),
        n_inputs=n_inputs,
        outer=outer,
        steps=tuple(steps),
        reduction_output=draw(st.booleans()),
        factor=draw(st.sampled_from([1, 2, 3, 8, 16, 32])),
        bind_rows=not outer and draw(st.booleans()),
        bind_threads=draw(st.booleans()),
        shared=frozenset(draw(st.sets(st.integers(0, count - 1), max_size=3))),
    )


def build(d: Drawn) -> Fusion:
    fusion = Fusion()
    tensors: list[TensorView] = []
    with fusion:
        for _ in range(d.n_inputs):
            tensors.append(fusion.add_input(ndim=2) if d.symbolic else fusion.add_input(shape=d.shape))
        last_reduction = None
        for s in d.steps:
            a, b = tensors[s.a], tensors[s.b]
            if s.kind == "unary":
                tensors.append(getattr(ops, s.op)(a))
            elif s.kind == "binary":
                tensors.append(getattr(ops, s.op)(a, b))
            else:
                reduce, combine = s.op.split("/")
                r = getattr(ops, reduce)(a, [s.axis])
                if combine == "div":  # divide by 1 + |r| so no row divides by zero
                    r = ops.add(ops.abs(r), 1.0)
                flags = [s.axis == 0, s.axis == 1]
                tensors.append(getattr(ops, combine)(b, ops.broadcast(r, flags)))
                last_reduction = r
        fusion.add_output(tensors[-1])
        if d.reduction_output and last_reduction is not None and last_reduction is not tensors[-1]:
            fusion.add_output(ops.neg(last_reduction))
    return fusion, tensors


def schedule(d: Drawn, fusion: Fusion, tensors: list[TensorView]) -> None:
    """The softmax schedule on every tensor: rows on blocks, columns split, the inner part on threads."""
    for tv in fusion.used_tensors():
        if tv.is_input:
            continue
        columns = 1 if tv.ndim == 2 else 0     # a 1-D tensor is a row of column results after an outer reduction
        if tv.ndim == 2 or d.outer:
            tv.split(columns, d.factor)        # [rows, ceilDiv(cols, f), f]
            if d.bind_threads:
                tv.axis(columns + 1).parallelize(ParallelType.TIDx)
        if d.bind_rows and not tv.axis(0).is_reduction:
            tv.axis(0).parallelize(ParallelType.BIDx)
    for k in sorted(d.shared):
        tv = tensors[k]
        if not (tv.is_input or tv.is_output):
            tv.set_memory_type(MemoryType.Shared)
    inline_most(fusion)


def inputs(fusion: Fusion, d: Drawn) -> list[np.ndarray]:
    rng = np.random.default_rng(sum(d.shape))
    return [rng.uniform(-1.0, 1.0, size=d.shape).astype(np.float32) for _ in fusion.inputs]


def joins_two_reduction_branches(fusion: Fusion) -> bool:
    """A tensor with two producers inlined into its loops, each after a reduction of its own.

    The loop nest emits both reductions before either producer opens the loop they share
    (``lowering.emission_order``, as nvFuser's expression sorter); emitted each right after its own
    inputs, the second reduction's loop would separate the first producer from that loop.
    """
    graph = fusion.graph()
    for tv in fusion.used_tensors():
        inlined = [p for p in tv.producers() if not p.is_input and p.compute_at_pos > 0]
        after = [p for p in inlined if any(not u.is_input and u.compute_at_pos < p.compute_at_pos
                                           for u in nx.ancestors(graph, p))]
        if len(after) >= 2:
            return True
    return False


# the fuzz tier's profile (HYPOTHESIS_PROFILE, tests/fuzz/profiles.py): derandomized under ci
@settings(settings.get_profile(profile_name()), max_examples=budget("inline_most"))
@given(drawn_fusions())
def test_inline_most_positions_always_lower(d: Drawn) -> None:
    check_lowers_and_matches(d)


def check_lowers_and_matches(d: Drawn) -> None:
    fusion, tensors = build(d)
    try:
        schedule(d, fusion, tensors)
    except ScheduleError:
        return  # e.g. a shared-memory request on a tensor the schedule cannot place there
    for tv in fusion.used_tensors():
        found = first_unmappable_loop_axis(tv) if not tv.is_input else None
        if found is not None:
            assert tv.compute_at_pos <= found[0], f"T{tv.name} is inlined past its persistent axis {found[0]}"
    try:
        kernel = lower(fusion)
    except LoweringError as e:
        # Registers need constant sizes: with symbolic extents a buffer the schedule keeps whole
        # (a persistent buffer, or an outer reduction's row) cannot be Local. Nothing else may fail.
        assert d.symbolic and "symbolic size" in str(e), str(e)
        # persistent in what lowers: lowering ignores dead tensors (a dead reduction makes no persistent buffer)
        live = set(fusion.used_tensors())
        persistent = [tv for tv in live if not tv.is_input and first_unmappable_loop_axis(tv, live)]
        if any(tv.memory_type is MemoryType.Local and f"T{tv.name} " in str(e) for tv in persistent):
            assert "persistent buffer" in str(e) and "shared memory" in str(e), str(e)
        return
    args = inputs(fusion, d)
    outputs = simulate(kernel, args, seed=1)
    for k, (got, want) in enumerate(zip(outputs, evaluate(fusion, args))):
        err = rel_error(got, want)
        assert err < 1e-4, f"output {k}: relative error {err:.2e}\n{fusion}"


def two_branches_after_reductions() -> Fusion:
    """``(x - broadcast(sum(x))) * broadcast(max(y))``, the softmax schedule, inline_most."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(3, 40))
        y = fusion.add_input(shape=(3, 40))
        centred = ops.sub(x, ops.broadcast(ops.sum(x, [1]), [False, True]))
        fusion.add_output(ops.mul(centred, ops.broadcast(ops.max(y, [1]), [False, True])))
    schedule(Drawn((3, 40), False, 2, False, (), False, 8, True, True, frozenset()), fusion, [])
    return fusion


def test_two_branches_after_reductions_share_a_loop() -> None:
    fusion = two_branches_after_reductions()
    assert joins_two_reduction_branches(fusion)
    x, y = inputs(fusion, Drawn((3, 40), False, 2, False, (), False, 8, True, True, frozenset()))
    (out,) = simulate(lower(fusion), [x, y])
    np.testing.assert_allclose(out, (x - x.sum(1, keepdims=True)) * y.max(1, keepdims=True), rtol=1e-5)


# T3 = x - broadcast(sum(x, rows)) feeds T7 (read by the outer reduction T9 of the second output) and
# T12 = -T3 (the first output). inline_most shares T3's loops with both; T7 also needs T5 = sum(x, rows)
# complete, so T5 must be emitted before T3 opens the loop all three share, not between T3 and T7.
PRODUCER_OF_TWO_LOOP_SHARING_CONSUMERS = Drawn(
    shape=(1, 1), symbolic=False, n_inputs=1, outer=True,
    steps=(Step("normalize", "sum/sub", 0, 0, 0), Step("unary", "neg", 0, 0, 0),
           Step("normalize", "sum/sub", 0, 1, 0), Step("unary", "neg", 0, 0, 0),
           Step("normalize", "sum/sub", 3, 0, 0), Step("unary", "neg", 1, 0, 0)),
    reduction_output=True, factor=1, bind_rows=False, bind_threads=False, shared=frozenset())


def test_producer_shares_loops_with_a_consumer_that_needs_another_reduction_first() -> None:
    d = PRODUCER_OF_TWO_LOOP_SHARING_CONSUMERS
    fusion, tensors = build(d)
    schedule(d, fusion, tensors)
    t3, t7, t12 = tensors[1], tensors[3], fusion.outputs[0]
    assert t3.consumers() == [t7, t12] and t3.compute_at_pos == 3
    check_lowers_and_matches(d)
    # and at a size where the reduction loop runs more than once
    check_lowers_and_matches(replace(d, shape=(4, 5), factor=2))


# T10 = T5 - broadcast(sum(x, rows)) with T5 = -T3 and T3 = x - broadcast(sum(x, rows)): T3 shares one
# loop with T5 and T10 (its other consumer, dead, keeps it from sharing more), T8 = sum(x, rows) none.
# T8 must be emitted before T3, or its loop would close the one T3 opened for T5 and T10.
DEPENDENCY_SHARING_ONE_LOOP = Drawn(
    shape=(1, 1), symbolic=False, n_inputs=1, outer=True,
    steps=(Step("normalize", "sum/sub", 0, 0, 0), Step("unary", "neg", 0, 0, 0),
           Step("unary", "neg", 1, 0, 0), Step("unary", "neg", 0, 0, 0),
           Step("unary", "neg", 1, 0, 0), Step("normalize", "sum/sub", 0, 3, 0)),
    reduction_output=False, factor=1, bind_rows=False, bind_threads=False, shared=frozenset())


def test_a_dependency_sharing_no_loop_comes_before_one_sharing_a_loop() -> None:
    d = DEPENDENCY_SHARING_ONE_LOOP
    fusion, tensors = build(d)
    schedule(d, fusion, tensors)
    assert tensors[1].compute_at_pos == 1
    check_lowers_and_matches(d)
    check_lowers_and_matches(replace(d, shape=(4, 5), factor=2))


# T5 = -x shares its loops with two consumers, the reductions T6 = sum(T5) and T11 = sum(-T5) (one
# loop for both reductions is legal); the emission order once emitted T5, T10, T11 and then T2's reduction
# before T6, cutting T6 off from the loop it shares with T5; now T5's other ready consumers follow at once.
TWO_REDUCTIONS_SHARING_A_PRODUCER = Drawn(
    shape=(1, 1), symbolic=False, n_inputs=2, outer=False,
    steps=(Step("normalize", "sum/sub", 0, 0, 1), Step("unary", "neg", 0, 0, 1),
           Step("normalize", "sum/sub", 3, 2, 1), Step("unary", "neg", 4, 0, 1),
           Step("unary", "neg", 3, 0, 1), Step("normalize", "sum/sub", 6, 4, 1)),
    reduction_output=False, factor=1, bind_rows=False, bind_threads=False, shared=frozenset())


def test_two_reductions_sharing_a_producer() -> None:
    check_lowers_and_matches(TWO_REDUCTIONS_SHARING_A_PRODUCER)
