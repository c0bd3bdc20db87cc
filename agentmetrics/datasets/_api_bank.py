"""API-Bank dialogues (the lv1-lv2-samples files, both levels) as cases with expectations."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from agentmetrics._base._types import check_errors_mode
from agentmetrics.datasets._common import build, entries, exact_call, fail
from agentmetrics.errors import InvalidParameterError
from agentmetrics.expectations import Expectation
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase

__all__ = ["api_bank_cases"]

_LOADER = "api_bank_cases"


#: API-Bank's levels by the folder its dialogues ship in (``lv1-lv2-samples/<folder>``);
#: its evaluator reads the level the same way (``given-desc`` or not).
LEVELS = {"level-1-given-desc": "level-1", "level-2-toolsearcher": "level-2"}


def api_bank_cases(dialogue: str | os.PathLike[str] | Iterable[Any], *, name: str | None = None,
                   per_call: bool = False, level: str | None = None,
                   errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
    """An API-Bank dialogue (one ``*.jsonl`` file of ``lv1-lv2-samples``, or
    its turns) as cases. Read per turn: ``role`` (``User``, ``AI``, ``API``),
    ``text``, and for API turns ``api_name``, ``param_dict`` and
    ``result.output`` (the expected call's output). The id is the file's name
    without ``.jsonl`` (or ``name``).

    The category is the dialogue's API-Bank level, as its data says it: the
    folder it ships in, ``level-1-given-desc`` (``"level-1"``: call the API
    from the descriptions given) or ``level-2-toolsearcher`` (``"level-2"``:
    find the API with ToolSearcher, then call it). ``level`` states it
    instead (``"level-1"`` or ``"level-2"``). Otherwise the category is None:
    the ``level-N`` in a file's name is not the benchmark's level (the 50
    ``level-2-toolsearcher`` dialogues are all named ``level-3``) and is not read.

    By default one case: ``input`` the user's turns, the expected calls all
    API turns in order, the expectation those calls in order with equal
    arguments, other calls allowed. ``per_call=True`` gives API-Bank's own
    unit instead: one case per API turn, ``input`` the dialogue before it
    (a list of ``{"role", "text"}``, earlier calls as ``{"role": "API", ...}``),
    expecting that one call. A dialogue with a turn that cannot be read is
    refused with its file and line; with ``errors="record"`` it gives one
    :class:`~agentmetrics.UnreadableCase` instead (its calls cannot be counted)."""
    mode = check_errors_mode(errors)
    if level is not None and level not in LEVELS.values():
        raise InvalidParameterError(f"api_bank_cases: level: expected 'level-1' or 'level-2', got {level!r}. "
                                    f"Fix: pass the level the dialogue's folder names, or leave it out.")
    if isinstance(dialogue, (str, os.PathLike)):
        path = Path(dialogue)
        case_id = name or path.name.removesuffix(".jsonl")
        level = level or LEVELS.get(path.resolve().parent.name)
    else:
        case_id = name or "dialogue"
    turns = []
    for entry in entries(dialogue, _LOADER):
        turn = build(_LOADER, mode, entry, case_id, _turn)
        if isinstance(turn, UnreadableCase):
            return [attrs.evolve(turn, message=f"{turn.message} The dialogue is one error row: its calls "
                                                f"cannot be counted without this turn.")]
        turns.append(turn)
    calls = [(k, ToolCall(t["api_name"], dict(t["param_dict"]), output=_output(t)))
             for k, t in enumerate(turns) if t["role"] == "API"]
    if not per_call:
        users = [t.get("text") for t in turns if t["role"] == "User"]
        return [AgentTestCase(input=users, expected_tool_calls=[c for _, c in calls],
                              expectation=Expectation([exact_call(c) for _, c in calls], extra_calls="allow"),
                              metadata={"id": case_id, "category": level, "task": users[0] if users else None})]
    out: list[AgentTestCase | UnreadableCase] = []
    for number, (k, call) in enumerate(calls):
        history = [{"role": t["role"], "text": t.get("text")} if t["role"] != "API" else
                   {"role": "API", "api_name": t["api_name"], "param_dict": t["param_dict"]} for t in turns[:k]]
        out.append(AgentTestCase(input=history, expected_tool_calls=[call], expectation=Expectation([exact_call(call)]),
                                 metadata={"id": f"{case_id}#{number}", "category": level, "dialogue": case_id}))
    return out


def _turn(turn: Any) -> Mapping[str, Any]:
    if not isinstance(turn, Mapping) or turn.get("role") not in ("User", "AI", "API"):
        raise fail("turn", 'a turn with role "User", "AI" or "API"', turn, "pass an API-Bank dialogue file.")
    if turn["role"] == "API":
        if not isinstance(turn.get("api_name"), str) or not isinstance(turn.get("param_dict"), Mapping):
            raise fail("turn", "an API turn with api_name and param_dict", turn, "pass an API-Bank dialogue file.")
    return turn


def _output(turn: Mapping[str, Any]) -> Any:
    result = turn.get("result")
    return result.get("output") if isinstance(result, Mapping) else None
