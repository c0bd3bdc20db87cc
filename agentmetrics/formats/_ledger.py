"""What a reader took from a payload: the calls, and every call site it accounted for.

A reader adds each call it reads with the path of the node it came from, and
marks a site it leaves out on purpose (a hosted tool the user excluded, a second
view of a call already read) with :meth:`Ledger.skip`. The census then checks
that every call site in the payload was accounted for, so a reader can never
return fewer calls than the payload holds without an error.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import attrs

from agentmetrics.errors import InvalidCaseError
from agentmetrics.formats._keys import norm, says_tools
from agentmetrics.formats._payload import Path, render
from agentmetrics.model._model import ToolCall

__all__ = ["MISSING_CALLS", "Ledger", "Streamed", "arguments_in", "as_dict", "as_list",
           "parse_arguments",
           "read_arguments", "refuse", "text"]

#: What a payload that promises calls and holds none is told.
MISSING_CALLS = ("the model stopped to call tools, but the calls are missing from the payload; "
                 "expected the calls, got none. Fix: pass the complete payload, as the SDK or "
                 "API returned it.")


def parse_arguments(value: object) -> tuple[dict[str, Any], str | None]:
    """``(arguments, raw)``: a mapping as is, JSON object text parsed; no
    arguments (``None``, blank text, JSON ``null``) is ``{}``; any other text
    is returned as ``raw`` with empty arguments.

    >>> parse_arguments('{"order_id": 7}'), parse_arguments('{"order_id": ')
    (({'order_id': 7}, None), ({}, '{"order_id": '))
    """
    arguments, raw = read_arguments(value)
    return ({} if arguments is None else arguments), raw


def read_arguments(value: object) -> tuple[dict[str, Any] | None, str | None]:
    """:func:`parse_arguments`, telling "no arguments given" (``None``, JSON
    ``null``: what Gemini's call without ``args`` and Cohere's ``"null"`` mean)
    apart: its arguments are ``None``. Blank text is an empty object: the
    argument text of a call whose stream sent no pieces, ``{}`` when the same
    response is read whole."""
    if value is None:
        return None, None
    if type(value) is str:
        text = value
    elif isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}, None
    else:
        text = value if isinstance(value, str) else json.dumps(value)
    if not text.strip():
        return {}, None
    try:
        parsed = json.loads(text)
    except (ValueError, RecursionError):
        return {}, text
    if parsed is None:
        return None, None  # JSON null: no arguments (Cohere sends "null" for none)
    return (parsed, None) if isinstance(parsed, dict) else ({}, text)


#: Keys that hold a call's arguments in some API (normalized as :func:`norm` does).
_ARGUMENT_KEYS = frozenset({"arguments", "argument", "args", "parameters", "params", "input",
                            "inputs", "kwargs", "toolinput", "functionarguments", "functionargs"})


def arguments_in(node: Mapping[str, Any], key: str, format: str, path: Path,
                 also: tuple[str, ...] = ()) -> Any:
    """The arguments of the call object ``node``, read from ``key``. A missing
    ``key`` means no arguments given, unless the node holds arguments under
    another spelling (``parameters`` where ``arguments`` was expected, as old
    TGI servers sent): then the read is refused, naming it, rather than the
    call read with none. ``also``: other argument keys the format knows there
    (Gemini's streamed ``partialArgs``)."""
    if key in node:
        return node[key]
    for other, value in node.items():
        if (isinstance(other, str) and other not in also and value is not None
                and norm(other) in _ARGUMENT_KEYS):
            raise refuse(format, path + (other,), f"the call's arguments under {key!r}",
                         f"arguments under {other!r}",
                         "pass the payload as the API documents it; if a server sent this "
                         "spelling, map it to the documented one first.")
    return None


def text(value: object) -> str | None:
    """``value`` when it is a string, else None: payload values may be anything."""
    return value if isinstance(value, str) else None


def as_list(value: object) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one. Safe where a wrong
    shape can only hide calls: the census still finds them and fails the read."""
    return value if isinstance(value, list) else []


def as_dict(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def refuse(format: str, path: Path, expected: str, got: str, fix: str) -> InvalidCaseError:
    """The one shape of a reader's error: format, where, expected, got, fix."""
    return InvalidCaseError(
        f"{format}: at {render(path)}, expected {expected}, got {got}. Fix: {fix}"
    )


@attrs.define(slots=True)
class Streamed:
    """A call a stream sends in pieces: the event that opened it (``head``: its
    id and name), where that is, the argument text its pieces add up to, and
    where each piece is (they are views of the call, accounted for with it)."""

    head: dict[str, Any]
    path: Path
    text: str = ""
    pieces: list[Path] = attrs.Factory(list)


class Ledger:
    """The calls a reader returns, in order, with the sites it accounted for."""

    __slots__ = ("calls", "context", "format", "ids", "paths")

    def __init__(self, format: str) -> None:
        self.format = format
        self.calls: list[ToolCall] = []
        self.ids: set[str] = set()
        self.paths: set[Path] = set()
        #: The reader's own state for this read (what it looked up once).
        self.context: dict[str, Any] = {}

    def add(
        self,
        path: Path,
        name: object,
        arguments: object = None,
        call_id: object = None,
        *,
        also: tuple[Path, ...] = (),
        free_text: bool = False,
    ) -> ToolCall:
        """Read one call from the node at ``path`` (and the other views of it
        at ``also``). ``free_text`` keeps text arguments as ``{"input": text}``
        (custom tools take free text, not JSON)."""
        if free_text:
            parsed: dict[str, Any] | None = {"input": arguments}
            raw = None
        elif type(arguments) is dict:
            parsed, raw = arguments, None  # a tree's keys are strings; ToolCall copies it
        else:
            parsed, raw = read_arguments(arguments)
        if call_id is not None and type(call_id) is not str:
            if isinstance(call_id, (int, float)) and not isinstance(call_id, bool):
                call_id = str(call_id)
            else:
                raise refuse(self.format, path, "a call id as a string", repr(call_id)[:60],
                             "check that the payload is what the SDK produced.")
        if not isinstance(name, str) or not name.strip():
            got = "no name" if name is None else (
                "an empty name" if isinstance(name, str) else f"the name {name!r}"[:60])
            raise refuse(self.format, path, "the name of the tool called", got,
                         "a call without a tool name cannot be scored: pass the payload as "
                         "the API returned it; if the API sent it so, the model's call was "
                         "malformed: score it as a failed call yourself.")
        call = ToolCall(
            name,
            parsed,
            id=call_id or None,
            raw_arguments=raw,
        )
        self.calls.append(call)
        self.mark(path, call.id)
        for other in also:
            self.mark(other, call.id)
        return call

    def mark(self, path: Path, call_id: object = None) -> None:
        """Account for the site at ``path`` without adding a call: a piece of
        a call already read, or one left out on purpose (say why in the docs)."""
        self.paths.add(path)
        if isinstance(call_id, str) and call_id:
            self.ids.add(call_id)

    skip = mark

    def require_calls(self, path: Path, reason: object, since: int, expected: str) -> None:
        """Refuse when ``reason`` (a stop or finish reason) says the model stopped
        to use tools and no site was accounted for since ``since`` (a length of
        :attr:`paths`): the payload was cut, or the calls were left out of it.
        ``expected`` names what should be there ("the toolUse blocks of a
        message that stopped"); the reason follows it."""
        if says_tools(reason) and len(self.paths) == since:
            raise refuse(self.format, path, f"{expected} with {reason!r}",
                         "none: the calls are missing", MISSING_CALLS.split("Fix: ", 1)[1])
