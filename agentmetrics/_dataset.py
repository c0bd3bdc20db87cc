"""Reading test cases from JSONL, one case a line."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, Any


from agentmetrics._model import CASE_FIELDS, AgentTestCase, UnreadableCase
from agentmetrics._types import ErrorsMode
from agentmetrics.errors import InvalidCaseError

__all__ = [
    "LINE_KEYS",
    "case_from_record",
    "case_of_line",
    "example_cases",
    "numbered_cases",
    "read_cases",
]

#: The keys a JSONL line may have. ``tool_calls`` and ``expected_tool_calls``
#: hold names or ``{"name": ..., "arguments": {...}}`` objects; instead of
#: ``tool_calls``, ``response`` may hold a provider payload (an OpenAI,
#: Anthropic, Gemini, LangChain or OpenTelemetry shape) whose calls are read
#: with :func:`agentmetrics.formats.tool_calls_from`, ``format`` naming its
#: format when detection is not wanted.
LINE_KEYS = CASE_FIELDS | {"id", "response", "format"}


#: What JSON counts as whitespace; a line holding only these is blank and skipped.
_JSON_WHITESPACE = " \t\r\n"




def case_from_record(
    record: object, *, input_format: str | None = None, hosted_tools: bool = True
) -> AgentTestCase:
    """Build an AgentTestCase from one decoded JSONL object.

    ``id`` goes into ``metadata["id"]``. Unknown keys are refused rather than
    ignored, since a misspelt ``expected_tool_call`` would silently score as
    "not given". ``input_format`` is the format of ``response`` payloads on
    lines that do not name one in ``format``; ``hosted_tools`` is passed to
    :func:`agentmetrics.formats.tool_calls_from`.
    """
    if not isinstance(record, dict):
        raise InvalidCaseError(
            f"expected a JSON object, got {type(record).__name__}. Fix: write one "
            f'object a line, e.g. {{"tool_calls": [...], "expected_tool_calls": [...]}}.'
        )
    unknown = sorted(set(record) - LINE_KEYS)
    if unknown:
        shown = ", ".join(repr(key if len(key) <= 40 else key[:37] + "...") for key in unknown[:5])
        more = f" and {len(unknown) - 5} more" if len(unknown) > 5 else ""
        raise InvalidCaseError(
            f"unknown keys [{shown}]{more}; expected some of {sorted(LINE_KEYS)}. "
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

        line_format = record.get("format")
        if line_format is not None and not isinstance(line_format, str):
            raise InvalidCaseError(
                f"'format' must be a format name (a string), got "
                f"{type(line_format).__name__}. Fix: write e.g. \"format\": \"anthropic\"."
            )
        try:
            tool_calls = tool_calls_from(record["response"], line_format or input_format,
                                         hosted_tools=hosted_tools)
        except InvalidCaseError as error:
            raise InvalidCaseError(f"'response': {error}") from None
    elif "format" in record:
        raise InvalidCaseError("'format' names the format of 'response', which this line lacks.")
    turns = record.get("turns")
    if turns is not None:
        if not isinstance(turns, list):
            raise InvalidCaseError(
                f"'turns' must be a list of turn objects, got {type(turns).__name__}. Fix: write "
                f'"turns": [{{"tool_calls": [...], "expected_tool_calls": [...]}}, ...].')
        parsed = []
        for index, turn in enumerate(turns):
            if isinstance(turn, dict) and ("turns" in turn or "id" in turn):
                raise InvalidCaseError(
                    f"'turns'[{index}]: a turn has no 'turns' or 'id' of its own; expected "
                    f"input, actual_output, tool_calls or response (with format), "
                    f"expected_tool_calls, metadata.")
            try:
                parsed.append(case_from_record(turn, input_format=input_format, hosted_tools=hosted_tools))
            except InvalidCaseError as error:
                raise InvalidCaseError(f"'turns'[{index}]: {error}") from None
        turns = parsed
    return AgentTestCase(
        input=record.get("input"),
        actual_output=record.get("actual_output"),
        tool_calls=tool_calls,
        expected_tool_calls=record.get("expected_tool_calls"),
        metadata=metadata,
        turns=turns,
    )


def read_cases(
    source: str | os.PathLike[str] | IO[str] | IO[bytes],
    *,
    errors: ErrorsMode = "raise",
    input_format: str | None = None,
    hosted_tools: bool = True,
) -> Iterator[AgentTestCase | UnreadableCase]:
    """Stream AgentTestCases from a JSONL file path or an open text file.

    Blank lines are skipped. A malformed line raises InvalidCaseError naming
    ``file:line`` and what was wrong; with ``errors="record"`` it yields an
    UnreadableCase in its place instead and reading goes on (``evaluate``
    scores it as a NaN row that carries the message). Every failure to read
    a line is caught this way, a payload that cannot be read included.
    ``input_format`` names the format of ``response`` payloads (one of
    :data:`agentmetrics.formats.FORMATS`) on lines without ``format``.
    """
    for _, case in numbered_cases(source, errors=errors, input_format=input_format,
                                  hosted_tools=hosted_tools):
        yield case


def numbered_cases(
    source: str | os.PathLike[str] | IO[str] | IO[bytes] | None,
    *,
    errors: ErrorsMode = "raise",
    input_format: str | None = None,
    hosted_tools: bool = True,
) -> Iterator[tuple[int, AgentTestCase | UnreadableCase]]:
    """:func:`read_cases`, each case with the number of the line it came from."""
    if errors not in ("raise", "record"):
        raise InvalidCaseError(f"errors must be 'raise' or 'record', got {errors!r}.")
    if input_format is not None:
        from agentmetrics.formats import FORMATS

        if input_format not in FORMATS:
            raise InvalidCaseError(
                f"input_format: unknown format {input_format!r}; expected one of "
                f"{', '.join(FORMATS)}."
            )
    options = {"input_format": input_format, "hosted_tools": hosted_tools}
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else getattr(
        source, "name", None)
    yield from _read(source, name if isinstance(name, str) else "<stream>", errors, options)


def _read(
    source: Any, label: str, errors: ErrorsMode, options: dict[str, Any]
) -> Iterator[tuple[int, AgentTestCase | UnreadableCase]]:
    # Deferred: keeps `import agentmetrics` light.
    from agentmetrics._lines import SourceError, lines

    try:
        for line in lines(source):
            case = case_of_line(line, label, errors, options)
            if case is not None:
                yield line.number, case
    except SourceError as error:
        raise InvalidCaseError(f"{label}: {error}") from None


def case_of_line(
    line: Any, label: str, errors: ErrorsMode, options: dict[str, Any]
) -> AgentTestCase | UnreadableCase | None:
    """The case one physical line holds (None for a blank line): an
    UnreadableCase naming ``label:number`` when it cannot be read, or, with
    ``errors="raise"``, InvalidCaseError. Every reader of JSONL lines comes here."""
    from agentmetrics._lines import LineError, parse_json_line

    number = line.number
    if line.text is not None and not line.text.strip(_JSON_WHITESPACE):
        return None  # blank: JSON's whitespace only (str.strip would skip "\x1f" lines)
    record: Any = None
    try:
        try:
            if line.text is None:  # bytes that could not be decoded
                raise InvalidCaseError(line.error or "unreadable line")
            record = parse_json_line(line.text)
        except LineError as error:
            raise InvalidCaseError(str(error)) from None
        return case_from_record(record, **options)
    except InvalidCaseError as error:
        message = f"{label}:{number}: {error}"
        if errors == "raise":
            raise InvalidCaseError(message) from None
        return UnreadableCase(label, number, message, id=_line_id(record))
    except (ValueError, TypeError, LookupError, AttributeError, RecursionError) as error:
        # A reader bug must not take the rest of the file down: the line
        # becomes an error row that says so.
        message = (f"{label}:{number}: could not read the line ({type(error).__name__}: "
                   f"{error}). This is a bug in agentmetrics; please report it with "
                   f"the line.")
        if errors == "raise":
            raise InvalidCaseError(message) from error
        return UnreadableCase(label, number, message, id=_line_id(record))


def _line_id(record: object) -> Any:
    return record.get("id") if isinstance(record, dict) else None


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

