"""The pytest plugin end to end, with pytester: marker, fixture, summary, reports, xdist."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree

import pytest

TESTS = """
import pytest
from agentmetrics import AgentTestCase, ToolSelectionAccuracy

@pytest.mark.agent_metric("tool_selection_accuracy", threshold=0.9)
def test_refund_passes(agent_eval):
    agent_eval.record_run(tool_calls=["GetOrder", "IssueRefund"],
                          expected_tool_calls=["GetOrder", "IssueRefund"])

@pytest.mark.agent_metric(metric=ToolSelectionAccuracy)
@pytest.mark.agent_metric("tool_selection_accuracy", order_matters=True)
def test_refund_fails(agent_eval):
    agent_eval.record(AgentTestCase(tool_calls=["IssueRefund", "GetOrder"],
                                    expected_tool_calls=["GetOrder", "IssueRefund", "CancelOrder"],
                                    metadata={"id": "refund-7"}))

@pytest.mark.agent_metric(ToolSelectionAccuracy(threshold=0.5))
def test_two_runs(agent_eval):
    agent_eval.record_run(tool_calls=["A"], expected_tool_calls=["A", "B"])
    agent_eval.record_run(tool_calls=["A", "B"], expected_tool_calls=["A", "B"])
"""


def test_passing_and_failing_marker_tests(pytester):
    pytester.makepyfile(TESTS)
    result = pytester.runpytest()
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*agent_metric: 2 of 2 evaluations did not pass",
        "*case*metric*value*threshold*reason",
        "*0 (id 'refund-7')*tool_selection_accuracy(order_matters=False)*0.67*0.8*Missing expected tool: CancelOrder",
        "*0 (id 'refund-7')*tool_selection_accuracy(order_matters=True)*0.33*0.8*"
        "Out of expected order: expected GetOrder -> IssueRefund, called IssueRefund -> GetOrder",
    ])


def test_terminal_summary_section(pytester):
    pytester.makepyfile(TESTS)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines([
        "*= agentmetrics =*",
        "metric*cases*mean*pass rate*failing tests",
        "tool_selection_accuracy(threshold=0.9, order_matters=False) *1*1.00*100.0%*-",
        "tool_selection_accuracy(threshold=0.8, order_matters=False)*1*0.67*0.0%*test_refund_fails*",
        "tool_selection_accuracy(threshold=0.8, order_matters=True) *1*0.33*0.0%*test_refund_fails*",
        "tool_selection_accuracy(threshold=0.5, order_matters=False)*2*0.75*100.0%*-",
    ])
    assert "test_two_runs" not in "\n".join(l for l in result.outlines if "failing" in l)


def test_the_test_body_failing_first_is_reported_as_such(pytester):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.agent_metric("tool_selection_accuracy")
        def test_body(agent_eval):
            agent_eval.record_run(tool_calls=[], expected_tool_calls=[])
            assert 1 == 2
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*assert 1 == 2*"])
    result.stdout.no_fnmatch_line("*agent_metric:*")  # not scored after the body failed
    result.stdout.no_fnmatch_line("*= agentmetrics =*")


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ('"tool_selection_acuracy"',
         "*agent_metric('tool_selection_acuracy'): no metric named 'tool_selection_acuracy'. "
         "Did you mean 'tool_selection_accuracy'?*"),
        ('"tool_selection_accuracy", treshold=0.9',
         "*unknown parameter ?'treshold'?*Fix: rename 'treshold' -> 'threshold'*"),
        ('"tool_selection_accuracy", threshold=2', "*threshold must be between 0 and 1*"),
        ("", "*expected one metric (a Metric class, instance or registry name)*"),
    ],
)
def test_marker_misuse_fails_with_a_clear_message(pytester, marker, message):
    pytester.makepyfile(f"""
        import pytest
        @pytest.mark.agent_metric({marker})
        def test_it(agent_eval):
            agent_eval.record_run(tool_calls=["A"], expected_tool_calls=["A"])
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([message])
    result.stdout.no_fnmatch_line("*During handling of the above exception*")


def test_marker_without_a_recorded_case_says_how_to_record(pytester):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.agent_metric("tool_selection_accuracy")
        def test_forgot():
            pass
    """)
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([
        "*agent_metric('tool_selection_accuracy') is set, but the test recorded no agent run to score.",
        "*def test_forgot(agent_eval):",
        "*agent_eval.record_run(tool_calls=*, expected_tool_calls=*)",
        "or, for a run without tool calls, agent_eval.record_run(actual_output=..., "
        "expected_output=...), or agent_eval.record(AgentTestCase(...)).",
    ])


def test_marker_is_registered_for_strict_markers(pytester):
    pytester.makepyfile("""
        import pytest
        @pytest.mark.agent_metric("tool_selection_accuracy")
        def test_it(agent_eval):
            agent_eval.record_run(tool_calls=["A"], expected_tool_calls=["A"])
    """)
    pytester.runpytest("--strict-markers").assert_outcomes(passed=1)
    result = pytester.runpytest("--markers")
    result.stdout.fnmatch_lines(["@pytest.mark.agent_metric(metric, threshold=None, **params):*"])


def test_record_refuses_what_is_not_a_case(pytester):
    pytester.makepyfile("""
        def test_it(agent_eval):
            agent_eval.record({"tool_calls": []})
    """)
    result = pytester.runpytest()
    result.stdout.fnmatch_lines(["*agent_eval.record expects an AgentTestCase, got dict*"])


def test_scores_go_into_junitxml_properties(pytester):
    pytester.makepyfile(TESTS)
    pytester.runpytest("--junitxml=junit.xml")
    root = ElementTree.parse(pytester.path / "junit.xml").getroot()
    properties = {
        case.get("name"): {p.get("name"): p.get("value") for p in case.iter("property")}
        for case in root.iter("testcase")
    }
    assert properties["test_refund_passes"] == {
        "agentmetrics.tool_selection_accuracy[0].value": "1.0000",
        "agentmetrics.tool_selection_accuracy[0].passed": "true",
    }
    assert properties["test_two_runs"]["agentmetrics.tool_selection_accuracy[0].value"] == "0.5000"
    assert properties["test_two_runs"]["agentmetrics.tool_selection_accuracy[1].passed"] == "true"
    assert properties["test_refund_fails"][
        "agentmetrics.tool_selection_accuracy(order_matters=True)[0].value"] == "0.3333"


def check_report(path, workers_note=""):
    report = json.loads(path.read_text())
    assert report["agentmetrics_report"] == 1
    evaluations = report["evaluations"]
    assert len(evaluations) == 5, workers_note
    first = evaluations[0]
    assert set(first) == {"test", "metric", "name", "params", "config", "case", "case_id",
                          "threshold", "higher_is_better", "value_range", "unit", "version",
                          "tool_calls", "expected_tool_calls", "value", "passed", "reason",
                          "error"}
    failing = [e for e in evaluations if not e["passed"]]
    assert {(e["test"].split("::")[1], e["metric"], round(e["value"], 4)) for e in failing} == {
        ("test_refund_fails", "tool_selection_accuracy(order_matters=False)", 0.6667),
        ("test_refund_fails", "tool_selection_accuracy(order_matters=True)", 0.3333),
    }
    by_config = {row["config"]: row for row in report["summary"]}
    two_runs = by_config["ToolSelectionAccuracy(threshold=0.5, order_matters=False)"]
    assert (two_runs["cases"], two_runs["mean"], two_runs["pass_rate"]) == (2, 0.75, 1.0)
    return report


def test_report_file_has_every_evaluation(pytester):
    pytester.makepyfile(TESTS)
    result = pytester.runpytest("--agentmetrics-report=scores.json")
    result.stdout.fnmatch_lines(["evaluations written to scores.json"])
    check_report(pytester.path / "scores.json")


def test_xdist_workers_are_combined(pytester):
    pytest.importorskip("xdist")
    pytester.makepyfile(TESTS)
    result = pytester.runpytest_subprocess("-n", "2", "--agentmetrics-report=scores.json")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines([
        "*= agentmetrics =*",
        "tool_selection_accuracy(threshold=0.5, order_matters=False)*2*0.75*100.0%*-",
    ])
    check_report(pytester.path / "scores.json", "evaluations from both workers")


def test_loading_the_plugin_imports_no_numpy_and_scans_nothing(pytester):
    pytester.makeconftest("""
        import sys
        def pytest_sessionfinish(session):
            from agentmetrics import registry
            assert "agentmetrics.pytest_plugin" in sys.modules
            assert "numpy" not in sys.modules, "numpy was imported"
            assert registry._registry._specs is None, "entry points were scanned"
            print("LIGHT-LOAD-OK")
    """)
    pytester.makepyfile("""
        from agentmetrics.testing import assert_that
        from agentmetrics import AgentTestCase
        def test_plain():
            assert_that(AgentTestCase(tool_calls=["A"])).called_tool("A")
    """)
    result = pytester.runpytest_subprocess("-s", "-p", "no:randomly")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*LIGHT-LOAD-OK*"])


def test_record_run_without_tool_calls_is_scored_by_what_the_metric_reads(pytester):
    pytester.makepyfile("""
        import pytest
        from agentmetrics import Metric

        class AnswerEquals(Metric):
            name = "answer_equals"
            inputs = ("actual_output", "expected_output")

            def measure(self, case):
                same = case.actual_output == case.expected_output
                return float(same), "same answer" if same else "another answer"

        @pytest.mark.agent_metric(metric=AnswerEquals)
        def test_answers(agent_eval):
            case = agent_eval.record_run(input="2 + 2?", actual_output="4", expected_output="4",
                                         latency=1.25, cost=0.002, usage={"input": 12})
            assert (case.tool_calls, case.latency, case.cost, case.usage) == (
                None, 1.25, 0.002, {"input": 12})
            agent_eval.record_run(input="3 + 3?", actual_output="7", expected_output="6")

        @pytest.mark.agent_metric("tool_selection_accuracy")
        def test_a_tool_metric_names_the_missing_field(agent_eval):
            agent_eval.record_run(actual_output="4", expected_output="4")
    """)
    result = pytester.runpytest("-p", "no:randomly", "--agentmetrics-report=scores.json",
                                "--agentmetrics-html=report.html")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "*agent_metric: 1 of 2 evaluations did not pass",
        "*1*answer_equals*0.00*0.5*another answer",
    ])
    result.stdout.fnmatch_lines([
        "*agent_metric: 1 of 1 evaluations did not pass",
        "*error: metric 'tool_selection_accuracy' requires the test case field 'tool_calls'*",
    ])
    evaluations = json.loads((pytester.path / "scores.json").read_text())["evaluations"]
    answers = [e for e in evaluations if e["name"] == "answer_equals"]
    assert [(e["value"], e["passed"], e["tool_calls"], e["error"]) for e in answers] == [
        (1.0, True, None, None), (0.0, False, None, None)]
    assert "answer_equals" in (pytester.path / "report.html").read_text()


def test_record_run_still_takes_the_calls_by_position(pytester):
    pytester.makepyfile("""
        def test_it(agent_eval):
            case = agent_eval.record_run(["A"], ["A", "B"], input="go")
            assert (case.tool_names, case.expected_tool_names, case.input) == (("A",), ("A", "B"), "go")
    """)
    pytester.runpytest().assert_outcomes(passed=1)
