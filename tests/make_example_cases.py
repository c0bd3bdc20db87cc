"""Regenerate agentmetrics/examples/tau2_airline.jsonl from the tau2 results file.

Usage: python tests/make_example_cases.py ../shared/data/tau2/airline_claude-sonnet-4-5_trajectories.json

Each simulation becomes one case: the assistant's tool calls in order, the
task's expected actions, the first user message as input, and the tau2
reward in metadata. The tau2 data is MIT licensed (see the LICENSE beside
the output).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "agentmetrics" / "examples" / "tau2_airline.jsonl"


def main(source: str) -> None:
    data = json.loads(Path(source).read_text(encoding="utf-8"))
    tasks = {task["id"]: task for task in data["tasks"]}
    lines = []
    for simulation in sorted(data["simulations"], key=lambda s: int(s["task_id"])):
        task = tasks[simulation["task_id"]]
        messages = simulation["messages"]
        first_user = next((m["content"] for m in messages if m["role"] == "user"), None)
        called = [
            {"name": call["name"], "arguments": call["arguments"], "id": call["id"]}
            for message in messages
            if message["role"] == "assistant"
            for call in message.get("tool_calls") or []
        ]
        expected = [
            {"name": action["name"], "arguments": action["arguments"]}
            for action in (task["evaluation_criteria"] or {}).get("actions") or []
            if action.get("requestor", "assistant") == "assistant"
        ]
        reward = (simulation.get("reward_info") or {}).get("reward")
        record = {
            "id": f"airline-{simulation['task_id']}",
            "input": first_user,
            "tool_calls": called,
            "expected_tool_calls": expected,
            "metadata": {"tau2_reward": reward, "source": "tau2-bench airline, claude-sonnet-4-5"},
        }
        lines.append(json.dumps(record, ensure_ascii=False))
    OUT.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} cases to {OUT}")


if __name__ == "__main__":
    main(sys.argv[1])
