"""The recorded-traffic table in docs/formats.md, measured on tests/recorded.

``tests/test_recorded.py`` checks that the page holds the current table; to
refresh it after changing the corpus or a reader:

    .venv/bin/python tests/recorded/table.py --write
"""

from __future__ import annotations

import collections
import re
import sys
from pathlib import Path

if __name__ == "__main__":  # run as a script: make ``recorded`` and ``test_recorded`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PAGE = Path(__file__).resolve().parents[2] / "docs" / "formats.md"
START, END = "<!-- recorded-traffic: start -->", "<!-- recorded-traffic: end -->"

#: The table's rows: an API family, and the reference's API names it groups.
FAMILIES = {
    "OpenAI Chat Completions and compatible servers": ("openai_chat", "openai_chat_stream"),
    "OpenAI Responses and compatible servers": ("openai_responses", "openai_responses_stream"),
    "Anthropic Messages": ("anthropic_messages", "anthropic_stream"),
    "Gemini API and Vertex AI": ("gemini", "gemini_stream"),
    "Google Interactions API": ("gemini_interactions", "gemini_interactions_stream"),
    "AWS Bedrock Converse": ("bedrock_converse", "bedrock_converse_stream"),
    "AWS Bedrock InvokeModel (model-native bodies)": ("bedrock_invoke_",),
    "Cohere v2 and v1": ("cohere_v2", "cohere_v2_stream", "cohere_v1", "cohere_v1_stream"),
    "Ollama": ("ollama_chat", "ollama_chat_stream", "ollama_generate"),
    "text completions and others (no tool calling)": ("openai_completions", "openai_completions_stream",
                                                       "writer_completions", "cohere_v1_generate",
                                                       "openai_thread_messages"),
}


def _family(api: str) -> str:
    for family, names in FAMILIES.items():
        if any(api == name or (name.endswith("_") and api.startswith(name)) for name in names):
            return family
    raise KeyError(api)


def render() -> str:
    from recorded import reference as ref
    from test_recorded import RECORDS, outcomes

    rows: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    providers: dict[str, set[str]] = collections.defaultdict(set)
    for record in RECORDS:
        family = _family(ref.classify(record))
        category, _ = outcomes()[record["id"]]
        rows[family]["bodies"] += 1
        rows[family][category] += 1
        calls = ref.reference_calls(record)
        if isinstance(calls, list):
            rows[family]["calls"] += len(calls)
        providers[family].add(ref.provider(record))
    lines = ["| API | bodies | calls in them | services | read exactly | refused as they should be "
             "| refused | fewer or other calls |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    total: collections.Counter[str] = collections.Counter()
    for family in FAMILIES:
        row = rows[family]
        total.update(row)
        lines.append(f"| {family} | {row['bodies']:,} | {row['calls']:,} | {len(providers[family])} "
                     f"| {row['exact']:,} | {row['refused-as-expected']:,} | {row['refused']:,} "
                     f"| {row['loss'] + row['wrong'] + row['crash']} |")
    lines.append(f"| **all** | {total['bodies']:,} | {total['calls']:,} | "
                 f"{len(set().union(*providers.values()))} | {total['exact']:,} "
                 f"({total['exact'] / total['bodies']:.1%}) | {total['refused-as-expected']:,} | "
                 f"{total['refused']:,} | {total['loss'] + total['wrong'] + total['crash']} |")
    return "\n".join(lines)


def current_page() -> str:
    return PAGE.read_text(encoding="utf-8")


def updated_page(text: str) -> str:
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    return pattern.sub(lambda _: f"{START}\n{render()}\n{END}", text)


if __name__ == "__main__":
    if "--write" in sys.argv:
        PAGE.write_text(updated_page(current_page()), encoding="utf-8")
    else:
        print(render())
