"""OpenAI Chat Completions: responses, messages, conversations and streams."""

from __future__ import annotations

import json
from typing import Any

import attrs

from agentmetrics.formats._census import is_zero
from agentmetrics.formats._ledger import Ledger, arguments_in, refuse, text
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


def _legacy(message: dict[str, Any]) -> dict[str, Any] | None:
    """The legacy ``function_call`` of a message, unless it is a zero-valued
    placeholder (``{"name": "", "arguments": ""}``, sent by servers with
    Go-style zero values in responses that made no call)."""
    legacy = message.get("function_call")
    return legacy if isinstance(legacy, dict) and not is_zero(legacy) else None


def _is_filler(item: object) -> bool:
    """A chunk between the pieces of a stream that carries neither a delta nor a
    message: Azure's asynchronous content-filter annotations (``object: ""``,
    choices with only ``content_filter_results``)."""
    choices = item.get("choices") if isinstance(item, dict) else None
    return isinstance(choices, list) and all(
        isinstance(choice, dict) and "delta" not in choice and "message" not in choice
        for choice in choices)


def _has_calls(message: object) -> bool:
    if not isinstance(message, dict):
        return False
    calls = message.get("tool_calls")
    if isinstance(calls, list):
        if any(not is_zero(item) for item in calls):
            return True
    elif calls:
        return True
    return _legacy(message) is not None


def _branch(item: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """``(body, custom)``: the part of a call that holds its name and input.

    ``type`` says which: ``"custom"`` (free-text input) or ``"function"``. A
    zero-valued placeholder of the other branch, as servers with Go-style zero
    values send (``"custom": {"name": "", "input": ""}`` beside ``"type":
    "function"``), is not the call. Without a type, the branch that holds
    something; a flat ``{"name", "arguments"}`` item is its own body."""
    kind = item.get("type")
    function, custom = item.get("function"), item.get("custom")
    if kind == "custom" or (kind != "function" and isinstance(custom, dict) and not is_zero(
            custom) and not (isinstance(function, dict) and not is_zero(function))):
        return (custom if isinstance(custom, dict) else {}), True
    if isinstance(function, dict):
        return function, False
    return item, False


def _add_call(ledger: Ledger, item: dict[str, Any], path: Path) -> None:
    body, custom = _branch(item)
    here = path if body is item else path + ("custom" if custom else "function",)
    if custom:
        # A custom tool takes free text, not JSON: keep it as the input.
        ledger.add(path, body.get("name"), arguments_in(body, "input", NAME, here),
                   item.get("id"), free_text=True)
        return
    ledger.add(path, body.get("name"), arguments_in(body, "arguments", NAME, here), item.get("id"))


#: Roles whose messages make no calls. Any other role is read: the census
#: reports calls a reader passes over, so an odd role (the openai SDK's stream
#: accumulator joins a role sent in every chunk into "assistantassistant") is
#: read rather than refused.
_NOT_CALLERS = frozenset({"user", "system", "developer", "tool", "function"})


def _message(message: dict[str, Any], path: Path, ledger: Ledger) -> None:
    if text(message.get("role", "assistant")) in _NOT_CALLERS:
        return  # user, system, developer and tool messages make no calls
    calls = message.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise refuse(NAME, path + ("tool_calls",), "a list of tool calls",
                     type(calls).__name__, "pass the message as the API returns it.")
    for index, item in enumerate(calls or ()):
        if not isinstance(item, dict):
            raise refuse(NAME, path + ("tool_calls", index), "a tool call object",
                         type(item).__name__, "pass the message as the API returns it.")
        if is_zero(item):
            continue  # a zero-valued placeholder, not a call
        _add_call(ledger, item, path + ("tool_calls", index))
    legacy = _legacy(message)
    if legacy is not None:
        ledger.add(path + ("function_call",), legacy.get("name"),
                   arguments_in(legacy, "arguments", NAME, path + ("function_call",)))


def _completion(response: dict[str, Any], path: Path, ledger: Ledger) -> None:
    choices = response.get("choices")
    if not isinstance(choices, list):
        raise refuse(NAME, path + ("choices",), "a list of choices", type(choices).__name__,
                     "pass the response as the API returns it.")
    with_calls = [index for index, choice in enumerate(choices)
                  if isinstance(choice, dict) and _has_calls(choice.get("message"))
                  ] if len(choices) > 1 else []
    if len(choices) > 1 and any(index > 0 for index in with_calls):
        raise refuse(
            NAME, path + ("choices",), "one answer (n=1), or calls in the first choice only",
            f"{len(choices)} choices, {len(with_calls)} of them with tool calls",
            "the choices are alternative answers, not one trajectory: pass the one choice "
            "to score, e.g. response['choices'][i]['message'].")
    if choices and isinstance(choices[0], dict):
        message = choices[0].get("message")
        before = len(ledger.paths)
        if isinstance(message, dict):
            _message(message, path + ("choices", 0, "message"), ledger)
        ledger.require_calls(path + ("choices", 0), choices[0].get("finish_reason"), before,
                             "the tool calls of a response that finished")


@attrs.define(slots=True)
class _Slot:
    """A streamed call being assembled from its pieces."""

    path: Path
    id: str | None = None
    name: str = ""
    arguments: str = ""
    custom: bool = False
    pieces: list[Path] = attrs.Factory(list)
    #: Ids that pieces other than the first carried (some servers send a fresh id
    #: with every fragment): views of this call's id.
    piece_ids: list[tuple[Path, str]] = attrs.Factory(list)


def _stream(chunks: list[tuple[dict[str, Any], Path]], ledger: Ledger) -> None:
    """Pieces of ``delta.tool_calls`` joined into calls, per completion (chunk ``id``).

    A piece joins the call its ``index`` names; a piece with no index joins
    the previous call. Text fields are joined as the openai SDK's stream
    accumulator joins them, so a name sent in two pieces is one name. Only a
    piece that carries a name can start a new call (some servers send a fresh
    id with every fragment); it does when it carries an id other than its
    call's, or when its call already has a name: with no index, always (some
    servers send whole calls without one); under the same index, once the
    call's arguments are complete JSON (some servers reuse index 0). A piece
    that repeats its call's name or id is the same call. In chunks that carry a
    ``message`` beside the ``delta`` (Writer), the message's calls are views of
    the calls the deltas build, accounted for by id or index.
    """
    groups: dict[object, list[tuple[dict[str, Any], Path]]] = {}
    last_key: object = None
    for chunk, path in chunks:
        key = chunk.get("id") if isinstance(chunk.get("id"), str) and chunk["id"] else last_key
        groups.setdefault(key, []).append((chunk, path))
        last_key = key
    for group in groups.values():
        slots: list[_Slot] = []
        by_index: dict[int, _Slot] = {}
        legacy: _Slot | None = None
        views: list[tuple[Path, dict[str, Any]]] = []
        for chunk, path in group:
            choices = chunk.get("choices")
            if choices is None:
                continue  # a chunk with no choices at all (usage or keep-alive chunks)
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
                copy = choice.get("message")
                if isinstance(copy, dict) and isinstance(copy.get("tool_calls"), list):
                    views += [(path + ("choices", number, "message", "tool_calls", position), item)
                              for position, item in enumerate(copy["tool_calls"])
                              if isinstance(item, dict)]
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
                    if not is_zero(piece):
                        _piece(piece, here + ("tool_calls", position), slots, by_index)
                function_call = delta.get("function_call")
                if isinstance(function_call, dict) and not is_zero(function_call):
                    if legacy is None:
                        legacy = _Slot(here + ("function_call",))
                        slots.append(legacy)
                    _grow(legacy, here + ("function_call",), None, function_call)
        for slot in slots:
            ledger.add(slot.path, slot.name, slot.arguments, slot.id,
                       also=tuple(slot.pieces), free_text=slot.custom)
            for piece_path, piece_id in slot.piece_ids:
                ledger.mark(piece_path, piece_id)
        ids = {slot.id for slot in slots if slot.id}
        for view_path, item in views:
            index = item.get("index")
            if (isinstance(item.get("id"), str) and item["id"] in ids) or (
                    not item.get("id") and isinstance(index, int) and index in by_index):
                ledger.mark(view_path, item.get("id"))


def _piece(piece: dict[str, Any], path: Path, slots: list[_Slot],
           by_index: dict[int, _Slot]) -> None:
    index = piece.get("index")
    if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
        raise refuse(NAME, path + ("index",), "an integer index or null", repr(index)[:40],
                     "pass the chunks as the API streams them.")
    piece_id = piece.get("id") if isinstance(piece.get("id"), str) and piece.get("id") else None
    body, custom = _branch(piece)
    name: str = body["name"] if isinstance(body.get("name"), str) else ""
    slot = by_index.get(index) if index is not None else (slots[-1] if slots else None)
    if slot is None or _starts_another(slot, piece_id, name, index is None):
        slot = _Slot(path, custom=custom)
        slots.append(slot)
    if index is not None:
        by_index[index] = slot
    _grow(slot, path, piece_id, body)


def _starts_another(slot: _Slot, piece_id: str | None, name: str, unindexed: bool) -> bool:
    if not name:
        return False  # only a piece that names its tool starts a call (some servers send a
        # fresh id with every fragment: Kimi, LM Studio)
    if piece_id and slot.id:
        return piece_id != slot.id
    if not slot.name or name == slot.name:
        return False
    if unindexed:
        return True
    if not slot.arguments.strip():
        return False
    try:
        json.loads(slot.arguments)
    except ValueError:
        return False  # arguments still arriving: the name continues this call
    return True


def _grow(slot: _Slot, path: Path, piece_id: str | None, body: dict[str, Any]) -> None:
    slot.pieces.append(path)
    if piece_id and slot.id and piece_id != slot.id:
        slot.piece_ids.append((path, piece_id))
    slot.id = slot.id or piece_id
    name = body.get("name")
    if isinstance(name, str) and name and name != slot.name:
        slot.name += name  # a name sent in pieces, joined as the SDK joins it
    text = body.get("input" if slot.custom else "arguments")
    if isinstance(text, str):
        slot.arguments += text
    elif text is not None:
        raise refuse(NAME, path, "argument text (a string)", type(text).__name__,
                     "pass the chunks as the API streams them.")


def _is_call_item(item: object) -> bool:
    """A tool-call object on its own, as ``message.tool_calls`` holds it (and
    the SDK dumps it): a ``function`` or ``custom`` body that is not a tool's
    definition, and no message's, response's or chunk's fields."""
    if not isinstance(item, dict) or not item.keys().isdisjoint(_NOT_CALL_ITEM):
        return False
    custom = item.get("type") == "custom" or not isinstance(item.get("function"), dict)
    body = item.get("custom" if custom else "function")
    return isinstance(body, dict) and body.keys().isdisjoint(_DEFINITION)


#: Fields of a message, a response or a chunk: an object with any of them is not a call item.
_NOT_CALL_ITEM = frozenset({"role", "content", "tool_calls", "choices", "messages", "delta",
                            "function_call", "object"})
#: Fields of a tool's definition (``tools=[...]``), never of a call.
_DEFINITION = frozenset({"parameters", "description", "strict", "format"})


def _call_items(items: list[tuple[dict[str, Any], Path]], ledger: Ledger) -> None:
    """Tool-call objects given on their own (``message.tool_calls``): each one a
    call; or, when they carry an ``index`` (``delta.tool_calls`` pieces, as a
    stream's chunks hold them), pieces joined as a stream's are."""
    if not any("index" in item for item, _ in items):
        for item, path in items:
            _add_call(ledger, item, path)
        return
    slots: list[_Slot] = []
    by_index: dict[int, _Slot] = {}
    for item, path in items:
        _piece(item, path, slots, by_index)
    for slot in slots:
        ledger.add(slot.path, slot.name, slot.arguments, slot.id, also=tuple(slot.pieces),
                   free_text=slot.custom)
        for piece_path, piece_id in slot.piece_ids:
            ledger.mark(piece_path, piece_id)


def _sequence(items: list[Any], path: Path, ledger: Ledger) -> None:
    """Messages, responses, streams, tool-call objects, or lists of those (one
    per turn), in order."""
    run: list[tuple[dict[str, Any], Path]] = []
    calls: list[tuple[dict[str, Any], Path]] = []
    for index, item in enumerate(items):
        here = path + (index,)
        if _is_call_item(item):
            calls.append((item, here))
            continue
        if calls:
            _call_items(calls, ledger)
            calls = []
        if _is_chunk(item) or (run and _is_filler(item)) or (
                isinstance(item, dict) and item.get("choices") == []):
            run.append((item, here))  # [] choices: Azure's filter chunk, the usage chunk
            continue
        if run:
            _stream(run, ledger)
            run = []
        _one(item, here, ledger)
    if calls:
        _call_items(calls, ledger)
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
    elif _is_call_item(item):
        _call_items([(item, path)], ledger)
    elif "choices" in item:
        _completion(item, path, ledger)
    elif isinstance(item.get("messages"), list):
        _sequence(item["messages"], path + ("messages",), ledger)  # a request body
    else:
        _message(item, path, ledger)


def read_openai_chat(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Chat Completions: a response (its first choice), an assistant message, a
    conversation (the assistant messages' calls), a request body, streamed
    chunks (joined per completion), a message's ``tool_calls`` (tool-call
    objects on their own), or lists of these, one per turn."""
    _one(tree, (), ledger)
