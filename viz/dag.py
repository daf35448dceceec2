"""``--show dag``: the fusion's dataflow graph split into its load sub-DAG and its compute sub-DAG.

The load sub-DAG is what an AsyncWarp would run: tensors defined by an asynchronous copy (TMA or
cp.async) and the global inputs that feed only such copies. Everything else is the compute sub-DAG.
"""

from __future__ import annotations

from typing import Any

import networkx as nx
from rich.table import Table
from rich.text import Text

from fusion_ir import Fusion, LoadStoreOp, TensorView
from lowering.analysis.roles import sub_dags

from .view import View

ROLE_STYLE = {"load": "bright_blue", "compute": "bright_red"}


def roles(fusion: Fusion) -> dict[TensorView, str]:
    """``load`` or ``compute`` for every tensor on a path to an output (``lowering.analysis.roles``)."""
    return {tv: role.value for tv, role in sub_dags(fusion).items()}


def dataflow(fusion: Fusion) -> nx.DiGraph:
    """The used part of ``fusion.graph()``, nodes named ``T<n>``, with role, op and label attributes."""
    role = roles(fusion)
    g = nx.DiGraph()
    for tv in role:
        op = "input" if tv.definition is None else _expr_name(tv.definition)
        g.add_node(f"T{tv.name}", role=role[tv], label=tv.label(), op=op, text=str(tv),
                   memory=tv.memory_type.name, input=tv.is_input, output=tv.is_output)
    for a, b, attrs in fusion.graph().subgraph(list(role)).edges(data=True):
        g.add_edge(f"T{a.name}", f"T{b.name}", op=_expr_name(attrs["expr"]))
    return g


def dag_view(fusion: Fusion) -> View:
    g = dataflow(fusion)
    picture = Text()
    for line in nx.generate_network_text(g, with_labels=True, ascii_only=False):
        text = Text(line + "\n")
        for attrs in g.nodes.values():
            text.highlight_words([attrs["label"]], ROLE_STYLE[attrs["role"]])
        picture.append_text(text)

    table = Table("tensor", "sub-DAG", "defined by", "consumers", title="load and compute sub-DAGs")
    for node, attrs in g.nodes(data=True):
        producers = ", ".join(g.predecessors(node))
        defined = attrs["op"] if attrs["input"] else f"{attrs['op']}({producers})"
        consumers = ", ".join(g.successors(node)) + (" (output)" if attrs["output"] else "")
        table.add_row(Text(attrs["label"]), Text(attrs["role"], style=ROLE_STYLE[attrs["role"]]), Text(defined),
                      Text(consumers.strip()))
    load = [n for n, a in g.nodes(data=True) if a["role"] == "load"]
    handoff = [(a, b) for a, b in g.edges if g.nodes[a]["role"] == "load" and g.nodes[b]["role"] == "compute"]
    summary = Text()
    summary.append("load sub-DAG: ", style="bold")
    summary.append(", ".join(load) if load else "(empty: no TMA or cp.async loads)", style=ROLE_STYLE["load"])
    summary.append("\ncompute sub-DAG: ", style="bold")
    summary.append(", ".join(n for n in g.nodes if n not in load), style=ROLE_STYLE["compute"])
    if handoff:
        summary.append("\nhand-off edges: ", style="bold")
        summary.append(", ".join(f"{a} -> {b}" for a, b in handoff))
    data: dict[str, Any] = {
        "nodes": [{"name": n, **a} for n, a in g.nodes(data=True)],
        "edges": [{"src": a, "dst": b, "op": d["op"]} for a, b, d in g.edges(data=True)],
        "load": load,
        "compute": [n for n in g.nodes if n not in load],
        "handoff": [list(e) for e in handoff],
    }
    return View("dag", "dataflow", [picture, table, summary], data, dot=to_dot(g))


def to_dot(g: nx.DiGraph) -> str:
    """Graphviz text: one cluster per sub-DAG, edges labelled with their op."""
    lines = ["digraph fusion {", "  rankdir=TB;", '  node [shape=box, fontname="monospace"];']
    for role, color in (("load", "blue"), ("compute", "red")):
        members = [n for n, a in g.nodes(data=True) if a["role"] == role]
        if not members:
            continue
        lines.append(f"  subgraph cluster_{role} {{")
        lines.append(f'    label="{role} sub-DAG"; color={color}; fontcolor={color};')
        for n in members:
            a = g.nodes[n]
            shape = ", shape=ellipse" if a["input"] else ", peripheries=2" if a["output"] else ""
            lines.append(f'    "{n}" [label="{a["label"]}\\n{a["op"]}"{shape}];')
        lines.append("  }")
    for a, b, d in g.edges(data=True):
        lines.append(f'  "{a}" -> "{b}" [label="{d["op"]}"];')
    lines.append("}")
    return "\n".join(lines) + "\n"


def _expr_name(expr: Any) -> str:
    """``Set.TMA``, ``add``, ``sum``, ``broadcast``, ``cast``, ``mma``: the op as nvFuser prints it."""
    if isinstance(expr, LoadStoreOp):
        return expr.op_string()
    op = getattr(expr, "op", None)
    if isinstance(op, str) and op:
        return op
    return {"BroadcastOp": "broadcast", "CastOp": "cast", "MmaOp": "mma", "WhereOp": "where", "FullOp": "full",
            "IotaOp": "iota", "ViewOp": "reshape", "PadOp": "pad", "ScanOp": "scan",
            "RescaledSumOp": "rescaled_sum"}.get(type(expr).__name__, type(expr).__name__)
