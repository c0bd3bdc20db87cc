"""Which requests are model calls: the endpoint paths of the common provider
APIs, and the format their responses are read as.

Anything else a process sends (a tool's own HTTP calls, an embeddings or a
files request) is not recorded.
"""

from __future__ import annotations

from agentmetrics._secrets import mask_urls

__all__ = ["ENDPOINTS", "classify", "endpoint_label", "provider_of", "streamed"]

#: Path endings of model endpoints (POST), with the format their responses are read as.
ENDPOINTS: tuple[tuple[str, str], ...] = (
    ("/chat/completions", "openai_chat"),
    ("/responses", "openai_responses"),
    ("/v1/messages", "anthropic"),
    (":generateContent", "gemini"),
    (":streamGenerateContent", "gemini"),
    ("/interactions", "gemini_interactions"),
    ("/v2/chat", "cohere"),
    ("/v1/chat", "cohere"),
    ("/api/chat", "ollama"),
    ("/converse", "bedrock"),
    ("/converse-stream", "bedrock"),
    ("/invoke", "bedrock_invoke"),
    ("/invoke-with-response-stream", "bedrock_invoke"),
)

#: Hosts (a suffix of the host name) to the provider that serves them.
_HOSTS: tuple[tuple[str, str], ...] = (
    ("api.openai.com", "openai"),
    ("openai.azure.com", "azure_openai"),
    ("api.anthropic.com", "anthropic"),
    ("generativelanguage.googleapis.com", "gemini"),
    ("aiplatform.googleapis.com", "vertex_ai"),
    ("api.cohere.com", "cohere"),
    ("api.cohere.ai", "cohere"),
    ("api.groq.com", "groq"),
    ("api.mistral.ai", "mistral"),
    ("api.deepseek.com", "deepseek"),
    ("api.together.xyz", "together"),
    ("api.fireworks.ai", "fireworks"),
    ("openrouter.ai", "openrouter"),
    ("api.x.ai", "xai"),
    ("amazonaws.com", "bedrock"),
)

#: The provider a format's API belongs to, when the host does not say.
_BY_FORMAT = {"openai_chat": "openai_compatible", "openai_responses": "openai_compatible",
              "anthropic": "anthropic", "gemini": "gemini", "gemini_interactions": "gemini",
              "cohere": "cohere", "ollama": "ollama", "bedrock": "bedrock",
              "bedrock_invoke": "bedrock"}


#: The endings above by the path's last segment (after its last ``/``; for
#: Gemini's ``models/x:generateContent``, the part after the colon): one lookup
#: rejects most requests.
_BY_TAIL: dict[str, tuple[tuple[str, str], ...]] = {}
for _ending, _format in ENDPOINTS:
    _tail = _ending.rpartition(":")[2] if ":" in _ending else _ending.rpartition("/")[2]
    _BY_TAIL[_tail] = (*_BY_TAIL.get(_tail, ()), (_ending, _format))
del _ending, _format, _tail


def classify(method: str, path: str) -> str | None:
    """The format of a model endpoint's response, or None for any other request."""
    if method != "POST":
        return None
    tail = path[path.rfind("/") + 1:]
    colon = tail.rfind(":")
    for ending, format in _BY_TAIL.get(tail[colon + 1:] if colon >= 0 else tail, ()):
        if path.endswith(ending):
            # Bedrock's runtime paths are /model/{modelId}/...: an /invoke of another API is not.
            if format.startswith("bedrock") and "/model/" not in path:
                return None
            return format
    return None


#: Path endings of endpoints that always answer with a stream, whatever the media type.
_STREAM_ENDINGS = (":streamGenerateContent", "/converse-stream", "/invoke-with-response-stream")


def streamed(content_type: str | None, path: str) -> bool:
    """Whether a response is a stream of events: by its media type (server-sent
    events, NDJSON, AWS event stream) or by a streaming endpoint's path. Not by
    how the SDK reads it: some read whole JSON answers lazily, as streams."""
    kind = (content_type or "").lower()
    return "stream" in kind or "ndjson" in kind or path.endswith(_STREAM_ENDINGS)


def provider_of(host: str, format: str) -> str:
    host = host.lower()
    for suffix, provider in _HOSTS:
        if host == suffix or host.endswith("." + suffix):
            return provider
    return _BY_FORMAT.get(format, format)


def endpoint_label(scheme: str, host: str, port: int | None, path: str) -> str:
    """The endpoint as shown: no user information, no query, no fragment."""
    default = {"http": 80, "https": 443}.get(scheme)
    where = host if port is None or port == default else f"{host}:{port}"
    return mask_urls(f"{scheme}://{where}{path}")
