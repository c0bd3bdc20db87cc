"""assert_that: fluent checks whose failures say what was expected and what happened."""

from __future__ import annotations

import pytest

from agentmetrics import AgentTestCase, InvalidCaseError, Metric, MetricNotFoundError, ToolSelectionAccuracy
from agentmetrics.testing import AgentAssertions, assert_that

CASE = AgentTestCase(
    tool_calls=["GetOrder", "DeleteOrder", "GetOrder"],
    expected_tool_calls=["GetOrder", "CancelOrder"],
)
CALLED = "\n  the agent called: GetOrder, DeleteOrder, GetOrder"


def test_passing_checks_chain():
    chain = (
        assert_that(CASE)
        .called_tool("GetOrder")
        .never_called_tool("CancelOrder")
        .called_tools("DeleteOrder", "GetOrder")
        .called_exactly("DeleteOrder", "GetOrder")
        .called_in_order("GetOrder", "DeleteOrder")
        .called_tool_times("GetOrder", 2)
        .called_tool_times("CancelOrder", 0)
        .meets_metric("tool_selection_accuracy", threshold=0.3)
    )
    assert isinstance(chain, AgentAssertions)


@pytest.mark.parametrize(
    ("check", "message"),
    [
        (lambda a: a.called_tool("CancelOrder"), "expected the agent to call 'CancelOrder', but it never did" + CALLED),
        (lambda a: a.never_called_tool("GetOrder"),
         "expected the agent never to call 'GetOrder', but it did (call #1, #3)" + CALLED),
        (lambda a: a.called_tools("GetOrder", "CancelOrder", "IssueRefund"),
         "expected the agent to call all of GetOrder, CancelOrder, IssueRefund; missing: CancelOrder, IssueRefund" + CALLED),
        (lambda a: a.called_exactly("GetOrder", "CancelOrder"),
         "expected the agent to call exactly GetOrder, CancelOrder; missing: CancelOrder; unexpected: DeleteOrder" + CALLED),
        (lambda a: a.called_in_order("DeleteOrder", "GetOrder"),
         "expected first calls in the order DeleteOrder -> GetOrder, but 'GetOrder' was first called before "
         "'DeleteOrder'\n  first calls, in order: GetOrder -> DeleteOrder" + CALLED),
        (lambda a: a.called_in_order("GetOrder", "IssueRefund"),
         "expected first calls in the order GetOrder -> IssueRefund, but 'IssueRefund' was never called"
         "\n  first calls, in order: GetOrder -> DeleteOrder" + CALLED),
        (lambda a: a.called_tool_times("GetOrder", 1),
         "expected the agent to call 'GetOrder' 1 time, but it called it 2 times" + CALLED),
        (lambda a: a.called_tool_times("DeleteOrder", 2),
         "expected the agent to call 'DeleteOrder' 2 times, but it called it 1 time" + CALLED),
        (lambda a: a.meets_metric("tool_selection_accuracy"),
         "tool_selection_accuracy: 0.33 is below the threshold 0.8: "
         "Missing expected tool: CancelOrder; Unexpected tool: DeleteOrder"),
        (lambda a: a.meets_metric(ToolSelectionAccuracy, threshold=0.9, order_matters=True),
         "tool_selection_accuracy: 0.33 is below the threshold 0.9: *"),
        (lambda a: a.meets_metric(ToolSelectionAccuracy(threshold=0.2), threshold=0.5),
         "tool_selection_accuracy: 0.33 is below the threshold 0.5: *"),
    ],
)
def test_failures_say_what_was_expected_and_what_was_called(check, message):
    with pytest.raises(AssertionError) as info:
        check(assert_that(CASE))
    if message.endswith("*"):
        assert str(info.value).startswith(message[:-1])
    else:
        assert str(info.value) == message


def test_no_calls_is_said_plainly():
    with pytest.raises(AssertionError, match="the agent called: no tools"):
        assert_that(AgentTestCase(tool_calls=[])).called_tool("A")


def test_lower_is_better_metrics_say_above():
    class Calls(Metric):
        name = "call_share"
        higher_is_better = False
        required_fields = ("tool_calls",)

        def measure(self, case):
            return min(len(case.tool_calls), 4) / 4, f"{len(case.tool_calls)} calls"

    with pytest.raises(AssertionError, match=r"^call_share: 0.75 is above the threshold 0.5: 3 calls$"):
        assert_that(CASE).meets_metric(Calls, threshold=0.5)


def test_misuse_is_an_error_not_a_failed_check():
    with pytest.raises(InvalidCaseError, match="assert_that expects an AgentTestCase, got list"):
        assert_that(["GetOrder"])  # type: ignore[arg-type]
    with pytest.raises(InvalidCaseError, match="tool_calls=None, so there is nothing to check"):
        assert_that(AgentTestCase()).called_tool("A")
    with pytest.raises(MetricNotFoundError, match="Did you mean 'tool_selection_accuracy'"):
        assert_that(CASE).meets_metric("tool_selection_acuracy")
    with pytest.raises(ValueError, match="already configured"):
        assert_that(CASE).meets_metric(ToolSelectionAccuracy(), order_matters=True)


@pytest.mark.parametrize("check", ["called_tool('CancelOrder')", "never_called_tool('GetOrder')",
                                   "called_tools('CancelOrder')", "called_exactly('GetOrder')",
                                   "called_in_order('DeleteOrder', 'GetOrder')",
                                   "called_tool_times('GetOrder', 1)",
                                   "meets_metric('tool_selection_accuracy')"])
def test_a_failing_check_shows_the_test_line_not_the_library_source(pytester, check):
    """pytest prints the user's line and the message; no frame of agentmetrics.testing
    (its ``raise self._fail(...)`` lines) stands between them."""
    pytester.makepyfile(f"""
        from agentmetrics import AgentTestCase
        from agentmetrics.testing import assert_that

        def test_agent():
            case = AgentTestCase(tool_calls=["GetOrder", "DeleteOrder", "GetOrder"],
                                 expected_tool_calls=["GetOrder", "CancelOrder"])
            assert_that(case).{check}
    """)
    result = pytester.runpytest("-p", "no:randomly")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert f"assert_that(case).{check}" in out and "AssertionError" in out
    assert "agentmetrics/testing/" not in out and "raise self._fail" not in out
    assert "def " + check.partition("(")[0] not in out
