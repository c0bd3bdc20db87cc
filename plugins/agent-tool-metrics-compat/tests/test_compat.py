"""The compatibility metrics: the peers' quirks case by case (the values the
peers give, recorded from the peers themselves; test_against_peers.py checks
them against the installed peers on thousands of cases), parameters,
single == batched, the contract kit and the bundled tau2 runs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import (
    AgentTestCase,
    CaseEvaluationError,
    InvalidCaseError,
    InvalidParameterError,
    ToolCall,
    ToolCallBatch,
    UserFunctionError,
    evaluate,
    example_cases,
    get_metric,
    per_turn,
)
from agentmetrics.testing import check_metric
from agentmetrics_compat import (
    AdkToolTrajectory,
    AgentevalsTrajectory,
    DeepevalToolCorrectness,
    MlflowToolCallCorrectness,
    RagasToolCallAccuracy,
    RagasToolCallF1,
)
from agentmetrics_compat._deepeval import compare_dicts

S, F, L = ToolCall("search", {"q": "x"}), ToolCall("fetch", {"id": 1}), ToolCall("log")


def case(called, expected):
    return AgentTestCase(tool_calls=called, expected_tool_calls=expected)


# (called, expected) -> the peers' values, from FINDINGS of the peer runs.
QUIRKS = {
    "both_empty": ([], []),
    "dup_identical": ([S, S], [S, S]),
    "extra_call": ([S, F, L], [S, F]),
    "out_of_order": ([F, S], [S, F]),
    "arg_mismatch": ([ToolCall("search", {"q": "x", "k": 5})], [ToolCall("search", {"q": "y", "k": 5})]),
    "called_empty": ([], [S]),
    "expected_empty": ([S], []),
}
PEER_VALUES = {  # deepeval default, deepeval params, ragas F1, agentevals unordered, ADK EXACT/IN_ORDER/ANY
    "both_empty": (1.0, 1.0, 0.0, 1, (1, 1, 1)),
    "dup_identical": (0.5, 0.5, 1.0, 1, (1, 1, 1)),
    "extra_call": (1.0, 1.0, 0.8, 0, (0, 1, 1)),
    "out_of_order": (1.0, 1.0, 1.0, 1, (0, 0, 1)),
    "arg_mismatch": (1.0, 0.5, 0.0, 0, (0, 0, 0)),
    "called_empty": (0.0, 0.0, 0.0, 0, (0, 0, 0)),
    "expected_empty": (0.0, 0.0, 0.0, 0, (0, 1, 1)),
}


@pytest.mark.parametrize("name", sorted(QUIRKS))
def test_the_peers_values_on_the_known_quirks(name):
    c = case(*QUIRKS[name])
    deep, deep_params, f1, unordered, adk = PEER_VALUES[name]
    assert DeepevalToolCorrectness().evaluate(c).value == deep
    assert DeepevalToolCorrectness(evaluation_params=["input_parameters"]).evaluate(c).value == deep_params
    assert RagasToolCallF1().evaluate(c).value == f1
    assert AgentevalsTrajectory().evaluate(c).value == unordered
    assert tuple(AdkToolTrajectory(match_type=m).evaluate(c).value
                 for m in ("EXACT", "IN_ORDER", "ANY_ORDER")) == adk


def test_deepeval_collapse_depends_on_arguments_even_when_they_are_not_scored():
    a1, a2, a3 = (ToolCall("a", {"x": k}) for k in (1, 2, 3))
    metric = DeepevalToolCorrectness()
    score = metric.evaluate(case([a1, a1], [a1, a2]))
    assert score.value == 0.5
    assert "skipped as repeats" in score.reason
    assert metric.evaluate(case([a1, a3], [a1, a2])).value == 1.0
    # the LCS and exact modes do not collapse
    assert DeepevalToolCorrectness(should_consider_ordering=True).evaluate(case([a1, a1], [a1, a1])).value == 1.0
    assert DeepevalToolCorrectness(should_exact_match=True).evaluate(case([a1, a1], [a1, a1])).value == 1.0


def test_deepeval_partial_argument_credit_and_modes():
    assert compare_dicts({"x": 1, "y": {"u": 1, "v": 3}, "z": 0}, {"x": 1, "y": {"u": 1, "v": 2}}) == 0.5
    assert compare_dicts({}, {}) == 1.0
    params = DeepevalToolCorrectness(evaluation_params=["input_parameters"], should_consider_ordering=True)
    three = [ToolCall("a", {"x": 1}), ToolCall("b", {"x": 1, "y": 2}), ToolCall("c")]
    made = [ToolCall("a", {"x": 1}), ToolCall("b", {"x": 1, "y": 3}), ToolCall("c")]
    assert params.evaluate(case(made, three)).value == pytest.approx((1 + 0.5 + 1) / 3)
    exact = DeepevalToolCorrectness(evaluation_params=["input_parameters"], should_exact_match=True)
    score = exact.evaluate(case(made, three))
    assert score.value == 0.0 and "call #2" in score.reason and "input_parameters" in score.reason
    outputs = DeepevalToolCorrectness(evaluation_params=["output"])
    assert outputs.evaluate(case([ToolCall("a", output=1)], [ToolCall("a", output=2)])).value == 0.0
    assert outputs.evaluate(case([ToolCall("a", output=1)], [ToolCall("a", output=1.0)])).value == 1.0


def test_deepeval_strict_mode_forces_the_threshold_and_zeroes_the_rest():
    strict = DeepevalToolCorrectness(strict_mode=True)
    assert strict.threshold == 1.0
    score = strict.evaluate(case([S], [S, F]))
    assert (score.value, score.passed) == (0.0, False) and "strict_mode" in score.reason
    assert strict.evaluate(case([S, F], [S, F])).value == 1.0
    assert DeepevalToolCorrectness(strict_mode=True, threshold=1.0) == strict
    lower = DeepevalToolCorrectness(strict_mode=True, threshold=0.3).evaluate(case([S], [S, F]))
    assert (lower.value, lower.passed) == (0.0, False)  # zeroed below 1, whatever the threshold


def test_ragas_f1_is_over_sets_and_rounded():
    assert RagasToolCallF1().evaluate(case([S, S], [S])).value == 1.0
    two_of_three = RagasToolCallF1().evaluate(case([S, F, L], [S, F, ToolCall("other")]))
    assert two_of_three.value == round(2 / 3, 4) == 0.6667
    assert "missing: other" in two_of_three.reason and "not expected: log" in two_of_three.reason
    equal_numbers = case([ToolCall("a", {"x": 1, "l": [1, {"k": True}]})], [ToolCall("a", {"x": 1.0, "l": [1, {"k": 1}]})])
    assert RagasToolCallF1().evaluate(equal_numbers).value == 1.0
    assert RagasToolCallF1().evaluate(case([ToolCall("a", {"x": "1"})], [ToolCall("a", {"x": 1})])).value == 0.0
    assert "both sides are empty" in RagasToolCallF1().evaluate(case([], [])).reason


def test_ragas_accuracy_aligns_names_then_compares_arguments_as_text():
    accuracy, loose = RagasToolCallAccuracy(), RagasToolCallAccuracy(strict_order=False)
    assert accuracy.evaluate(case([], [])).value == 1.0  # where ragas' F1 gives 0.0
    assert accuracy.evaluate(case([S, F, L], [S, F])).value == 0.0  # an extra call misaligns
    assert accuracy.evaluate(case([F, S], [S, F])).value == 0.0
    assert loose.evaluate(case([F, S], [S, F])).value == 1.0
    text = case([ToolCall("fetch", {"id": "1", "n": 1})], [ToolCall("fetch", {"id": 1, "n": 1.0})])
    score = accuracy.evaluate(text)
    assert score.value == 0.5 and "fetch(id=1, n=1.0) (#1) 0.50" in score.reason  # "1" == 1, 1 != 1.0 as text
    assert accuracy.evaluate(case([ToolCall("log", {"x": 1})], [ToolCall("log")])).value == 0.0
    assert accuracy.evaluate(case([ToolCall("log", {"x": 1})], [ToolCall("log", {"y": 1})])).value == 0.0
    misaligned = accuracy.evaluate(case([F], [S]))
    assert "do not line up in order" in misaligned.reason


def test_mlflow_refuses_no_expected_calls_and_compares_sets_and_json_text():
    unordered, ordered = MlflowToolCallCorrectness(), MlflowToolCallCorrectness(should_consider_ordering=True)
    with pytest.raises(InvalidCaseError, match="no expected calls. MLflow reads an empty expected list"):
        unordered.evaluate(case([S], []))
    multiset = case([S, S, F], [S, F, F])
    assert unordered.evaluate(multiset).value == 1.0 and "repeated differently" in unordered.evaluate(multiset).reason
    assert ordered.evaluate(multiset).value == 0.0
    assert unordered.evaluate(case([F, S], [S, F])).value == 1.0 and ordered.evaluate(case([F, S], [S, F])).value == 0.0
    assert unordered.evaluate(case([S, F, L], [S, F])).value == 0.0
    as_json = case([ToolCall("fetch", {"id": 1})], [ToolCall("fetch", {"id": 1.0})])
    assert unordered.evaluate(as_json).value == 0.0
    assert MlflowToolCallCorrectness(compare_arguments=False).evaluate(as_json).value == 1.0
    odd = case([ToolCall("fetch", {"id": {1, 2}})], [ToolCall("fetch", {"id": 1})])
    with pytest.raises(InvalidCaseError, match="cannot write as JSON"):
        unordered.evaluate(odd)


def test_agentevals_modes_first_fit_and_overrides():
    sq, s0 = ToolCall("s", {"q": 1}), ToolCall("s")
    # first-fit: the loose rule lets the first reference call take the wrong one
    greedy = AgentevalsTrajectory(trajectory_match_mode="superset", tool_args_match_mode="superset")
    assert greedy.evaluate(case([sq, s0], [s0, sq])).value == 0.0
    assert "first-fit" in greedy.evaluate(case([sq, s0], [s0, sq])).reason
    # subset: the argument rule runs with the sides swapped
    extra_arg = case([ToolCall("s", {"q": 1, "k": 2})], [sq])
    assert AgentevalsTrajectory(trajectory_match_mode="subset", tool_args_match_mode="subset").evaluate(extra_arg).value == 1.0
    assert AgentevalsTrajectory(trajectory_match_mode="subset", tool_args_match_mode="superset").evaluate(extra_arg).value == 0.0
    assert AgentevalsTrajectory(trajectory_match_mode="superset", tool_args_match_mode="superset").evaluate(extra_arg).value == 1.0
    assert AgentevalsTrajectory(trajectory_match_mode="subset").evaluate(case([], [S])).value == 1.0
    keys = AgentevalsTrajectory(tool_args_match_overrides={"s": ["q", "deep.k"]})
    assert keys.evaluate(case([ToolCall("s", {"q": 1, "deep": {"k": 2}, "z": 0})], [ToolCall("s", {"q": 1, "deep": {"k": 2}})])).value == 1.0
    assert keys.evaluate(case([ToolCall("s", {"q": 1, "deep": {"k": 3}})], [ToolCall("s", {"q": 1, "deep": {"k": 2}})])).value == 0.0
    rule = AgentevalsTrajectory(tool_args_match_overrides={"s": lambda out, ref: out.get("q") == ref.get("q")})
    assert rule.evaluate(case([ToolCall("s", {"q": 1, "z": 0})], [sq])).value == 1.0
    mixed = AgentevalsTrajectory(tool_args_match_mode="ignore", tool_args_match_overrides={"s": "exact"})
    assert not mixed.scores_from_names()
    assert mixed.evaluate(case([ToolCall("s", {"q": 2})], [sq])).value == 0.0


@pytest.mark.parametrize("bad, match", [
    ({"trajectory_match_mode": "strict"}, "message list"),
    ({"trajectory_match_mode": "ordered"}, "trajectory_match_mode must be one of"),
    ({"tool_args_match_mode": "fuzzy"}, "tool_args_match_mode must be one of"),
    ({"tool_args_match_overrides": [("s", "exact")]}, "must map tool names to overrides"),
])
def test_agentevals_refuses_what_it_cannot_reproduce(bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        AgentevalsTrajectory(**bad)


@pytest.mark.parametrize("metric, bad, match", [
    (DeepevalToolCorrectness, {"evaluation_params": ["context"]}, "evaluation_params may hold"),
    (DeepevalToolCorrectness, {"should_exact_match": 1}, "must be True or False"),
    (AdkToolTrajectory, {"match_type": "SOME_ORDER"}, "match_type must be one of"),
    (AdkToolTrajectory, {"ignore_args": "yes"}, "must be True or False"),
    (RagasToolCallAccuracy, {"strict_order": None}, "must be True or False"),
    (MlflowToolCallCorrectness, {"should_consider_ordering": "yes"}, "must be True or False"),
])
def test_parameters_are_checked(metric, bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        metric(**bad)


ALL_SIX = (DeepevalToolCorrectness(), DeepevalToolCorrectness(evaluation_params=["input_parameters"]),
           RagasToolCallF1(), RagasToolCallAccuracy(), AgentevalsTrajectory(),
           AgentevalsTrajectory(tool_args_match_mode="ignore"), AdkToolTrajectory(),
           AdkToolTrajectory(ignore_args=True))


@pytest.mark.parametrize("metric", ALL_SIX, ids=repr)
def test_unreadable_arguments_are_refused_in_every_mode_as_the_peers_refuse_them(metric):
    """deepeval's, ragas', agentevals' and ADK's call types take an object only,
    so the peer refuses such a call even where it compares names alone."""
    bad = case([ToolCall("search", raw_arguments="{q: oops")], [S])
    with pytest.raises(InvalidCaseError, match=r"called call #1 \(search\) has arguments that are not a JSON object"):
        metric.evaluate(bad)
    result = metric.evaluate_batch(ToolCallBatch.from_cases([case([S], [S]), bad]), errors="record")
    assert result.values[0] == 1.0 and math.isnan(result.values[1]) and 1 in result.errors


def test_adk_match_type_spellings_and_multi_invocation_sessions():
    assert AdkToolTrajectory(match_type="any_order").match_type == "ANY_ORDER"
    session = AgentTestCase(turns=[case([S], [S]), case([F], [S]), case([], [])])
    score = per_turn("adk_tool_trajectory", aggregate="mean").evaluate(session)
    assert score.value == pytest.approx(2 / 3) and not score.passed  # ADK: 0.667, FAILED at 1.0
    lenient = per_turn("adk_tool_trajectory", aggregate="mean", threshold=0.5).evaluate(session)
    assert lenient.passed


# -- batched equals single ----------------------------------------------------

_names = st.sampled_from(["a", "b", "c"])
_arguments = st.sampled_from([{}, {"x": 1}, {"x": 1.0}, {"x": True}, {"x": "1"}, {"x": 2}, {"x": 1, "y": 2},
                              {"y": {"u": 1, "v": 2}}, {"y": {"u": 1}}, {"x": [1, 2]}, None, None,
                              {"call": {"tool_name": "a"}}, {"call": {"tool_name": None}}])
_calls = st.lists(st.one_of(
    st.builds(lambda n, a, o: ToolCall(n, a, output=o), _names, _arguments, st.sampled_from([None, "ok", 1])),
    st.builds(lambda n, r: ToolCall(n, raw_arguments=r), _names,
              st.sampled_from(["{x: oops", "[]", '"x"', "0", "[1]"]))), max_size=5)
_cases = st.lists(st.builds(case, _calls, _calls), max_size=12)

def _same_x(first, second):
    """An override function of the user's (module-level, so the metric pickles)."""
    return first.get("x") == second.get("x")


def _truthy_x(first, second):
    """An override function returning what is not a bool: read by its truth value."""
    return first.get("x", 0) and "yes"


def _fails_on_y(first, second):
    """An override function that raises on some arguments."""
    if "y" in first:
        raise KeyError("no y here")
    return True


CONFIGS = [
    (DeepevalToolCorrectness, {}), (DeepevalToolCorrectness, {"evaluation_params": ["input_parameters", "output"]}),
    (DeepevalToolCorrectness, {"should_consider_ordering": True, "evaluation_params": ["input_parameters"]}),
    (DeepevalToolCorrectness, {"should_exact_match": True, "strict_mode": True}),
    (DeepevalToolCorrectness, {"strict_mode": True, "threshold": 0.5, "evaluation_params": ["input_parameters"]}),
    (RagasToolCallF1, {}), (RagasToolCallAccuracy, {}), (RagasToolCallAccuracy, {"strict_order": False}),
    (MlflowToolCallCorrectness, {}), (MlflowToolCallCorrectness, {"should_consider_ordering": True}),
    *[(AgentevalsTrajectory, {"trajectory_match_mode": t, "tool_args_match_mode": a})
      for t in ("unordered", "subset", "superset") for a in ("exact", "ignore", "superset")],
    *[(AdkToolTrajectory, {"match_type": m, "ignore_args": i})
      for m in ("EXACT", "IN_ORDER", "ANY_ORDER") for i in (False, True)],
    (AgentevalsTrajectory, {"tool_args_match_overrides": {"a": ["x"], "b": "ignore"}}),
    (AgentevalsTrajectory, {"trajectory_match_mode": "subset",
                            "tool_args_match_overrides": {"c": _same_x}}),
    (AgentevalsTrajectory, {"tool_args_match_overrides": {"a": _truthy_x, "b": _fails_on_y, "c": []}}),
    (AgentevalsTrajectory, {"tool_args_match_overrides": {"a": ("x",), "b": ["x", 1], "c": [""]}}),
    (MlflowToolCallCorrectness, {"compare_arguments": True}),
    (MlflowToolCallCorrectness, {"compare_arguments": False, "should_consider_ordering": True}),
]


@pytest.mark.parametrize("metric, params", CONFIGS)
@settings(max_examples=60, deadline=None)
@given(cases=_cases)
def test_batch_equals_single(metric, params, cases):
    """Every row of the batch as the case alone gives it: value, pass, reason,
    and refusal (unreadable arguments where they count; mlflow: no expected
    calls); and under errors="raise" the first refused row's error."""
    m = metric(**params)
    batch = ToolCallBatch.from_cases(cases)
    result = m.evaluate_batch(batch, errors="record")
    if result.errors:
        with pytest.raises(CaseEvaluationError) as raised:
            m.evaluate_batch(batch)
        assert result.errors[min(result.errors)] in str(raised.value)
    else:
        assert m.evaluate_batch(batch).values.tolist() == result.values.tolist()
    assert len(result) == len(cases)
    for row, c in enumerate(cases):
        try:
            single = m.evaluate(c)
        except (InvalidCaseError, UserFunctionError) as error:  # refused alike
            assert result.errors[row] == str(error) and math.isnan(result.values[row])
            continue
        assert row not in result.errors
        assert result.values[row] == single.value
        assert result.passed[row] == single.passed
        assert result.reason(row) == single.reason


@pytest.mark.parametrize("metric, params", CONFIGS)
def test_contract(metric, params):
    check_metric(metric, params)


def test_found_by_name_and_scored_on_the_bundled_tau2_runs():
    runs = example_cases()
    names = ["deepeval_tool_correctness", "ragas_tool_call_f1", "ragas_tool_call_accuracy",
             "agentevals_trajectory", "adk_tool_trajectory", "mlflow_tool_call_correctness"]
    result = evaluate(runs, metrics=names, errors="record")
    for name in names:
        assert len(result[name]) == len(runs) == 50
    no_expected = {row for row, run in enumerate(runs) if not run.expected_tool_calls}
    assert no_expected and set(result["mlflow_tool_call_correctness"].errors) == no_expected
    assert not any(result[name].errors for name in names[:-1])
    assert get_metric("adk_tool_trajectory", match_type="IN_ORDER").match_type == "IN_ORDER"


def test_a_batch_of_names_only_is_scored_where_names_decide_and_refused_elsewhere():
    names = ToolCallBatch.from_columns(tool_calls=[["a", "b"], []], expected_tool_calls=[["b", "a"], ["a"]])
    for metric in (RagasToolCallF1(), AdkToolTrajectory(), AgentevalsTrajectory()):
        assert not metric.scores_from_names()
        with pytest.raises(InvalidCaseError, match="holds tool names only. Fix: build it with ToolCallBatch.from_cases"):
            metric.evaluate_batch(names)
    for metric, want in ((AdkToolTrajectory(match_type="ANY_ORDER", ignore_args=True), [1.0, 0.0]),
                         (AgentevalsTrajectory(tool_args_match_mode="ignore"), [1.0, 0.0])):
        assert metric.scores_from_names()
        assert metric.evaluate_batch(names).values.tolist() == want
