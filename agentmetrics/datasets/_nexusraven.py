"""NexusRaven's evaluation queries (a query and a reference call string) as
cases with expectations. The reference is read with :mod:`ast`, never run."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from functools import partial
from typing import Any

from agentmetrics._base._types import check_errors_mode
from agentmetrics.datasets._common import Source, build, entries, fail
from agentmetrics.expectations import AnyValue, Call, Equals, Expectation, Matcher
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase

__all__ = ["nexusraven_calls", "nexusraven_cases"]

_LOADER = "nexusraven_cases"


def _name(node: ast.expr, text: str, where: str) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):  # nvdlib.searchCPE(...): the function's own name
        return node.attr
    raise fail(where, "a call of a named function", text, "repair the reference.")


def nexusraven_calls(reference: str, where: str = "reference") -> list[tuple[ToolCall, dict[str, bool]]]:
    """The calls of a reference string, innermost first (the order Python
    would run them): ``f(a=1, b=g(x=2))`` gives ``g(x=2)`` then ``f(a=1,
    b=<g's result>)``. An assignment (``r = nvdlib.searchCPE(...)``) is read
    as its value; a module prefix is dropped. Each call comes with the
    arguments that are the result of a nested call (True in the map).
    Keyword literal arguments only; nothing is evaluated."""
    if not isinstance(reference, str):
        raise fail(where, "a call string", reference, "pass the entry's reference.")
    try:
        tree = ast.parse(reference.strip())
    except SyntaxError as error:
        raise fail(where, f"a Python call ({error.msg})", reference, "repair the reference.") from None
    if len(tree.body) != 1:
        raise fail(where, "one statement", reference, "repair the reference.")
    statement = tree.body[0]
    node = statement.value if isinstance(statement, (ast.Assign, ast.Expr)) else None
    if not isinstance(node, ast.Call):
        raise fail(where, "a call, or an assignment of one", reference, "repair the reference.")
    out: list[tuple[ToolCall, dict[str, bool]]] = []

    def visit(call: ast.Call) -> None:
        if call.args:
            raise fail(where, "keyword arguments (NexusRaven's references name every argument)",
                       reference, "repair the reference.")
        arguments: dict[str, Any] = {}
        nested: dict[str, bool] = {}
        for keyword in call.keywords:
            if keyword.arg is None:
                raise fail(where, "named arguments (no **kwargs)", reference, "repair the reference.")
            if isinstance(keyword.value, ast.Call):
                visit(keyword.value)
                nested[keyword.arg] = True
                arguments[keyword.arg] = None
                continue
            try:
                arguments[keyword.arg] = ast.literal_eval(keyword.value)
            except ValueError:
                raise fail(where, "literal arguments", reference, "repair the reference; nothing is run.") from None
        out.append((ToolCall(_name(call.func, reference, where), arguments), nested))

    visit(node)
    return out


def nexusraven_cases(source: Source, *, name: str = "nexusraven",
                     outputs: Mapping[Any, Any] | None = None,
                     errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
    """One case per NexusRaven entry (a JSON file of ``{"query", "reference"}``,
    or the entries). The id is ``<name>-<index>`` (entries have none). The
    expectation: the reference's calls in the order they would run (nested
    calls first), arguments equal, an argument that is a nested call's result
    any value, no other call. ``outputs`` maps an id to the model's calls. An
    entry that cannot be read is refused with its id and where it is; with
    ``errors="record"`` it becomes an :class:`~agentmetrics.UnreadableCase`
    and the others load."""
    mode = check_errors_mode(errors)
    cases: list[AgentTestCase | UnreadableCase] = []
    for index, entry in enumerate(entries(source, _LOADER)):
        case_id = f"{name}-{index}"
        cases.append(build(_LOADER, mode, entry, case_id,
                           partial(_case, case_id=case_id, name=name, outputs=outputs)))
    return cases


def _case(entry: Any, case_id: str, name: str, outputs: Mapping[Any, Any] | None) -> AgentTestCase:
    if not isinstance(entry, Mapping) or "reference" not in entry:
        raise fail("entry", 'an entry {"query", "reference"}', entry, "pass NexusRaven's query file.")
    calls = nexusraven_calls(entry["reference"], "reference")
    steps = []
    for call, nested in calls:
        matchers: dict[str, Matcher] = {key: AnyValue() if nested.get(key) else Equals(value)
                                        for key, value in call.arguments.items()}
        steps.append(Call(call.name, matchers))
    return AgentTestCase(
        input=entry.get("query"), expected_tool_calls=[call for call, _ in calls],
        expectation=Expectation(steps), tool_calls=None if outputs is None else outputs.get(case_id),
        metadata={"id": case_id, "category": name, "task": entry.get("query")})
