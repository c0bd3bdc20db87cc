"""Ollama's native chat API (``/api/chat``): responses, conversations and streams.

A response is ``{"model", "created_at", "message": {"role": "assistant",
"content", "tool_calls": [{"id"?, "function": {"index"?, "name",
"arguments"}}]}, "done": true, "done_reason", ...}``; ``arguments`` is an
object (JSON text is read too). A stream is NDJSON: one such object a line
with ``done: false`` until the last; a streamed call arrives whole in one
line, so the calls of a stream are the calls of its lines, in order.
Ollama's OpenAI-compatible endpoint (``/v1/chat/completions``) answers in
OpenAI's format, read by ``openai_chat``.
"""

from __future__ import annotations

from typing import Any

from agentmetrics.formats._ledger import Ledger, arguments_in, refuse
from agentmetrics.formats._payload import Path

__all__ = ["read_ollama"]

NAME = "ollama"
_FIX = "pass the response as Ollama returns it (each NDJSON line of a stream)."


def _message(message: Any, path: Path, ledger: Ledger) -> None:
    if not isinstance(message, dict):
        raise refuse(NAME, path, "a message object", type(message).__name__, _FIX)
    if message.get("role", "assistant") != "assistant":
        return  # user, system and tool messages make no calls
    calls = message.get("tool_calls")
    if calls is None:
        return
    if not isinstance(calls, list):
        raise refuse(NAME, path + ("tool_calls",), "a list of tool calls", type(calls).__name__,
                     _FIX)
    for index, item in enumerate(calls):
        here = path + ("tool_calls", index)
        if not isinstance(item, dict):
            raise refuse(NAME, here, "a tool call object", type(item).__name__, _FIX)
        function = item.get("function")
        if not isinstance(function, dict):
            raise refuse(NAME, here + ("function",), "the function called (name and "
                         "arguments)", type(function).__name__, _FIX)
        arguments = arguments_in(function, "arguments", NAME, here + ("function",))
        if arguments is not None and not isinstance(arguments, (dict, str)):
            raise refuse(NAME, here + ("function", "arguments"), "the arguments as an object",
                         type(arguments).__name__, _FIX)
        ledger.add(here, function.get("name"), arguments, item.get("id"))


def _one(tree: Any, path: Path, ledger: Ledger) -> None:
    if isinstance(tree, list):
        for index, item in enumerate(tree):
            _one(item, path + (index,), ledger)
        return
    if not isinstance(tree, dict):
        raise refuse(NAME, path, "a chat response, a message or a list of them",
                     type(tree).__name__, _FIX)
    if "message" in tree:
        _message(tree["message"], path + ("message",), ledger)
    elif isinstance(tree.get("messages"), list):
        _one(tree["messages"], path + ("messages",), ledger)  # a request body
    elif "role" in tree or "tool_calls" in tree:
        _message(tree, path, ledger)


def read_ollama(tree: Any, ledger: Ledger, *, hosted_tools: bool = True) -> None:
    """Ollama ``/api/chat``: a response, a message, a conversation, a request
    body, or the lines of a stream (NDJSON text or a list of parsed lines)."""
    _one(tree, (), ledger)
