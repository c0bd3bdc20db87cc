"""Which format a payload is in, decided on distinctive keys and values.

Detection looks at the features the census collected from every node of the
payload (every item of a list, not only the first): keys, and the values of
``type``, ``object`` and ``role``. Containers come first: OpenTelemetry spans
and LangChain messages embed provider payloads, so their evidence wins. Among
the provider formats, exactly one may show distinctive evidence; two is an
ambiguity, reported as such.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["CONTAINERS", "EVIDENCE", "Detected", "detect"]


def _any(*features: str) -> Callable[[set[str]], list[str]]:
    def test(found: set[str]) -> list[str]:
        return [feature for feature in features if feature in found]
    return test


def _otel(found: set[str]) -> list[str]:
    hits = _any("key:resourceSpans", "key:resource_spans", "attr:gen_ai", "attr:llm",
                "attr:openinference", "attr:traceloop")(found)
    if "key:parts" in found:
        hits += _any("type:tool_call", "type:tool_call_response", "type:server_tool_call",
                     "type:server_tool_call_response")(found)
    return hits


def _langchain(found: set[str]) -> list[str]:
    hits = _any("key:lc", "type:AIMessageChunk", "tool_calls.args",
                "key:invalid_tool_calls", "key:tool_call_chunks")(found)
    if "key:lc" in hits and "key:kwargs" not in found:
        hits.remove("key:lc")
    if _any("type:ai", "type:human", "type:tool", "type:system")(found):
        hits += _any("key:additional_kwargs", "key:response_metadata")(found)
    return hits


def _responses(found: set[str]) -> list[str]:
    hits = _any("object:response", "type:function_call", "type:function_call_output",
                "type:custom_tool_call", "type:mcp_call", "type:mcp_list_tools",
                "type:mcp_approval_request", "type:output_text", "type:input_text")(found)
    hits += sorted(feature for feature in found if feature.startswith("type:") and (
        feature.startswith("type:response.") or (
            feature.endswith("_call") and feature not in ("type:tool_call",
                                                          "type:server_tool_call")))
        and feature not in hits)
    return hits


_EVENTS = ("type:message_start", "type:content_block_start", "type:content_block_delta",
           "type:message_delta")


def _anthropic(found: set[str]) -> list[str]:
    hits = _any("key:stop_reason", "type:tool_use", "type:server_tool_use",
                "type:mcp_tool_use", "type:tool_result", "type:thinking",
                "type:redacted_thinking", *_EVENTS)(found)
    hits += sorted(feature for feature in found
                   if feature.startswith("type:") and feature.endswith("_tool_result"))
    return hits


def _openai_chat(found: set[str]) -> list[str]:
    hits = _any("object:chat.completion", "object:chat.completion.chunk", "key:choices",
                "tool_calls.function", "function_call.arguments")(found)
    if "role:tool" in found and "key:tool_call_id" in found:
        hits.append("role:tool with key:tool_call_id")
    return hits


def _gemini(found: set[str]) -> list[str]:
    return _any("key:candidates", "key:automatic_function_calling_history",
                "key:automaticFunctionCallingHistory", "key:functionCall", "function_call.args",
                "key:executable_code", "key:executableCode", "key:function_response",
                "key:functionResponse", "key:usage_metadata", "key:usageMetadata",
                "role:model", "key:thought_signature", "key:thoughtSignature")(found)


#: Formats that wrap others: their evidence wins when present.
CONTAINERS = ("otel", "langchain")

#: Distinctive evidence per format, in the order detection considers them.
EVIDENCE: dict[str, Callable[[set[str]], list[str]]] = {
    "otel": _otel,
    "langchain": _langchain,
    "openai_responses": _responses,
    "openai_chat": _openai_chat,
    "anthropic": _anthropic,
    "gemini": _gemini,
}

#: Shapes several formats share: no format can be told, but there may be nothing to read.
_WEAK = ("role:user", "role:assistant", "role:system", "role:developer", "key:parts",
         "key:content", "key:messages")


Detected = tuple[str | None, dict[str, list[str]], bool]


def detect(found: set[str]) -> Detected:
    """``(format or None, evidence per candidate format, weak)``.

    The format is None when no format shows evidence, or when several provider
    formats do (the evidence then says which). ``weak`` is True when the
    payload at least looks like a conversation (messages, parts) of some format.
    """
    evidence = {name: hits for name, test in EVIDENCE.items() if (hits := test(found))}
    for name in CONTAINERS:
        if name in evidence:
            return name, {name: evidence[name]}, True
    if len(evidence) == 1:
        name = next(iter(evidence))
        return name, evidence, True
    return None, evidence, any(feature in found for feature in _WEAK)
