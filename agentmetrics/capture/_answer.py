"""The text a model response says, whole or streamed, per API: what a
text-protocol agent (ReAct, code actions) writes its tool requests in.

Only the first answer (choice 0, the first candidate) is taken: a response of
several alternatives has no single text, and the readers refuse its calls
anyway. None when the response holds no text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["answer_text"]


def _dicts(tree: Any) -> list[dict[str, Any]]:
    items = tree if isinstance(tree, list) else [tree]
    return [item for item in items if isinstance(item, dict)]


def _join(pieces: Iterable[Any]) -> str | None:
    texts = [piece for piece in pieces if isinstance(piece, str)]
    return "".join(texts) if texts else None


def _first(value: Any) -> dict[str, Any]:
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return value[0]
    return {}


def _blocks(content: Any, key: str = "text") -> list[Any]:
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [block.get(key) for block in content if isinstance(block, dict)
            and block.get("type", "text") in ("text", "output_text")]


def _openai_chat(events: list[dict[str, Any]]) -> str | None:
    pieces: list[Any] = []
    for event in events:
        choice = _first(event.get("choices"))
        if choice.get("index", 0) != 0:
            continue
        message = choice.get("message") if "message" in choice else choice.get("delta")
        if isinstance(message, dict):
            pieces.extend(_blocks(message.get("content")))
    return _join(pieces)


def _openai_responses(events: list[dict[str, Any]]) -> str | None:
    for event in reversed(events):  # a stream's last event holds the whole response
        response = event.get("response") if event.get("type", "").startswith("response.") \
            else event
        if isinstance(response, dict) and isinstance(response.get("output"), list):
            return _join(text for item in response["output"] if isinstance(item, dict)
                         and item.get("type") == "message"
                         for text in _blocks(item.get("content")))
    return _join(event.get("delta") for event in events
                 if event.get("type") == "response.output_text.delta")


def _anthropic(events: list[dict[str, Any]]) -> str | None:
    pieces: list[Any] = []
    for event in events:
        if event.get("type") == "message" or ("content" in event and "type" not in event):
            pieces.extend(_blocks(event.get("content")))
        elif event.get("type") == "content_block_start":
            pieces.extend(_blocks([event.get("content_block")]))
        elif event.get("type") == "content_block_delta":
            delta = event.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "text_delta":
                pieces.append(delta.get("text"))
    return _join(pieces)


def _gemini(events: list[dict[str, Any]]) -> str | None:
    pieces: list[Any] = []
    for event in events:
        content = _first(event.get("candidates")).get("content")
        if isinstance(content, dict) and isinstance(content.get("parts"), list):
            pieces.extend(part.get("text") for part in content["parts"]
                          if isinstance(part, dict) and not part.get("thought"))
    return _join(pieces)


def _ollama(events: list[dict[str, Any]]) -> str | None:
    return _join(event["message"].get("content") for event in events
                 if isinstance(event.get("message"), dict))


def _cohere(events: list[dict[str, Any]]) -> str | None:
    pieces: list[Any] = []
    for event in events:
        if event.get("type") == "content-delta":
            message = event.get("delta", {}).get("message", {}) if isinstance(
                event.get("delta"), dict) else {}
            content = message.get("content") if isinstance(message, dict) else None
            if isinstance(content, dict):
                pieces.append(content.get("text"))
        elif isinstance(event.get("message"), dict):
            pieces.extend(_blocks(event["message"].get("content")))
        elif isinstance(event.get("text"), str) and "event_type" not in event:
            pieces.append(event["text"])
    return _join(pieces)


def _bedrock(events: list[dict[str, Any]]) -> str | None:
    pieces: list[Any] = []
    for event in events:
        output = event.get("output")
        message = output.get("message") if isinstance(output, dict) else None
        if isinstance(message, dict):
            pieces.extend(block.get("text") for block in message.get("content") or ()
                          if isinstance(block, dict))
        delta = event.get("contentBlockDelta")
        if isinstance(delta, dict) and isinstance(delta.get("delta"), dict):
            pieces.append(delta["delta"].get("text"))
    return _join(pieces)


_BY_FORMAT = {"openai_chat": _openai_chat, "openai_responses": _openai_responses,
              "anthropic": _anthropic, "bedrock_invoke": _anthropic, "gemini": _gemini,
              "ollama": _ollama, "cohere": _cohere, "bedrock": _bedrock}


def answer_text(format: str | None, tree: Any) -> str | None:
    """The text of the response ``tree`` (as the readers parsed it) in ``format``."""
    read = _BY_FORMAT.get(format or "")
    return None if read is None else read(_dicts(tree))
