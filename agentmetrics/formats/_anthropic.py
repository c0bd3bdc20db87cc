"""Anthropic Messages: messages, conversations, content blocks and stream events.

``tool_use`` blocks call the developer's tools; ``server_tool_use`` (web
search, code execution, web fetch) and ``mcp_tool_use`` call tools the API
runs itself (hosted).
"""

from __future__ import annotations

from typing import Any

from agentmetrics.formats._census import mark_views
from agentmetrics.formats._ledger import Ledger, Streamed, arguments_in, refuse
from agentmetrics.formats._ledger import text as _text
from agentmetrics.formats._payload import Path

__all__ = ["STREAM_EVENTS", "read_anthropic"]

NAME = "anthropic"

_HOSTED = frozenset({"server_tool_use", "mcp_tool_use"})
_CALLS = _HOSTED | {"tool_use"}
STREAM_EVENTS = frozenset({"message_start", "content_block_start", "content_block_delta",
                           "content_block_stop", "message_delta", "message_stop", "ping"})


def _block(block: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if not isinstance(block, dict):
        if isinstance(block, str):
            return  # text given as a bare string
        raise refuse(NAME, path, "a content block object", type(block).__name__,
                     "pass the content as the API returns it.")
    kind = _text(block.get("type"))
    if kind not in _CALLS:
        return
    if kind in _HOSTED and not hosted_tools:
        ledger.skip(path, block.get("id"))
        return
    tool_input = arguments_in(block, "input", NAME, path)
    if tool_input is not None and not isinstance(tool_input, dict):
        raise refuse(NAME, path + ("input",), "the tool input as an object",
                     type(tool_input).__name__, "pass the block as the API returns it.")
    ledger.add(path, block.get("name"), tool_input, block.get("id"))


def _blocks(blocks: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if isinstance(blocks, str) or blocks is None:
        return  # plain text content
    if not isinstance(blocks, list):
        raise refuse(NAME, path, "a list of content blocks or a string",
                     type(blocks).__name__, "pass the message as the API returns it.")
    for index, block in enumerate(blocks):
        _block(block, path + (index,), ledger, hosted_tools)


def _message(message: dict[str, Any], path: Path, ledger: Ledger, hosted_tools: bool,
             streamed: bool = False) -> None:
    if message.get("role", "assistant") != "assistant":
        return  # user turns hold tool results, not calls
    before = len(ledger.paths)
    _blocks(message.get("content"), path + ("content",), ledger, hosted_tools)
    if not streamed:  # a streamed message's stop reason comes later, in message_delta
        ledger.require_calls(path, message.get("stop_reason"), before,
                             "the tool_use blocks of a message that stopped")


def _events(events: list[tuple[Any, Path]], ledger: Ledger, hosted_tools: bool) -> None:
    """Raw stream events: each message's blocks by index, input JSON joined.

    A stream may hold several messages (turns, or the resumed turns of
    programmatic tool calling), each from its ``message_start``. A
    ``message_start`` repeated with the same id before any block is the same
    message (some proxies send it twice). One that starts another message while
    the previous one is still open (blocks started, no ``message_delta`` or
    ``message_stop``) is a retried generation spliced into a cut one: which one
    the agent acted on cannot be read, so the stream is refused."""
    open_blocks: dict[int, Streamed] = {}
    order: list[Streamed] = []
    current: dict[str, Any] = {"id": None, "open": False, "blocks": 0}

    def close() -> None:
        for item in open_blocks.values():  # a tool block started and never ended
            raise refuse(NAME, item.path, "each tool_use block to end (content_block_stop, "
                         "or the message's message_delta or message_stop)",
                         "a stream that ends inside the block, whose input may be cut "
                         "short", "pass the whole stream, up to the block's "
                         "content_block_stop.")
        for item in order:
            kind = _text(item.head.get("type"))
            if kind in _HOSTED and not hosted_tools:
                ledger.skip(item.path, item.head.get("id"))
                continue
            if item.pieces or item.text:
                arguments: Any = item.text
            else:
                arguments = item.head.get("input")
            ledger.add(item.path, item.head.get("name"), arguments, item.head.get("id"),
                       also=tuple(item.pieces))
        open_blocks.clear()
        order.clear()

    for event, path in events:
        if not isinstance(event, dict):
            raise refuse(NAME, path, "a stream event object", type(event).__name__,
                         "pass the events as the SDK yields them.")
        kind = event.get("type")
        if kind == "message_start":
            message = event.get("message")
            message_id = message.get("id") if isinstance(message, dict) else None
            if current["open"] and current["blocks"] == 0 and message_id == current["id"]:
                continue  # the same message_start again
            if current["open"] and current["blocks"]:
                raise refuse(NAME, path, "each message to end (message_delta or message_stop) "
                             "before the next message_start", f"a new message {message_id!r} "
                             f"started while message {current['id']!r} was still open",
                             "the stream holds a cut generation and a retry spliced together: "
                             "pass the complete stream of the generation the agent acted on.")
            close()
            current.update(id=message_id, open=True, blocks=0)
            if isinstance(message, dict):
                _message(message, path + ("message",), ledger, hosted_tools, streamed=True)
        elif kind in ("message_delta", "message_stop"):
            current["open"] = False
            open_blocks.clear()  # the message ended: every block in it is whole
        elif kind == "content_block_stop":
            index = event.get("index")
            if isinstance(index, int):
                open_blocks.pop(index, None)
        elif kind == "content_block_start":
            current["blocks"] += 1
            block, index = event.get("content_block"), event.get("index")
            if isinstance(block, dict) and _text(block.get("type")) in _CALLS:
                if not isinstance(index, int):
                    raise refuse(NAME, path + ("index",), "the block's integer index",
                                 repr(index)[:40], "pass the events as the SDK yields them.")
                item = Streamed(block, path + ("content_block",))
                open_blocks[index] = item
                order.append(item)
        elif kind == "content_block_delta":
            delta, index = event.get("delta"), event.get("index")
            if isinstance(delta, dict) and delta.get("type") == "input_json_delta":
                piece = open_blocks.get(index) if isinstance(index, int) else None
                if piece is None:
                    raise refuse(NAME, path, "input JSON for a tool_use block started earlier",
                                 f"a delta for block {index!r}, which no content_block_start "
                                 f"opened", "pass the whole stream, from message_start on.")
                text = delta.get("partial_json")
                if not isinstance(text, str):
                    raise refuse(NAME, path + ("delta", "partial_json"), "JSON text",
                                 type(text).__name__, "pass the events as the SDK yields them.")
                piece.text += text
                piece.pieces.append(path)
    close()
    for event, path in events:  # the SDK's helper events repeat blocks and the message
        if event.get("type") not in ("message_start", "content_block_start"):
            mark_views(ledger, event, path)


def _one(tree: Any, path: Path, ledger: Ledger, hosted_tools: bool) -> None:
    if isinstance(tree, dict):
        kind = _text(tree.get("type"))
        if kind in STREAM_EVENTS:
            _events([(tree, path)], ledger, hosted_tools)
        elif "content" in tree or "role" in tree:
            _message(tree, path, ledger, hosted_tools)
        elif isinstance(tree.get("messages"), list):
            _one(tree["messages"], path + ("messages",), ledger, hosted_tools)
        else:
            _block(tree, path, ledger, hosted_tools)
        return
    if not isinstance(tree, list):
        raise refuse(NAME, path, "a message, a list of messages or of content blocks",
                     type(tree).__name__, "pass JSON objects as the API returns them.")
    if any(isinstance(item, dict) and _text(item.get("type")) in STREAM_EVENTS for item in tree):
        # A stream: raw events, and the helper events MessageStream adds between them.
        _events([(item, path + (index,)) for index, item in enumerate(tree)], ledger,
                hosted_tools)
        return
    for index, item in enumerate(tree):
        here = path + (index,)
        if isinstance(item, list):
            _one(item, here, ledger, hosted_tools)
        elif isinstance(item, dict) and ("role" in item or item.get("type") == "message"):
            _message(item, here, ledger, hosted_tools)
        else:
            _block(item, here, ledger, hosted_tools)


def read_anthropic(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Messages: a message, a conversation (the assistant turns' calls), a
    request body, a list of content blocks, or raw stream events."""
    _one(tree, (), ledger, hosted_tools)
