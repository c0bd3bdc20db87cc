"""Which format a payload is in, decided on distinctive keys and values.

Detection looks at the features the census collected from every node of the
payload (every item of a list, not only the first): keys, the values of
``type``, ``object`` and ``role``, attribute namespaces, and the keys inside
call items. Containers come first: OpenTelemetry spans and LangChain messages
embed provider payloads, so their evidence wins. Among the provider formats,
exactly one may show distinctive evidence; two is an ambiguity, reported as
such.
"""

from __future__ import annotations

from collections import defaultdict

from agentmetrics.formats._census import Scan

__all__ = ["CONTAINERS", "EVIDENCE", "Detected", "detect"]

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
    "openai_chat": ("object:chat.completion", "object:chat.completion.chunk", "key:choices",
                    "tool_calls.function", "function_call.arguments"),
    "anthropic": ("key:stop_reason", "type:tool_use", "type:server_tool_use",
                  "type:mcp_tool_use", "type:tool_result", "type:thinking",
                  "type:redacted_thinking", "type:message_start", "type:content_block_start",
                  "type:content_block_delta", "type:message_delta"),
    "gemini": ("key:candidates", "key:automatic_function_calling_history",
               "key:automaticFunctionCallingHistory", "key:functionCall", "function_call.args",
               "key:executable_code", "key:executableCode", "key:function_response",
               "key:functionResponse", "key:usage_metadata", "key:usageMetadata",
               "role:model", "key:thought_signature", "key:thoughtSignature"),
}

#: Formats that wrap others: their evidence wins when present.
CONTAINERS = ("otel", "langchain")

_SETS = {"key": "keys", "type": "types", "object": "objects", "role": "roles",
         "attr": "attributes"}


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
    if "lc" in found.keys and "kwargs" in found.keys:
        evidence["langchain"].append("key:lc")
    if found.types & {"ai", "human", "tool", "system"}:
        evidence["langchain"] += [f"key:{key}" for key in ("additional_kwargs",
                                                            "response_metadata")
                                  if key in found.keys]
    if "tool" in found.roles and "tool_call_id" in found.keys:
        evidence["openai_chat"].append("role:tool with key:tool_call_id")
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
    if len(evidence) == 1:
        return next(iter(evidence)), evidence, True
    return None, evidence, bool(_hits(found, _WEAK))
