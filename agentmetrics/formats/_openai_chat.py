"""OpenAI Chat Completions: responses, messages, conversations and streams."""

from __future__ import annotations

from typing import Any

import attrs

from agentmetrics.formats._census import MISSING_CALLS
from agentmetrics.formats._ledger import Ledger, refuse
from agentmetrics.formats._payload import Path

__all__ = ["read_openai_chat"]

NAME = "openai_chat"


def _is_chunk(item: object) -> bool:
    if not isinstance(item, dict):
        return False
    if item.get("object") == "chat.completion.chunk":
        return True
    choices = item.get("choices")
    return isinstance(choices, list) and any(
        isinstance(choice, dict) and "delta" in choice for choice in choices)


def _has_calls(message: object) -> bool:
    return isinstance(message, dict) and bool(
        message.get("tool_calls") or isinstance(message.get("function_call"), dict))


def _add_call(ledger: Ledger, item: dict[str, Any], path: Path) -> None:
    custom = item.get("custom")
    if item.get("type") == "custom" or isinstance(custom, dict):
        custom = custom if isinstance(custom, dict) else {}
        # A custom tool takes free text, not JSON: keep it as the input.
        ledger.add(path, custom.get("name"), custom.get("input"), item.get("id"), free_text=True)
        return
    function = item.get("function")
    source = function if isinstance(function, dict) else item  # flat {"name", "arguments"}
    ledger.add(path, source.get("name"), source.get("arguments"), item.get("id"))


def _message(message: dict[str, Any], path: Path, ledger: Ledger) -> None:
    if message.get("role", "assistant") != "assistant":
        return  # user, system, developer and tool messages make no calls
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise refuse(NAME, path + ("tool_calls",), "a list of tool calls",
                     type(calls).__name__, "pass the message as the API returns it.")
    for index, item in enumerate(calls or ()):
        if not isinstance(item, dict):
            raise refuse(NAME, path + ("tool_calls", index), "a tool call object",
                         type(item).__name__, "pass the message as the API returns it.")
        _add_call(ledger, item, path + ("tool_calls", index))
    legacy = message.get("function_call")
    if isinstance(legacy, dict):
        ledger.add(path + ("function_call",), legacy.get("name"), legacy.get("arguments"))


def _completion(response: dict[str, Any], path: Path, ledger: Ledger) -> None:
    choices = response.get("choices")
    if not isinstance(choices, list):
        raise refuse(NAME, path + ("choices",), "a list of choices", type(choices).__name__,
                     "pass the response as the API returns it.")
    with_calls = [index for index, choice in enumerate(choices)
                  if isinstance(choice, dict) and _has_calls(choice.get("message"))]
    if len(choices) > 1 and any(index > 0 for index in with_calls):
        raise refuse(
            NAME, path + ("choices",), "one answer (n=1), or calls in the first choice only",
            f"{len(choices)} choices, {len(with_calls)} of them with tool calls",
            "the choices are alternative answers, not one trajectory: pass the one choice "
            "to score, e.g. response['choices'][i]['message'].")
    if choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        if isinstance(message, dict):
            _message(message, path + ("choices", 0, "message"), ledger)
        if choices[0].get("finish_reason") in ("tool_calls", "function_call") and not (
                _has_calls(message)):
            raise refuse(NAME, path + ("choices", 0), "the tool calls of a response that "
                         f"finished with {choices[0]['finish_reason']!r}", "none: the calls are missing",
                         MISSING_CALLS.split("Fix: ", 1)[1])


@attrs.define(slots=True)
class _Slot:
    """A streamed call being assembled from its pieces."""

    path: Path
    id: str | None = None
    name: str = ""
    arguments: str = ""
    custom: bool = False
    pieces: list[Path] = attrs.Factory(list)


def _stream(chunks: list[tuple[dict[str, Any], Path]], ledger: Ledger) -> None:
    """Pieces of ``delta.tool_calls`` joined into calls, per completion (chunk ``id``).

    A piece joins the call its ``index`` names; a piece with no index joins
    the previous call. A piece that carries an id other than its call's, or a
    name other than its call's, starts a new call: some servers reuse index 0,
    or send no index at all.
    """
    groups: dict[object, list[tuple[dict[str, Any], Path]]] = {}
    last_key: object = None
    for chunk, path in chunks:
        key = chunk.get("id") if isinstance(chunk.get("id"), str) else last_key
        groups.setdefault(key, []).append((chunk, path))
        last_key = key
    for group in groups.values():
        slots: list[_Slot] = []
        by_index: dict[int, _Slot] = {}
        legacy: _Slot | None = None
        for chunk, path in group:
            choices = chunk.get("choices")
            if not isinstance(choices, list):
                raise refuse(NAME, path + ("choices",), "a list of choices",
                             type(choices).__name__, "pass the chunks as the API streams them.")
            for number, choice in enumerate(choices):
                if not isinstance(choice, dict):
                    continue
                here = path + ("choices", number, "delta")
                delta = choice.get("delta")
                if not isinstance(delta, dict):
                    continue
                if choice.get("index", 0) not in (0, None) and (
                        delta.get("tool_calls") or delta.get("function_call")):
                    raise refuse(
                        NAME, path + ("choices", number), "a stream of one answer (n=1)",
                        f"tool calls in choice {choice.get('index')!r}",
                        "the choices are alternative answers: keep the chunks of one choice.")
                pieces = delta.get("tool_calls") or []
                if not isinstance(pieces, list):
                    raise refuse(NAME, here + ("tool_calls",), "a list of tool-call pieces",
                                 type(pieces).__name__, "pass the chunks as the API streams them.")
                for position, piece in enumerate(pieces):
                    if not isinstance(piece, dict):
                        raise refuse(NAME, here + ("tool_calls", position),
                                     "a tool-call piece object", type(piece).__name__,
                                     "pass the chunks as the API streams them.")
                    _piece(piece, here + ("tool_calls", position), slots, by_index)
                function_call = delta.get("function_call")
                if isinstance(function_call, dict):
                    if legacy is None:
                        legacy = _Slot(here + ("function_call",))
                        slots.append(legacy)
                    _grow(legacy, here + ("function_call",), None, function_call)
        for slot in slots:
            ledger.add(slot.path, slot.name, slot.arguments, slot.id,
                       also=tuple(slot.pieces), free_text=slot.custom)


def _piece(piece: dict[str, Any], path: Path, slots: list[_Slot],
           by_index: dict[int, _Slot]) -> None:
    index = piece.get("index")
    if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
        raise refuse(NAME, path + ("index",), "an integer index or null", repr(index)[:40],
                     "pass the chunks as the API streams them.")
    piece_id = piece.get("id") if isinstance(piece.get("id"), str) and piece.get("id") else None
    body = piece.get("custom") if isinstance(piece.get("custom"), dict) else piece.get("function")
    body = body if isinstance(body, dict) else {}
    name = body.get("name") if isinstance(body.get("name"), str) else ""
    slot = by_index.get(index) if index is not None else (slots[-1] if slots else None)
    if slot is None or (piece_id and slot.id and piece_id != slot.id) or (
            name and slot.name and name != slot.name):
        slot = _Slot(path, custom=piece.get("type") == "custom" or "custom" in piece)
        slots.append(slot)
    if index is not None:
        by_index[index] = slot
    _grow(slot, path, piece_id, body)


def _grow(slot: _Slot, path: Path, piece_id: str | None, body: dict[str, Any]) -> None:
    slot.pieces.append(path)
    slot.id = slot.id or piece_id
    name = body.get("name")
    if isinstance(name, str) and name and not slot.name:
        slot.name = name
    text = body.get("input" if slot.custom else "arguments")
    if isinstance(text, str):
        slot.arguments += text
    elif text is not None:
        raise refuse(NAME, path, "argument text (a string)", type(text).__name__,
                     "pass the chunks as the API streams them.")


def _sequence(items: list[Any], path: Path, ledger: Ledger) -> None:
    """Messages, responses, streams, or lists of those (one per turn), in order."""
    run: list[tuple[dict[str, Any], Path]] = []
    for index, item in enumerate(items):
        here = path + (index,)
        if _is_chunk(item) or (isinstance(item, dict) and item.get("choices") == []):
            run.append((item, here))  # [] choices: Azure's filter chunk, the usage chunk
            continue
        if run:
            _stream(run, ledger)
            run = []
        _one(item, here, ledger)
    if run:
        _stream(run, ledger)


def _one(item: Any, path: Path, ledger: Ledger) -> None:
    if isinstance(item, list):
        _sequence(item, path, ledger)
    elif not isinstance(item, dict):
        raise refuse(NAME, path, "a message, response or chunk object", type(item).__name__,
                     "pass JSON objects as the API returns them.")
    elif _is_chunk(item):
        _stream([(item, path)], ledger)
    elif "choices" in item:
        _completion(item, path, ledger)
    elif isinstance(item.get("messages"), list):
        _sequence(item["messages"], path + ("messages",), ledger)  # a request body
    else:
        _message(item, path, ledger)


def read_openai_chat(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Chat Completions: a response (its first choice), an assistant message, a
    conversation (the assistant messages' calls), a request body, streamed
    chunks (joined per completion), or lists of these, one per turn."""
    _one(tree, (), ledger)
