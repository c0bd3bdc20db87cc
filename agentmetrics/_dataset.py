"""Reading test cases from JSONL, one case a line."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, Any

from agentmetrics._model import AgentTestCase
from agentmetrics.errors import InvalidCaseError

__all__ = ["LINE_KEYS", "case_from_record", "example_cases", "read_cases"]

#: The keys a JSONL line may have. ``tool_calls`` and ``expected_tool_calls``
#: hold names or ``{"name": ..., "arguments": {...}}`` objects.
LINE_KEYS = frozenset(
    {"id", "input", "actual_output", "tool_calls", "expected_tool_calls", "metadata"}
)


def case_from_record(record: object) -> AgentTestCase:
    """Build an AgentTestCase from one decoded JSONL object.

    ``id`` goes into ``metadata["id"]``. Unknown keys are refused rather than
    ignored, since a misspelt ``expected_tool_call`` would silently score as
    "not given".
    """
    if not isinstance(record, dict):
        raise InvalidCaseError(
            f"expected a JSON object, got {type(record).__name__}. Fix: write one "
            f'object a line, e.g. {{"tool_calls": [...], "expected_tool_calls": [...]}}.'
        )
    unknown = sorted(set(record) - LINE_KEYS)
    if unknown:
        raise InvalidCaseError(
            f"unknown keys {unknown}; expected some of {sorted(LINE_KEYS)}. "
            f"Fix: put extra fields under \"metadata\"."
        )
    metadata: Any = record.get("metadata") or {}
    if not isinstance(metadata, dict):
        raise InvalidCaseError(f"'metadata' must be an object, got {type(metadata).__name__}.")
    if "id" in record:
        metadata = {**metadata, "id": record["id"]}
    return AgentTestCase(
        input=record.get("input"),
        actual_output=record.get("actual_output"),
        tool_calls=record.get("tool_calls"),
        expected_tool_calls=record.get("expected_tool_calls"),
        metadata=metadata,
    )


def read_cases(source: str | os.PathLike[str] | IO[str]) -> Iterator[AgentTestCase]:
    """Stream AgentTestCases from a JSONL file path or an open text file.

    Blank lines are skipped. A malformed line raises InvalidCaseError naming
    ``file:line`` and what was wrong.
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8") as handle:
            yield from _read(handle, os.fspath(source))
    else:
        yield from _read(source, getattr(source, "name", "<stream>"))


def _read(handle: IO[str], label: str) -> Iterator[AgentTestCase]:
    import json  # deferred: keeps `import agentmetrics` light

    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidCaseError(
                f"{label}:{number}: not valid JSON ({error.msg} at column {error.colno}). "
                f"Fix: each line must be one complete JSON object."
            ) from None
        try:
            yield case_from_record(record)
        except InvalidCaseError as error:
            raise InvalidCaseError(f"{label}:{number}: {error}") from None


def example_cases() -> list[AgentTestCase]:
    """The bundled example: 50 real tau2-bench airline runs (MIT licensed).

    Each case holds the tool calls claude-sonnet-4-5 made in one simulated
    customer-service conversation, the task's expected actions, the first
    user message as ``input``, and ``metadata`` with ``id`` and ``tau2_reward``.
    """
    from importlib import resources

    source = resources.files("agentmetrics").joinpath("examples", "tau2_airline.jsonl")
    with source.open("r", encoding="utf-8") as handle:
        return list(read_cases(handle))
