"""The project's modules import one another without a cycle.

The graph is built from the source with ``ast``: an edge ``a -> b`` for every ``import b`` or
``from b import x`` in module ``a``, at module level or inside a function (a deferred import hides
a cycle, it does not remove it). ``from package import name`` is an edge to ``package.name`` when
that is a module, else to ``package``; importing a module does not count as importing its parent
packages' ``__init__``, which Python runs first anyway.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]


def top_level_packages() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return sorted({name.split(".")[0] for name in config["tool"]["setuptools"]["packages"]})


def project_modules() -> dict[str, Path]:
    modules: dict[str, Path] = {}
    for package in top_level_packages():
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _absolute(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    base = base[:len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Project modules that ``module`` imports anywhere in its source."""
    out: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, is_package, node)
            for alias in node.names:
                if f"{source}.{alias.name}" in modules:
                    out.add(f"{source}.{alias.name}")
                elif source in modules:
                    out.add(source)
    out.discard(module)
    return out


def import_graph() -> nx.DiGraph:
    modules = project_modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for module, path in modules.items():
        graph.add_edges_from((module, target) for target in imported(module, path, modules))
    return graph


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = import_graph()
    assert graph.has_edge("lowering.limits", "target")                             # from package import name
    assert graph.has_edge("runtime.simulator", "lowering.kernel_ir")                # from package import module
    assert graph.has_edge("fusion_ir.schedulers.matmul", "fusion_ir.schedulers.suggest")   # relative
    assert graph.has_edge("fusion_ir.fusion", "fusion_ir.printer")                  # inside a function


# The fusion IR's own types refer to one another (a TensorView is defined by an Expr and owned by a
# Fusion, which hold TensorViews), mostly under TYPE_CHECKING; this one tangle is known and may
# neither grow nor gain a member. Every other module takes part in no cycle.
IR_CORE = frozenset({"fusion_ir.exprs", "fusion_ir.fusion", "fusion_ir.persistent", "fusion_ir.printer",
                     "fusion_ir.replay", "fusion_ir.rfactor", "fusion_ir.tensor_view"})


def _cycle_text(graph: nx.DiGraph, members: set[str]) -> str:
    edges = nx.find_cycle(graph.subgraph(members))
    return " -> ".join([a for a, _ in edges] + [edges[0][0]])


def test_no_import_cycle() -> None:
    graph = import_graph()
    tangles = [c for c in nx.strongly_connected_components(graph) if len(c) > 1]
    unknown = [c for c in tangles if c != IR_CORE]
    shown = "\n".join(_cycle_text(graph, c) for c in unknown)
    assert not unknown, "import cycles among the project's modules:\n" + shown
    outside_core = graph.subgraph(set(graph) - IR_CORE)
    assert nx.is_directed_acyclic_graph(outside_core)


def test_the_target_imports_nothing_of_the_project() -> None:
    graph = import_graph()
    target = [m for m in graph if m == "target" or m.startswith("target.")]
    assert target, "the target package is not in pyproject's packages"
    for module in target:
        outside = [m for m in graph.successors(module) if m.split(".")[0] != "target"]
        assert not outside, f"{module} imports {outside}; the target sits below every layer"


def test_the_shared_memory_model_imports_nothing_of_the_project() -> None:
    graph = import_graph()
    assert "smem_model" in graph, "the smem_model package is not in pyproject's packages"
    assert not list(graph.successors("smem_model")), "smem_model sits below fusion_ir and lowering, which both ask it"
    assert graph.has_edge("fusion_ir.schedulers.matmul_params", "smem_model")
    assert graph.has_edge("lowering.analysis.smem", "smem_model")
