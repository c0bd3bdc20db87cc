"""Reading test cases from JSONL, one case a line."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, Any

import attrs

from agentmetrics._model import AgentTestCase
from agentmetrics.errors import InvalidCaseError

__all__ = ["LINE_KEYS", "UnreadableCase", "case_from_record", "example_cases", "read_cases"]

#: The keys a JSONL line may have. ``tool_calls`` and ``expected_tool_calls``
#: hold names or ``{"name": ..., "arguments": {...}}`` objects; instead of
#: ``tool_calls``, ``response`` may hold a provider payload (an OpenAI,
#: Anthropic, Gemini, LangChain or OpenTelemetry shape) whose calls are read
#: with :func:`agentmetrics.formats.tool_calls_from`, ``format`` naming its
#: format when detection is not wanted.
LINE_KEYS = frozenset(
    {"id", "input", "actual_output", "tool_calls", "response", "format",
     "expected_tool_calls", "metadata"}
)


@attrs.frozen(slots=True)
class UnreadableCase:
    """A dataset line that could not be read (``errors="record"``).

    Evaluating it gives a row with NaN and this message; it is never dropped.
    """

    source: str
    line: int
    message: str


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
    tool_calls = record.get("tool_calls")
    if "response" in record:
        if "tool_calls" in record:
            raise InvalidCaseError(
                "both 'tool_calls' and 'response' are given; expected one of them. Fix: keep "
                "'response' (the provider payload) or 'tool_calls' (the calls themselves)."
            )
        from agentmetrics.formats import tool_calls_from

        tool_calls = tool_calls_from(record["response"], record.get("format"))
    elif "format" in record:
        raise InvalidCaseError("'format' names the format of 'response', which this line lacks.")
    return AgentTestCase(
        input=record.get("input"),
        actual_output=record.get("actual_output"),
        tool_calls=tool_calls,
        expected_tool_calls=record.get("expected_tool_calls"),
        metadata=metadata,
    )


def read_cases(
    source: str | os.PathLike[str] | IO[str], *, errors: str = "raise"
) -> Iterator[AgentTestCase | UnreadableCase]:
    """Stream AgentTestCases from a JSONL file path or an open text file.

    Blank lines are skipped. A malformed line raises InvalidCaseError naming
    ``file:line`` and what was wrong; with ``errors="record"`` it yields an
    UnreadableCase in its place instead and reading goes on (``evaluate``
    scores it as a NaN row that carries the message).
    """
    if errors not in ("raise", "record"):
        raise InvalidCaseError(f"errors must be 'raise' or 'record', got {errors!r}.")
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="utf-8") as handle:
            yield from _read(handle, os.fspath(source), errors)
    else:
        yield from _read(source, getattr(source, "name", "<stream>"), errors)


def _read(handle: IO[str], label: str, errors: str) -> Iterator[AgentTestCase | UnreadableCase]:
    import json  # deferred: keeps `import agentmetrics` light

    for number, line in enumerate(handle, start=1):
        if not line.strip():
            continue
        try:
            try:
                record = json.loads(line.rstrip("\r\n"))  # columns then count within the line
            except json.JSONDecodeError as error:
                raise InvalidCaseError(
                    f"not valid JSON ({error.msg} at column {error.colno}). "
                    f"Fix: each line must be one complete JSON object."
                ) from None
            case = case_from_record(record)
        except InvalidCaseError as error:
            message = f"{label}:{number}: {error}"
            if errors == "raise":
                raise InvalidCaseError(message) from None
            yield UnreadableCase(label, number, message)
        else:
            yield case


def example_cases() -> list[AgentTestCase]:
    """The bundled example: 50 real tau2-bench airline runs (MIT licensed).

    Each case holds the tool calls claude-sonnet-4-5 made in one simulated
    customer-service conversation, the task's expected actions, the first
    user message as ``input``, and ``metadata`` with ``id``, ``task_id``,
    ``trial`` and tau2's ``reward``.
    """
    from importlib import resources

    source = resources.files("agentmetrics").joinpath("examples", "tau2_airline.jsonl")
    with source.open("r", encoding="utf-8") as handle:
        return [case for case in read_cases(handle) if isinstance(case, AgentTestCase)]
