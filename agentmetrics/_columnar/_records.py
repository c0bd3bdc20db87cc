"""One record (a decoded JSONL line, a mapping in ``evaluate``) as an AgentTestCase.

This is the reference reading of a record: the columnar paths beside it
(:mod:`agentmetrics._columnar._ingest`) take only records this reads, and
give what it gives.
"""

from __future__ import annotations

from typing import Any

from agentmetrics.errors import InvalidCaseError
from agentmetrics.formats import FORMATS, detect_format, tool_calls_from
from agentmetrics.model._model import CASE_FIELDS, AgentTestCase

__all__ = ["LINE_KEYS", "case_from_record", "check_input_format"]

#: The keys a JSONL line may have. ``tool_calls`` and ``expected_tool_calls``
#: hold names or ``{"name": ..., "arguments": {...}}`` objects; instead of
#: ``tool_calls``, ``response`` may hold a provider payload (an OpenAI,
#: Anthropic, Gemini, LangChain or OpenTelemetry shape) whose calls are read
#: with :func:`agentmetrics.formats.tool_calls_from`, ``format`` naming its
#: format when detection is not wanted.
LINE_KEYS = CASE_FIELDS | {"id", "response", "format"}


#: Keys people write for a case field, and the field they mean.
_MEANT = {"expected": None, "expected_calls": "expected_tool_calls", "gold": "expected_tool_calls",
          "ground_truth": "expected_tool_calls", "reference_tool_calls": "expected_tool_calls",
          "calls": "tool_calls", "actual_tool_calls": "tool_calls", "output": "actual_output",
          "prompt": "input", "query": "input", "question": "input", "meta": "metadata"}


def _meant(key: str, value: Any) -> str | None:
    """The case field a misspelt or borrowed key stands for, told from its
    spelling and, where the spelling leaves it open, from its value: a list
    under ``expected`` is ``expected_tool_calls``, an object with ``steps`` the
    ``expectation``."""
    import difflib

    if key in _MEANT and _MEANT[key] is not None:
        return _MEANT[key]
    if key.lower().startswith("expect"):
        return "expectation" if isinstance(value, dict) and "steps" in value else (
            "expected_tool_calls" if isinstance(value, list) else None)
    close = difflib.get_close_matches(key, sorted(LINE_KEYS), n=1, cutoff=0.8)
    return close[0] if close else None


def _unknown_keys_fix(record: dict[str, Any], unknown: list[str]) -> str:
    """What to do about keys a case line does not have: a provider's response
    spread over the line goes under "response"; a misspelt field is renamed;
    anything else is metadata."""
    format = detect_format({key: record[key] for key in unknown})
    if format is not None:
        what = f"an {format} response" if format[0] in "ao" else f"a {format} response"
        return (f"the line looks like {what} with the case's fields beside it; give the "
                f"response as one value under \"response\", e.g. {{\"response\": {{...the "
                f"response...}}, \"expected_tool_calls\": [...]}}: its calls are read from there "
                f"(agentmetrics.formats).")
    renames = [(key, meant) for key in unknown
               if (meant := _meant(key, record[key])) is not None and meant not in record]
    if renames:
        said = ", ".join(f"{key!r} -> {meant!r}" for key, meant in renames)
        rest_fix = (" and put the other extra fields under \"metadata\""
                    if len(renames) < len(unknown) else "")
        return f"rename {said}{rest_fix}."
    return "put extra fields under \"metadata\"."


def case_from_record(
    record: object, *, input_format: str | None = None, hosted_tools: bool = True
) -> AgentTestCase:
    """Build an AgentTestCase from one decoded JSONL object.

    ``id`` goes into ``metadata["id"]``. Unknown keys are refused rather than
    ignored, since a misspelt ``expected_tool_call`` would silently score as
    "not given". ``input_format`` is the format of ``response`` payloads on
    lines that do not name one in ``format``; ``hosted_tools`` is passed to
    :func:`agentmetrics.formats.tool_calls_from`.

    A record nested deeper than its readers go (each nested field they walk
    has a depth limit of its own) is refused as such.
    """
    try:
        return _case(record, input_format, hosted_tools)
    except RecursionError:
        raise InvalidCaseError("nested too deeply to read (objects and lists inside each "
                               "other). Fix: flatten the record.") from None


def _case(record: object, input_format: str | None, hosted_tools: bool) -> AgentTestCase:
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
            f"Fix: {_unknown_keys_fix(record, unknown)}"
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
        expectation=record.get("expectation"),
        expected_output=record.get("expected_output"),
        latency=record.get("latency"),
        cost=record.get("cost"),
        usage=record.get("usage"),
    )


def check_input_format(input_format: str | None) -> None:
    """Refuse an ``input_format`` that names no format (None: detect per payload)."""
    if input_format is None:
        return
    if input_format not in FORMATS:
        raise InvalidCaseError(
            f"input_format: unknown format {input_format!r}; expected one of "
            f"{', '.join(FORMATS)}."
        )
