"""Seal-Tools cases as cases with expectations."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agentmetrics._base._types import check_errors_mode
from agentmetrics.datasets._common import Source, build, entries, entry_id, fail, read_calls
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import AnyOrder, AnyValue, Call, Equals, Expectation, Matcher, OneOf
from agentmetrics.model._model import AgentTestCase, UnreadableCase

__all__ = ["seal_tools_cases"]

_LOADER = "seal_tools_cases"
_REFERENCE = re.compile(r"API_call_\d+")


def _acceptable(value: Any) -> Matcher:
    """A gold value as Seal-Tools' scorer compares it (``str(value)``): the
    value, or its text; a reference to an earlier call's output
    (``"API_call_3"``) as any value."""
    if isinstance(value, str) and _REFERENCE.fullmatch(value):
        return AnyValue()
    if isinstance(value, (bool, int, float)) and not isinstance(value, bool):
        return OneOf([value, str(value)])
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            return Equals(value)
        options: list[Any] = [value, number]
        if number.is_integer() and "." not in value and "e" not in value.lower():
            options.append(int(number))
        return OneOf(options)
    return Equals(value)


def seal_tools_cases(source: Source, outputs: Mapping[str, Any] | None = None, *,
                     errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
    """One case per Seal-Tools entry (a ``*.jsonl`` file of the dataset, or its
    entries). Read: ``id`` (the category is the id without its number:
    ``test_in_domain-easy``), ``query`` (``input`` and ``task``),
    ``calling[].api`` and ``.parameters`` (the expected calls, in order). The
    expectation: every call, in any order (Seal-Tools' scorer ignores order),
    each parameter equal to the gold value or to its text (the scorer compares
    ``str()``), a value ``"API_call_N"`` (an earlier call's output) as any
    value, no other parameter; other calls are counted against. ``outputs``
    maps an id to the model's calls. An entry that cannot be read is refused
    with its id and file and line; with ``errors="record"`` it becomes an
    :class:`~agentmetrics.UnreadableCase` and the others load."""
    mode = check_errors_mode(errors)
    return [build(_LOADER, mode, entry, entry_id(entry.value), lambda value: _case(value, outputs))
            for entry in entries(source, _LOADER)]


def _case(entry: Any, outputs: Mapping[str, Any] | None) -> AgentTestCase:
    if not isinstance(entry, Mapping) or not isinstance(entry.get("id"), str):
        raise fail("entry", 'an entry {"id", "query", "calling"}', entry, "pass a Seal-Tools jsonl file.")
    calling = entry.get("calling")
    if isinstance(calling, Mapping):  # the older files' easy rows: one call
        calling = [calling]
    if calling is None:
        raise fail("calling", "a list of calls", calling, "pass a Seal-Tools jsonl file.")
    expected = read_calls(calling, "calling", "call", "api", "parameters", "repair the entry.")
    steps = []
    for k, call in enumerate(expected):
        try:
            steps.append(Call(call.name, {key: _acceptable(value) for key, value in call.arguments.items()}))
        except InvalidCaseError as error:
            raise InvalidCaseError(f"calling[{k}]: {error}") from None
    entry_id = entry["id"]
    return AgentTestCase(
        input=entry.get("query"), expected_tool_calls=expected, expectation=Expectation(AnyOrder(steps)),
        tool_calls=None if outputs is None else outputs.get(entry_id),
        metadata={"id": entry_id, "category": entry_id.rsplit("-", 1)[0], "task": entry.get("query")})
