"""anthropic 2.x's own OpenTelemetry span under capture().

With a global SDK TracerProvider, the anthropic client ends one CLIENT span per API call, "anthropic.messages.create"
(anthropic/_tracing.py SPAN_ATTRIBUTES, anthropic/lib/_tracing): gen_ai.operation.name "chat",
gen_ai.provider.name "anthropic", the request and response models, gen_ai.usage.input_tokens and output_tokens,
anthropic.message.stop_reason, gen_ai.request.stream on a streamed call. Message content (gen_ai.input.messages,
gen_ai.output.messages with tool_call parts) only in content mode (``open_telemetry={"traces": {"content_mode":
"content"}}`` or ANTHROPIC_OPEN_TELEMETRY_TRACES_CONTENT_MODE=content); the default is "metadata_only": no calls, but
usage. The otel hook sees that span as well as the httpx hook the response: the run must still have one turn per
response with its usage once (before issue 49, the default mode gave an extra "otel" turn with the usage again for
each response whose span has no content and whose wire turn has calls). Sample spans: data/anthropic_span_*.json.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from gateway_scenarios import ANTHROPIC_OTEL, HERE, check, in_subprocess

MODES = ["sync", "async", "stream"]


@pytest.fixture(scope="module")
def anthropic_otel() -> Any:
    return in_subprocess(ANTHROPIC_OTEL, otel=True)


def model_spans(out: dict[str, Any]) -> list[dict[str, Any]]:
    return [span["attributes"] for span in out["spans"] if span["name"] == "anthropic.messages.create"]


@pytest.mark.parametrize("mode", MODES)
def test_metadata_only_span(anthropic_otel: Any, mode: str) -> None:
    out = anthropic_otel[f"{mode}-metadata"]
    spans = model_spans(out)
    assert len(spans) == 3  # the SDK really traced each call
    assert [(s["gen_ai.usage.input_tokens"], s["gen_ai.usage.output_tokens"]) for s in spans] == \
        [(101, 11), (202, 22), (303, 33)]
    assert not any("gen_ai.output.messages" in s for s in spans)
    check(out, format="anthropic", streamed=mode == "stream", sources={"http"})


@pytest.mark.parametrize("mode", MODES)
def test_content_span(anthropic_otel: Any, mode: str) -> None:
    out = anthropic_otel[f"{mode}-content"]
    spans = model_spans(out)
    assert len(spans) == 3
    assert [[part["name"] for message in json.loads(s["gen_ai.output.messages"]) for part in message["parts"]
             if part["type"] == "tool_call"] for s in spans] == [["get_weather", "get_weather"], ["get_time"], []]
    check(out, format="anthropic", streamed=mode == "stream", sources={"http"})


@pytest.mark.parametrize("content", ["metadata", "content"])
def test_span_keys_match_the_fixture(anthropic_otel: Any, content: str) -> None:
    """data/anthropic_span_<content>.json holds a sample span of a tool-call response (sync, then streamed): the
    attribute keys the SDK sets today, so a change in anthropic's spans shows here."""
    sample = json.loads((HERE / "data" / f"anthropic_span_{content}.json").read_text())
    for mode, key in (("sync", "sync"), ("stream", "stream")):
        assert sorted(model_spans(anthropic_otel[f"{mode}-{content}"])[0]) == sorted(sample[key])
