"""Builders of scripted provider replies, shaped byte for byte like what each real API sends.

Every builder takes the tool calls the "model" makes (``list[Call]``), an optional ``text``, the ``model`` name and
``stream``, and returns a :class:`~provider_server.Reply` whose ``path`` is the endpoint the provider's SDK posts to.
Streams are split into one HTTP chunk per event, and tool-call arguments are cut across several deltas wherever the
real API streams them in pieces, so a recorder has to reassemble them. Ids and timestamps are fixed or derived from
the content, so the same arguments always give the same bytes.

Shapes follow recorded traffic (tests/recorded/*.jsonl.gz) and the parsers of the installed SDKs.
"""

from __future__ import annotations

import base64
import hashlib
import json
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from provider_server import Reply

__all__ = [
    "CREATED",
    "Call",
    "anthropic",
    "bedrock_converse",
    "bedrock_invoke_anthropic",
    "cohere",
    "encode_event",
    "gemini",
    "ollama",
    "openai_chat",
    "openai_responses",
    "split_text",
]

CREATED = 1750000000  # fixed Unix timestamp for `created` fields
_CREATED_ISO = "2025-06-15T15:06:40.123456Z"
_SSE = "text/event-stream"
_SSE_UTF8 = "text/event-stream; charset=utf-8"


@dataclass
class Call:
    """A tool call the scripted model makes. An empty ``id`` is replaced by one in the provider's own style."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = ""

    @property
    def arguments_json(self) -> str:
        return _compact(self.arguments)


# helpers


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _digest(*parts: object, length: int = 24) -> str:
    """A deterministic alphanumeric id fragment for the given content."""
    raw = hashlib.sha256(repr(parts).encode()).digest()
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    number = int.from_bytes(raw, "big")
    out = []
    for _ in range(length):
        number, rest = divmod(number, len(alphabet))
        out.append(alphabet[rest])
    return "".join(out)


def _call_id(call: Call, index: int, prefix: str, length: int = 24) -> str:
    return call.id or f"{prefix}{_digest(call.name, call.arguments, index, length=length)}"


def split_text(text: str, pieces: int = 3) -> list[str]:
    """Cut ``text`` into ``pieces`` non-empty parts (fewer only when it is shorter); joining them gives ``text``."""
    if not text:
        return [text]
    pieces = max(1, min(pieces, len(text)))
    size, extra = divmod(len(text), pieces)
    out, start = [], 0
    for index in range(pieces):
        end = start + size + (1 if index < extra else 0)
        out.append(text[start:end])
        start = end
    return out


def _sse(data: Any, event: str | None = None, *, newline: str = "\n") -> bytes:
    payload = data if isinstance(data, str) else _compact(data)
    head = f"event: {event}{newline}" if event is not None else ""
    return f"{head}data: {payload}{newline}{newline}".encode()


def _reply(payload: Any, path: str, *, indent: bool = False, headers: dict[str, str] | None = None, **kw: Any) -> Reply:
    text = json.dumps(payload, indent=2, ensure_ascii=False) if indent else _compact(payload)
    return Reply(body=text.encode(), path=path, headers=dict(headers or {}), **kw)


# OpenAI Chat Completions


def _openai_usage(input_tokens: int, output_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def openai_chat(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "gpt-4o-mini-2024-07-18",
    stream: bool = False,
    input_tokens: int = 82,
    output_tokens: int = 17,
    include_usage: bool = True,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /v1/chat/completions``: a ``chat.completion``, or ``chat.completion.chunk`` SSE ending ``data: [DONE]``."""
    completion_id = "chatcmpl-" + _digest("chat", model, text, [(c.name, c.arguments) for c in calls], length=29)
    finish = "tool_calls" if calls else "stop"
    fingerprint = "fp_" + _digest("fp", model, length=10).lower()
    ids = [_call_id(call, index, "call_") for index, call in enumerate(calls)]
    headers = {"openai-processing-ms": "312", "x-request-id": "req_" + _digest("req", completion_id, length=32)}
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": text, "refusal": None, "annotations": []}
        if calls:
            message["tool_calls"] = [
                {"id": ids[i], "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
                for i, c in enumerate(calls)
            ]
        payload = {
            "id": completion_id,
            "object": "chat.completion",
            "created": CREATED,
            "model": model,
            "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
            "usage": _openai_usage(input_tokens, output_tokens),
            "service_tier": "default",
            "system_fingerprint": fingerprint,
        }
        return _reply(payload, "/chat/completions", indent=True, headers=headers, match=match)

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        body: dict[str, Any] = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": CREATED,
            "model": model,
            "service_tier": "default",
            "system_fingerprint": fingerprint,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        if include_usage:
            body["usage"] = None
        return _sse(body)

    chunks: list[bytes] = []
    role: dict[str, Any] = {"role": "assistant", "content": "" if text is not None else None, "refusal": None}
    if text is not None:
        chunks.append(chunk(role))
        role = {}
        chunks.extend(chunk({"content": piece}) for piece in split_text(text, pieces))
    for index, call in enumerate(calls):
        head = {"index": index, "id": ids[index], "type": "function", "function": {"name": call.name, "arguments": ""}}
        chunks.append(chunk({**role, "tool_calls": [head]}))
        role = {}
        for piece in split_text(call.arguments_json, pieces):
            chunks.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
    if role:  # neither text nor calls: an empty answer still opens with the role
        chunks.append(chunk(role))
    chunks.append(chunk({}, finish))
    if include_usage:
        chunks.append(
            _sse(
                {
                    "id": completion_id,
                    "object": "chat.completion.chunk",
                    "created": CREATED,
                    "model": model,
                    "service_tier": "default",
                    "system_fingerprint": fingerprint,
                    "choices": [],
                    "usage": _openai_usage(input_tokens, output_tokens),
                }
            )
        )
    chunks.append(b"data: [DONE]\n\n")
    return Reply(chunks=chunks, content_type=_SSE_UTF8, path="/chat/completions", headers=headers, match=match, delay=delay)


# OpenAI Responses


def openai_responses(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "gpt-4.1-2025-04-14",
    stream: bool = False,
    input_tokens: int = 91,
    output_tokens: int = 24,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /v1/responses``: a ``response`` object, or the typed SSE event sequence ending ``response.completed``."""
    key = ("responses", model, text, [(c.name, c.arguments) for c in calls])
    response_id = "resp_" + _digest(*key, length=48).lower()
    message_id = "msg_" + _digest("msg", *key, length=48).lower()
    items: list[dict[str, Any]] = []
    if text is not None:
        part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
        items.append({"id": message_id, "type": "message", "status": "completed", "content": [part], "role": "assistant"})
    for index, call in enumerate(calls):
        items.append(
            {
                "id": "fc_" + _digest("fc", index, *key, length=48).lower(),
                "type": "function_call",
                "status": "completed",
                "arguments": call.arguments_json,
                "call_id": _call_id(call, index, "call_"),
                "name": call.name,
            }
        )
    usage = {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": input_tokens + output_tokens,
    }

    def response(status: str, output: list[dict[str, Any]], final: bool) -> dict[str, Any]:
        return {
            "id": response_id,
            "object": "response",
            "created_at": CREATED,
            "status": status,
            "background": False,
            "completed_at": CREATED + 1 if final else None,
            "error": None,
            "incomplete_details": None,
            "instructions": None,
            "max_output_tokens": None,
            "max_tool_calls": None,
            "model": model,
            "output": output,
            "parallel_tool_calls": True,
            "previous_response_id": None,
            "prompt_cache_key": None,
            "reasoning": {"effort": None, "summary": None},
            "safety_identifier": None,
            "service_tier": "default",
            "store": True,
            "temperature": 1.0,
            "text": {"format": {"type": "text"}, "verbosity": "medium"},
            "tool_choice": "auto",
            "tools": [],
            "top_logprobs": 0,
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": usage if final else None,
            "user": None,
            "metadata": {},
        }

    headers = {"openai-processing-ms": "455", "x-request-id": "req_" + _digest("req", response_id, length=32)}
    if not stream:
        return _reply(response("completed", items, True), "/responses", indent=True, headers=headers, match=match)

    events: list[bytes] = []

    def emit(name: str, **data: Any) -> None:
        events.append(_sse({"type": name, "sequence_number": len(events), **data}, name))

    emit("response.created", response=response("in_progress", [], False))
    emit("response.in_progress", response=response("in_progress", [], False))
    for output_index, item in enumerate(items):
        item_id = item["id"]
        if item["type"] == "message":
            full = item["content"][0]
            emit(
                "response.output_item.added",
                output_index=output_index,
                item={**item, "status": "in_progress", "content": []},
            )
            empty = {**full, "text": ""}
            emit("response.content_part.added", item_id=item_id, output_index=output_index, content_index=0, part=empty)
            for piece in split_text(full["text"], pieces):
                emit(
                    "response.output_text.delta",
                    item_id=item_id,
                    output_index=output_index,
                    content_index=0,
                    delta=piece,
                    logprobs=[],
                )
            emit(
                "response.output_text.done",
                item_id=item_id,
                output_index=output_index,
                content_index=0,
                text=full["text"],
                logprobs=[],
            )
            emit("response.content_part.done", item_id=item_id, output_index=output_index, content_index=0, part=full)
        else:
            emit(
                "response.output_item.added",
                output_index=output_index,
                item={**item, "status": "in_progress", "arguments": ""},
            )
            for piece in split_text(item["arguments"], pieces):
                emit("response.function_call_arguments.delta", item_id=item_id, output_index=output_index, delta=piece)
            emit(
                "response.function_call_arguments.done",
                item_id=item_id,
                output_index=output_index,
                arguments=item["arguments"],
            )
        emit("response.output_item.done", output_index=output_index, item=item)
    emit("response.completed", response=response("completed", items, True))
    return Reply(chunks=events, content_type=_SSE_UTF8, path="/responses", headers=headers, match=match, delay=delay)


# Anthropic Messages


def _anthropic_message(
    calls: Sequence[Call],
    text: str | None,
    model: str,
    input_tokens: int,
    output_tokens: int,
    message_id: str,
    id_prefix: str,
) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if text is not None:
        content.append({"type": "text", "text": text})
    for index, call in enumerate(calls):
        content.append(
            {"type": "tool_use", "id": _call_id(call, index, id_prefix), "name": call.name, "input": call.arguments}
        )
    return {
        "model": model,
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "content": content,
        "stop_reason": "tool_use" if calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
            "output_tokens": output_tokens,
            "service_tier": "standard",
        },
    }


def _anthropic_events(message: dict[str, Any], pieces: int) -> list[tuple[str, dict[str, Any]]]:
    """The Messages streaming events that rebuild ``message``."""
    start = {**message, "content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = {**message["usage"], "output_tokens": 1}
    events: list[tuple[str, dict[str, Any]]] = [("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            opening: dict[str, Any] = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": piece} for piece in split_text(block["text"], pieces)]
        else:
            opening = {**block, "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": piece}
                for piece in split_text(_compact(block["input"]), pieces)
            ]
        events.append(("content_block_start", {"type": "content_block_start", "index": index, "content_block": opening}))
        if index == 0:
            events.append(("ping", {"type": "ping"}))
        events.extend(
            ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}) for delta in deltas
        )
        events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
    usage = message["usage"]
    events.append(
        (
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {
                    "input_tokens": usage["input_tokens"],
                    "cache_creation_input_tokens": 0,
                    "cache_read_input_tokens": 0,
                    "output_tokens": usage["output_tokens"],
                },
            },
        )
    )
    events.append(("message_stop", {"type": "message_stop"}))
    return events


def anthropic(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "claude-sonnet-4-5-20250929",
    stream: bool = False,
    input_tokens: int = 512,
    output_tokens: int = 71,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /v1/messages``: a ``message`` with ``tool_use`` blocks, or the named SSE events that build it."""
    message_id = "msg_01" + _digest("anthropic", model, text, [(c.name, c.arguments) for c in calls])
    message = _anthropic_message(calls, text, model, input_tokens, output_tokens, message_id, "toolu_01")
    headers = {"request-id": "req_011C" + _digest("req", message_id, length=20), "anthropic-organization-id": "0" * 8}
    if not stream:
        return _reply(message, "/v1/messages", headers=headers, match=match)
    chunks = [_sse(data, name) for name, data in _anthropic_events(message, pieces)]
    return Reply(chunks=chunks, content_type=_SSE_UTF8, path="/v1/messages", headers=headers, match=match, delay=delay)


# Google Gemini (generativelanguage v1beta)


def gemini(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "gemini-2.5-flash",
    stream: bool = False,
    input_tokens: int = 143,
    output_tokens: int = 19,
    include_ids: bool = True,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /v1beta/models/{model}:generateContent``, or ``:streamGenerateContent?alt=sse`` (``data:`` events).

    Gemini streams text in pieces but each ``functionCall`` whole, in the last chunk with ``finishReason``.
    """
    response_id = _digest("gemini", model, text, [(c.name, c.arguments) for c in calls], length=23)
    function_parts: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        function_call: dict[str, Any] = {"name": call.name, "args": call.arguments}
        if include_ids:
            function_call["id"] = _call_id(call, index, "", length=8).lower()
        function_parts.append({"functionCall": function_call})
    usage = {
        "promptTokenCount": input_tokens,
        "candidatesTokenCount": output_tokens,
        "totalTokenCount": input_tokens + output_tokens,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": input_tokens}],
    }

    def payload(parts: list[dict[str, Any]], final: bool, usage_metadata: dict[str, Any]) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
        if final:
            candidate["finishReason"] = "STOP"
        candidate["index"] = 0
        return {"candidates": [candidate], "usageMetadata": usage_metadata, "modelVersion": model, "responseId": response_id}

    headers = {"server": "scaffolding on HTTPServer2", "x-gemini-service-tier": "standard"}
    if not stream:
        parts = ([{"text": text}] if text is not None else []) + function_parts
        body = (json.dumps(payload(parts, True, usage), indent=2, ensure_ascii=False) + "\n").encode()
        return Reply(body=body, content_type="application/json; charset=UTF-8", path=":generateContent", headers=headers, match=match)
    partial = {
        "promptTokenCount": input_tokens,
        "totalTokenCount": input_tokens,
        "promptTokensDetails": usage["promptTokensDetails"],
    }
    bodies: list[dict[str, Any]] = []
    text_pieces = split_text(text, pieces) if text else []
    for position, piece in enumerate(text_pieces):
        last = position == len(text_pieces) - 1 and not function_parts
        bodies.append(payload([{"text": piece}], last, usage if last else partial))
    if function_parts or not bodies:
        bodies.append(payload(function_parts, True, usage))
    chunks = [_sse(json.dumps(body, ensure_ascii=False), newline="\r\n") for body in bodies]
    return Reply(chunks=chunks, content_type=_SSE, path=":streamGenerateContent", headers=headers, match=match, delay=delay)


# Cohere v2 chat


def cohere(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "command-a-03-2025",
    stream: bool = False,
    input_tokens: int = 1508,
    output_tokens: int = 67,
    billed_input_tokens: int | None = None,
    billed_output_tokens: int | None = None,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /v2/chat``: a v2 chat response, or ``event:``/``data:`` SSE (``message-start`` .. ``message-end``).

    With calls, ``text`` is the model's ``tool_plan``; without, it is the answer's text content.
    """
    del model  # the v2 chat response does not echo the model
    message_id = _hex_uuid("cohere", text, [(c.name, c.arguments) for c in calls])
    ids = [_call_id(call, index, f"{call.name}_", length=12).lower() for index, call in enumerate(calls)]
    usage = {
        "billed_units": {
            "input_tokens": billed_input_tokens if billed_input_tokens is not None else max(1, input_tokens // 16),
            "output_tokens": billed_output_tokens if billed_output_tokens is not None else max(1, output_tokens // 2),
        },
        "tokens": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }
    finish = "TOOL_CALL" if calls else "COMPLETE"
    headers = {"num_tokens": str(input_tokens + output_tokens)}
    if not stream:
        message: dict[str, Any] = {"role": "assistant"}
        if calls:
            if text is not None:
                message["tool_plan"] = text
            message["tool_calls"] = [
                {"id": ids[i], "type": "function", "function": {"name": c.name, "arguments": c.arguments_json}}
                for i, c in enumerate(calls)
            ]
        elif text is not None:
            message["content"] = [{"type": "text", "text": text}]
        payload = {"id": message_id, "message": message, "finish_reason": finish, "usage": usage}
        return _reply(payload, "/v2/chat", headers=headers, match=match)

    chunks: list[bytes] = []

    def emit(data: dict[str, Any]) -> None:
        chunks.append(_sse(data, data["type"]))

    emit(
        {
            "id": message_id,
            "type": "message-start",
            "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}},
        }
    )
    if calls:
        for piece in split_text(text, pieces) if text else []:
            emit({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": piece}}})
        for index, call in enumerate(calls):
            head = {"id": ids[index], "type": "function", "function": {"name": call.name, "arguments": ""}}
            emit({"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": head}}})
            for piece in split_text(call.arguments_json, pieces):
                delta = {"message": {"tool_calls": {"function": {"arguments": piece}}}}
                emit({"type": "tool-call-delta", "index": index, "delta": delta})
            emit({"type": "tool-call-end", "index": index})
    elif text is not None:
        emit({"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}})
        for piece in split_text(text, pieces):
            emit({"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": piece}}}})
        emit({"type": "content-end", "index": 0})
    emit({"type": "message-end", "delta": {"finish_reason": finish, "usage": usage}})
    chunks.append(b"data: [DONE]\n\n")
    return Reply(chunks=chunks, content_type="text/event-stream", path="/v2/chat", headers=headers, match=match, delay=delay)


def _hex_uuid(*parts: object) -> str:
    raw = hashlib.sha256(repr(parts).encode()).hexdigest()
    return f"{raw[:8]}-{raw[8:12]}-4{raw[13:16]}-a{raw[17:20]}-{raw[20:32]}"


# Ollama


def ollama(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "llama3.2:latest",
    stream: bool = False,
    input_tokens: int = 176,
    output_tokens: int = 22,
    include_ids: bool = True,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /api/chat``: one JSON object, or NDJSON lines (``application/x-ndjson``) ending with ``done: true``.

    Tool calls arrive whole (arguments as an object) in one line; recent Ollama servers add ``id`` and
    ``function.index``, which ollama-python 0.6 keeps only as extra fields.
    """
    tool_calls: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        entry: dict[str, Any] = {}
        if include_ids:
            entry["id"] = _call_id(call, index, "call_", length=8).lower()
        entry["function"] = {"index": index, "name": call.name, "arguments": call.arguments}
        tool_calls.append(entry)
    totals = {
        "done_reason": "stop",
        "done": True,
        "total_duration": 1833451250,
        "load_duration": 41352917,
        "prompt_eval_count": input_tokens,
        "prompt_eval_duration": 520413000,
        "eval_count": output_tokens,
        "eval_duration": 1270006000,
    }
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": text or ""}
        if tool_calls:
            message["tool_calls"] = tool_calls
        payload = {"model": model, "created_at": _CREATED_ISO, "message": message, **totals}
        return _reply(payload, "/api/chat", match=match)
    lines: list[dict[str, Any]] = []
    for piece in split_text(text, pieces) if text else []:
        lines.append({"model": model, "created_at": _CREATED_ISO, "message": {"role": "assistant", "content": piece}, "done": False})
    if tool_calls:
        message = {"role": "assistant", "content": "", "tool_calls": tool_calls}
        lines.append({"model": model, "created_at": _CREATED_ISO, "message": message, "done": False})
    lines.append({"model": model, "created_at": _CREATED_ISO, "message": {"role": "assistant", "content": ""}, **totals})
    chunks = [(_compact(line) + "\n").encode() for line in lines]
    return Reply(chunks=chunks, content_type="application/x-ndjson", path="/api/chat", match=match, delay=delay)


# AWS event stream (application/vnd.amazon.eventstream)


def _event_header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return struct.pack(">B", len(raw_name)) + raw_name + b"\x07" + struct.pack(">H", len(raw_value)) + raw_value


def encode_event(payload: bytes, headers: dict[str, str]) -> bytes:
    """One binary AWS event-stream message: prelude (lengths + CRC32), string headers, payload, message CRC32."""
    raw_headers = b"".join(_event_header(name, value) for name, value in headers.items())
    total = 12 + len(raw_headers) + len(payload) + 4
    prelude = struct.pack(">II", total, len(raw_headers))
    prelude += struct.pack(">I", zlib.crc32(prelude) & 0xFFFFFFFF)
    message = prelude + raw_headers + payload
    return message + struct.pack(">I", zlib.crc32(message) & 0xFFFFFFFF)


def _aws_event(event_type: str, data: dict[str, Any]) -> bytes:
    headers = {":event-type": event_type, ":content-type": "application/json", ":message-type": "event"}
    return encode_event(_compact(data).encode(), headers)


def _padding(*parts: object) -> str:
    """Bedrock pads each event with a ``p`` field of varying length so sizes do not leak content."""
    alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    return alphabet[: 1 + hashlib.sha256(repr(parts).encode()).digest()[0] % len(alphabet)]


def _aws_headers(request_id: str, content_type: str | None = None) -> dict[str, str]:
    headers = {"x-amzn-RequestId": request_id}
    if content_type:
        headers["x-amzn-content-type"] = content_type
    return headers


# Bedrock Converse


def bedrock_converse(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "anthropic.claude-3-haiku-20240307-v1:0",
    stream: bool = False,
    input_tokens: int = 353,
    output_tokens: int = 38,
    latency_ms: int = 924,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /model/{modelId}/converse`` (JSON) or ``/converse-stream`` (binary AWS event stream).

    ``model`` only feeds the deterministic ids: Converse responses do not echo it.
    """
    request_id = _hex_uuid("bedrock", model, text, [(c.name, c.arguments) for c in calls])
    ids = [_call_id(call, index, "tooluse_", length=22) for index, call in enumerate(calls)]
    stop = "tool_use" if calls else "end_turn"
    usage = {"inputTokens": input_tokens, "outputTokens": output_tokens, "totalTokens": input_tokens + output_tokens}
    if not stream:
        content: list[dict[str, Any]] = [{"text": text}] if text is not None else []
        content.extend(
            {"toolUse": {"input": call.arguments, "name": call.name, "toolUseId": ids[index]}}
            for index, call in enumerate(calls)
        )
        payload = {
            "metrics": {"latencyMs": latency_ms},
            "output": {"message": {"content": content, "role": "assistant"}},
            "stopReason": stop,
            "usage": usage,
        }
        return _reply(payload, "/converse", headers=_aws_headers(request_id), match=match)

    events: list[bytes] = []

    def emit(event_type: str, data: dict[str, Any]) -> None:
        data = {**data, "p": _padding(event_type, len(events), request_id)}
        events.append(_aws_event(event_type, dict(sorted(data.items()))))

    emit("messageStart", {"role": "assistant"})
    block = 0
    if text is not None:
        for piece in split_text(text, pieces):
            emit("contentBlockDelta", {"contentBlockIndex": block, "delta": {"text": piece}})
        emit("contentBlockStop", {"contentBlockIndex": block})
        block += 1
    for index, call in enumerate(calls):
        start = {"toolUse": {"name": call.name, "toolUseId": ids[index]}}
        emit("contentBlockStart", {"contentBlockIndex": block, "start": start})
        for piece in split_text(call.arguments_json, pieces):
            emit("contentBlockDelta", {"contentBlockIndex": block, "delta": {"toolUse": {"input": piece}}})
        emit("contentBlockStop", {"contentBlockIndex": block})
        block += 1
    emit("messageStop", {"stopReason": stop})
    emit("metadata", {"metrics": {"latencyMs": latency_ms}, "usage": usage})
    return Reply(
        chunks=events,
        content_type="application/vnd.amazon.eventstream",
        path="/converse-stream",
        headers=_aws_headers(request_id, "application/json"),
        match=match,
        delay=delay,
    )


# Bedrock InvokeModel with an Anthropic model


def bedrock_invoke_anthropic(
    calls: Sequence[Call] = (),
    text: str | None = None,
    *,
    model: str = "claude-3-5-sonnet-20241022",
    stream: bool = False,
    input_tokens: int = 474,
    output_tokens: int = 55,
    pieces: int = 3,
    match: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """``POST /model/{modelId}/invoke``: the Anthropic Messages JSON body as Bedrock returns it.

    With ``stream``, ``/invoke-with-response-stream``: an AWS event stream of ``chunk`` events, each payload
    ``{"bytes": base64(one Anthropic streaming event)}``.
    """
    message_id = "msg_bdrk_01" + _digest("bedrock-anthropic", model, text, [(c.name, c.arguments) for c in calls])
    message = _anthropic_message(calls, text, model, input_tokens, output_tokens, message_id, "toolu_bdrk_01")
    del message["usage"]["service_tier"]
    request_id = _hex_uuid("invoke", message_id)
    headers = {
        **_aws_headers(request_id),
        "X-Amzn-Bedrock-Invocation-Latency": "1931",
        "X-Amzn-Bedrock-Input-Token-Count": str(input_tokens),
        "X-Amzn-Bedrock-Output-Token-Count": str(output_tokens),
    }
    if not stream:
        return _reply(message, "/invoke", headers=headers, match=match)
    events = _anthropic_events(message, pieces)
    metrics = {
        "inputTokenCount": input_tokens,
        "outputTokenCount": output_tokens,
        "invocationLatency": 1931,
        "firstByteLatency": 402,
    }
    chunks: list[bytes] = []
    for name, data in events:
        if name == "ping":
            continue  # Bedrock drops Anthropic's pings
        if name == "message_stop":
            data = {**data, "amazon-bedrock-invocationMetrics": metrics}
        encoded = base64.b64encode(_compact(data).encode()).decode()
        chunks.append(_aws_event("chunk", {"bytes": encoded, "p": _padding(name, len(chunks))}))
    return Reply(
        chunks=chunks,
        content_type="application/vnd.amazon.eventstream",
        path="/invoke-with-response-stream",
        headers={**_aws_headers(request_id, "application/json"), "X-Amzn-Bedrock-Content-Type": "application/json"},
        match=match,
        delay=delay,
    )
