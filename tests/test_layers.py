"""Imports flow one way: every module belongs to a declared layer and imports,
at run time, only modules of its own layer or of layers below it; and no module
imports one that imports it back (directly or around a loop), not even inside a
function.

Read from the source with ``ast``: every ``import`` and ``from ... import``
anywhere in a module counts, except those under ``if TYPE_CHECKING:`` (they
never run). ``from package import submodule`` is an edge to the submodule.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
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


def import_targets(node: ast.AST, package: str, modules: dict[str, Path]) -> list[str]:
    """The modules an import statement names (``from package import submodule``
    names the submodule); [] for any other node."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join(anchor + ([base] if base else []))
    submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
    return submodules if len(submodules) == len(node.names) else [base]


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
            for target in import_targets(node, package, modules):
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


#: The layers, lowest first. A module may import its own layer and those above
#: it in this list, never one below. The registry sits under evaluate (the
#: issue that asked for layers listed it above): ``evaluate`` accepts metric
#: names, so it resolves them through the registry, which itself needs only the
#: metric contract. A new module must be placed here, or the test fails.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("foundation", ("errors", "_base", "_base.*", "_secrets", "_secrets.*")),
    ("model", ("model", "model.*", "expectations", "expectations.*", "formats", "formats.*", "_columnar",
               "_columnar.*", "cases", "cases.*")),
    ("metric contract", ("metric", "metric.*")),
    ("registry", ("registry",)),
    ("kernels and batch", ("_kernels", "_kernels.*", "batch", "batch.*", "stats", "stats.*", "corpus",
                           "corpus.*")),
    ("metrics", ("metrics", "metrics.*", "functional")),
    ("results", ("results", "results.*", "runs", "runs.*", "report", "report.*")),
    ("input", ("io", "io.*")),
    ("evaluate", ("engine", "engine.*")),
    ("readers", ("partition", "capture", "capture.*", "datasets", "datasets.*")),
    ("cli and integrations", ("cli", "cli.*", "pytest_plugin", "dask", "dask.*", "testing", "testing.*", "",
                                  "__main__")),
]


def layer_of(module: str) -> int | None:
    short = module.removeprefix("agentmetrics").removeprefix(".")
    for level, (_, members) in enumerate(LAYERS):
        for member in members:
            if short == member or (member.endswith(".*") and short.startswith(member[:-1])):
                return level
    return None


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module in a higher layer, as readable lines."""
    found = []
    for module in sorted(graph):
        for target in sorted(graph[module]):
            here, there = layer_of(module), layer_of(target)
            if here is not None and there is not None and there > here:
                found.append(f"{module} ({LAYERS[here][0]}) imports {target} ({LAYERS[there][0]})")
    return found


def test_every_module_has_a_layer():
    unplaced = sorted(name for name in import_graph() if layer_of(name) is None)
    assert not unplaced, f"place these modules in LAYERS: {unplaced}"


def test_imports_go_down_the_layers():
    upward = upward_imports(import_graph())
    assert not upward, "imports against the layer order:\n" + "\n".join(upward)


def test_the_layer_check_finds_an_upward_import():
    graph = {"agentmetrics.metric._metric": {"agentmetrics.results._results"}, "agentmetrics.results._results": {"agentmetrics.metric._metric"}}
    assert upward_imports(graph) == [
        "agentmetrics.metric._metric (metric contract) imports agentmetrics.results._results (results)"]
    assert layer_of("agentmetrics.formats._otel") == layer_of("agentmetrics._columnar._ingest")
    assert layer_of("agentmetrics.newmodule") is None


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


#: The package root as it stands: its modules, and its subpackages. The root
#: does not grow: a new capability is a subpackage of its own
#: (``agentmetrics/capture/``, ``agentmetrics/datasets/``, ...) with its modules
#: inside, placed in LAYERS above and in docs/architecture.md. Shrinking the
#: root (moving a module into a subpackage) means deleting its name here.
ROOT_MODULES = frozenset({
    "__init__", "__main__", "errors", "functional", "partition", "pytest_plugin", "registry",
})


def root_modules() -> set[str]:
    return {path.stem for path in PACKAGE.glob("*.py")}


def test_the_package_root_does_not_grow():
    added = sorted(root_modules() - ROOT_MODULES)
    assert not added, (
        f"new modules at the package root: {added}. Expected a new capability in a subpackage "
        f"of its own (agentmetrics/<capability>/__init__.py with its modules inside), placed "
        f"in LAYERS in tests/test_layers.py and in docs/architecture.md's table.")
    gone = sorted(ROOT_MODULES - root_modules())
    assert not gone, f"modules no longer at the root: {gone}; delete them from ROOT_MODULES"


def test_every_subpackage_is_in_the_architecture_page():
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    subpackages = sorted(path.parent.name for path in PACKAGE.glob("*/__init__.py"))
    missing = [name for name in subpackages if f"`{name}/`" not in page]
    assert subpackages and not missing, f"docs/architecture.md does not place {missing}"


# --------------------------------------------------------------------------- imports inside functions, names


#: Imports inside functions that go up the layers, declared (docs/architecture.md):
#: a result saves itself as a run and writes its own report.
UPWARD_CONVENIENCES = {("agentmetrics.results._results", "agentmetrics.runs"),
                       ("agentmetrics.results._results", "agentmetrics.report")}

#: The entry points whose start-up an import inside a function may keep light: what
#: each loads of agentmetrics must not grow (numpy stays out of `import agentmetrics`,
#: the CLI's parser and `describe`, the pytest plugin).
ENTRY_POINTS = {
    "import": "import agentmetrics",
    "pytest plugin": "import agentmetrics.pytest_plugin",
    "testing": "import agentmetrics.testing",
    "capture": "import agentmetrics.capture",
    "cli parser": "from agentmetrics.cli import build_parser; build_parser()",
    "cli describe": "from agentmetrics.cli import main; main(['describe', 'tool_selection_accuracy'])",
    "get_metric": "import agentmetrics as am; am.get_metric('tool_selection_accuracy')",
    "cli evaluate": "from agentmetrics.cli import main; main(['evaluate', '--format', 'summary'])",
}


def _loaded(code: str) -> set[str]:
    import json
    import subprocess
    import sys

    script = ("import contextlib, io, json, sys\nwith contextlib.redirect_stdout(io.StringIO()):\n"
              f"    {code}\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('agentmetrics'))))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out.splitlines()[-1]))


def function_imports() -> list[tuple[str, str]]:
    """(module, imported agentmetrics module) for every import inside a function."""
    modules = _module_names()
    found = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skipped = _type_only(tree)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if id(node) in skipped:
                    continue
                found += [(name, target) for target in import_targets(node, package, modules)
                          if target.startswith("agentmetrics")]
    return sorted(set(found))


def test_an_import_inside_a_function_is_declared_or_keeps_an_entry_point_light():
    closures = {label: _loaded(code) for label, code in ENTRY_POINTS.items()}
    undue = []
    for module, target in function_imports():
        if any(module == source and target.startswith(prefix) for source, prefix in UPWARD_CONVENIENCES):
            continue
        if any(module in closure and target not in closure for closure in closures.values()):
            continue  # hoisting it would load more at an entry point's start
        undue.append(f"{module} imports {target} inside a function")
    assert not undue, ("imports inside functions that neither are declared upward conveniences nor keep an "
                       "entry point light; move them to the top of the module:\n" + "\n".join(undue))


def test_no_module_takes_an_underscore_name_from_another_folder():
    modules = _module_names()

    def folder(name: str) -> str:
        parts = name.split(".")
        return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else name

    taken = []
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("agentmetrics"):
                for alias in node.names:
                    private = alias.name.startswith("_") and not alias.name.endswith("__")
                    if private and f"{node.module}.{alias.name}" not in modules \
                            and folder(name) != folder(node.module):
                        taken.append(f"{name} takes {alias.name} from {node.module}")
    assert not taken, "name it without an underscore in its module's __all__:\n" + "\n".join(taken)


# --------------------------------------------------------------------------- names


#: Names kept importable after a rename, where the docs named them: (module, name).
#: ``agentmetrics.runs.Run`` is the history's RunRecord (``agentmetrics.capture.Run``
#: is a captured run).
RENAMED = {("agentmetrics.runs", "Run")}


def _folder(module: str) -> str:
    """The folder a module sits in: its first package under agentmetrics, or the root."""
    parts = module.split(".")
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and (PACKAGE / parts[1]).is_dir()) else ""


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """A module's statements, with those inside its top-level ``if``, ``try`` and ``with``."""
    found = []
    for node in body:
        found.append(node)
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            blocks = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", []),
                      *(handler.body for handler in getattr(node, "handlers", []))]
            for block in blocks:
                found += _top_level(block)
    return found


def defined_names(sources: dict[str, str]) -> dict[str, set[str]]:
    """Every public class and type alias a module defines at its top level
    (``class X``, ``X: TypeAlias = ...``, ``type X = ...``, and ``X = ...`` with
    a capitalised, not all-capitals name): name -> the modules defining it."""
    defined: dict[str, set[str]] = {}
    for module, source in sources.items():
        for node in _top_level(ast.parse(source).body):
            if isinstance(node, ast.ClassDef) or type(node).__name__ == "TypeAlias":
                name = node.name if isinstance(node, ast.ClassDef) else node.name.id
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if len(targets) != 1 or not isinstance(targets[0], ast.Name):
                    continue
                name = targets[0].id
                if not name[:1].isupper() or name.isupper():
                    continue
            else:
                continue
            if not name.startswith("_"):
                defined.setdefault(name, set()).add(module)
    return defined


def name_clashes(sources: dict[str, str], renamed: Collection[tuple[str, str]] = ()) -> list[str]:
    """Every name that modules in different folders define, as readable lines."""
    clashes = []
    for name, modules in sorted(defined_names(sources).items()):
        modules = {module for module in modules if (module, name) not in renamed}
        if len({_folder(module) for module in modules}) > 1:
            clashes.append(f"{name}: {', '.join(sorted(modules))}")
    return clashes


def _sources() -> dict[str, str]:
    return {name: path.read_text(encoding="utf-8") for name, path in _module_names().items()}


def test_no_two_folders_define_the_same_name():
    clashes = name_clashes(_sources(), RENAMED)
    assert not clashes, ("classes or type aliases of one name in different folders; name each for "
                         "what it is (a private class, _Name, is its folder's own):\n" + "\n".join(clashes))


def test_the_name_check_finds_a_clash():
    sources = {"agentmetrics._kernels._blocks": "class Side:\n    pass\n",
               "agentmetrics.io._sides": "import attrs\n@attrs.frozen\nclass Side:\n    name: str\n",
               "agentmetrics.io._compare": "class Side: ...\nclass _Key: ...\n",
               "agentmetrics.engine._evaluate": "MetricSpec = int | str\nLIMIT = 3\n",
               "agentmetrics.runs._provenance": "if True:\n    class MetricSpec: ...\nclass _Key: ...\n",
               "agentmetrics.runs": "from x import Run\nRun = Run\n",
               "agentmetrics.capture._run": "try:\n    class Run: ...\nexcept ImportError:\n    pass\n"}
    assert name_clashes(sources) == [
        "MetricSpec: agentmetrics.engine._evaluate, agentmetrics.runs._provenance",
        "Run: agentmetrics.capture._run, agentmetrics.runs",
        "Side: agentmetrics._kernels._blocks, agentmetrics.io._compare, agentmetrics.io._sides"]
    assert name_clashes(sources, {("agentmetrics.runs", "Run")})[1].startswith("Side")
    assert "RunRecord" in defined_names(_sources())  # it reads the package itself


# --------------------------------------------------------------------------- one way in for input


#: io's readers, which only io/_input chooses between.
READERS = ("agentmetrics.io._dataset", "agentmetrics.io._arrow_lines", "agentmetrics.io._parquet")


def readers_imported_outside(graph: dict[str, set[str]]) -> list[str]:
    """Modules outside io/ that import one of io's readers instead of io/_input."""
    return [f"{module} imports {target}" for module in sorted(graph)
            if not module.startswith("agentmetrics.io.") for target in sorted(graph[module] & set(READERS))]


def test_input_comes_in_one_way():
    found = readers_imported_outside(import_graph())
    assert not found, ("read input through agentmetrics.io._input (add what you need to it), not a "
                       "reader of its own:\n" + "\n".join(found))
    # The check can fail: a CLI module reading Parquet by itself is reported.
    assert readers_imported_outside({"agentmetrics.cli._evaluate": {"agentmetrics.io._parquet"}}) == [
        "agentmetrics.cli._evaluate imports agentmetrics.io._parquet"]
    graph = import_graph()
    for user in ("agentmetrics.engine._evaluate", "agentmetrics.cli._evaluate", "agentmetrics.partition",
                 "agentmetrics.dask._tasks", "agentmetrics.dask._pieces"):
        assert "agentmetrics.io._input" in graph[user], f"{user} does not read through io/_input"
