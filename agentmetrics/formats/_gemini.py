"""Gemini (google-genai and REST): responses, contents, parts and streamed chunks.

Both key spellings are read: the REST API's camelCase (``functionCall``) and
the Python SDK's snake_case (``function_call``). Built-in tools the API runs
itself are hosted calls: ``executable_code`` parts (code execution, named
``code_execution``) and server-side ``tool_call`` parts (named after their
tool type, e.g. ``google_search_web``).
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from agentmetrics.formats._census import FUNCTION_CALL_FIELDS, is_zero, scan
from agentmetrics.formats._ledger import Ledger, arguments_in, refuse, text
from agentmetrics.formats._payload import Path

__all__ = ["read_gemini"]

NAME = "gemini"

_CALL_KEYS = ("function_call", "functionCall")
_CODE_KEYS = ("executable_code", "executableCode")
_SERVER_KEYS = ("tool_call", "toolCall")
_HISTORY_KEYS = ("automatic_function_calling_history", "automaticFunctionCallingHistory")
_FAILED = frozenset({"MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"})
_STEP = re.compile(r"\.([^.\[\]]+)|\[(\d+)\]")


def _key(mapping: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    return next((key for key in keys if mapping.get(key) is not None), None)


def _get(mapping: dict[str, Any], snake: str, camel: str) -> Any:
    return mapping.get(snake, mapping.get(camel))


def _set_path(target: dict[str, Any], json_path: str, value: Any, path: Path) -> None:
    """Put ``value`` at ``$.a.b[0]`` in ``target``, creating what is missing."""
    steps = [int(index) if index else key for key, index in _STEP.findall(json_path[1:])]
    if not json_path.startswith("$") or not steps:
        raise refuse(NAME, path, "a JSON path such as '$.city'", repr(json_path)[:40],
                     "pass the streamed chunks as the API sent them.")
    node: Any = target
    for step, following in zip(steps, steps[1:] + [None]):
        empty: Any = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            while len(node) <= step:
                node.append(None)
            if following is None:
                node[step] = value
            else:
                node[step] = node[step] if node[step] is not None else empty
                node = node[step]
        elif following is None:
            node[step] = value
        else:
            node = node.setdefault(step, empty)


@attrs.define(slots=True)
class _Partial:
    """A call whose arguments are streamed in pieces (``partialArgs``)."""

    path: Path
    name: object
    id: object
    arguments: dict[str, Any] = attrs.Factory(dict)
    open_text: dict[str, str] = attrs.Factory(dict)  # string values still streaming
    pieces: list[Path] = attrs.Factory(list)


@attrs.define(slots=True)
class _Reader:
    ledger: Ledger
    hosted_tools: bool
    partial: _Partial | None = None
    #: How many sites had been read when the last response with a finish reason ended.
    turn_start: int = 0
    #: Contents read so far, each with whether a later history repeated it already.
    seen: list[list[Any]] = attrs.Factory(list)

    # -- parts ---------------------------------------------------------------------

    def part(self, part: Any, path: Path) -> None:
        if not isinstance(part, dict):
            raise refuse(NAME, path, "a part object", type(part).__name__,
                         "pass the content as the API returns it.")
        if part and part.keys() <= FUNCTION_CALL_FIELDS:
            self.function_call(part, path)  # a FunctionCall itself (response.function_calls)
            return
        key = _key(part, _CALL_KEYS)
        if key is not None:
            self.function_call(part[key], path + (key,))
        key = _key(part, _CODE_KEYS)
        if key is not None:
            code = part[key]
            if not isinstance(code, dict):
                raise refuse(NAME, path + (key,), "an executable code object",
                             type(code).__name__, "pass the part as the API returns it.")
            self.hosted(path + (key,), "code_execution",
                        {k: v for k, v in code.items() if v is not None and k != "id"},
                        code.get("id"))
        key = _key(part, _SERVER_KEYS)
        if key is not None:
            call = part[key]
            if not isinstance(call, dict):
                raise refuse(NAME, path + (key,), "a tool call object", type(call).__name__,
                             "pass the part as the API returns it.")
            kind = _get(call, "tool_type", "toolType")
            self.hosted(path + (key,), kind.lower() if isinstance(kind, str) else None,
                        call.get("args"), call.get("id"))

    def hosted(self, path: Path, name: object, arguments: object, call_id: object) -> None:
        if self.hosted_tools:
            self.ledger.add(path, name, arguments, call_id)
        else:
            self.ledger.skip(path, call_id)

    def function_call(self, call: Any, path: Path) -> None:
        if not isinstance(call, dict):
            raise refuse(NAME, path, "a function call object", type(call).__name__,
                         "pass the part as the API returns it.")
        pieces = _get(call, "partial_args", "partialArgs")
        will_continue = _get(call, "will_continue", "willContinue")
        continues = bool(will_continue)
        name = call.get("name")
        empty = is_zero(call)
        if self.partial is not None and (not name or name == self.partial.name) and (
                pieces is not None or empty or (not name and will_continue is not None)):
            # A piece of the streamed call: nameless, or repeating its name (the SDK's
            # own test history does); an empty functionCall or willContinue false ends it.
            self.piece(pieces or [], path)
            if empty or will_continue is False:
                self.close()
            return
        if empty:
            return  # a zero-valued placeholder: no call
        if self.partial is not None:
            self.close()
        args = arguments_in(call, "args", NAME, path, also=("partialArgs", "partial_args"))
        if args is not None and not isinstance(args, dict):
            raise refuse(NAME, path + ("args",), "the arguments as an object",
                         type(args).__name__, "pass the part as the API returns it.")
        if continues or pieces:  # the arguments follow in pieces
            self.partial = _Partial(path, call.get("name"), call.get("id"), dict(args or {}))
            self.piece(pieces or [], path)
            return
        self.ledger.add(path, call.get("name"), args, call.get("id"))

    def piece(self, pieces: Any, path: Path) -> None:
        partial = self.partial
        assert partial is not None
        partial.pieces.append(path)
        if not isinstance(pieces, list):
            raise refuse(NAME, path, "a list of partial arguments", type(pieces).__name__,
                         "pass the streamed chunks as the API sent them.")
        for index, piece in enumerate(pieces):
            here = path + ("partial_args", index)
            json_path = _get(piece, "json_path", "jsonPath") if isinstance(piece, dict) else None
            if not isinstance(json_path, str):
                raise refuse(NAME, here, "a partial argument with a JSON path", repr(piece)[:60],
                             "pass the streamed chunks as the API sent them.")
            text = _get(piece, "string_value", "stringValue")
            if isinstance(text, str):
                partial.open_text[json_path] = partial.open_text.get(json_path, "") + text
                _set_path(partial.arguments, json_path, partial.open_text[json_path], here)
                continue
            for snake, camel in (("number_value", "numberValue"), ("bool_value", "boolValue")):
                if _get(piece, snake, camel) is not None:
                    _set_path(partial.arguments, json_path, _get(piece, snake, camel), here)
                    break
            else:
                if _get(piece, "null_value", "nullValue") is not None:
                    _set_path(partial.arguments, json_path, None, here)

    def close(self) -> None:
        partial = self.partial
        if partial is not None:
            self.partial = None
            self.ledger.add(partial.path, partial.name, partial.arguments, partial.id,
                            also=tuple(partial.pieces))

    # -- contents and responses ------------------------------------------------------

    def content(self, content: Any, path: Path) -> None:
        if content is None:
            return
        if not isinstance(content, dict):
            raise refuse(NAME, path, "a content object", type(content).__name__,
                         "pass the response as the API returns it.")
        if content.get("role") not in (None, "model"):
            return  # user contents hold function responses, not calls
        parts = content.get("parts") or []
        if not isinstance(parts, list):
            raise refuse(NAME, path + ("parts",), "a list of parts", type(parts).__name__,
                         "pass the content as the API returns it.")
        for index, part in enumerate(parts):
            self.part(part, path + ("parts", index))

    def history(self, history: Any, path: Path) -> None:
        """Automatic function calling: the input contents, then each call the SDK
        made and its response. Later responses repeat what came before (every
        streamed chunk carries the whole history; a chat's next turn starts with
        the previous turns): a content equal to one read earlier in the payload,
        and not yet matched, is that content again and is read once."""
        if not isinstance(history, list):
            raise refuse(NAME, path, "a list of contents", type(history).__name__,
                         "pass the response as the SDK returns it.")
        for index, content in enumerate(history):
            here = path + (index,)
            earlier = next((entry for entry in self.seen
                            if not entry[1] and entry[0] == content), None)
            if earlier is not None:
                earlier[1] = True
                for site in scan(content, here).sites:
                    self.ledger.mark(site.path, site.id)  # read already, earlier
            else:
                self.content(content, here)
        self.seen.extend([content, False] for content in history)

    def response(self, response: dict[str, Any], path: Path) -> None:
        history_key = _key(response, _HISTORY_KEYS)
        if history_key is not None:
            self.history(response[history_key], path + (history_key,))
        candidates = response.get("candidates") or []
        if not isinstance(candidates, list):
            raise refuse(NAME, path + ("candidates",), "a list of candidates",
                         type(candidates).__name__, "pass the response as the API returns it.")
        with_calls = [index for index, candidate in enumerate(candidates)
                      if scan(candidate).sites]
        if any(index > 0 for index in with_calls):
            raise refuse(
                NAME, path + ("candidates",), "one candidate, or calls in the first one only",
                f"{len(candidates)} candidates, {len(with_calls)} of them with calls",
                "candidates are alternative answers, not one trajectory: pass the one to "
                "score, e.g. response.candidates[i].content.")
        if not candidates or not isinstance(candidates[0], dict):
            return
        candidate, candidate_path = candidates[0], path + ("candidates", 0)
        reason = _get(candidate, "finish_reason", "finishReason")
        content = candidate.get("content")
        self.content(content, candidate_path + ("content",))
        self.seen.append([content, False])
        if reason is None:
            return  # a streamed chunk: the response goes on
        if text(reason) == "MALFORMED_FUNCTION_CALL":
            raise refuse(
                NAME, candidate_path, "a valid tool call", "finish reason MALFORMED_FUNCTION_CALL: "
                "the API says the function call the model generated is invalid",
                "score this response as a failed call yourself (its text is in "
                "finishMessage), or leave it out.")
        if text(reason) in _FAILED and len(self.ledger.paths) == self.turn_start and (
                self.partial is None):
            raise refuse(
                NAME, candidate_path, "the tool calls the model made",
                f"finish reason {reason} and no functionCall part: the model tried to call a "
                f"tool and the API returned no call", "score this response as a failed call "
                "yourself (its text is in finishMessage), or leave it out.")
        self.turn_start = len(self.ledger.paths)

    def one(self, item: Any, path: Path) -> None:
        if isinstance(item, list):
            for index, inner in enumerate(item):
                self.one(inner, path + (index,))
        elif not isinstance(item, dict):
            raise refuse(NAME, path, "a response, content or part object", type(item).__name__,
                         "pass JSON objects as the API returns them.")
        elif "candidates" in item or _key(item, _HISTORY_KEYS):
            self.response(item, path)
        elif "parts" in item or "role" in item:
            self.content(item, path)
        elif isinstance(item.get("contents"), list):
            self.one(item["contents"], path + ("contents",))  # a request body
        else:
            self.part(item, path)


def read_gemini(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Gemini: a response (its first candidate, after the calls the SDK made
    automatically), a list of responses (turns, or streamed chunks), a content,
    a list of contents (a chat history), a part, or a list of parts."""
    reader = _Reader(ledger, hosted_tools)
    reader.one(tree, ())
    reader.close()
