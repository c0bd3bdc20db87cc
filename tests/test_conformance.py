"""The contract cases for ToolSelectionAccuracy (copied from shared/conformance)."""

from __future__ import annotations

import pytest

from agentmetrics import AgentTestCase, ToolSelectionAccuracy
from conftest import SHARED, TESTS, load_jsonl

CASES_PATH = TESTS / "data" / "tool_selection_accuracy.jsonl"
CASES = load_jsonl(CASES_PATH)


def test_there_are_contract_cases_for_both_modes():
    assert len(CASES) >= 20
    assert {case["order_matters"] for case in CASES} == {True, False}


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_contract_case(case):
    metric = ToolSelectionAccuracy(threshold=case["threshold"], order_matters=case["order_matters"])
    score = metric.evaluate(
        AgentTestCase(tool_calls=case["tool_calls"], expected_tool_calls=case["expected_tool_calls"])
    )
    assert score.value == case["value"]
    assert score.passed is case["passed"]
    assert score.reason == case["reason"]
    assert score.metric == "tool_selection_accuracy"
    assert score.threshold == case["threshold"]


@pytest.mark.skipif(not SHARED.is_dir(), reason="shared/ is only beside the repository in CI")
def test_vendored_copy_matches_shared():
    upstream = SHARED / "conformance" / "tool_selection_accuracy.jsonl"
    assert CASES_PATH.read_text(encoding="utf-8") == upstream.read_text(encoding="utf-8")
