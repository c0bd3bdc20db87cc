"""API-Bank dialogues (the lv1-lv2-samples files, any level) as cases with expectations."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from agentmetrics._model import AgentTestCase, ToolCall
from agentmetrics.datasets._common import entries, exact_call, fail
from agentmetrics.expectations import Expectation

__all__ = ["api_bank_cases"]

_LOADER = "api_bank_cases"


def api_bank_cases(dialogue: str | os.PathLike[str] | Iterable[Any], *, name: str | None = None,
                   per_call: bool = False) -> list[AgentTestCase]:
    """An API-Bank dialogue (one ``*.jsonl`` file of ``lv1-lv2-samples``, or
    its turns) as cases. Read per turn: ``role`` (``User``, ``AI``, ``API``),
    ``text``, and for API turns ``api_name``, ``param_dict`` and
    ``result.output`` (the expected call's output). The id is the file's name
    without ``.jsonl`` (or ``name``); the category is its level
    (``level-1``, from the name: the folder does not say it).

    By default one case: ``input`` the user's turns, the expected calls all
    API turns in order, the expectation those calls in order with equal
    arguments, other calls allowed. ``per_call=True`` gives API-Bank's own
    unit instead: one case per API turn, ``input`` the dialogue before it
    (a list of ``{"role", "text"}``, earlier calls as ``{"role": "API", ...}``),
    expecting that one call."""
    if isinstance(dialogue, (str, os.PathLike)):
        case_id = name or Path(dialogue).name.removesuffix(".jsonl")
    else:
        case_id = name or "dialogue"
    turns = []
    for where, turn in entries(dialogue, _LOADER):
        if not isinstance(turn, Mapping) or turn.get("role") not in ("User", "AI", "API"):
            raise fail(f"{_LOADER}: {where}", 'a turn with role "User", "AI" or "API"', turn,
                       "pass an API-Bank dialogue file.")
        if turn["role"] == "API":
            if not isinstance(turn.get("api_name"), str) or not isinstance(turn.get("param_dict"), Mapping):
                raise fail(f"{_LOADER}: {where}", "an API turn with api_name and param_dict", turn,
                           "pass an API-Bank dialogue file.")
        turns.append(turn)
    level = next((part for part in _levels(case_id)), None)
    calls = [(k, ToolCall(t["api_name"], dict(t["param_dict"]), output=_output(t)))
             for k, t in enumerate(turns) if t["role"] == "API"]
    if not per_call:
        users = [t.get("text") for t in turns if t["role"] == "User"]
        return [AgentTestCase(input=users, expected_tool_calls=[c for _, c in calls],
                              expectation=Expectation([exact_call(c) for _, c in calls], extra_calls="allow"),
                              metadata={"id": case_id, "category": level, "task": users[0] if users else None})]
    out = []
    for number, (k, call) in enumerate(calls):
        history = [{"role": t["role"], "text": t.get("text")} if t["role"] != "API" else
                   {"role": "API", "api_name": t["api_name"], "param_dict": t["param_dict"]} for t in turns[:k]]
        out.append(AgentTestCase(input=history, expected_tool_calls=[call], expectation=Expectation([exact_call(call)]),
                                 metadata={"id": f"{case_id}#{number}", "category": level, "dialogue": case_id}))
    return out


def _output(turn: Mapping[str, Any]) -> Any:
    result = turn.get("result")
    return result.get("output") if isinstance(result, Mapping) else None


def _levels(case_id: str) -> Iterable[str]:
    parts = case_id.split("-")
    for k in range(len(parts) - 1):
        if parts[k] == "level" and parts[k + 1].isdigit():
            yield f"level-{parts[k + 1]}"
