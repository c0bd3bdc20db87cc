"""Regenerate agentmetrics/examples/tau2_airline.jsonl from the tau2 results file.

Usage: python tests/make_example_cases.py ../shared/data/tau2/airline_claude-sonnet-4-5_trajectories.json

The runs are read with agentmetrics.formats.cases_from_tau2 (the one place
that knows tau2's layout) and written one case a line, in task order. The
tau2 data is MIT licensed (see the LICENSE beside the output).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from agentmetrics import ToolCall
from agentmetrics.formats import cases_from_tau2

OUT = Path(__file__).resolve().parent.parent / "agentmetrics" / "examples" / "tau2_airline.jsonl"


def _call(call: ToolCall) -> dict[str, Any]:
    record: dict[str, Any] = {"name": call.name, "arguments": call.arguments}
    if call.id is not None:
        record["id"] = call.id
    return record


def main(source: str) -> None:
    results = json.loads(Path(source).read_text(encoding="utf-8"))
    cases = sorted(cases_from_tau2(results), key=lambda case: int(case.metadata["task_id"]))
    lines = []
    for case in cases:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        metadata = {key: value for key, value in case.metadata.items() if key != "id"}
        record = {
            "id": case.metadata["id"],
            "input": case.input,
            "tool_calls": [_call(call) for call in case.tool_calls],
            "expected_tool_calls": [_call(call) for call in case.expected_tool_calls],
            "metadata": {**metadata, "source": "tau2-bench airline, claude-sonnet-4-5"},
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} cases to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
