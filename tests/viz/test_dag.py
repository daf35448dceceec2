"""viz/dag.py: the load and compute sub-DAGs of a fusion and their Graphviz text."""

from __future__ import annotations

import networkx as nx

import examples
from fusion_ir import DataType, Fusion, LoadStoreOpType, ops
from viz.dag import dag_view, dataflow, roles, to_dot


def two_input_fusion() -> Fusion:
    """T3 = TMA(T0); T4 = T3 + T1; T5 = exp(T4): T0 feeds only the TMA load, T1 feeds compute."""
    fusion = Fusion()
    with fusion:
        a = fusion.add_input(ndim=1, dtype=DataType.Float)
        b = fusion.add_input(ndim=1, dtype=DataType.Float)
        out = ops.exp(ops.add(a, b))
        fusion.add_output(out)
    a.cache_after(LoadStoreOpType.TMA)
    return fusion


def test_async_loads_and_inputs_that_only_feed_them_are_the_load_sub_dag() -> None:
    fusion = two_input_fusion()
    role = {f"T{tv.name}": r for tv, r in roles(fusion).items()}
    loads = sorted(n for n, r in role.items() if r == "load")
    cached = next(tv for tv in fusion.used_tensors() if tv.definition is not None
                  and getattr(tv.definition, "op_type", None) is LoadStoreOpType.TMA)
    assert loads == sorted(["T0", f"T{cached.name}"])
    assert role["T1"] == "compute" and all(role[f"T{tv.name}"] == "compute" for tv in fusion.outputs)


def test_dataflow_is_the_fusion_graph_restricted_to_used_tensors() -> None:
    fusion = examples.load("softmax_like").build()
    g = dataflow(fusion)
    assert nx.is_directed_acyclic_graph(g)
    assert set(g.nodes) == {f"T{tv.name}" for tv in fusion.used_tensors()}
    assert g.number_of_edges() == sum(len(e.tensor_inputs()) for e in fusion.exprs
                                      if f"T{e.output.name}" in g.nodes)
    assert {d["op"] for _, _, d in g.edges(data=True)} == {"max", "broadcast", "sub", "exp"}


def test_dot_clusters_every_node_once_and_labels_edges() -> None:
    fusion = two_input_fusion()
    dot = to_dot(dataflow(fusion))
    assert dot.count("subgraph cluster_") == 2
    for tv in fusion.used_tensors():
        assert dot.count(f'"T{tv.name}" [label="{tv.label()}') == 1
    assert '[label="Set.TMA"]' in dot and '[label="add"]' in dot and dot.rstrip().endswith("}")


def test_view_marks_the_hand_off_from_loads_to_compute() -> None:
    fusion = two_input_fusion()
    cached = next(tv for tv in fusion.used_tensors() if getattr(tv.definition, "op_type", None)
                  is LoadStoreOpType.TMA)
    view = dag_view(fusion)
    assert view.data["handoff"] == [[f"T{cached.name}", f"T{c.name}"] for c in cached.consumers()]
    assert view.dot is not None and f"T{cached.name}" not in view.data["compute"]
