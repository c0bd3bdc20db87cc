"""Write data/*.json: sample span attributes of anthropic's client spans and of ADK's spans, as the installed
versions set them (run it again after upgrading either). Values that change from run to run (ports, uuids,
timings) are replaced by placeholders; everything else is as recorded.

    <venv>/bin/python tests/frameworks/gateways/make_span_fixtures.py
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

from gateway_scenarios import ADK_CONTENT, ADK_OTEL, ANTHROPIC_OTEL, in_subprocess  # noqa: E402

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_PORT = re.compile(r"127\.0\.0\.1:\d+")


def steady(attributes: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if key == "server.port":
            value = 0
        elif key == "gen_ai.response.time_to_first_chunk":
            value = 0.0
        elif isinstance(value, str):
            value = _PORT.sub("127.0.0.1:PORT", _UUID.sub("UUID", value))
        out[key] = value
    return out


def write(name: str, value: Any) -> None:
    path = HERE / "data" / name
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print("wrote", path)


def main() -> None:
    anthropic = in_subprocess(ANTHROPIC_OTEL, otel=True)
    for content in ("metadata", "content"):
        sample = {}
        for mode in ("sync", "stream"):
            spans = [s["attributes"] for s in anthropic[f"{mode}-{content}"]["spans"]
                     if s["name"] == "anthropic.messages.create"]
            sample[mode] = steady(spans[0])
            sample[f"{mode}_text_answer"] = steady(spans[-1])
        write(f"anthropic_span_{content}.json", sample)
    for content in (True, False):
        outs = in_subprocess(ADK_OTEL, env=ADK_CONTENT[content], otel=True)
        sample = {"_settings": ADK_CONTENT[content]}
        for case, out in outs.items():
            spans = out["spans"]
            model = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "generate_content"]
            tools = [s for s in spans if s["attributes"].get("gen_ai.operation.name") == "execute_tool"]
            sample[case] = {
                "span_names": [s["name"] for s in spans],
                "generate_content": steady(model[0]["attributes"]),
                "execute_tool": [steady(s["attributes"]) for s in tools],
            }
        write(f"adk_spans_{'content' if content else 'no_content'}.json", sample)


if __name__ == "__main__":
    main()
