"""Google ADK eval files (EvalSets and the older turn lists) as multi-turn cases."""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import attrs

from agentmetrics._base._types import check_errors_mode
from agentmetrics.datasets._common import (
    build,
    exact_call,
    fail,
    items_of,
    load_json,
    read_calls,
)
from agentmetrics.expectations import Expectation
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase

__all__ = ["adk_cases", "adk_expectation"]

_LOADER = "adk_cases"
_FIX = "repair the eval file."


def _get(mapping: Mapping[str, Any], snake: str) -> Any:
    """A field by its snake_case name or the camelCase ADK also writes."""
    if snake in mapping:
        return mapping[snake]
    head, *rest = snake.split("_")
    return mapping.get(head + "".join(part.title() for part in rest))


def adk_expectation(tool_uses: list[tuple[str, dict[str, Any]]]) -> Expectation:
    """ADK's trajectory check for one invocation (EXACT, its default): these
    calls, in this order, arguments equal, no other call."""
    return Expectation([exact_call(ToolCall(name, args)) for name, args in tool_uses])


def _text(content: Any) -> str | None:
    if not isinstance(content, Mapping):
        return None
    parts = content.get("parts")
    texts = [part.get("text") for part in parts if isinstance(part, Mapping)] if isinstance(parts, list) else []
    joined = "".join(text for text in texts if isinstance(text, str))
    return joined or None


def _turn(text: str | None, uses: list[ToolCall], reference: str | None, invocation: Any) -> AgentTestCase:
    return AgentTestCase(input=text, expected_tool_calls=uses, expectation=Expectation(list(map(exact_call, uses))),
                         metadata={"invocation_id": invocation, "reference": reference})


def adk_cases(source: str | os.PathLike[str] | Any, *, errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
    """One multi-turn case per ADK eval case, one turn per invocation.

    ``source`` is an eval file's path or its decoded JSON. Two formats are
    read. An EvalSet (``eval_set_id``, ``eval_cases``; snake_case or camelCase):
    per case ``eval_id`` (the case's id), per ``conversation`` invocation
    ``user_content.parts[].text`` (the turn's input), ``intermediate_data.
    tool_uses[]`` ``name`` and ``args`` (the expected calls, in order),
    ``final_response.parts[].text`` and ``invocation_id`` (turn metadata). The
    older format, a list of turns with ``query``, ``expected_tool_use[]``
    (``tool_name``, ``tool_input``) and ``reference``, is one case whose id is
    the file's name (or the variant ``[{"name", "data": [turns]}]``, one case
    per item). Each turn's expectation is ADK's EXACT trajectory check; score
    a case with ``per_turn("expectation_match", aggregate="mean")``, as ADK
    averages invocations. A case driven by a user simulator
    (``conversation_scenario``, no conversation) has no expected calls: it
    gives an :class:`~agentmetrics.UnreadableCase`, an error row when scored.
    The agent's own calls are not in eval files: fill each turn's
    ``tool_calls`` from your run. An eval case that cannot be read is refused
    with its id and path; with ``errors="record"`` it becomes an
    :class:`~agentmetrics.UnreadableCase` and the other cases load."""
    mode = check_errors_mode(errors)
    name = Path(source).name if isinstance(source, (str, os.PathLike)) else "eval set"
    label = os.fspath(source) if isinstance(source, (str, os.PathLike)) else "<eval set>"
    data = load_json(source, _LOADER) if isinstance(source, (str, os.PathLike)) else source
    if isinstance(data, list):  # the older format
        if all(isinstance(item, Mapping) and "data" in item for item in data) and data:
            return [build(_LOADER, mode, entry, str((entry.value or {}).get("name", entry.line)),
                          partial(_old_item, index=entry.line))
                    for entry in items_of(data, _LOADER, label, name)]
        (whole,) = items_of([data], _LOADER, label, name)
        return [build(_LOADER, mode, attrs.evolve(whole, where=name), name, lambda turns: _old_case(turns, name, ""))]
    if not isinstance(data, Mapping) or _get(data, "eval_cases") is None:
        raise fail(f"{_LOADER}: {name}", "an ADK EvalSet (eval_set_id, eval_cases) or a list of turns", data,
                   "pass an ADK eval file.")
    cases = _get(data, "eval_cases")
    if not isinstance(cases, list):
        raise fail(f"{_LOADER}: {name}: eval_cases", "a list", cases, "repair the eval file.")
    set_id = _get(data, "eval_set_id")
    out: list[AgentTestCase | UnreadableCase] = []
    for entry in items_of(cases, _LOADER, label, f"{name}: eval_cases"):
        case_id = _get(entry.value, "eval_id") if isinstance(entry.value, Mapping) else None
        out.append(build(_LOADER, mode, entry, case_id, lambda case: _eval_case(case, set_id, label)))
    return out


def _eval_case(case: Any, set_id: Any, label: str) -> AgentTestCase | UnreadableCase:
    if not isinstance(case, Mapping):
        raise fail("case", "an eval case", case, "repair the eval file.")
    case_id = _get(case, "eval_id")
    conversation = _get(case, "conversation")
    if conversation is None:  # not a bad entry: nothing to score against, whatever the mode
        return UnreadableCase(label, 0, f"{_LOADER}: {label}: eval case {case_id!r} has no conversation (it is "
                              f"driven by a user simulator), so no expected calls to score against.", id=case_id)
    if not isinstance(conversation, list):
        raise fail("conversation", "a list of invocations", conversation, "repair the file.")
    turns = []
    for j, invocation in enumerate(conversation):
        here = f"conversation[{j}]"
        if not isinstance(invocation, Mapping):
            raise fail(here, "an invocation", invocation, "repair the eval file.")
        middle = _get(invocation, "intermediate_data")
        uses = read_calls(_get(middle, "tool_uses") if isinstance(middle, Mapping) else None,
                          f"{here}.intermediate_data.tool_uses", "tool use", "name", "args", _FIX)
        turns.append(_turn(_text(_get(invocation, "user_content")), uses,
                           _text(_get(invocation, "final_response")), _get(invocation, "invocation_id")))
    return AgentTestCase(turns=turns, metadata={"id": case_id, "category": set_id})


def _old_item(item: Mapping[str, Any], index: int) -> AgentTestCase:
    return _old_case(item["data"], str(item.get("name", index)), "data")


def _old_case(turns: Any, case_id: str, where: str) -> AgentTestCase:
    if not isinstance(turns, list):
        raise fail(where or "top level", "a list of turns", turns, "repair the eval file.")
    read = []
    for j, turn in enumerate(turns):
        here = f"{where}[{j}]"
        if not isinstance(turn, Mapping) or "query" not in turn:
            raise fail(here, 'a turn {"query", "expected_tool_use", "reference"}', turn, "repair the file.")
        uses = read_calls(turn.get("expected_tool_use"), f"{here}.expected_tool_use", "tool use", "tool_name",
                          "tool_input", _FIX)
        read.append(_turn(turn.get("query"), uses, turn.get("reference"), None))
    return AgentTestCase(turns=read, metadata={"id": case_id, "category": None})
