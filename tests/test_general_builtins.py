"""answer_match, latency, cost and tool_call_micro_f1 (issue 51): each equals an
independent reference written here, case by case and in batch, on generated data."""

from __future__ import annotations

import json
import math
import unicodedata
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import agentmetrics as am
from agentmetrics import AgentTestCase, ToolCall, ToolCallBatch, get_metric
from agentmetrics.errors import (
    CaseEvaluationError,
    InvalidCaseError,
    InvalidParameterError,
    MissingFieldError,
)

# --- independent references -------------------------------------------------------


def ref_canon(value):
    """JSON equality by a canonical text: numbers as exact fractions' text."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "n" + repr(float(value)) if not float(value).is_integer() else "n" + str(int(value))
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(map(ref_canon, value)) + "]"
    return "{" + ",".join(sorted(json.dumps(k) + ":" + ref_canon(v) for k, v in value.items())) + "}"


def ref_parse(value):
    if isinstance(value, str):
        try:
            return json.loads(value, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError:
            return value
    return value


def ref_norm(text):
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(text.split())


def ref_answer(actual, expected, mode):
    if mode == "exact":
        return float(ref_canon(actual) == ref_canon(expected))
    if mode == "normalized" and isinstance(actual, str) and isinstance(expected, str):
        return float(ref_norm(actual) == ref_norm(expected))
    return float(ref_canon(ref_parse(actual)) == ref_canon(ref_parse(expected)))


def ref_f1(called, expected):
    if not called and not expected:
        return 1.0, (0, 0, 0)
    matched = sum(min(n, Counter(expected)[k]) for k, n in Counter(called).items())
    return 2 * matched / (len(called) + len(expected)), (matched, len(called), len(expected))


# --- generated data ----------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5),
                    st.floats(-5, 5, allow_nan=False).map(lambda x: round(x, 1)),
                    st.sampled_from(["Paris", " paris ", "PARIS", "ﬁne", "fine", "a  b", "a b",
                                     "1", "1.0", '{"a": 1}', "[1, 2]", "true", "null", '"x"']))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("ab"), inner, max_size=2)),
    max_leaves=6)
answers = st.one_of(values.filter(lambda v: v is not None), st.none())
names = st.lists(st.sampled_from(["a", "b", "c"]), max_size=4)
arguments = st.dictionaries(st.sampled_from(["q", "n"]), st.sampled_from([1, 1.0, 2, "1"]),
                            max_size=2)
calls = st.lists(st.tuples(st.sampled_from(["a", "b"]), arguments), max_size=4)


def _case(draw_actual, draw_expected, latency, cost, called, expected):
    return AgentTestCase(actual_output=draw_actual, expected_output=draw_expected,
                         latency=latency, cost=cost,
                         tool_calls=None if called is None else [ToolCall(n, a) for n, a in called],
                         expected_tool_calls=None if expected is None
                         else [ToolCall(n, a) for n, a in expected])


cases_strategy = st.lists(st.builds(
    _case, answers, answers, st.one_of(st.none(), st.floats(0, 100)),
    st.one_of(st.none(), st.floats(0, 5)), st.one_of(st.none(), calls), st.one_of(st.none(), calls)),
    min_size=1, max_size=12)


def _batch_equals_single(metric, cases):
    result = metric.evaluate_batch(ToolCallBatch.from_cases(cases), errors="record")
    for row, case in enumerate(cases):
        try:
            score = metric.evaluate(case)
        except (MissingFieldError, InvalidCaseError) as error:
            assert result.errors[row] == str(error)
            assert math.isnan(result.values[row]) and not result.passed[row]
            continue
        assert row not in result.errors
        assert result.values[row] == score.value  # bit for bit
        assert bool(result.passed[row]) == score.passed
        assert result.reason(row) == score.reason
        for name, column in result.statistics.items():
            assert column[row] == score.statistics[name]
    return result


@settings(max_examples=60, deadline=None)
@given(cases_strategy, st.sampled_from(["exact", "normalized", "json"]))
def test_answer_match_equals_the_reference(cases, mode):
    metric = get_metric("answer_match", mode=mode)
    result = _batch_equals_single(metric, cases)
    for row, case in enumerate(cases):
        if case.actual_output is None or case.expected_output is None:
            assert "answer_match" in result.errors[row]
            missing = "actual_output" if case.actual_output is None else "expected_output"
            assert missing in result.errors[row]
        else:
            assert result.values[row] == ref_answer(case.actual_output, case.expected_output, mode)


@settings(max_examples=40, deadline=None)
@given(cases_strategy)
def test_latency_and_cost_are_the_case_fields(cases):
    for name, field in (("latency", "latency"), ("cost", "cost")):
        result = _batch_equals_single(get_metric(name), cases)
        for row, case in enumerate(cases):
            if getattr(case, field) is None:
                assert f"'{field}'" in result.errors[row]
            else:
                assert result.values[row] == getattr(case, field)


@settings(max_examples=60, deadline=None)
@given(cases_strategy, st.booleans())
def test_tool_call_micro_f1_equals_the_reference(cases, by_arguments):
    metric = get_metric("tool_call_micro_f1", arguments=by_arguments)
    result = _batch_equals_single(metric, cases)
    pooled = np.zeros(3)
    for row, case in enumerate(cases):
        if case.tool_calls is None or case.expected_tool_calls is None:
            assert row in result.errors
            continue
        key = ((lambda c: (c.name, ref_canon(c.arguments))) if by_arguments
               else (lambda c: c.name))
        value, counts = ref_f1(list(map(key, case.tool_calls)),
                               list(map(key, case.expected_tool_calls)))
        assert result.values[row] == value
        pooled += counts
    table = am.evaluate(cases, [metric], errors="record").aggregates()
    rows = {row["aggregate"]: row["value"] for row in table.to_dicts()}
    if pooled[1]:
        assert rows["micro_precision"] == pooled[0] / pooled[1]
    if pooled[2]:
        assert rows["micro_recall"] == pooled[0] / pooled[2]
    if pooled[1] + pooled[2]:
        assert rows["micro_f1"] == 2 * pooled[0] / (pooled[1] + pooled[2])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(0, 1000), min_size=1, max_size=30))
def test_latency_aggregates_equal_numpy(seconds):
    table = am.evaluate([AgentTestCase(latency=s) for s in seconds], ["latency"]).aggregates()
    rows = {row["aggregate"]: row["value"] for row in table.to_dicts()}
    assert rows["max"] == max(seconds)
    assert rows["p50"] == pytest.approx(float(np.quantile(seconds, 0.5)), rel=1e-12, abs=1e-12)
    assert rows["p95"] == pytest.approx(float(np.quantile(seconds, 0.95)), rel=1e-12, abs=1e-12)
    costs = am.evaluate([AgentTestCase(cost=s) for s in seconds], ["cost"]).aggregates()
    assert costs.to_dicts()[0]["value"] == math.fsum(seconds)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["input_tokens", "output_tokens", "cached"]),
                                st.integers(0, 10**6), max_size=3), min_size=1, max_size=8))
def test_cost_prices_usage_and_refuses_an_unpriced_kind(usages):
    prices = {"input_tokens": 2.5e-6, "output_tokens": 1e-5}
    metric = get_metric("cost", prices=prices)
    cases = [AgentTestCase(usage=usage) for usage in usages]
    result = _batch_equals_single(metric, cases)
    for row, usage in enumerate(usages):
        if "cached" in usage:
            assert "'cached'" in result.errors[row] and "prices" in result.errors[row]
        else:
            assert result.values[row] == math.fsum(n * prices[k] for k, n in usage.items())


def test_examples_of_each_mode():
    def value(mode, actual, expected):
        return get_metric("answer_match", mode=mode).evaluate(
            AgentTestCase(actual_output=actual, expected_output=expected)).value

    assert value("exact", 1, 1.0) == 1.0 and value("exact", True, 1) == 0.0
    assert value("exact", [1, {"a": "x"}], (1.0, {"a": "x"})) == 1.0
    assert value("exact", "1", 1) == 0.0
    assert value("normalized", "  Hello\tWORLD ", "hello world") == 1.0
    assert value("normalized", "ﬁne", "FINE") == 1.0
    assert value("normalized", "42", 42) == 1.0
    assert value("json", '{"b": 2, "a": 1.0}', {"a": 1, "b": 2}) == 1.0
    assert value("json", "NaN", float("nan")) == 0.0  # NaN text is no JSON: stays text


def test_reasons_say_what_differed():
    metric = get_metric("answer_match", mode="json")
    reason = metric.evaluate(AgentTestCase(actual_output={"items": [1, 2, 3]},
                                           expected_output='{"items": [1, 2]}')).reason
    assert reason.startswith("answers differ (json), at ['items']: 3 items, expected 2")
    long = "x" * 100
    reason = get_metric("answer_match").evaluate(
        AgentTestCase(actual_output=long, expected_output=long + "y")).reason
    assert "text differs at character 101" in reason and len(reason) < 160


@pytest.mark.parametrize("table", ["pandas", "arrow"])
def test_dataframe_and_arrow_columns_are_read(table):
    pd = pytest.importorskip("pandas")
    columns = {"actual_output": ["Paris", "Rome", None], "expected_output": ["paris", "Rome", "x"],
               "latency": [1.0, 20.0, None], "cost": [0.5, 2.0, 0.1],
               "tool_calls": [["a", "b"], [], ["a"]], "expected_tool_calls": [["a"], [], ["a"]]}
    data = pd.DataFrame(columns)
    if table == "arrow":
        pa = pytest.importorskip("pyarrow")
        data = pa.table(columns)
    metrics = [get_metric("answer_match", mode="normalized"), "latency", "cost",
               "tool_call_micro_f1"]
    result = am.evaluate(data, metrics, errors="record")
    cases = [AgentTestCase(actual_output=a, expected_output=e, latency=lat, cost=c,
                           tool_calls=t, expected_tool_calls=x)
             for a, e, lat, c, t, x in zip(*columns.values())]
    reference = am.evaluate(cases, metrics, errors="record")
    for label in ("answer_match", "latency", "cost", "tool_call_micro_f1"):
        got, want = result[label], reference[label]
        np.testing.assert_array_equal(got.values, want.values)
        assert got.reason_list() == want.reason_list()
    assert result["answer_match"].values[:2].tolist() == [1.0, 1.0]
    assert "actual_output" in result["answer_match"].errors[2]
    assert "'latency'" in result["latency"].errors[2]


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="mode must be one of"):
        get_metric("answer_match", mode="fuzzy")
    with pytest.raises(InvalidParameterError, match="prices"):
        get_metric("cost", prices={"input_tokens": -1.0})
    with pytest.raises(InvalidParameterError, match="prices"):
        get_metric("cost", prices="cheap")
    with pytest.raises(InvalidCaseError, match="latency"):
        AgentTestCase(latency="1.5")  # text where seconds are declared: never coerced
    with pytest.raises(MissingFieldError, match="'latency'.*'latency'"):
        get_metric("latency").evaluate(AgentTestCase(actual_output="x"))
    with pytest.raises(CaseEvaluationError, match="expected_output"):
        get_metric("answer_match").evaluate_batch(
            ToolCallBatch.from_cases([AgentTestCase(actual_output="x")]))
    with pytest.raises(InvalidCaseError, match="arguments that are not a JSON object"):
        get_metric("tool_call_micro_f1", arguments=True).evaluate(AgentTestCase(
            tool_calls=[ToolCall("a", raw_arguments="{oops")], expected_tool_calls=["a"]))
    with pytest.raises(CaseEvaluationError, match="'x' tokens"):
        get_metric("cost", prices={"input_tokens": 1e-6}).evaluate_batch(
            ToolCallBatch.from_cases([AgentTestCase(usage={"input_tokens": 1}),
                                      AgentTestCase(usage={"x": 2})]))


def test_metrics_pickle_and_compare():
    import pickle

    for metric in (get_metric("cost", prices={"input_tokens": 1e-6}), get_metric("latency"),
                   get_metric("answer_match", mode="json"),
                   get_metric("tool_call_micro_f1", arguments=True)):
        again = pickle.loads(pickle.dumps(metric))
        assert again == metric and repr(again) == repr(metric)
    assert [i.name for i in get_metric("cost", prices={"a": 1.0}).declared_inputs()] == ["usage"]
    assert [i.name for i in get_metric("cost").declared_inputs()] == ["cost"]


def test_the_benchmark_runs_small(capsys):
    pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).parent.parent / "benchmarks" / "bench_general.py"
    spec = importlib.util.spec_from_file_location("bench_general", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--rows", "300", "--repeats", "1"])  # checks every path's values agree first
    out = capsys.readouterr().out
    assert "300 rows" in out and "tool_call_micro_f1" in out and "all three" in out
