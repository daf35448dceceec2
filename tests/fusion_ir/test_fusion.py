"""Fusion: building, the networkx dataflow graph, topological order, transactions (fusion_ir/fusion.py)."""

import networkx as nx
import pytest

from fusion_ir import DataType, Fusion, MemoryType, ParallelType, ScheduleError, ops


def diamond():
    """t1 = exp(t0); t2 = neg(t0); t3 = t1 + t2; t4 = t3 * 2."""
    fusion = Fusion()
    with fusion:
        t0 = fusion.add_input(ndim=2)
        t1 = ops.exp(t0)
        t2 = ops.neg(t0)
        t3 = ops.add(t1, t2)
        t4 = ops.mul(t3, 2)
        fusion.add_output(t4)
    return fusion, t0, t1, t2, t3, t4


def test_inputs_outputs_and_memory():
    fusion, t0, t1, t2, t3, t4 = diamond()
    assert fusion.inputs == [t0] and fusion.outputs == [t4]
    assert t0.is_input and t4.is_output and not t3.is_output
    assert t0.memory_type is MemoryType.Global and t4.memory_type is MemoryType.Global
    assert t3.memory_type is MemoryType.Local
    assert [tv.name for tv in fusion.tensors] == [0, 1, 2, 3, 4]


def test_add_input_symbolic_and_concrete_extents():
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=2, dtype=DataType.Half)
        b = fusion.add_input(shape=(128, 1024))
    assert [str(i.extent) for i in a.root] == ["i0", "i1"] and a.dtype is DataType.Half
    assert [i.extent.const_value() for i in b.root] == [128, 1024]


def test_graph_is_a_networkx_digraph():
    fusion, t0, t1, t2, t3, t4 = diamond()
    g = fusion.graph()
    assert isinstance(g, nx.DiGraph)
    assert set(g.nodes) == {t0, t1, t2, t3, t4}
    assert set(g.edges) == {(t0, t1), (t0, t2), (t1, t3), (t2, t3), (t3, t4)}
    assert g.edges[t3, t4]["expr"] is t4.definition
    assert nx.is_directed_acyclic_graph(g)


def test_topological_order():
    fusion, t0, t1, t2, t3, t4 = diamond()
    order = fusion.topological_order()
    assert order == [t0, t1, t2, t3, t4]
    g = fusion.graph()
    pos = {tv: k for k, tv in enumerate(order)}
    assert all(pos[a] < pos[b] for a, b in g.edges)


def test_topological_order_after_caches_and_rfactor():
    fusion = Fusion()
    with fusion:
        x = fusion.add_input(ndim=2)
        r = ops.sum(x, [1])
        fusion.add_output(r)
    c = x.cache_after()
    r.split(1, 4)
    partial = r.rfactor([1])
    before = r.cache_before()
    order = fusion.topological_order()
    assert order.index(x) < order.index(c) < order.index(partial) < order.index(before) < order.index(r)
    assert [e.output for e in fusion.exprs] == [c, partial, before, r]


def test_producers_consumers_uses():
    fusion, t0, t1, t2, t3, t4 = diamond()
    assert t0.consumers() == [t1, t2]
    assert t3.producers() == [t1, t2]
    assert t4.producers() == [t3]            # the scalar operand is not a producer
    assert t0.uses() == [t1.definition, t2.definition]
    assert t4.consumers() == []
    assert t4.ancestors() == {t0, t1, t2, t3} and t1.ancestors() == {t0} and t0.ancestors() == set()


def test_used_tensors_and_tensors_between():
    fusion, t0, t1, t2, t3, t4 = diamond()
    with fusion:
        dead = ops.relu(t1)
    assert dead not in fusion.used_tensors()
    assert fusion.used_tensors() == [t0, t1, t2, t3, t4]
    assert fusion.tensors_between(t0, t4) == {t1, t2, t3}
    assert fusion.tensors_between(t1, t3) == set()
    assert fusion.tensors_between(t3, t1) is None
    assert fusion.tensors_between(t1, t1) is None


def test_context_manager_nests():
    f1, f2 = Fusion(), Fusion()
    with f1:
        assert Fusion.current() is f1
        with f2:
            assert Fusion.current() is f2
        assert Fusion.current() is f1
    with pytest.raises(ScheduleError, match="no active fusion"):
        Fusion.current()


def test_transaction_rolls_back_everything():
    fusion, t0, t1, t2, t3, t4 = diamond()
    t4.split(1, 8)
    before = fusion.state_fingerprint()
    with pytest.raises(RuntimeError):
        with fusion.transaction():
            t4.split(0, 2).merge(1)
            t4.axis(0).parallelize(ParallelType.BIDx)
            t1.compute_at(t3, 1)
            c = t0.cache_after()
            c.set_memory_type(MemoryType.Shared)
            raise RuntimeError("abort")
    assert fusion.state_fingerprint() == before
    assert fusion.tensors == [t0, t1, t2, t3, t4]
    assert t1.definition.inputs == [t0]
    with fusion:
        assert ops.neg(t4).name == 5          # tensor names were rolled back too


def test_state_fingerprint_sees_every_kind_of_change():
    fusion, t0, t1, t2, t3, t4 = diamond()
    seen = {fusion.state_fingerprint()}
    for change in (lambda: t4.split(1, 4), lambda: t4.axis(0).parallelize(ParallelType.TIDx),
                   lambda: t3.set_memory_type(MemoryType.Shared), lambda: t3.inline_at(1),
                   lambda: t0.cache_after()):
        change()
        fp = fusion.state_fingerprint()
        assert fp not in seen
        seen.add(fp)


def test_add_output_errors():
    fusion, t0, t1, t2, t3, t4 = diamond()
    with pytest.raises(ScheduleError, match="add_output: T4 is already an output"):
        fusion.add_output(t4)
    other = Fusion()
    with pytest.raises(ScheduleError, match="is not a tensor of this fusion"):
        other.add_output(t3)


def test_print_math_and_transforms(capsys):
    fusion, t0, t1, t2, t3, t4 = diamond()
    t4.split(1, 4)
    fusion.print_math()
    out = capsys.readouterr().out
    assert out.startswith("Inputs:\n  T0_g_float[iS0{i0}, iS1{i1}], float\nOutputs:")
    assert "%kernel_math {" in out and "} // %kernel_math" in out
    fusion.print_transforms()
    out = capsys.readouterr().out
    assert "T4:" in out and "Split: iS9{i1} by factor 4" in out and "T0:" not in out


def test_replace_uses_rewires_readers_and_outputs_and_remove_dead_drops_the_rest() -> None:
    from fusion_ir import DataType, Fusion, MemoryType, ops

    fusion = Fusion()
    with fusion:
        x = fusion.add_input(shape=(4,), dtype=DataType.Float)
        old = ops.exp(x)
        reader = ops.neg(old)
        fusion.add_output(reader)
        fusion.add_output(old)
        new = ops.relu(x)
    fusion.replace_uses(old, new)
    assert reader.definition.inputs == [new] and fusion.outputs == [reader, new]
    assert new.memory_type is MemoryType.Global
    fusion.remove_dead()
    assert [e.output for e in fusion.exprs] == [new, reader]       # producers first; exp(x) is gone
    assert old not in fusion.tensors and x in fusion.tensors
