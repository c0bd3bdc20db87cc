"""Tool calls from what agents really produce: provider responses, framework
messages and telemetry, without importing any provider SDK.

Each ``from_*`` function returns the list of ToolCall objects in a payload
(plain dicts and lists, as the JSON of the API or an SDK's ``model_dump()``
gives them), in call order, with the call id where the format has one.
Arguments given as JSON text are parsed; text that is not a JSON object is
kept in ``ToolCall.raw_arguments`` (``arguments`` is then empty), so a
malformed call is flagged, never dropped. :func:`tool_calls_from` detects the
format.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from agentmetrics._model import AgentTestCase, ToolCall, _describe
from agentmetrics.errors import InvalidCaseError

__all__ = [
    "FORMATS",
    "cases_from_tau2",
    "from_anthropic",
    "from_gemini",
    "from_langchain",
    "from_openai_chat",
    "from_openai_responses",
    "from_otel",
    "parse_arguments",
    "tool_calls_from",
]


def parse_arguments(value: object) -> tuple[dict[str, Any], str | None]:
    """``(arguments, raw)``: a mapping as is, JSON object text parsed; any
    other text is returned as ``raw`` with empty arguments."""
    if value is None:
        return {}, None
    if isinstance(value, Mapping):
        return {str(k): v for k, v in value.items()}, None
    text = value if isinstance(value, str) else json.dumps(value, default=repr)
    if not text.strip():
        return {}, None
    try:
        parsed = json.loads(text)
    except ValueError:
        return {}, text
    return (parsed, None) if isinstance(parsed, dict) else ({}, text)


def _call(name: object, arguments: object = None, call_id: object = None) -> ToolCall:
    parsed, raw = parse_arguments(arguments)
    if not isinstance(name, str) or not name:
        # A call without a usable name is still a call the agent made: keep it.
        name = "<unnamed>"
    return ToolCall(
        name, parsed, id=None if call_id is None else str(call_id), raw_arguments=raw
    )


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _items(value: object) -> list[Any]:
    return list(value) if isinstance(value, (list, tuple)) else []


# -- OpenAI Chat Completions --------------------------------------------------------------


def _openai_message_calls(message: Mapping[str, Any]) -> list[ToolCall]:
    calls = []
    for item in _items(message.get("tool_calls")):
        item = _mapping(item)
        if item.get("type") == "custom":
            custom = _mapping(item.get("custom"))
            # A custom tool takes free text, not JSON: keep it as the input.
            calls.append(ToolCall(custom.get("name") or "<unnamed>", {"input": custom.get("input")},
                                  id=item.get("id")))
        else:
            function = _mapping(item.get("function"))
            calls.append(_call(function.get("name"), function.get("arguments"), item.get("id")))
    legacy = message.get("function_call")
    if isinstance(legacy, Mapping):
        calls.append(_call(legacy.get("name"), legacy.get("arguments")))
    return calls


def _is_chunk(value: object) -> bool:
    return isinstance(value, Mapping) and any(
        isinstance(choice, Mapping) and "delta" in choice for choice in _items(value.get("choices"))
    )


def _openai_stream_calls(chunks: Iterable[Mapping[str, Any]]) -> list[ToolCall]:
    # Streamed calls arrive in pieces keyed by index: name first, then
    # argument text a few characters at a time.
    parts: dict[int, dict[str, Any]] = {}
    legacy: dict[str, str] | None = None
    for chunk in chunks:
        for choice in _items(chunk.get("choices")):
            choice = _mapping(choice)
            if choice.get("index", 0) != 0:
                continue
            delta = _mapping(choice.get("delta"))
            for piece in _items(delta.get("tool_calls")):
                piece = _mapping(piece)
                slot = parts.setdefault(int(piece.get("index", 0)),
                                        {"id": None, "name": "", "arguments": ""})
                if piece.get("id"):
                    slot["id"] = piece["id"]
                function = _mapping(piece.get("function"))
                slot["name"] += function.get("name") or ""
                slot["arguments"] += function.get("arguments") or ""
            function_call = delta.get("function_call")
            if isinstance(function_call, Mapping):
                legacy = legacy or {"name": "", "arguments": ""}
                legacy["name"] += function_call.get("name") or ""
                legacy["arguments"] += function_call.get("arguments") or ""
    calls = [_call(p["name"], p["arguments"], p["id"]) for _, p in sorted(parts.items())]
    if legacy is not None:
        calls.append(_call(legacy["name"], legacy["arguments"]))
    return calls


def from_openai_chat(payload: object) -> list[ToolCall]:
    """OpenAI Chat Completions: an assistant message (``tool_calls``, including
    ``type: "custom"`` calls, or the legacy ``function_call``), a whole
    response (``choices``: the first choice), a list of streamed chunks
    (``delta.tool_calls`` joined by index), or a list of messages (the
    assistant messages' calls, in order)."""
    if isinstance(payload, Mapping):
        if _is_chunk(payload):
            return _openai_stream_calls([payload])
        choices = _items(payload.get("choices"))
        if choices:
            return _openai_message_calls(_mapping(_mapping(choices[0]).get("message")))
        return _openai_message_calls(payload)
    items = _items(payload)
    if items and all(_is_chunk(item) for item in items):
        return _openai_stream_calls(items)
    return [
        call
        for message in items
        if _mapping(message).get("role", "assistant") == "assistant"
        for call in _openai_message_calls(_mapping(message))
    ]


# -- OpenAI Responses -----------------------------------------------------------------------


def from_openai_responses(payload: object) -> list[ToolCall]:
    """OpenAI Responses: ``function_call``, ``custom_tool_call`` and
    ``mcp_call`` items of a response's ``output`` (or a list of items)."""
    items = _items(_mapping(payload).get("output")) if isinstance(payload, Mapping) else _items(payload)
    calls = []
    for item in items:
        item = _mapping(item)
        kind = item.get("type")
        call_id = item.get("call_id") or item.get("id")
        if kind == "function_call":
            calls.append(_call(item.get("name"), item.get("arguments"), call_id))
        elif kind == "custom_tool_call":
            calls.append(ToolCall(item.get("name") or "<unnamed>", {"input": item.get("input")},
                                  id=call_id))
        elif kind == "mcp_call":
            calls.append(_call(item.get("name"), item.get("arguments"), item.get("id")))
    return calls


# -- Anthropic Messages ---------------------------------------------------------------------


def from_anthropic(payload: object) -> list[ToolCall]:
    """Anthropic Messages: ``tool_use`` and ``server_tool_use`` content blocks
    of a message (or of the assistant messages in a list)."""
    messages = [payload] if isinstance(payload, Mapping) else _items(payload)
    calls = []
    for message in messages:
        message = _mapping(message)
        if message.get("role", "assistant") != "assistant":
            continue
        for block in _items(message.get("content")):
            block = _mapping(block)
            if block.get("type") in ("tool_use", "server_tool_use"):
                calls.append(_call(block.get("name"), block.get("input"), block.get("id")))
    return calls


# -- Gemini ---------------------------------------------------------------------------------


def _gemini_parts(payload: object) -> list[Any]:
    if isinstance(payload, Mapping):
        candidates = _items(payload.get("candidates"))
        if candidates:
            return _gemini_parts(_mapping(candidates[0]).get("content"))
        if payload.get("role", "model") != "model":
            return []
        return _items(payload.get("parts"))
    items = _items(payload)
    if items and all(isinstance(item, Mapping) and ("parts" in item or "role" in item)
                     for item in items):
        return [part for item in items for part in _gemini_parts(item)]
    return items  # a list of parts


def from_gemini(payload: object) -> list[ToolCall]:
    """Gemini: ``functionCall`` parts (REST) or ``function_call`` parts
    (SDK-style keys) of a response's first candidate, a model content, a list
    of contents or a list of parts."""
    calls = []
    for part in _gemini_parts(payload):
        part = _mapping(part)
        function = part.get("functionCall", part.get("function_call"))
        if isinstance(function, Mapping):
            calls.append(_call(function.get("name"), function.get("args"), function.get("id")))
    return calls


# -- LangChain ------------------------------------------------------------------------------


def _langchain_message(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    kwargs = payload.get("kwargs")
    if payload.get("lc") is not None and isinstance(kwargs, Mapping):
        return kwargs  # the serialized (dumpd) form
    return payload


def from_langchain(payload: object) -> list[ToolCall]:
    """LangChain AI messages as dicts, plain or serialized (``lc``/``kwargs``):
    ``tool_calls`` and ``invalid_tool_calls`` (kept, with their unparsed
    arguments in ``raw_arguments``); a list of messages gives the AI ones'."""
    messages = [payload] if isinstance(payload, Mapping) else _items(payload)
    calls = []
    for message in messages:
        message = _langchain_message(_mapping(message))
        if message.get("type", "ai") not in ("ai", "AIMessageChunk", "AIMessage"):
            continue
        for item in _items(message.get("tool_calls")):
            item = _mapping(item)
            calls.append(_call(item.get("name"), item.get("args"), item.get("id")))
        for item in _items(message.get("invalid_tool_calls")):
            item = _mapping(item)
            args = item.get("args")
            raw = args if isinstance(args, str) else json.dumps(args)
            calls.append(ToolCall(item.get("name") or "<unnamed>", {}, id=item.get("id"),
                                  raw_arguments=raw if raw else "<missing>"))
    return calls


# -- OpenTelemetry GenAI --------------------------------------------------------------------


def _otel_value(value: object) -> Any:
    """An OTLP JSON ``AnyValue`` (``{"stringValue": ...}``) as a Python value."""
    if not isinstance(value, Mapping):
        return value
    for key in ("stringValue", "boolValue", "doubleValue"):
        if key in value:
            return value[key]
    if "intValue" in value:
        return int(value["intValue"])
    if "arrayValue" in value:
        return [_otel_value(v) for v in _items(_mapping(value["arrayValue"]).get("values"))]
    if "kvlistValue" in value:
        return {
            kv["key"]: _otel_value(kv.get("value"))
            for kv in _items(_mapping(value["kvlistValue"]).get("values"))
        }
    return value


def _otel_attributes(span: Mapping[str, Any]) -> dict[str, Any]:
    attributes = span.get("attributes")
    if isinstance(attributes, Mapping):
        return dict(attributes)
    return {
        item["key"]: _otel_value(item.get("value"))
        for item in _items(attributes)
        if isinstance(item, Mapping) and "key" in item
    }


def _otel_spans(payload: object) -> list[Mapping[str, Any]]:
    if isinstance(payload, Mapping) and "resourceSpans" in payload:
        spans = [
            span
            for resource in _items(payload["resourceSpans"])
            for scope in _items(_mapping(resource).get("scopeSpans"))
            for span in _items(_mapping(scope).get("spans"))
        ]
        return sorted(spans, key=lambda s: int(_mapping(s).get("startTimeUnixNano") or 0))
    if isinstance(payload, Mapping):
        return [payload]
    return [_mapping(span) for span in _items(payload)]


def from_otel(payload: object) -> list[ToolCall]:
    """OpenTelemetry GenAI spans: ``execute_tool`` spans (``gen_ai.tool.name``,
    ``gen_ai.tool.call.arguments``, ``gen_ai.tool.call.id``) or, when there
    are none, the ``tool_call`` parts of ``gen_ai.output.messages``. Takes one
    span, a list of spans, or an OTLP JSON export (``resourceSpans``; spans in
    start-time order). Attributes may be a dict or OTLP key/value pairs."""
    spans = [(span, _otel_attributes(span)) for span in _otel_spans(payload)]
    executed = [
        _call(attrs.get("gen_ai.tool.name"), attrs.get("gen_ai.tool.call.arguments"),
              attrs.get("gen_ai.tool.call.id"))
        for span, attrs in spans
        if attrs.get("gen_ai.operation.name") == "execute_tool"
        or str(span.get("name", "")).startswith("execute_tool")
    ]
    if executed:
        return executed
    calls = []
    for _, attrs in spans:
        messages = attrs.get("gen_ai.output.messages")
        if isinstance(messages, str):
            try:
                messages = json.loads(messages)
            except ValueError:
                continue
        for message in _items(messages):
            for part in _items(_mapping(message).get("parts")):
                part = _mapping(part)
                if part.get("type") == "tool_call":
                    calls.append(_call(part.get("name"), part.get("arguments"), part.get("id")))
    return calls


# -- tau2-bench -----------------------------------------------------------------------------


def cases_from_tau2(results: Mapping[str, Any]) -> list[AgentTestCase]:
    """tau2-bench results: one case per simulation, pairing the assistant's
    tool calls with its task's expected actions (``evaluation_criteria.actions``
    requested by the assistant). ``input`` is the first user message;
    ``metadata`` holds ``id`` (``<domain>-<task_id>`` when the domain is
    known, else the task id), ``task_id``, ``trial`` and ``reward``."""
    if not isinstance(results, Mapping) or "simulations" not in results:
        raise InvalidCaseError(
            f"cases_from_tau2: expected a tau2 results object with 'tasks' and "
            f"'simulations', got {_describe(results)}."
        )
    tasks = {str(task["id"]): task for task in _items(results.get("tasks"))}
    domain = _mapping(_mapping(results.get("info")).get("environment_info")).get("domain_name")
    cases = []
    for simulation in _items(results["simulations"]):
        task_id = str(simulation["task_id"])
        task = tasks.get(task_id)
        if task is None:
            raise InvalidCaseError(
                f"cases_from_tau2: simulation {simulation.get('id')!r} refers to task "
                f"{task_id!r}, which the results file does not contain."
            )
        messages = _items(simulation.get("messages"))
        called = [
            _call(call.get("name"), call.get("arguments"), call.get("id"))
            for message in messages
            if message.get("role") == "assistant"
            for call in _items(message.get("tool_calls"))
        ]
        criteria = _mapping(task.get("evaluation_criteria"))
        expected = [
            _call(action.get("name"), action.get("arguments"))
            for action in _items(criteria.get("actions"))
            if action.get("requestor", "assistant") == "assistant"
        ]
        first_user = next((m.get("content") for m in messages if m.get("role") == "user"), None)
        cases.append(AgentTestCase(
            input=first_user,
            tool_calls=called,
            expected_tool_calls=expected,
            metadata={
                "id": f"{domain}-{task_id}" if domain else task_id,
                "task_id": task_id,
                "trial": simulation.get("trial"),
                "reward": _mapping(simulation.get("reward_info")).get("reward"),
            },
        ))
    return cases


# -- detection ------------------------------------------------------------------------------


def _has_blocks(message: Mapping[str, Any], kinds: tuple[str, ...]) -> bool:
    return any(_mapping(block).get("type") in kinds for block in _items(message.get("content")))


def _first(payload: object) -> Mapping[str, Any]:
    if isinstance(payload, Mapping):
        return payload
    items = _items(payload)
    return _mapping(items[0]) if items else {}


def _looks_otel(payload: object) -> bool:
    first = _first(payload)
    if "resourceSpans" in first:
        return True
    attributes = _otel_attributes(first) if "attributes" in first else {}
    return any(key.startswith("gen_ai.") for key in attributes)


def _looks_langchain(payload: object) -> bool:
    message = _langchain_message(_first(payload))
    if "lc" in _first(payload) or "invalid_tool_calls" in message:
        return True
    return any("args" in _mapping(item) for item in _items(message.get("tool_calls")))


def _looks_responses(payload: object) -> bool:
    items = _items(_mapping(payload).get("output")) if isinstance(payload, Mapping) else _items(payload)
    kinds = {"function_call", "custom_tool_call", "mcp_call", "message", "reasoning"}
    return bool(items) and all(_mapping(item).get("type") in kinds for item in items)


def _looks_openai_chat(payload: object) -> bool:
    first = _first(payload)
    if "choices" in first:
        return True
    return any("function" in _mapping(item) or _mapping(item).get("type") == "custom"
               for item in _items(first.get("tool_calls"))) or "function_call" in first


def _looks_anthropic(payload: object) -> bool:
    return _has_blocks(_first(payload), ("tool_use", "server_tool_use", "text", "thinking"))


def _looks_gemini(payload: object) -> bool:
    first = _first(payload)
    return "candidates" in first or "parts" in first or any(
        key in first for key in ("functionCall", "function_call", "text")
    )


#: Formats in the order :func:`tool_calls_from` tries them: what it checks, and the parser.
FORMATS: dict[str, tuple[str, Callable[[object], bool], Callable[[object], list[ToolCall]]]] = {
    "otel": ("'resourceSpans' or gen_ai.* span attributes", _looks_otel, from_otel),
    "langchain": ("'lc' serialization, 'invalid_tool_calls' or tool calls with 'args'",
                  _looks_langchain, from_langchain),
    "openai_responses": ("'output' items of type function_call, custom_tool_call, mcp_call",
                         _looks_responses, from_openai_responses),
    "openai_chat": ("'choices', or 'tool_calls' with 'function'", _looks_openai_chat,
                    from_openai_chat),
    "anthropic": ("'content' blocks such as tool_use", _looks_anthropic, from_anthropic),
    "gemini": ("'candidates' or 'parts' with functionCall", _looks_gemini, from_gemini),
}


def tool_calls_from(payload: object, format: str | None = None) -> list[ToolCall]:
    """The tool calls in ``payload``, detecting its format (or using ``format``,
    one of :data:`FORMATS`). An unrecognised shape raises InvalidCaseError
    that lists what each format looks for."""
    if format is not None:
        if format not in FORMATS:
            raise InvalidCaseError(
                f"unknown format {format!r}; expected one of {', '.join(FORMATS)}."
            )
        return FORMATS[format][2](payload)
    for _, looks_like, parse in FORMATS.values():
        if looks_like(payload):
            return parse(payload)
    tried = "; ".join(f"{name} ({what})" for name, (what, _, _) in FORMATS.items())
    raise InvalidCaseError(
        f"could not tell the format of {_describe(payload)}. Tried: {tried}. Fix: pass "
        f"format=... or call the matching agentmetrics.formats.from_* function."
    )

