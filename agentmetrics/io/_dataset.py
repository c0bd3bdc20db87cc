"""The JSONL line reader: test cases from JSONL, one case a line, each with the
number of its line (the reference every faster reader of JSONL is held to)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, Any

from agentmetrics._base._lines import LineError, SourceError, lines, parse_json_line
from agentmetrics._base._types import ErrorsMode
from agentmetrics._columnar import LINE_KEYS, case_from_record, check_input_format
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import AgentTestCase, UnreadableCase

__all__ = [
    "LINE_KEYS", "case_from_record", "case_of_line", "case_of_parsed_line", "example_cases",
    "numbered_cases", "read_numbered",
]

#: What JSON counts as whitespace; a line holding only these is blank and skipped.
_JSON_WHITESPACE = " \t\r\n"


def numbered_cases(
    source: str | os.PathLike[str] | IO[str] | IO[bytes] | None,
    *,
    errors: ErrorsMode = "raise",
    input_format: str | None = None,
    hosted_tools: bool = True,
) -> Iterator[tuple[int, AgentTestCase | UnreadableCase]]:
    """The cases of a JSONL path or open file (text or bytes; ``None`` reads
    nothing), each with the number of the line it came from: what
    :func:`agentmetrics.read_cases` yields, numbered."""
    if errors not in ("raise", "record"):
        raise InvalidCaseError(f"errors must be 'raise' or 'record', got {errors!r}.")
    check_input_format(input_format)
    options = {"input_format": input_format, "hosted_tools": hosted_tools}
    name = os.fspath(source) if isinstance(source, (str, os.PathLike)) else getattr(
        source, "name", None)
    yield from read_numbered(source, name if isinstance(name, str) else "<stream>", errors, options)


def read_numbered(
    source: Any, label: str, errors: ErrorsMode, options: dict[str, Any]
) -> Iterator[tuple[int, AgentTestCase | UnreadableCase]]:

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
    ``errors="raise"``, InvalidCaseError. Every reader of JSONL lines comes here
    (or to :func:`case_of_parsed_line`)."""
    if line.text is not None and not line.text.strip(_JSON_WHITESPACE):
        return None  # blank: JSON's whitespace only (str.strip would skip "\x1f" lines)
    return _case_at(line.number, line, _UNPARSED, label, errors, options)


def case_of_parsed_line(
    number: int, record: Any, label: str, errors: ErrorsMode, options: dict[str, Any]
) -> AgentTestCase | UnreadableCase:
    """:func:`case_of_line` for a non-blank line whose JSON value the caller has
    parsed already, exactly as :func:`agentmetrics._base._lines.parse_json_line` does
    (:func:`agentmetrics._base._lines.parse_json_lines`): not parsed a second time."""
    return _case_at(number, None, record, label, errors, options)


_UNPARSED: Any = object()


def _case_at(number: int, line: Any, parsed: Any, label: str, errors: ErrorsMode,
             options: dict[str, Any]) -> AgentTestCase | UnreadableCase:
    record: Any = None
    try:
        record = parsed if parsed is not _UNPARSED else _parse(line)
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


def _parse(line: Any) -> Any:
    """The JSON value of a line not parsed yet; InvalidCaseError saying why not."""

    if line.text is None:  # bytes that could not be decoded
        raise InvalidCaseError(line.error or "unreadable line")
    try:
        return parse_json_line(line.text)
    except LineError as error:
        raise InvalidCaseError(str(error)) from None


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
        return [case for _, case in numbered_cases(handle) if isinstance(case, AgentTestCase)]

