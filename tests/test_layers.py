"""Imports flow one way: no module of agentmetrics imports, at run time, one
that imports it back (directly or around a loop), not even inside a function.

Read from the source with ``ast``: every ``import`` and ``from ... import``
anywhere in a module counts, except those under ``if TYPE_CHECKING:`` (they
never run). ``from package import submodule`` is an edge to the submodule.
"""

from __future__ import annotations

import ast
from pathlib import Path

import agentmetrics

PACKAGE = Path(agentmetrics.__file__).parent


def _module_names() -> dict[str, Path]:
    names = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("agentmetrics", *path.relative_to(PACKAGE).with_suffix("").parts)
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _type_only(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                skipped.update(id(inner) for inner in ast.walk(statement))
    return skipped


def import_graph() -> dict[str, set[str]]:
    modules = _module_names()

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_only(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(tree):
            if id(node) in skipped:
                continue
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                submodules = [f"{base}.{alias.name}" for alias in node.names
                              if f"{base}.{alias.name}" in modules]
                targets = submodules if len(submodules) == len(node.names) else [base]
            for target in targets:
                if target.split(".")[0] != "agentmetrics":
                    continue
                resolved = known(target)
                if resolved is not None and resolved != name:
                    graph[name].add(resolved)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_imports_flow_one_way():
    graph = import_graph()
    loops = cycles(graph)
    described = "; ".join(
        " / ".join(f"{a} -> {b}" for a in loop for b in sorted(graph[a] & set(loop)))
        for loop in loops)
    assert not loops, f"import cycles: {described}"


def test_the_cycle_finder_finds_a_cycle():
    # The check above can fail: a loop of three and a self-contained pair.
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"e"}, "e": set()}
    assert cycles(graph) == [["a", "b", "c"]]
    assert "agentmetrics._kernels._counting" in import_graph()["agentmetrics._kernels"]
