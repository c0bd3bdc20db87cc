"""Which format a payload is in, decided on distinctive keys and values.

Detection looks at the features the census collected from every node of the
payload (every item of a list, not only the first): keys, the values of
``type``, ``object`` and ``role``, attribute namespaces, and the keys inside
call items. Containers come first: OpenTelemetry spans and LangChain messages
embed provider payloads, so their evidence wins.

A payload that declares its API (``object: "chat.completion"``, ``"response"``,
``"interaction"``) is read as that API, whatever else it carries: gateways that
answer in OpenAI's format pass the upstream provider's fields through
(OpenRouter's ``usageMetadata`` from Gemini). Otherwise evidence comes in two
strengths. *Distinctive* evidence belongs to one API
(``object: "chat.completion"``, ``candidates``, ``contentBlockStart``,
``tool_plan``). *Shared* evidence is what one API started and others copied:
OpenAI-style ``tool_calls`` with ``function`` (Cohere, Ollama, Mistral,
Writer), ``stop_reason`` (vLLM puts it inside OpenAI choices, Meta's models on
Bedrock at the top), ``thought_signature`` (Vertex AI's OpenAI-compatible
endpoint). Exactly one format with distinctive evidence wins; with none, exactly
one format with shared evidence; two with evidence of the same strength is an
ambiguity, reported as such.
"""

from __future__ import annotations

from collections import defaultdict

from agentmetrics.formats._census import Scan

__all__ = ["CONTAINERS", "EVIDENCE", "SHARED", "Detected", "detect", "shows"]

#: Distinctive features, per format, in the order detection considers them.
#: ``key:k`` a key anywhere, ``type:t``, ``object:o`` and ``role:r`` values,
#: ``attr:ns`` an attribute namespace, ``tool_calls.function`` a key inside a
#: call item or part.
EVIDENCE: dict[str, tuple[str, ...]] = {
    "otel": ("key:resourceSpans", "key:resource_spans", "attr:gen_ai", "attr:llm",
             "attr:openinference", "attr:traceloop"),
    "langchain": ("type:AIMessageChunk", "tool_calls.args", "key:invalid_tool_calls",
                  "key:tool_call_chunks"),
    "openai_responses": ("object:response", "type:function_call", "type:function_call_output",
                         "type:custom_tool_call", "type:mcp_call", "type:mcp_list_tools",
                         "type:mcp_approval_request", "type:output_text", "type:input_text"),
    "openai_chat": ("object:chat.completion", "object:chat.completion.chunk", "key:choices"),
    "anthropic": ("type:tool_use", "type:server_tool_use",
                  "type:mcp_tool_use", "type:tool_result", "type:message_start",
                  "type:content_block_start", "type:content_block_delta", "type:message_delta"),
    "gemini": ("key:candidates", "key:automatic_function_calling_history",
               "key:automaticFunctionCallingHistory", "key:functionCall", "function_call.args",
               "key:executable_code", "key:executableCode", "key:function_response",
               "key:functionResponse", "key:usage_metadata", "key:usageMetadata",
               "role:model"),
    "bedrock": ("key:toolUse", "key:stopReason", "key:contentBlockStart",
                "key:contentBlockDelta", "key:contentBlockStop", "key:messageStart",
                "key:messageStop", "key:toolResult", "key:reasoningContent",
                "key:contentBlockIndex", "key:toolUseId", "key:guardContent",
                "key:cachePoint", "key:citationsContent", "key:inputTextTokenCount",
                "key:completionReason", "key:generation_token_count"),
    "cohere": ("key:tool_plan", "key:billed_units", "key:generation_id",
               "key:chat_history", "key:tool_call_delta", "event:stream-start",
               "event:text-generation", "event:tool-calls-chunk", "event:tool-calls-generation",
               "event:stream-end", "event:citation-generation", "event:search-queries-generation",
               "event:search-results", "type:message-start",
               "type:content-start", "type:content-delta", "type:content-end",
               "type:tool-plan-delta", "type:tool-call-start", "type:tool-call-delta",
               "type:tool-call-end", "type:citation-start", "type:citation-end",
               "type:message-end", "role:CHATBOT", "role:SYSTEM", "role:USER"),
    "ollama": ("key:done_reason", "key:eval_count", "key:prompt_eval_count",
               "key:total_duration", "key:load_duration", "key:eval_duration",
               "key:prompt_eval_duration"),
    "gemini_interactions": ("object:interaction", "event:interaction.created",
                            "event:interaction.completed", "event:interaction.status_update",
                            "event:step.start", "event:step.delta", "event:step.stop"),
}

#: Shared features: evidence for a format only when no format shows a distinctive one.
SHARED: dict[str, tuple[str, ...]] = {
    "openai_chat": ("tool_calls.function", "function_call.arguments"),
    "anthropic": ("key:stop_reason", "type:thinking", "type:redacted_thinking"),
    "gemini": ("key:thought_signature", "key:thoughtSignature", "FunctionCall"),
    "bedrock": ("key:ResponseMetadata",),
}

#: Formats that wrap others: their evidence wins when present.
CONTAINERS = ("otel", "langchain")

_SETS = {"key": "keys", "type": "types", "object": "objects", "role": "roles",
         "attr": "attributes", "event": "events"}
#: ``object`` values by which a payload declares its API: they outrank other evidence.
DECLARED = {"chat.completion": "openai_chat", "chat.completion.chunk": "openai_chat",
            "response": "openai_responses", "interaction": "gemini_interactions"}


def _index(features: dict[str, tuple[str, ...]]) -> dict[str, dict[str, list[tuple[str, str]]]]:
    """Per set of the scan, each value's ``(format, feature)`` pairs."""
    index: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for name, wanted in features.items():
        for feature in wanted:
            kind, colon, value = feature.partition(":")
            where = _SETS[kind] if colon else "nested"
            index[where][value if colon else feature].append((name, feature))
    return {where: dict(values) for where, values in index.items()}


_INDEX = _index(EVIDENCE)
_SHARED = _index(SHARED)
_WEAK = _index({"weak": ("role:user", "role:assistant", "role:system", "role:developer",
                         "key:parts", "key:content", "key:messages")})
_OTEL_PARTS = frozenset({"tool_call", "tool_call_response", "server_tool_call",
                         "server_tool_call_response"})


def _hits(found: Scan, index: dict[str, dict[str, list[tuple[str, str]]]]) -> dict[str, list[str]]:
    evidence: dict[str, list[str]] = defaultdict(list)
    for where, values in index.items():
        for value in values.keys() & getattr(found, where):
            for name, feature in values[value]:
                evidence[name].append(feature)
    return evidence


def _conditional(found: Scan, evidence: dict[str, list[str]]) -> None:
    """Evidence that holds only together with something else."""
    if "parts" in found.keys:  # GenAI semantic-convention message parts
        evidence["otel"] += [f"type:{kind}" for kind in _OTEL_PARTS & found.types]
    if "tool_call" in found.types and "args" in found.keys:  # an AI message's tool_calls
        evidence["langchain"].append("type:tool_call with key:args")
    if "lc" in found.keys and "kwargs" in found.keys:
        evidence["langchain"].append("key:lc")
    if found.types & {"ai", "human", "tool", "system"}:
        evidence["langchain"] += [f"key:{key}" for key in ("additional_kwargs",
                                                            "response_metadata")
                                  if key in found.keys]
    if "created_at" in found.keys and "done" in found.keys and "message" in found.keys:
        evidence["ollama"].append("key:created_at with key:done")
    if "type" in found.keys and "message" in found.types and "stop_reason" in found.keys:
        evidence["anthropic"].append("type:message with key:stop_reason")
    for kind in found.types:
        if kind.startswith("response.") or (kind.endswith("_call") and kind not in _OTEL_PARTS):
            evidence["openai_responses"].append(f"type:{kind}")
        elif kind.endswith("_tool_result"):
            evidence["anthropic"].append(f"type:{kind}")


Detected = tuple[str | None, dict[str, list[str]], bool]


def detect(found: Scan) -> Detected:
    """``(format or None, evidence per candidate format, weak)``.

    The format is None when no format shows evidence, or when several provider
    formats do (the evidence then says which). ``weak`` is True when the
    payload at least looks like a conversation (messages, parts) of some format.
    """
    hits = _hits(found, _INDEX)
    _conditional(found, hits)
    evidence = {name: sorted(set(hits[name])) for name in EVIDENCE if hits.get(name)}
    for name in CONTAINERS:
        if name in evidence:
            return name, {name: evidence[name]}, True
    declared = {DECLARED[value] for value in found.objects if value in DECLARED}
    if len(declared) == 1 and len(evidence) > 1:
        name = declared.pop()
        return name, {name: evidence[name]}, True
    if not evidence:
        shared = _hits(found, _SHARED)
        if "tool" in found.roles and "tool_call_id" in found.keys:
            shared["openai_chat"].append("role:tool with key:tool_call_id")
        evidence = {name: sorted(set(shared[name])) for name in EVIDENCE if shared.get(name)}
    if len(evidence) == 1:
        return next(iter(evidence)), evidence, True
    return None, evidence, bool(_hits(found, _WEAK))


def shows(found: Scan, format: str) -> bool:
    """Whether the payload shows anything of ``format`` at all: one of its
    features, distinctive or shared, or the messages and parts a conversation of
    any format has. A payload that shows nothing of the format it was read as,
    and gave no call, was not placed by the reader: it is refused, not read as
    "no calls"."""
    if _hits(found, _WEAK):
        return True
    hits = _hits(found, _INDEX)
    _conditional(found, hits)
    return bool(hits.get(format)) or bool(_hits(found, _SHARED).get(format))
