"""xLAM / APIGen function-calling rows as cases with expectations."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from agentmetrics._model import AgentTestCase
from agentmetrics.datasets._common import Source, entries, exact_call, fail, read_calls
from agentmetrics.expectations import AnyOrder, Expectation

__all__ = ["xlam_cases"]

_LOADER = "xlam_cases"


def _decoded(value: Any, where: str, what: str) -> Any:
    """A field that the dataset stores as JSON text (or already decoded)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError as error:
            raise fail(where, f"{what} as JSON text ({error.msg})", value,
                       "pass the row as the dataset has it.") from None
    return value


def xlam_cases(source: Source, outputs: Mapping[Any, Any] | None = None) -> list[AgentTestCase]:
    """One case per xLAM / APIGen row (a JSONL or JSON file of rows, or the
    rows). Read: ``id`` (else the row's index), ``query`` (``input`` and
    ``task``), ``tools`` (JSON text or a list: kept as metadata ``tools``) and
    ``answers`` (JSON text or a list of ``{"name", "arguments"}``: the expected
    calls). The expectation: every answer, in any order (APIGen's answers are
    parallel calls), arguments equal, no other call. ``outputs`` maps an id to
    the model's calls."""
    cases = []
    for index, (where, row) in enumerate(entries(source, _LOADER)):
        here = f"{_LOADER}: {where}"
        if not isinstance(row, Mapping) or "answers" not in row:
            raise fail(here, 'a row {"query", "tools", "answers"}', row, "pass the dataset's rows.")
        answers = _decoded(row["answers"], f"{here}.answers", "a list of calls")
        if answers is None:
            raise fail(f"{here}.answers", "a list of calls", answers, "pass the dataset's rows.")
        expected = read_calls(answers, f"{here}.answers", "call", "name", "arguments", "repair the row.")
        tools = _decoded(row.get("tools"), f"{here}.tools", "a list of tools")
        row_id = row.get("id", index)
        steps = list(map(exact_call, expected))
        cases.append(AgentTestCase(
            input=row.get("query"), expected_tool_calls=expected, expectation=Expectation(AnyOrder(steps)),
            tool_calls=None if outputs is None else outputs.get(row_id),
            metadata={"id": row_id, "category": None, "task": row.get("query"), "tools": tools}))
    return cases
