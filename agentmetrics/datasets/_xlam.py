"""xLAM / APIGen function-calling rows as cases with expectations."""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import partial
from typing import Any

from agentmetrics._base._types import check_errors_mode
from agentmetrics.datasets._common import (
    Source,
    build,
    check_depth,
    entries,
    exact_call,
    fail,
    read_calls,
)
from agentmetrics.expectations import AnyOrder, Expectation
from agentmetrics.model._model import AgentTestCase, UnreadableCase

__all__ = ["xlam_cases"]

_LOADER = "xlam_cases"


def _decoded(value: Any, where: str, what: str) -> Any:
    """A field that the dataset stores as JSON text (or already decoded)."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as error:
            raise fail(where, f"{what} as JSON text ({error.msg})", value,
                       "pass the row as the dataset has it.") from None
        except RecursionError:
            raise fail(where, f"{what} as JSON text", value, "flatten it: it nests too deeply to read.") from None
        check_depth(value, where)
    return value


def xlam_cases(source: Source, outputs: Mapping[Any, Any] | None = None, *,
               errors: str = "raise") -> list[AgentTestCase | UnreadableCase]:
    """One case per xLAM / APIGen row (a JSONL or JSON file of rows, or the
    rows). Read: ``id`` (else the row's index), ``query`` (``input`` and
    ``task``), ``tools`` (JSON text or a list: kept as metadata ``tools``) and
    ``answers`` (JSON text or a list of ``{"name", "arguments"}``: the expected
    calls). The expectation: every answer, in any order (APIGen's answers are
    parallel calls), arguments equal, no other call. ``outputs`` maps an id to
    the model's calls. A row that cannot be read is refused with its id and
    where it is; with ``errors="record"`` it becomes an
    :class:`~agentmetrics.UnreadableCase` and the others load."""
    mode = check_errors_mode(errors)
    cases: list[AgentTestCase | UnreadableCase] = []
    for index, entry in enumerate(entries(source, _LOADER)):
        row_id = entry.value.get("id", index) if isinstance(entry.value, Mapping) else index
        cases.append(build(_LOADER, mode, entry, row_id,
                           partial(_case, row_id=row_id, outputs=outputs)))
    return cases


def _case(row: Any, row_id: Any, outputs: Mapping[Any, Any] | None) -> AgentTestCase:
    if not isinstance(row, Mapping) or "answers" not in row:
        raise fail("row", 'a row {"query", "tools", "answers"}', row, "pass the dataset's rows.")
    answers = _decoded(row["answers"], "answers", "a list of calls")
    if answers is None:
        raise fail("answers", "a list of calls", answers, "pass the dataset's rows.")
    expected = read_calls(answers, "answers", "call", "name", "arguments", "repair the row.")
    tools = _decoded(row.get("tools"), "tools", "a list of tools")
    steps = list(map(exact_call, expected))
    return AgentTestCase(
        input=row.get("query"), expected_tool_calls=expected, expectation=Expectation(AnyOrder(steps)),
        tool_calls=None if outputs is None else outputs.get(row_id),
        metadata={"id": row_id, "category": None, "task": row.get("query"), "tools": tools})
