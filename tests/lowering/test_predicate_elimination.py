"""Predicate elimination (``lowering/analysis/predicate_elimination.py``): a statement writing registers leaves out
the bounds conditions of the axes along which it reads only in-bounds Local or Shared positions and which it does
not reduce; loads, reductions over the ragged axis and global stores keep theirs. Each fusion is also simulated
against numpy: the elements past the extent hold garbage (the simulator's NaN poison) that nothing stored reads."""

from __future__ import annotations

import numpy as np
import pytest

from fusion_ir import DataType, Fusion, IterDomain, MemoryType, ParallelType, TensorView, inline_most, ops
from lowering import kernel_ir as k
from lowering import lower
from lowering.analysis.predicate_elimination import PredicatePlan
from runtime import simulate

ROWS = 1000                 # not a multiple of the 128-wide tiles: the last tile runs past the extent


def _conditions_of(kernel: k.Kernel, buffer: str) -> list[str]:
    """The conditions enclosing each statement that writes ``buffer``, one string per statement."""
    found: list[str] = []

    def visit(body: tuple, conds: tuple[str, ...]) -> None:
        for node in body:
            if isinstance(node, k.Assign) and node.buffer.name == buffer:
                found.append(" && ".join(conds))
            if isinstance(node, k.IfThenElse):
                visit(node.then_body, conds + (str(node.cond),))
                visit(node.else_body, conds)
                continue
            for _, sub in k.children(node):
                visit(sub, conds)

    visit(kernel.body, ())
    assert found, f"no statement writes {buffer}"
    return found


def _bounded(kernel: k.Kernel, tv: TensorView, extent: int) -> bool:
    """Every statement writing ``tv``'s buffer is guarded by a condition ``... < extent``."""
    return all(f"< {extent}" in conds for conds in _conditions_of(kernel, f"T{tv.name}"))


def _unbounded(kernel: k.Kernel, tv: TensorView, extent: int) -> bool:
    return all(f"< {extent}" not in conds for conds in _conditions_of(kernel, f"T{tv.name}"))


def _plan(fusion: Fusion) -> tuple[k.Kernel, PredicatePlan]:
    lowered = lower(fusion, trace=True)
    return lowered.kernel, lowered.analyses.predicates


def _root(tv: TensorView, d: int) -> IterDomain:
    return tv.root[d]


# ------------------------------------------------------------------ a pointwise chain
def _pointwise_chain() -> tuple[Fusion, list[TensorView]]:
    """``out = relu(-exp(x))`` over ``[1000]``: x loaded into registers (t1), exp and neg in registers, out
    stored; ``[ceilDiv(1000, 128) (BIDx), 32 (TIDx), 4]``: the inner 4 a serial loop, so each register buffer
    holds 4 elements."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(ROWS,), dtype=DataType.Float)
        t2 = ops.exp(x)
        t3 = ops.neg(t2)
        out = ops.relu(t3)
        fusion.add_output(out)
    t1 = x.cache_after()
    for tv in (t2, t3):
        tv.set_memory_type(MemoryType.Local)
    out.split(0, 128)
    out.split(1, 4)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    for tv in (t1, t2, t3):
        tv.compute_at(out, 2)
    return fusion, [t1, t2, t3, out]


def test_pointwise_chain_keeps_the_load_and_store_predicates_and_drops_those_between() -> None:
    fusion, (t1, t2, t3, out) = _pointwise_chain()
    kernel, plan = _plan(fusion)
    assert plan.left_out(t1) == frozenset() and "global memory" in plan.kept[t1]
    assert plan.left_out(out) == frozenset() and "no Local buffer" in plan.kept[out]
    assert plan.left_out(t2) == {_root(t2, 0)} and plan.left_out(t3) == {_root(t3, 0)}
    assert _bounded(kernel, t1, ROWS) and _bounded(kernel, out, ROWS)
    assert _unbounded(kernel, t2, ROWS) and _unbounded(kernel, t3, ROWS)
    x = np.linspace(-2, 2, ROWS, dtype=np.float32)
    (y,) = simulate(kernel, [x])
    np.testing.assert_allclose(y, np.maximum(-np.exp(x), 0), rtol=1e-6)


def test_describe_names_each_tensor() -> None:
    fusion, (t1, t2, _, _) = _pointwise_chain()
    _, plan = _plan(fusion)
    lines = plan.describe()
    assert any(line.startswith(f"T{t2.name}: no bounds predicate along") for line in lines)
    assert any(line.startswith(f"T{t1.name}: bounds predicate kept: reads T") for line in lines)


def test_integer_division_keeps_its_predicate() -> None:
    """An integer division of an element past the extent could divide by garbage (zero): it keeps its guard."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(ROWS,), dtype=DataType.Int32)
        y = ops.add(x, 1)
        q = ops.binary("mod", y, x)
        out = ops.add(q, 1)
        fusion.add_output(out)
    t1 = x.cache_after()
    for tv in (y, q):
        tv.set_memory_type(MemoryType.Local)
    out.split(0, 128)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    for tv in (t1, y, q):
        tv.compute_at(out, 2)
    kernel, plan = _plan(fusion)
    assert plan.left_out(q) == frozenset() and "integer mod" in plan.kept[q]
    assert _bounded(kernel, q, ROWS)
    assert plan.left_out(y) == {_root(y, 0)} and t1 in plan.kept


# ------------------------------------------------------------------ reductions
def _scaled_sum(shape: tuple[int, int], *, rows_ragged: bool) -> tuple[Fusion, list[TensorView]]:
    """``out = -sum(2 x, 1)``: x loaded into registers (t1), ``t2 = 2 t1`` and the sum ``s`` in registers.
    ``rows_ragged``: the 1000 rows split by 128 (``[Mo (BIDx), 128 (TIDx), rN]``), the summed axis whole;
    else the summed 1000 columns split by 128 (``[M (BIDx), rNo, 128 (rTIDx)...]`` serially:
    ``[M (BIDx), rNo, rNi]``)."""
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=shape, dtype=DataType.Float)
        t2 = ops.mul(x, 2.0)
        s = ops.sum(t2, 1)
        out = ops.neg(s)
        fusion.add_output(out)
    t1 = x.cache_after()
    for tv in (t2, s):
        tv.set_memory_type(MemoryType.Local)
    if rows_ragged:
        for tv in (s, out):
            tv.split(0, 128)
            tv.axis(0).parallelize(ParallelType.BIDx)
            tv.axis(1).parallelize(ParallelType.TIDx)
        for tv in (t1, t2):
            tv.compute_at(s, 2)
        s.compute_at(out, 2)
    else:
        s.split(1, 128)                    # [M, rNo, rNi]
        s.axis(0).parallelize(ParallelType.BIDx)
        out.axis(0).parallelize(ParallelType.BIDx)
        for tv in (t1, t2):
            tv.compute_at(s, 3)
        s.compute_at(out, 1)
    return fusion, [t1, t2, s, out]


def test_a_reduction_over_the_ragged_axis_keeps_its_predicate() -> None:
    fusion, (t1, t2, s, _) = _scaled_sum((6, ROWS), rows_ragged=False)
    kernel, plan = _plan(fusion)
    assert plan.left_out(t2) == {_root(t2, 1)}              # elementwise: its ragged axis is not reduced
    assert plan.left_out(s) == frozenset() and "reduces" in plan.kept[s]
    assert _bounded(kernel, t1, ROWS) and _unbounded(kernel, t2, ROWS)
    # the sum's accumulation is guarded: the garbage past the columns is never added
    assert any(f"< {ROWS}" in conds for conds in _conditions_of(kernel, kernel_acc(kernel, s)))
    x = np.random.default_rng(0).standard_normal((6, ROWS)).astype(np.float32)
    (y,) = simulate(kernel, [x])
    np.testing.assert_allclose(y, -(2 * x).sum(1), rtol=1e-4, atol=1e-4)


def test_a_reduction_over_another_axis_drops_the_ragged_rows_predicate() -> None:
    fusion, (t1, t2, s, out) = _scaled_sum((ROWS, 24), rows_ragged=True)
    kernel, plan = _plan(fusion)
    assert plan.left_out(s) == {_root(s, 0)}                # it sums the columns; the rows are not reduced
    assert plan.left_out(t2) == {_root(t2, 0)}
    assert _bounded(kernel, t1, ROWS) and _bounded(kernel, out, ROWS)
    assert _unbounded(kernel, s, ROWS) and _unbounded(kernel, t2, ROWS)
    x = np.random.default_rng(1).standard_normal((ROWS, 24)).astype(np.float32)
    (y,) = simulate(kernel, [x])
    np.testing.assert_allclose(y, -(2 * x).sum(1), rtol=1e-4, atol=1e-4)


def kernel_acc(kernel: k.Kernel, s: TensorView) -> str:
    """The name of the buffer ``s`` accumulates in (its accumulator, else its own buffer)."""
    names = {n.buffer.name for n in k.walk(kernel.body) if isinstance(n, k.Assign) and n.reduce_op}
    (name,) = [x for x in names if x.startswith(f"T{s.name}")]
    return name


# ------------------------------------------------------------------ shared memory and thread predicates
def test_a_shared_write_keeps_its_predicate() -> None:
    """Only statements writing registers leave their bounds conditions out."""
    fusion, (_, t2, t3, _) = _pointwise_chain()
    t2.set_memory_type(MemoryType.Shared)
    kernel, plan = _plan(fusion)
    assert plan.kept[t2] == "writes no Local buffer"
    assert _bounded(kernel, t2, ROWS) and _unbounded(kernel, t3, ROWS)
    x = np.linspace(-2, 2, ROWS, dtype=np.float32)
    (y,) = simulate(kernel, [x])
    np.testing.assert_allclose(y, np.maximum(-np.exp(x), 0), rtol=1e-6)


@pytest.mark.parametrize("extent", [1024, 896])
def test_no_plan_entry_without_a_ragged_axis(extent: int) -> None:
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(extent,), dtype=DataType.Float)
        out = ops.neg(ops.exp(x))
        fusion.add_output(out)
    out.split(0, 128)
    out.axis(0).parallelize(ParallelType.BIDx)
    out.axis(1).parallelize(ParallelType.TIDx)
    inline_most(fusion)
    _, plan = _plan(fusion)
    assert plan.left_out_axes == {} and plan.kept == {}
