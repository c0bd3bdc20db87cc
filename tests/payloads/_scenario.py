"""The contract between payload builders and the ingestion tests.

A builder module (one per provider family) exposes ``scenarios()``, returning
Scenario objects built OFFLINE with the provider's real SDK: its own types,
its own client driven through an ``httpx2.MockTransport`` (or
``httpx.MockTransport``), its own stream accumulators, in-memory span
exporters. ``expected`` is the ground truth the builder knows because it
built the payload, never what agentmetrics happens to return.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Call:
    """One tool call as it must come back: name, parsed arguments, id.

    ``raw_arguments`` is set when the argument text the agent sent is not a
    JSON object (then ``arguments`` is ``{}``). ``arguments=None`` means the
    builder does not pin the arguments (use sparingly, say why in a note).
    """

    name: str
    arguments: dict[str, Any] | None = field(default_factory=dict)
    id: str | None = None
    raw_arguments: str | None = None


@dataclass(frozen=True)
class Scenario:
    """One payload a user could hand to ``agentmetrics.formats.tool_calls_from``.

    provider: "openai_chat", "openai_responses", "anthropic", "gemini",
        "langchain", "otel", "tau2", "openai_agents".
    form: how the payload is held:
        "object"  the SDK object itself (pydantic model, LangChain message,
                  ReadableSpan, ...) or a list of such objects
        "dump"    plain JSON data: model_dump(mode="json"), to_dict(),
                  message_to_dict(), OTLP JSON dict, ...
        "json"    str or bytes of JSON text (model_dump_json(), to_json(), ...)
        "sse"     text of server-sent events ("data: {...}" lines)
        "list"    a list mixing several of the above, or several turns
    name: a short slug, unique within the provider ("stream-two-parallel-calls").
    payload: exactly what the user passes.
    expected: the calls in the order the agent made them; None when the
        payload must be REFUSED with an InvalidCaseError.
    refusal: when expected is None, a regex the error message must match
        (it should name what to do, e.g. "content capture").
    options: keyword arguments for tool_calls_from (e.g. {"format": "gemini"}
        or {"hosted_tools": False}); empty for plain detection.
    note: why this case matters (a real-world shape, a past bug).
    """

    provider: str
    form: str
    name: str
    payload: Any
    expected: tuple[Call, ...] | None
    refusal: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    @property
    def id(self) -> str:
        return f"{self.provider}/{self.form}/{self.name}"


def source_note(sources: dict[str, str], *keys: str) -> str:
    """`` Source: a; b.`` for a note: where the recorded bodies ``keys`` came from."""
    return " Source: " + "; ".join(sources[key] for key in keys) + "."


def dump_models(value: Any) -> Any:
    """``value`` as plain JSON data: SDK models (pydantic) by ``model_dump(mode="json")``,
    inside lists and dicts too; anything else as it is."""
    if isinstance(value, list):
        return [dump_models(item) for item in value]
    if isinstance(value, dict):
        return {key: dump_models(item) for key, item in value.items()}
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    return value
