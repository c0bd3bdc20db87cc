"""Write the saved runs in tests/data/runs/ that tests/test_runs.py loads.

    .venv/bin/python tests/make_saved_runs.py

The files were written by agentmetrics 0.1.0 (saved-run format 1) and are
kept as they are: a later version must still load them to the same numbers
(test_the_stored_runs_of_format_1_still_load). An existing file is never
rewritten (``--force`` does, for a format change before a release); a new
format's files go beside the old ones.

It also writes docs/examples/orders_run.jsonl, the saved run of
docs/examples/orders.jsonl that docs/runs.md shows.

The run: seven cases scored by tool_selection_accuracy twice (order-blind and
order-aware) and by tool_call_f1, with a string, an integer, a tuple, a float
and no id, task metadata, an unreadable line and a case without expected
calls (an error row). The provenance's machine fields, time and uid are
fixed, so the files are the same on every machine (format1.* were written
before saved runs kept a uid, and have none).
"""

from __future__ import annotations

import sys
from pathlib import Path

import attrs

import agentmetrics as am
from agentmetrics.runs._provenance import provenance_of

OUT = Path(__file__).resolve().parent / "data" / "runs"
DOCS = Path(__file__).resolve().parent.parent / "docs" / "examples"


def fixture_result() -> am.EvaluationResult:
    """The run the stored files hold."""
    cases = [
        am.AgentTestCase(tool_calls=["GetOrder", "CancelOrder"],
                         expected_tool_calls=["GetOrder", "CancelOrder"],
                         metadata={"id": "refund-ok", "task_id": "t1", "trial": 0}),
        am.AgentTestCase(tool_calls=["CancelOrder", "GetOrder"],
                         expected_tool_calls=["GetOrder", "CancelOrder", "IssueRefund"],
                         metadata={"id": 7, "task_id": "t1", "trial": 1}),
        am.AgentTestCase(tool_calls=["GetOrder", "DeleteOrder"], expected_tool_calls=["GetOrder"],
                         metadata={"id": ("test_lookup", 0), "task_id": "t2", "trial": 0}),
        am.AgentTestCase(tool_calls=[], expected_tool_calls=[],
                         metadata={"id": 2.5, "task_id": "t2", "trial": 1, "note": "é ✓"}),
        am.AgentTestCase(tool_calls=["Search"], expected_tool_calls=None,
                         metadata={"id": "no-expectation", "task_id": "t3", "trial": 0}),
        am.UnreadableCase("cases.jsonl", 6, "not valid JSON (Expecting value at column 1)"),
        am.AgentTestCase(tool_calls=["Search", "Search", "Book"],
                         expected_tool_calls=["Search", "Book"],
                         metadata={"task_id": "t3", "trial": 1}),
    ]
    metrics = [am.ToolSelectionAccuracy(threshold=0.8),
               am.ToolSelectionAccuracy(threshold=0.8, order_matters=True),
               am.get_metric("tool_call_f1")]
    result = am.evaluate(cases, metrics, errors="record", progress=False)
    provenance = attrs.evolve(provenance_of(result), created="2026-12-02T12:00:00+00:00",
                              host="fixture", platform="fixture", python="CPython 3.11.7",
                              uid="f1" * 16)
    return am.EvaluationResult(result.batch, result.results, result.sources,
                               provenance=provenance)


def docs_result() -> am.EvaluationResult:
    """docs/examples/orders.jsonl scored, as docs/runs.md compares against it."""
    result = am.evaluate(am.read_cases(DOCS / "orders.jsonl"), "tool_selection_accuracy",
                         progress=False)
    provenance = attrs.evolve(provenance_of(result), created="2026-12-02T12:00:00+00:00",
                              host="docs", platform="docs", python="CPython 3.11.7",
                              uid="d0" * 16)
    return am.EvaluationResult(result.batch, result.results, result.sources,
                               provenance=provenance)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    result = fixture_result()
    for name in ("format1.jsonl", "format1.parquet"):
        if (OUT / name).exists() and "--force" not in sys.argv:
            print(f"{OUT / name} exists; kept (it proves old runs still load)")
            continue
        print(result.save(OUT / name, history=False))
    print(docs_result().save(DOCS / "orders_run.jsonl", history=False))


if __name__ == "__main__":
    main()
