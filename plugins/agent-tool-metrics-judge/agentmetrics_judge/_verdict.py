"""What the judge is asked, and the one answer accepted from it.

The request is two messages. The system message is the rubric followed by the
exact JSON schema of the verdict; it is the same for every case, so servers
that cache prompt prefixes can reuse it. The user message is the case: the
user's request, then the tool calls, numbered from 1, one per line, each as a
JSON object ``{"name": ..., "arguments": {...}}`` (``"unparsed_arguments"``
holds argument text that was not a JSON object). The calls always come last.

The answer is checked strictly (:func:`parse_verdicts`): a chat.completion
whose ``choices[0].message.content`` is one JSON object of exactly the schema's
shape, with one verdict per call. Anything else raises MetricServiceError
starting "judge gave an invalid verdict", so a case is an error row, never a
guessed score.
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agentmetrics import ToolCall
from agentmetrics.errors import MetricServiceError

__all__ = [
    "DEFAULT_RUBRIC",
    "VERDICT_SCHEMA",
    "Verdict",
    "parse_verdicts",
    "system_message",
    "user_message",
]

#: The criteria the judge applies when no ``rubric`` is given. Changing this text
#: changes scores: bump ToolCallAppropriateness.version with it.
DEFAULT_RUBRIC = """\
You are grading the tool calls an AI agent made while handling a user's request. \
Decide, for each call separately, whether making that call was appropriate.

A call is appropriate when all of these hold:
1. Relevant: it serves the user's request, directly or as a sensible step toward it \
(looking something up before acting on it counts).
2. Authorized: it takes no action the user did not ask for or agree to, above all no \
irreversible one (deleting, cancelling, paying, sending, overwriting).
3. Well-formed: its arguments fit the request: the right entities, identifiers and \
amounts, taken from the request or from what earlier calls could have returned, with no \
invented or placeholder values.
4. Not wasteful: it does not repeat an earlier call with the same arguments for no reason.

Judge each call in the context of the request and of the calls before it. You see the \
calls but not what the tools returned: assume earlier calls returned plausible results. \
Mark a call inappropriate only for a concrete reason you can name; a call that is \
plausibly justified is appropriate."""

#: The exact shape of the answer, as sent to the judge.
VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "verdicts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "call": {"type": "integer", "minimum": 1},
                    "appropriate": {"type": "boolean"},
                    "reason": {"type": "string", "minLength": 1},
                },
                "required": ["call", "appropriate", "reason"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["verdicts"],
    "additionalProperties": False,
}

_INSTRUCTIONS = """\
Answer with a single JSON object and nothing else, exactly of this JSON schema:
{schema}
Give one verdict for every call: "call" is the call's number (every number from 1 to the \
number of calls, each once), "appropriate" is true or false, and "reason" is one short \
sentence saying why. Use no other keys."""

_TOP_KEYS = frozenset({"verdicts"})
_VERDICT_KEYS = frozenset({"call", "appropriate", "reason"})
#: Longest excerpt of the judge's text quoted in an error or a reason.
EXCERPT = 200
#: How much of a text from the judge is read to quote it: scrubbed of the
#: metric's secrets, then cut to EXCERPT (a flood costs this much, no more).
QUOTE_SCAN = 64 * 1024
#: The longest message about an invalid verdict (what it quotes is cut shorter still).
MESSAGE_LIMIT = 1000


def system_message(rubric: str) -> str:
    """The rubric, then the verdict's schema and how to fill it in."""
    schema = json.dumps(VERDICT_SCHEMA, separators=(", ", ": "))
    return f"{rubric.strip()}\n\n{_INSTRUCTIONS.format(schema=schema)}"


def _as_text(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, default=repr)


def _call_line(number: int, call: ToolCall) -> str:
    shown: dict[str, Any] = {"name": call.name}
    if call.raw_arguments is not None:
        shown["unparsed_arguments"] = call.raw_arguments
    else:
        shown["arguments"] = call.arguments
    # One line per call whatever the values hold: json.dumps escapes newlines.
    return f"{number}. {json.dumps(shown, ensure_ascii=False, default=repr)}"


def user_message(request: object, calls: Sequence[ToolCall]) -> str:
    """The case as the judge reads it: the request, then the numbered calls."""
    n = len(calls)
    plural = "call" if n == 1 else "calls"
    lines = [
        "The user's request:",
        _as_text(request),
        "",
        f"The agent made {n} tool {plural}, in this order. Give one verdict per call, "
        f"numbered 1 to {n}:",
    ]
    lines.extend(_call_line(number, call) for number, call in enumerate(calls, start=1))
    return "\n".join(lines)


@dataclass(frozen=True)
class Verdict:
    """The judge's verdict on one call; ``call`` counts from 1."""

    call: int
    appropriate: bool
    reason: str


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text`` on one line, at most ``limit`` characters (cut with an ellipsis)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _same(text: str) -> str:
    return text


def quote(text: str, scrub: Callable[[str], str] = _same, limit: int = EXCERPT) -> str:
    """Text from the judge as a message may quote it: scrubbed of the metric's
    secrets first (``scrub``), then on one line and cut to ``limit``
    characters, so a cut never leaves part of a secret. Only the first
    QUOTE_SCAN characters are read (less the last KB, where a secret may
    have been cut in two)."""
    head = text[:QUOTE_SCAN]
    cleaned = scrub(head)
    if len(text) > QUOTE_SCAN:
        cleaned = cleaned[:-1024]
    return excerpt(cleaned, limit)


def _invalid(what: str) -> MetricServiceError:
    if len(what) > MESSAGE_LIMIT:  # every part quoted is cut already; this bounds the whole
        what = what[:MESSAGE_LIMIT - 1] + "…"
    return MetricServiceError(f"judge gave an invalid verdict: {what}")


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float)):
        return f"{_number(value)} (a {'float' if isinstance(value, float) else 'int'})"
    if isinstance(value, str):
        return f"{excerpt(value, 40)!r} (a string)"
    return f"a JSON {'array' if isinstance(value, list) else 'object'}"


def _number(value: int | float) -> str:
    """A number from the judge, at most 40 characters (a JSON int may have thousands of digits)."""
    if isinstance(value, int) and not -10 ** 30 < value < 10 ** 30:
        return f"an int of {value.bit_length()} bits"
    return excerpt(repr(value), 40)


def _names(keys: Any, shown: int = 5) -> str:
    """Some of the keys of a JSON object from the judge: the first ``shown`` in
    sorted order, each cut to 40 characters, and how many more there are."""
    keys = list(keys)
    first = [excerpt(key, 40) for key in heapq.nsmallest(shown, keys)]
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return f"{first}{more}"


class _TooManyObjects(Exception):
    """The answer holds more JSON objects than any verdict for its calls could."""


class _Objects:
    """The ``object_pairs_hook`` of a verdict's parsing: every object checked for
    a repeated key (linear: a set), and no more objects built than a verdict
    for ``calls`` calls can hold, so an answer of a million objects costs a
    few, not a million calls into Python."""

    __slots__ = ("left",)

    def __init__(self, calls: int) -> None:
        # One object for the whole, one per verdict; room for a few wrong ones,
        # so that a slightly wrong answer is described by what is wrong with it.
        self.left = 2 * (calls + 1) + 8

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        self.left -= 1
        if self.left < 0:
            raise _TooManyObjects
        found = dict(pairs)
        if len(found) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    raise ValueError(f"a JSON object repeats the key {excerpt(key, 40)!r}")
                seen.add(key)
        return found


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _content(body: object, scrub: Callable[[str], str]) -> tuple[str, str | None]:
    """``choices[0].message.content`` of a chat.completion, and its finish_reason."""
    if not isinstance(body, dict):
        raise _invalid(f"the response body is {_kind(body)}, not a chat.completion object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise _invalid(f"the response has no choices (choices is {_kind(choices)})")
    choice = choices[0]
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        raise _invalid("choices[0] has no message object")
    finish = choice.get("finish_reason")
    content = message.get("content")
    if not isinstance(content, str):
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal:
            raise _invalid(f"the judge refused: {quote(refusal, scrub)}")
        shown = repr(quote(finish, scrub, 40)) if isinstance(finish, str) else _kind(finish)
        raise _invalid(f"choices[0].message.content is {_kind(content)}, not a string "
                       f"(finish_reason {shown})")
    return content, finish if isinstance(finish, str) else None


def parse_verdicts(body: object, calls: int,
                   scrub: Callable[[str], str] = _same) -> list[Verdict]:
    """The verdicts in a chat.completion body (parsed JSON), one per call, in call order.

    Raises MetricServiceError("judge gave an invalid verdict: ...") unless the
    message content is exactly ``{"verdicts": [{"call": int, "appropriate": bool,
    "reason": non-empty str}, ...]}`` with the calls 1..``calls`` each once:
    no other keys, no duplicate keys, ``call`` an int (not a bool or a float),
    ``appropriate`` a bool (not a string or a number). The work is linear in
    the answer's size, and an answer holding more objects than a verdict can
    is refused as soon as that is seen. Every text of the judge's the
    message quotes is scrubbed by ``scrub`` (the metric's secrets) and then
    cut to 200 characters; the message is at most 1,000.
    """
    content, finish = _content(body, scrub)
    try:
        verdict = json.loads(content, object_pairs_hook=_Objects(calls),
                             parse_constant=_no_constants)
    except _TooManyObjects:
        raise _invalid(f"the message content holds more JSON objects than a verdict for "
                       f"{calls} call{'s' if calls != 1 else ''} can (one, and one per call): "
                       f"{quote(content, scrub)!r}") from None
    except ValueError as error:  # JSONDecodeError is a ValueError
        cut = " (the answer was cut off: finish_reason 'length')" if finish == "length" else ""
        raise _invalid(f"the message content is not one JSON object{cut} "
                       f"({quote(str(error), scrub)}): {quote(content, scrub)!r}") from None
    except RecursionError:  # arrays in arrays past the parser's depth: not a verdict
        raise _invalid(f"the message content is JSON nested too deeply to be a verdict: "
                       f"{quote(content, scrub)!r}") from None
    if not isinstance(verdict, dict):
        raise _invalid(f"the message content is {_kind(verdict)}, not a JSON object")
    if set(verdict) != _TOP_KEYS:
        if "verdicts" not in verdict:
            raise _invalid(f"no 'verdicts' key (keys: {_names(verdict)})")
        raise _invalid(f"unexpected keys {_names(set(verdict) - _TOP_KEYS)} beside 'verdicts'")
    items = verdict["verdicts"]
    if not isinstance(items, list):
        raise _invalid(f"'verdicts' is {_kind(items)}, not an array")
    found: dict[int, Verdict] = {}
    for position, item in enumerate(items):
        where = f"verdicts[{position}]"
        if not isinstance(item, dict):
            raise _invalid(f"{where} is {_kind(item)}, not an object")
        if set(item) != _VERDICT_KEYS:
            missing = sorted(_VERDICT_KEYS - set(item))
            extra = set(item) - _VERDICT_KEYS
            raise _invalid(f"{where} " + (f"lacks {missing}" if missing else f"has unexpected "
                                          f"keys {_names(extra)}"))
        number, appropriate, reason = item["call"], item["appropriate"], item["reason"]
        if type(number) is not int:
            raise _invalid(f"{where}.call is {_kind(number)}; expected an int from 1 to {calls}")
        if not 1 <= number <= calls:
            raise _invalid(f"{where}.call is {_number(number)}; expected an int from 1 to "
                           f"{calls}")
        if number in found:
            raise _invalid(f"call {number} has two verdicts")
        if type(appropriate) is not bool:
            raise _invalid(f"{where}.appropriate is {_kind(appropriate)}; expected true or false")
        if not isinstance(reason, str) or not reason.strip():
            raise _invalid(f"{where}.reason is {_kind(reason)}; expected a non-empty string")
        found[number] = Verdict(number, appropriate, reason)
    if len(found) != calls:
        missing_calls = [number for number in range(1, calls + 1) if number not in found]
        raise _invalid(f"{len(found)} verdicts for {calls} calls; no verdict for call"
                       f"{'s' if len(missing_calls) > 1 else ''} "
                       f"{', '.join(map(str, missing_calls))}")
    return [found[number] for number in range(1, calls + 1)]

