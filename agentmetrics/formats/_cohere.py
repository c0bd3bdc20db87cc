"""Cohere chat, v2 and v1: responses, conversations and stream events.

**v2** (``ClientV2.chat``): ``{"id", "message": {"role": "assistant",
"tool_plan", "tool_calls": [{"id", "type": "function", "function": {"name",
"arguments"}}]}, "finish_reason": "TOOL_CALL", "usage"}``; ``arguments`` is JSON
text, ``"null"`` or ``"{}"`` for none. Its stream (``chat_stream``) sends
``message-start``, then per call ``tool-call-start`` (``delta.message.tool_calls``
is one call object, not a list, with the id and name), ``tool-call-delta``
(pieces of the argument text) and ``tool-call-end``, all with the call's
``index``, and ``message-end`` with the finish reason.

**v1** (``Client.chat``): ``{"text", "generation_id", "tool_calls": [{"name",
"parameters"}], "chat_history", "finish_reason"}``. Its calls carry no id. The
response's ``chat_history`` is the whole conversation, this turn included: the
calls of a v1 response are the ``CHATBOT`` turns' ``tool_calls`` in it, in order
(as a multi-step run's final answer holds every step's calls and no top-level
ones), and the top-level ``tool_calls`` are the last turn's again when they
equal its calls (else they are a turn the history does not hold yet). ``TOOL``
turns' ``tool_results[].call`` are copies in results, not calls. Its stream
sends ``tool-calls-chunk`` pieces (``tool_call_delta``: index, name, parameter
text), one ``tool-calls-generation`` event with the turn's calls, and
``stream-end`` with the whole response: read from the response (else from the
generation event, else from the pieces), after checking that the views agree.
"""

from __future__ import annotations

from typing import Any

import attrs

from agentmetrics.formats._ledger import Ledger, arguments_in, refuse, text
from agentmetrics.formats._payload import Path

__all__ = ["read_cohere"]

NAME = "cohere"

_V2_EVENTS = frozenset({"message-start", "content-start", "content-delta", "content-end",
                        "tool-plan-delta", "tool-call-start", "tool-call-delta", "tool-call-end",
                        "citation-start", "citation-end", "message-end", "debug"})
_ASSISTANT = frozenset({"assistant", "chatbot"})
_FIX = "pass the response as the Cohere API or SDK returns it."


def _arguments(value: object, path: Path) -> object:
    if value is None or isinstance(value, (str, dict)):
        return value
    raise refuse(NAME, path, "the arguments as JSON text", type(value).__name__, _FIX)


def _call(item: Any, path: Path, ledger: Ledger) -> None:
    if not isinstance(item, dict):
        raise refuse(NAME, path, "a tool call object", type(item).__name__, _FIX)
    function = item.get("function")
    if isinstance(function, dict):  # v2
        ledger.add(path, function.get("name"),
                   _arguments(arguments_in(function, "arguments", NAME, path + ("function",)),
                              path + ("function", "arguments")),
                   item.get("id"))
    else:  # v1: {"name", "parameters"}
        ledger.add(path, item.get("name"),
                   _arguments(arguments_in(item, "parameters", NAME, path), path + ("parameters",)),
                   item.get("id"))


def _calls(calls: Any, path: Path, ledger: Ledger) -> None:
    if calls is None:
        return
    if not isinstance(calls, list):
        raise refuse(NAME, path, "a list of tool calls", type(calls).__name__, _FIX)
    for index, item in enumerate(calls):
        _call(item, path + (index,), ledger)


def _message(message: dict[str, Any], path: Path, ledger: Ledger,
             finish_reason: object = None) -> None:
    role = message.get("role", "assistant")
    if not isinstance(role, str) or role.lower() not in _ASSISTANT:
        return  # user, system and tool messages make no calls
    before = len(ledger.paths)
    _calls(message.get("tool_calls"), path + ("tool_calls",), ledger)
    ledger.require_calls(path, finish_reason, before, "the tool calls of a response that finished")


def _same_calls(one: object, other: object) -> bool:
    def key(calls: object) -> list[tuple[object, object]]:
        return [(item.get("name"), item.get("parameters")) if isinstance(item, dict) else (
            item, None) for item in (calls if isinstance(calls, list) else [])]
    return key(one) == key(other)


def _response(response: dict[str, Any], path: Path, ledger: Ledger) -> None:
    reason = response.get("finish_reason")
    message = response.get("message")
    if isinstance(message, dict):  # v2
        _message(message, path + ("message",), ledger, reason)
        return
    top = response.get("tool_calls")
    history = response.get("chat_history")
    last: tuple[object, Path] | None = None
    if history is not None:
        if not isinstance(history, list):
            raise refuse(NAME, path + ("chat_history",), "a list of messages",
                         type(history).__name__, _FIX)
        # Each response of a run repeats the history before it: a turn equal to one
        # read earlier in the payload (and not matched yet) is that turn again.
        seen: list[list[Any]] = ledger.context.setdefault("cohere_turns", [])
        turns = []
        for index, turn in enumerate(history):
            if not isinstance(turn, dict):
                continue
            here = path + ("chat_history", index)
            if isinstance(turn.get("role"), str) and turn["role"].lower() in _ASSISTANT:
                last = (turn.get("tool_calls"), here)
                turns.append(turn)
                earlier = next((entry for entry in seen if not entry[1] and entry[0] == turn),
                               None)
                if earlier is not None:
                    earlier[1] = True
                    for position in range(len(turn.get("tool_calls") or ())):
                        ledger.mark(here + ("tool_calls", position))
                    continue
            _message(turn, here, ledger)
        seen.extend([turn, False] for turn in turns)
    if top and last is not None and _same_calls(top, last[0]):
        for index in range(len(top)):  # this turn, repeated at the top
            ledger.mark(path + ("tool_calls", index))
        return
    _message({"role": "CHATBOT", "tool_calls": top}, path, ledger, reason)


@attrs.define(slots=True)
class _Slot:
    path: Path
    id: object = None
    name: str = ""
    arguments: str = ""
    pieces: list[Path] = attrs.Factory(list)


def _v2_events(events: list[tuple[dict[str, Any], Path]], ledger: Ledger) -> None:
    """A v2 stream: the calls of each message, joined by index."""
    slots: dict[int, _Slot] = {}
    order: list[_Slot] = []
    reason: tuple[object, Path] | None = None

    def close() -> None:
        nonlocal reason
        before = len(ledger.paths)
        for slot in order:
            ledger.add(slot.path, slot.name, slot.arguments, slot.id, also=tuple(slot.pieces))
        if reason is not None:
            ledger.require_calls(reason[1], reason[0], before, "the tool calls of a stream that finished")
        slots.clear()
        order.clear()
        reason = None

    for event, path in events:
        kind = event.get("type")
        if kind == "message-start":
            close()
            message = (event.get("delta") or {}).get("message") if isinstance(
                event.get("delta"), dict) else None
            if isinstance(message, dict):
                _calls(message.get("tool_calls") or None, path + ("delta", "message",
                                                                 "tool_calls"), ledger)
        elif kind in ("tool-call-start", "tool-call-delta"):
            index = event.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                raise refuse(NAME, path + ("index",), "the call's integer index",
                             repr(index)[:40], "pass the events as the SDK yields them.")
            here = path + ("delta", "message", "tool_calls")
            delta = event.get("delta")
            message = delta.get("message") if isinstance(delta, dict) else None
            piece = message.get("tool_calls") if isinstance(message, dict) else None
            if isinstance(piece, list) and len(piece) == 1:
                piece, here = piece[0], here + (0,)
            if not isinstance(piece, dict):
                raise refuse(NAME, here, "one tool call object", type(piece).__name__,
                             "pass the events as the SDK yields them.")
            function: dict[str, Any] = (piece["function"] if isinstance(piece.get("function"), dict)
                                        else {})
            if kind == "tool-call-start":
                if index in slots:
                    raise refuse(NAME, path, "a new index for a new call",
                                 f"a second tool-call-start for index {index}",
                                 "pass the events as the SDK yields them.")
                slot = _Slot(here, piece.get("id"), text(function.get("name")) or "")
                slots[index] = slot
                order.append(slot)
            else:
                started = slots.get(index)
                if started is None:
                    raise refuse(NAME, path, "argument pieces of a call started earlier",
                                 f"a tool-call-delta for index {index}, which no "
                                 "tool-call-start opened", "pass the whole stream.")
                slot = started
                slot.pieces.append(here)
            piece_text = function.get("arguments")
            if isinstance(piece_text, str):
                slot.arguments += piece_text
            elif piece_text is not None:
                raise refuse(NAME, here + ("function", "arguments"), "argument text",
                             type(piece_text).__name__, "pass the events as the SDK yields them.")
        elif kind == "message-end":
            delta = event.get("delta")
            reason = (delta.get("finish_reason") if isinstance(delta, dict) else None, path)
    close()


def _v1_events(events: list[tuple[dict[str, Any], Path]], ledger: Ledger) -> None:
    """A v1 stream: read from the ``stream-end`` response, else from the
    ``tool-calls-generation`` event, else joined from ``tool-calls-chunk``
    pieces; the turn's other views must name the same calls."""
    generated = [(event, path) for event, path in events
                 if event.get("event_type") == "tool-calls-generation"]
    ends = [(event, path) for event, path in events if event.get("event_type") == "stream-end"]
    chunks = [(event, path) for event, path in events
              if event.get("event_type") == "tool-calls-chunk"]
    if len(generated) > 1 or len(ends) > 1:
        raise refuse(NAME, (generated[1:] or ends[1:])[0][1], "one v1 stream (one response)",
                     "a second tool-calls-generation or stream-end event",
                     "pass the events of one chat_stream call.")
    pieces: dict[int, _Slot] = {}
    for event, path in chunks:
        delta = event.get("tool_call_delta")
        if not isinstance(delta, dict):
            continue
        index = delta.get("index")
        if isinstance(index, float) and index.is_integer():
            index = int(index)
        if not isinstance(index, int) or isinstance(index, bool):
            raise refuse(NAME, path + ("tool_call_delta", "index"), "the call's integer index",
                         repr(index)[:40], "pass the events as the SDK yields them.")
        slot = pieces.setdefault(index, _Slot(path + ("tool_call_delta",)))
        slot.pieces.append(path + ("tool_call_delta",))
        slot.name += text(delta.get("name")) or ""
        slot.arguments += text(delta.get("parameters")) or ""
    turn: list[tuple[list[Any], Path]] = []  # the views of this turn's calls
    if generated:
        event, path = generated[0]
        calls = event.get("tool_calls") or []
        if not isinstance(calls, list):
            raise refuse(NAME, path + ("tool_calls",), "a list of tool calls",
                         type(calls).__name__, _FIX)
        turn.append((calls, path + ("tool_calls",)))
    response = ends[0][0].get("response") if ends else None
    if isinstance(response, dict):
        top = response.get("tool_calls") or []
        turn.append((top if isinstance(top, list) else [], ends[0][1] + ("response", "tool_calls")))
    names = [[item.get("name") if isinstance(item, dict) else None for item in calls]
             for calls, _ in turn]
    if pieces:
        names.append([slot.name for _, slot in sorted(pieces.items())])
    if any(other != names[0] for other in names[1:]):
        raise refuse(NAME, chunks[0][1] if chunks else turn[-1][1],
                     f"the same calls in every view of the turn ({names[0]})",
                     f"{names[1:]}", "pass the events of one chat_stream call unchanged.")
    if isinstance(response, dict):
        _response(response, ends[0][1] + ("response",), ledger)
    elif turn:
        _calls(turn[0][0], turn[0][1], ledger)
    else:
        for slot in pieces.values():
            ledger.add(slot.path, slot.name, slot.arguments, also=tuple(slot.pieces))
        return
    for calls, path in turn:
        for index in range(len(calls)):
            ledger.mark(path + (index,))
    for slot in pieces.values():
        for piece in slot.pieces:
            ledger.mark(piece)


def _stream(events: list[tuple[Any, Path]], ledger: Ledger) -> None:
    for event, path in events:
        if not isinstance(event, dict):
            raise refuse(NAME, path, "a stream event object", type(event).__name__,
                         "pass the events as the SDK yields them.")
    if any("event_type" in event for event, _ in events):
        _v1_events(events, ledger)
    else:
        _v2_events(events, ledger)


def _is_event(item: object) -> bool:
    return isinstance(item, dict) and (text(item.get("type")) in _V2_EVENTS or "event_type" in item)


def _one(tree: Any, path: Path, ledger: Ledger) -> None:
    if isinstance(tree, list):
        if any(_is_event(item) for item in tree):
            _stream([(item, path + (index,)) for index, item in enumerate(tree)], ledger)
            return
        for index, item in enumerate(tree):
            _one(item, path + (index,), ledger)
        return
    if not isinstance(tree, dict):
        raise refuse(NAME, path, "a chat response, a message, a list of messages or stream "
                     "events", type(tree).__name__, _FIX)
    if _is_event(tree):
        _stream([(tree, path)], ledger)
    elif (isinstance(tree.get("message"), dict) or "finish_reason" in tree
          or "generation_id" in tree or ("chat_history" in tree and "text" in tree)):
        _response(tree, path, ledger)
    elif isinstance(tree.get("messages"), list):
        _one(tree["messages"], path + ("messages",), ledger)  # a v2 request body
    elif isinstance(tree.get("chat_history"), list):
        _one(tree["chat_history"], path + ("chat_history",), ledger)  # a v1 request body
    elif "role" in tree or "tool_calls" in tree:
        _message(tree, path, ledger)


def read_cohere(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Cohere chat: a v2 or v1 response, a message, a conversation (v2
    ``messages``, v1 ``chat_history``: the assistant turns' calls), a request
    body, or stream events (v2 or v1)."""
    _one(tree, (), ledger)
