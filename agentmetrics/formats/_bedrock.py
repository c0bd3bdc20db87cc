"""AWS Bedrock Converse: responses, conversations and stream events, as boto3 gives them.

``converse()`` returns ``{"output": {"message": {"role": "assistant",
"content": [...]}}, "stopReason": ..., "usage": ..., "ResponseMetadata": ...}``;
a content block is an object with one key naming its kind (``text``,
``toolUse``, ``toolResult``, ``reasoningContent``, ``image``, ...), and a
``toolUse`` block is ``{"toolUseId", "name", "input", "type"?}``. Amazon Nova
models answer ``invoke_model`` with the same ``output.message``.

``converse_stream()`` yields events, each an object with one key:
``messageStart``, ``contentBlockStart`` (``start.toolUse`` opens a call with
its id and name), ``contentBlockDelta`` (``delta.toolUse.input`` is a piece of
the input's JSON text), ``contentBlockStop``, ``messageStop`` (with
``stopReason``) and ``metadata``. The pieces of a block are joined by
``contentBlockIndex``, per message.

``toolUse`` blocks of ``type: "server_tool_use"`` are calls to tools Bedrock
runs itself (hosted).
"""

from __future__ import annotations

from typing import Any

from agentmetrics.formats._ledger import Ledger, Streamed, arguments_in, refuse, text
from agentmetrics.formats._payload import Path

__all__ = ["STREAM_EVENTS", "read_bedrock"]

NAME = "bedrock"

#: The keys of ConverseStream events (one per event), errors included.
STREAM_EVENTS = frozenset({
    "messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop",
    "messageStop", "metadata", "internalServerException", "modelStreamErrorException",
    "validationException", "throttlingException", "serviceUnavailableException",
})
_ERRORS = frozenset({"internalServerException", "modelStreamErrorException",
                     "validationException", "throttlingException",
                     "serviceUnavailableException"})
_HOSTED = "server_tool_use"


def _event_kind(item: object) -> str | None:
    """The event an item of a stream is: its one key of :data:`STREAM_EVENTS`."""
    if type(item) is dict:
        for key in item:
            if type(key) is str and key in STREAM_EVENTS and type(item[key]) is dict:
                return str(key)
    return None


def _tool_use(block: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if not isinstance(block, dict):
        raise refuse(NAME, path, "a toolUse object", type(block).__name__,
                     "pass the response as boto3 returns it.")
    call_id = block.get("toolUseId")
    if block.get("type") == _HOSTED and not hosted_tools:
        ledger.skip(path, call_id)
        return
    tool_input = arguments_in(block, "input", NAME, path)
    if tool_input is not None and not isinstance(tool_input, (dict, str)):
        raise refuse(NAME, path + ("input",), "the tool input as an object",
                     type(tool_input).__name__, "pass the response as boto3 returns it.")
    ledger.add(path, block.get("name"), tool_input, call_id)


def _message(message: Any, path: Path, ledger: Ledger, hosted_tools: bool,
             stop_reason: object = None) -> None:
    if not isinstance(message, dict):
        raise refuse(NAME, path, "a message object", type(message).__name__,
                     "pass the response as boto3 returns it.")
    if message.get("role", "assistant") != "assistant":
        return  # user messages hold the tools' results, not calls
    content = message.get("content")
    if content is None:
        content = []
    if not isinstance(content, list):
        raise refuse(NAME, path + ("content",), "a list of content blocks",
                     type(content).__name__, "pass the message as boto3 returns it.")
    before = len(ledger.paths)
    for index, block in enumerate(content):
        here = path + ("content", index)
        if not isinstance(block, dict):
            raise refuse(NAME, here, "a content block object", type(block).__name__,
                         "pass the message as boto3 returns it.")
        if "toolUse" in block:
            _tool_use(block["toolUse"], here + ("toolUse",), ledger, hosted_tools)
    ledger.require_calls(path, stop_reason, before, "the toolUse blocks of a message that stopped")


def _response(response: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    output = response.get("output")
    if output is None:
        return
    if not isinstance(output, dict):
        raise refuse(NAME, path + ("output",), "an output object", type(output).__name__,
                     "pass the response as boto3 returns it.")
    if "message" not in output:
        return
    _message(output["message"], path + ("output", "message"), ledger, hosted_tools,
             response.get("stopReason"))


def _index(event: dict[str, Any], path: Path) -> int:
    index = event.get("contentBlockIndex")
    if not isinstance(index, int) or isinstance(index, bool):
        raise refuse(NAME, path + ("contentBlockIndex",), "the block's integer index",
                     repr(index)[:40], "pass the events as boto3 yields them.")
    return index


def _events(events: list[tuple[Any, Path]], ledger: Ledger, hosted_tools: bool) -> None:
    """ConverseStream events: each message's toolUse blocks, input pieces joined."""
    open_blocks: dict[int, Streamed] = {}
    order: list[Streamed] = []
    stop: tuple[object, Path] | None = None
    read_before = len(ledger.paths)

    def close() -> None:
        nonlocal stop, read_before
        for item in order:
            call_id = item.head.get("toolUseId")
            if item.head.get("type") == _HOSTED and not hosted_tools:
                ledger.skip(item.path, call_id)
                for piece in item.pieces:
                    ledger.skip(piece, call_id)
                continue
            ledger.add(item.path, item.head.get("name"), item.text, call_id,
                       also=tuple(item.pieces))
        if stop is not None:
            ledger.require_calls(stop[1], stop[0], read_before, "the toolUse blocks of a message that stopped")
        open_blocks.clear()
        order.clear()
        stop = None
        read_before = len(ledger.paths)

    for item, path in events:
        kind = _event_kind(item)
        if kind is None:
            raise refuse(NAME, path, "a ConverseStream event (an object with one key such as "
                         "contentBlockStart)", repr(item)[:60],
                         "pass the events as boto3 yields them from response['stream'].")
        event = item[kind]
        here = path + (kind,)
        if kind in _ERRORS:
            raise refuse(NAME, here, "a complete stream", f"the error event {kind} "
                         f"({text(event.get('message')) or 'no message'})",
                         "the stream failed before it ended: score a complete response.")
        if kind == "messageStart":
            close()
        elif kind == "contentBlockStart":
            start = event.get("start")
            tool = start.get("toolUse") if isinstance(start, dict) else None
            if tool is not None:
                if not isinstance(tool, dict):
                    raise refuse(NAME, here + ("start", "toolUse"), "a toolUse start object",
                                 type(tool).__name__, "pass the events as boto3 yields them.")
                block = Streamed(tool, here + ("start", "toolUse"))
                open_blocks[_index(event, here)] = block
                order.append(block)
        elif kind == "contentBlockDelta":
            delta = event.get("delta")
            piece = delta.get("toolUse") if isinstance(delta, dict) else None
            if piece is not None:
                found = open_blocks.get(_index(event, here))
                if found is None:
                    raise refuse(NAME, here, "tool input for a toolUse block started earlier",
                                 f"a delta for block {event.get('contentBlockIndex')!r}, which "
                                 "no contentBlockStart opened",
                                 "pass the whole stream, from messageStart on.")
                block = found
                piece_text = piece.get("input") if isinstance(piece, dict) else None
                if not isinstance(piece_text, str):
                    raise refuse(NAME, here + ("delta", "toolUse", "input"), "input JSON text",
                                 type(piece_text).__name__, "pass the events as boto3 yields them.")
                block.text += piece_text
                block.pieces.append(here + ("delta", "toolUse"))
        elif kind == "messageStop":
            stop = (event.get("stopReason"), here)
    close()


def _conversation(items: list[Any], path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    for index, item in enumerate(items):
        _one(item, path + (index,), ledger, hosted_tools)


def _one(tree: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if isinstance(tree, list):
        if any(_event_kind(item) for item in tree):
            _events([(item, path + (index,)) for index, item in enumerate(tree)], ledger,
                    hosted_tools)
        else:
            _conversation(tree, path, ledger, hosted_tools)
        return
    if not isinstance(tree, dict):
        raise refuse(NAME, path, "a Converse response, a message, a list of messages or "
                     "stream events", type(tree).__name__, "pass what boto3 returns.")
    if _event_kind(tree):
        _events([(tree, path)], ledger, hosted_tools)
    elif "output" in tree:
        _response(tree, path, ledger, hosted_tools)
    elif isinstance(tree.get("messages"), list):
        _conversation(tree["messages"], path + ("messages",), ledger, hosted_tools)
    elif "content" in tree or "role" in tree:
        _message(tree, path, ledger, hosted_tools)
    elif "toolUse" in tree:
        _tool_use(tree["toolUse"], path + ("toolUse",), ledger, hosted_tools)


def read_bedrock(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Bedrock Converse: a response (as boto3 returns it, with or without
    ``ResponseMetadata``), a message, a conversation (``messages``: the
    assistant messages' calls), a request body, content blocks, or the events
    of ``converse_stream()`` (one message or several)."""
    _one(tree, (), ledger, hosted_tools)
