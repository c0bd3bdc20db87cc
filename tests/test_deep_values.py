"""Arguments and outputs nested deeper than a metric's recursive comparison can
follow: the case is a case error (its own row, saying why and how to fix it),
never a "metric bug", never a bare RecursionError, and never takes the other
cases of its batch down; where the value could be found (in bulk, nearer the
bottom of the stack) it stands.

The depths straddle the recursion limit: below it every metric scores the
case; in between some do in bulk and not case by case; far above it none
does. Whatever the depth, each row is a value or a case error, and the plain
case beside the deep one keeps the value it has alone.
"""

from __future__ import annotations

import math

import pytest

import agentmetrics as am
from agentmetrics.errors import CaseEvaluationError, NestedTooDeepError

#: Metrics that compare arguments (or outputs), with the options that make them.
METRICS = {name: {} for name in ("argument_accuracy", "tool_output_match", "adk_tool_trajectory",
                                 "ragas_tool_call_f1", "agentevals_trajectory",
                                 "mlflow_tool_call_correctness", "trajectory_match")}
METRICS["deepeval_tool_correctness"] = {"evaluation_params": ["input_parameters"]}


def nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


def records(depth: int) -> list[dict[str, object]]:
    def deep() -> dict[str, object]:  # equal on both sides, not the same objects
        return {"name": "f", "arguments": {"x": nested(depth)}, "output": nested(depth)}

    return [
        {"tool_calls": [deep()], "expected_tool_calls": [deep()]},
        {"tool_calls": [{"name": "f", "arguments": {"x": 1}, "output": 1}],
         "expected_tool_calls": [{"name": "f", "arguments": {"x": 2}, "output": 1}]},
    ]


def _rows(result: am.EvaluationResult, metric: str) -> list[tuple[float, str | None]]:
    return [(row[metric], row.get(f"{metric}_error")) for row in result.to_dicts()]


@pytest.mark.parametrize("metric", METRICS)
@pytest.mark.parametrize("depth", [50, 700, 960, 990, 5_000])
def test_a_deep_case_is_its_own_case_error(metric, depth):
    made = am.get_metric(metric, **METRICS[metric])
    plain = _rows(am.evaluate(records(1)[1:], metrics=[made]), metric)[0]
    result = am.evaluate(records(depth), metrics=[made], errors="record")
    (deep_value, deep_error), (value, error) = _rows(result, metric)
    assert (value, error) == plain and error is None  # the plain case is untouched
    if deep_error is None:
        assert deep_value == 1.0  # the deep case's two sides are equal
        assert result.results[metric].reason(0)  # a reason, or why there is none
    else:
        assert math.isnan(deep_value)
        assert "recursion limit" in deep_error and "Fix: flatten" in deep_error
        assert "metric bug" not in deep_error
    if depth == 5_000:  # beyond any stack: refused however it is scored
        assert deep_error is not None


@pytest.mark.parametrize("metric", METRICS)
def test_a_deep_case_raises_a_case_error_that_names_it(metric):
    with pytest.raises(CaseEvaluationError, match="case 0 .*recursion limit"):
        am.evaluate(records(5_000), metrics=[am.get_metric(metric, **METRICS[metric])])


@pytest.mark.parametrize("metric", METRICS)
def test_one_deep_case_alone_is_refused_as_invalid(metric):
    case = am.AgentTestCase(tool_calls=[am.ToolCall("f", {"x": nested(5_000)}, output=nested(5_000))],
                            expected_tool_calls=[am.ToolCall("f", {"x": nested(5_000)}, output=nested(5_000))])
    with pytest.raises(NestedTooDeepError, match="recursion limit"):
        am.get_metric(metric, **METRICS[metric]).evaluate(case)

