"""The public surface: what `__all__` promises resolves, is listed, and pickles by it.

In the manner of attrs' import tests: a rename or a move that breaks a user's
import, a `dir()` listing or a stored pickle fails here first.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pickle
import pickletools
import re
import subprocess
import sys
from pathlib import Path

import pytest

import agentmetrics
import agentmetrics.capture as capture  # the subpackage, which is callable
from agentmetrics import errors

PUBLIC_MODULES = [
    "agentmetrics",
    "agentmetrics.batch",
    "agentmetrics.capture",
    "agentmetrics.cli",
    "agentmetrics.errors",
    "agentmetrics.formats",
    "agentmetrics.functional",
    "agentmetrics.metrics",
    "agentmetrics.partition",
    "agentmetrics.pytest_plugin",
    "agentmetrics.registry",
    "agentmetrics.runs",
    "agentmetrics.stats",
    "agentmetrics.testing",
]


@pytest.mark.parametrize("name", PUBLIC_MODULES)
def test_every_name_in_all_resolves_and_all_is_sorted_and_unique(name):
    module = importlib.import_module(name)
    exported = module.__all__
    assert exported == sorted(exported, key=str) and len(set(exported)) == len(exported)
    missing = [attribute for attribute in exported if not hasattr(module, attribute)]
    assert not missing, f"{name}.__all__ names what {name} does not have: {missing}"
    assert set(exported) <= set(dir(module))


def test_the_dask_module_resolves_its_all_too():
    pytest.importorskip("dask")
    module = importlib.import_module("agentmetrics.dask")
    assert module.__all__ == sorted(module.__all__)
    assert all(hasattr(module, attribute) for attribute in module.__all__)


def test_dir_of_the_package_is_its_all_and_imports_nothing_optional():
    code = ("import sys, agentmetrics, agentmetrics.errors; names = dir(agentmetrics); "
            "extra = [n for n in names if n not in agentmetrics.__all__ and not "
            "(n.startswith('__') and n.endswith('__'))]; assert not extra, extra; "
            "assert set(agentmetrics.__all__) <= set(names), 'missing from dir()'; "
            "heavy = [m for m in ('numpy', 'pandas', 'pyarrow', 'httpx', 'dask') "
            "if m in sys.modules]; assert not heavy, heavy; print(len(names))")
    first = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    second = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout  # the same listing, run after run


def test_every_error_class_is_exported_from_the_package_and_errors():
    classes = {name for name, value in vars(errors).items()
               if inspect.isclass(value) and issubclass(value, BaseException)
               and value.__module__ == "agentmetrics.errors"}
    assert classes <= set(agentmetrics.__all__)
    assert classes <= set(errors.__all__)
    warnings = {name for name in classes if issubclass(getattr(errors, name), Warning)}
    assert warnings == {"AgentMetricsWarning", "CacheWarning", "EmptyEvaluationWarning"}
    for name in classes - {"EvaluationInterrupted"} - warnings:  # one hierarchy
        assert issubclass(getattr(errors, name), errors.AgentMetricsError)
    for name in warnings:  # and one for warnings
        assert issubclass(getattr(errors, name), errors.AgentMetricsWarning)
    # Ctrl-C stays a KeyboardInterrupt, so `except Exception` never swallows it.
    assert issubclass(errors.EvaluationInterrupted, KeyboardInterrupt)


def _modules_named(data: bytes) -> list[str]:
    """The modules a pickle imports from (its GLOBAL and STACK_GLOBAL opcodes)."""
    modules, strings = [], []
    for opcode, argument, _ in pickletools.genops(data):
        if opcode.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE"):
            strings.append(argument)
        elif opcode.name == "STACK_GLOBAL":
            modules.append(strings[-2])
        elif opcode.name == "GLOBAL":
            modules.append(argument.split(" ")[0])
    return modules


def _public_objects():
    case = agentmetrics.AgentTestCase(tool_calls=["A", "B"], expected_tool_calls=["A"],
                                      metadata={"id": "c1"})
    result = agentmetrics.evaluate([case], "tool_selection_accuracy")
    batch = agentmetrics.ToolCallBatch.from_cases([case])
    from agentmetrics import runs

    spec = runs.MetricSpec(label="tool_selection_accuracy(threshold=0.8)",
                           name="tool_selection_accuracy", version="1", source="",
                           params={"threshold": 0.8, "api_key": "***"}, threshold=0.8,
                           higher_is_better=True, value_range=(0.0, 1.0))
    return {
        "MetricSpec": spec,
        "Provenance": result.provenance,
        "SavedMetric": runs.SavedMetric.from_spec(spec),
        "SavedMetricResult": agentmetrics.MetricResult(
            runs.SavedMetric.from_spec(spec), result["tool_selection_accuracy"].values,
            result["tool_selection_accuracy"].passed, {}, ["why"].__getitem__),
        "ToolCall": agentmetrics.ToolCall("A", {"x": 1}),
        "AgentTestCase": case,
        "EvalScore": agentmetrics.ToolSelectionAccuracy().evaluate(case),
        "UnreadableCase": agentmetrics.UnreadableCase("f.jsonl", 3, "bad line"),
        "ToolCallBatch": batch,
        "EvaluationResult": result,
        "MetricResult": result["tool_selection_accuracy"],
        "ToolSelectionAccuracy": agentmetrics.ToolSelectionAccuracy(0.5, order_matters=True),
        "Turn": capture.Turn(0, "openai", "openai_chat", "https://api.openai.com/v1/chat/completions",
                             "gpt", (agentmetrics.ToolCall("A"),), capture.Usage(1, 2, 3, turns=1),
                             0.1, False, "http"),
        "Usage": capture.Usage(1, 2, 3, turns=1),
    }


@pytest.mark.parametrize("name", sorted(_public_objects()))
def test_pickles_name_public_paths_and_round_trip(name):
    value = _public_objects()[name]
    data = pickle.dumps(value)
    ours = [module for module in _modules_named(data) if module.split(".")[0] == "agentmetrics"]
    assert ours and not [module for module in ours if "._" in module], ours
    again = pickle.loads(data)
    assert type(again) is type(value)
    if name in ("ToolCall", "AgentTestCase", "EvalScore", "UnreadableCase", "MetricSpec",
                "Provenance", "SavedMetric"):
        assert again == value
    if name == "SavedMetricResult":
        assert again.metric == value.metric and again.reason(0) == "why"
    if name in ("MetricResult", "SavedMetricResult"):
        assert again.reason_list() == value.reason_list()


def test_errors_pickle_with_their_message():
    error = errors.InvalidCaseError("cases.jsonl:3: not valid JSON")
    again = pickle.loads(pickle.dumps(error))
    assert type(again) is errors.InvalidCaseError and str(again) == str(error)


def _private_modules() -> dict[str, Path]:
    package = Path(agentmetrics.__file__).parent
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = ("agentmetrics", *path.relative_to(package).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        if any(part.startswith("_") for part in parts[1:]) and parts[-1] != "__main__":
            found[".".join(parts)] = path
    return found


def test_private_all_lists_what_the_package_takes_from_the_module():
    # A private module's __all__ is its interface inside the package: every
    # name it lists exists, and every public-looking name another module of
    # agentmetrics imports from it is listed (so the list cannot go stale).
    private = _private_modules()
    problems = []
    for name in private:
        module = importlib.import_module(name)
        listed = getattr(module, "__all__", None)
        if listed is None:
            problems.append(f"{name} has no __all__")
            continue
        problems += [f"{name}.__all__ lists {item!r}, which it lacks" for item in listed
                     if not hasattr(module, item)]
    package = Path(agentmetrics.__file__).parent
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in private:
                listed = importlib.import_module(node.module).__all__
                problems += [
                    f"{path.name} imports {alias.name} from {node.module}, not in its __all__"
                    for alias in node.names
                    if not alias.name.startswith("_") and alias.name not in listed
                    and f"{node.module}.{alias.name}" not in private]
    assert not problems, "\n".join(problems)


# --------------------------------------------------------------------------- docs/api.md

API_PAGE = Path(agentmetrics.__file__).parent.parent / "docs" / "api.md"

_DIRECTIVE = re.compile(r"^\.\. (auto\w+):: (\S+)\s*$")
_MEMBERS = re.compile(r"^\s+:members:(.*)$")
_CODE_SPAN = re.compile(r"`(agentmetrics(?:\.\w+)+)`")


def documented_names(text: str) -> list[str]:
    """Every dotted name an API page documents: each autodoc directive's target
    (``.. autoclass:: agentmetrics.runs.RunStore``), each member its
    ``:members:`` lists (``agentmetrics.runs.RunStore.record``), and each
    ``agentmetrics.x.Y`` in a code span of its prose."""
    names: list[str] = []
    target = None
    for line in text.splitlines():
        if directive := _DIRECTIVE.match(line):
            target = directive.group(2)
            names.append(target)
        elif (members := _MEMBERS.match(line)) and target is not None:
            names += [f"{target}.{member.strip()}" for member in members.group(1).split(",")
                      if member.strip()]
        else:
            names += _CODE_SPAN.findall(line)
    return names


def resolve(dotted: str) -> object:
    """What ``dotted`` names: its longest importable module, then attributes.
    Raises ImportError or AttributeError when it names nothing."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        module = ".".join(parts[:end])
        try:
            found: object = importlib.import_module(module)
        except ModuleNotFoundError as error:
            if not error.name or not f"{module}.".startswith(f"{error.name}."):
                raise  # the module is there, and failed importing another
            continue
        for attribute in parts[end:]:
            found = getattr(found, attribute)
        return found
    raise ImportError(f"no module {parts[0]!r}")


def unresolved(names: list[str]) -> list[str]:
    missing = []
    for name in names:
        try:
            resolve(name)
        except (ImportError, AttributeError) as error:
            missing.append(f"{name}: {error}")
    return missing


def test_every_name_the_api_page_documents_imports_from_its_documented_path():
    names = documented_names(API_PAGE.read_text(encoding="utf-8"))
    assert len(names) > 150 and "agentmetrics.runs.RunStore.record" in names
    missing = unresolved(names)
    assert not missing, ("docs/api.md documents names that do not import from the path it gives; "
                         "fix the page or keep the name importable there:\n" + "\n".join(missing))


def test_the_api_page_check_reports_a_made_up_name():
    page = ("Everything is from `agentmetrics.NoSuchThing` or `agentmetrics.evaluate`.\n\n"
            "```{eval-rst}\n.. autoclass:: agentmetrics.EvaluationResult\n"
            "   :members: summary, no_such_method\n.. autofunction:: agentmetrics.runs.load_run\n"
            ".. automodule:: agentmetrics.no_such_module\n   :members:\n"
            ".. autoclass:: agentmetrics.runs.Run\n```\n")
    names = documented_names(page)
    assert names == ["agentmetrics.NoSuchThing", "agentmetrics.evaluate", "agentmetrics.EvaluationResult",
                     "agentmetrics.EvaluationResult.summary", "agentmetrics.EvaluationResult.no_such_method",
                     "agentmetrics.runs.load_run", "agentmetrics.no_such_module", "agentmetrics.runs.Run"]
    assert [line.split(":")[0] for line in unresolved(names)] == [
        "agentmetrics.NoSuchThing", "agentmetrics.EvaluationResult.no_such_method",
        "agentmetrics.no_such_module"]
    # The names the page named before they were renamed still import from there.
    assert resolve("agentmetrics.runs.Run") is resolve("agentmetrics.runs.RunRecord")
