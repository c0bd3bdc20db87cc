"""The support matrix in docs/formats.md, generated from the ingestion scenarios.

Every cell is measured: each scenario is read with ``tool_calls_from`` and
counted only when it comes back exactly as built (or is refused as its
scenario says). ``tests/test_ingestion.py`` checks that the page holds the
current matrix; to refresh it after adding scenarios:

    .venv/bin/python tests/payloads/matrix.py --write
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

if __name__ == "__main__":  # run as a script: make ``payloads`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agentmetrics import InvalidCaseError, formats
from payloads import Scenario, all_scenarios

PAGE = Path(__file__).resolve().parents[2] / "docs" / "formats.md"
START, END = "<!-- support-matrix: start -->", "<!-- support-matrix: end -->"
FORMS = ("object", "dump", "json", "sse", "list")
PROVIDERS = {
    "openai_chat": "OpenAI Chat Completions",
    "openai_responses": "OpenAI Responses",
    "openai_agents": "OpenAI Agents SDK",
    "anthropic": "Anthropic Messages",
    "gemini": "Gemini (google-genai)",
    "langchain": "LangChain",
    "otel": "OpenTelemetry GenAI",
    "bedrock": "AWS Bedrock Converse",
    "cohere": "Cohere (v2 and v1)",
    "ollama": "Ollama",
}
FORM_NAMES = {"object": "SDK objects", "dump": "dumps (JSON data)", "json": "JSON text / bytes",
              "sse": "SSE stream text", "list": "mixed lists"}


def outcome(scenario: Scenario) -> tuple[str, str]:
    """``("read" | "refused", detail)``; raises AssertionError when the scenario
    does not behave as built (the test suite says which)."""
    try:
        calls = formats.tool_calls_from(scenario.payload, **scenario.options)
    except InvalidCaseError as error:
        assert scenario.expected is None, f"{scenario.id}: refused: {error}"
        assert re.search(scenario.refusal or "", str(error)), scenario.id
        return "refused", str(error)
    assert scenario.expected is not None, f"{scenario.id}: read, but should be refused"
    got = [(c.name, c.id, c.raw_arguments) for c in calls]
    assert got == [(c.name, c.id, c.raw_arguments) for c in scenario.expected], scenario.id
    return "read", ""


_FORM_SUFFIX = re.compile(r"-(object|objects|dump|dumps|json|bytes|rest|sse|model|to-dict|"
                          r"message-to-dict|dumpd|list|text)$")


def _shape(scenario: Scenario) -> str:
    """The shape a scenario holds, without the form it is held in."""
    shape = scenario.name.split("/")[0]
    while (shorter := _FORM_SUFFIX.sub("", shape)) != shape:
        shape = shorter
    return shape


def render() -> str:
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    refused: dict[tuple[str, str], str] = {}
    for scenario in all_scenarios():
        result, detail = outcome(scenario)
        counts[scenario.provider, scenario.form][result] += 1
        if result == "refused":
            why = detail.split(". Fix:")[0]
            why = re.sub(r"^[a-z_]+: (at [^,]+, )?", "", why)
            refused.setdefault((scenario.provider, _shape(scenario)), why)
    lines = ["| provider | " + " | ".join(FORM_NAMES[f] for f in FORMS) + " |",
             "| --- |" + " --- |" * len(FORMS)]
    for provider, title in PROVIDERS.items():
        cells = []
        for form in FORMS:
            cell = counts.get((provider, form))
            if not cell:
                cells.append("-")
                continue
            text = f"read {cell['read']}" if cell["read"] else ""
            if cell["refused"]:
                text += (", " if text else "") + f"refused {cell['refused']}"
            cells.append(text)
        lines.append(f"| {title} | " + " | ".join(cells) + " |")
    lines += ["", "Shapes refused on purpose, with the error's first sentence:", "",
              "| provider | shape | error |", "| --- | --- | --- |"]
    for (provider, shape), why in sorted(refused.items()):
        why = why.replace("|", "\\|")
        lines.append(f"| {PROVIDERS[provider]} | `{shape}` | {why[:160]} |")
    return "\n".join(lines) + "\n"


def current() -> str:
    text = PAGE.read_text(encoding="utf-8")
    return text.split(START, 1)[1].split(END, 1)[0].strip("\n") + "\n"


def write() -> None:
    text = PAGE.read_text(encoding="utf-8")
    head, rest = text.split(START, 1)
    tail = rest.split(END, 1)[1]
    PAGE.write_text(f"{head}{START}\n{render()}{END}{tail}", encoding="utf-8")


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")
    if "--write" in sys.argv:
        write()
    else:
        print(render())
