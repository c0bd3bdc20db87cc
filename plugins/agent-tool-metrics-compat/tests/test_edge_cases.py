"""The peers' edge cases (issue 31): absent arguments, arguments that are not an
object, MLflow's tool names and arguments, agentevals' overrides, user
functions that fail, and deepeval's hash-seed ties. The values are the peers'
own, recorded from deepeval 4.3.1, ragas 0.4.3, agentevals 0.0.9, google-adk
2.13.0 and mlflow 3.17.2 (test_against_peers.py checks the same categories
against the installed peers on generated cases)."""

from __future__ import annotations

import doctest
import math
import pickle
import warnings

import pytest

from agentmetrics import (
    AgentMetricsWarning,
    AgentTestCase,
    InvalidCaseError,
    ToolCall,
    ToolCallBatch,
    UserFunctionError,
    get_metric,
)
from agentmetrics_compat import (
    AdkToolTrajectory,
    AgentevalsTrajectory,
    DeepevalToolCorrectness,
    MlflowToolCallCorrectness,
    RagasToolCallAccuracy,
    RagasToolCallF1,
    mlflow_expected_calls,
    mlflow_tool_call,
)
from agentmetrics_compat import _mlflow


def case(called, expected):
    return AgentTestCase(tool_calls=called, expected_tool_calls=expected)


NONE, EMPTY, X1 = ToolCall("a", None), ToolCall("a", {}), ToolCall("a", {"x": 1})
IP = ["input_parameters"]


def value(metric, c):
    """The value, or "E" where the metric refuses the case (single and batched alike)."""
    batched = metric.evaluate_batch(ToolCallBatch.from_cases([c]), errors="record")
    try:
        single = metric.evaluate(c).value
    except (InvalidCaseError, UserFunctionError) as error:
        assert batched.errors[0] == str(error) and math.isnan(batched.values[0])
        return "E"
    assert batched.values[0] == single and not batched.errors
    return single


# -- absent arguments: ToolCall(name, None) is not ToolCall(name, {}) -------------

def test_a_call_keeps_no_arguments_apart_from_empty_ones():
    assert not NONE.arguments_given and EMPTY.arguments_given and ToolCall("a").arguments_given
    assert NONE.arguments == {} and NONE == EMPTY  # equality and native metrics read both as none
    assert repr(NONE) == "ToolCall('a', None)" and repr(EMPTY) == "ToolCall('a', {})"
    assert not pickle.loads(pickle.dumps(NONE)).arguments_given
    read = AgentTestCase(tool_calls=[{"name": "a", "arguments": None}, {"name": "a"}, "a",
                                     {"name": "a", "arguments": {}}])
    assert [call.arguments_given for call in read.tool_calls] == [False, True, True, True]


# (called, expected) -> each peer's value; "E" where the peer refuses the case.
ABSENT = {
    "n01 a({}) vs a(null)": ([EMPTY], [NONE]),
    "n03 a(null) vs a(null)": ([NONE], [NONE]),
    "n04 [a({}), a(null)] vs [a(null), a({})]": ([EMPTY, NONE], [NONE, EMPTY]),
    "n05 [a(null), a({})] twice": ([NONE, EMPTY], [NONE, EMPTY]),
    "n08 a(x=1) vs a(null)": ([X1], [NONE]),
}
PEERS = {  # deepeval default, deepeval ip, deepeval exact ip, ragas F1, agentevals, ADK EXACT, ADK ANY, MLflow
    "n01 a({}) vs a(null)": (1.0, "E", 0.0, "E", "E", 0.0, 0.0, 1.0),
    "n03 a(null) vs a(null)": (1.0, 1.0, 1.0, "E", "E", 1.0, 1.0, 1.0),
    "n04 [a({}), a(null)] vs [a(null), a({})]": (1.0, "E", 0.0, "E", "E", 0.0, 1.0, 1.0),
    "n05 [a(null), a({})] twice": (1.0, "E", 1.0, "E", "E", 1.0, 1.0, 1.0),
    "n08 a(x=1) vs a(null)": (1.0, "E", 0.0, "E", "E", 0.0, 0.0, 1.0),
}


@pytest.mark.parametrize("name", sorted(ABSENT))
def test_absent_arguments_as_each_peer_treats_them(name):
    c = case(*ABSENT[name])
    metrics = (DeepevalToolCorrectness(), DeepevalToolCorrectness(evaluation_params=IP),
               DeepevalToolCorrectness(evaluation_params=IP, should_exact_match=True),
               RagasToolCallF1(), AgentevalsTrajectory(tool_args_match_mode="ignore"),
               AdkToolTrajectory(), AdkToolTrajectory(match_type="ANY_ORDER"),
               MlflowToolCallCorrectness())
    assert tuple(value(m, c) for m in metrics) == PEERS[name]


def test_refusals_of_absent_arguments_say_what_the_peer_does():
    with pytest.raises(InvalidCaseError, match=r"AttributeError: 'NoneType' object has no attribute 'keys'"):
        DeepevalToolCorrectness(evaluation_params=IP).evaluate(case([EMPTY], [NONE]))
    with pytest.raises(InvalidCaseError, match=r"expected call #1 \(a\) has no arguments given \(null\).*ragas"):
        RagasToolCallAccuracy().evaluate(case([EMPTY], [NONE]))
    with pytest.raises(InvalidCaseError, match=r"in every mode"):
        AgentevalsTrajectory(tool_args_match_mode="ignore").evaluate(case([NONE], [EMPTY]))
    exact = DeepevalToolCorrectness(evaluation_params=IP, should_exact_match=True)
    assert "None, against {}" in exact.evaluate(case([EMPTY], [NONE])).reason


def test_deepeval_greedy_pairs_absent_and_empty_as_different_calls():
    # deepeval's set of used calls holds a({}); a(None) is not equal to it, so it is not skipped
    assert DeepevalToolCorrectness().evaluate(case([EMPTY, NONE], [NONE, EMPTY])).value == 1.0
    # two equal calls still collapse
    assert DeepevalToolCorrectness().evaluate(case([NONE, NONE], [NONE, NONE])).value == 0.5


def test_mlflow_compares_by_name_when_an_expected_call_has_no_arguments():
    metric = MlflowToolCallCorrectness()
    b = ToolCall("b", {})
    # one expected call without arguments turns argument comparison off for the whole case
    assert metric.evaluate(case([ToolCall("a", {"x": 1}), b], [ToolCall("a", {"x": 2}), ToolCall("b", None)])).value == 1.0
    assert "by name" in metric.evaluate(case([X1], [NONE])).reason
    assert metric.evaluate(case([ToolCall("a", {"x": 1}), b], [ToolCall("a", {"x": 2}), b])).value == 0.0
    assert MlflowToolCallCorrectness(compare_arguments=True).evaluate(case([X1], [NONE])).value == 0.0
    assert MlflowToolCallCorrectness(compare_arguments=False).evaluate(case([X1], [EMPTY])).value == 1.0
    # the calls made: absent and empty arguments alike
    assert metric.evaluate(case([NONE], [EMPTY])).value == 1.0


# -- MLflow reads the calls made as its traces hold them -----------------------------

def test_mlflow_takes_the_tool_name_from_the_call_argument():
    metric = MlflowToolCallCorrectness()
    named = ToolCall("fetch", {"call": {"tool_name": "search"}})
    assert metric.evaluate(case([named], [ToolCall("search", {"call": {"tool_name": "search"}})])).value == 1.0
    assert metric.evaluate(case([named], [ToolCall("search", None)])).value == 1.0
    assert metric.evaluate(case([named], [ToolCall("fetch", {"call": {"tool_name": "search"}})])).value == 0.0
    assert metric.evaluate(case([ToolCall("fetch", {"call": {"tool_name": "s", "x": 1}})],
                                [ToolCall("s", None)])).value == 1.0
    # a null tool_name matches no expected name; a non-text one is refused, as MLflow refuses it
    assert metric.evaluate(case([ToolCall("fetch", {"call": {"tool_name": None}})], [ToolCall("fetch", None)])).value == 0.0
    with pytest.raises(InvalidCaseError, match="refuses one that is not text"):
        metric.evaluate(case([ToolCall("fetch", {"call": {"tool_name": 5}})], [ToolCall("fetch", None)]))
    # other shapes keep the call's own name; the expected side is taken as given
    for arguments in ({"call": {}}, {"call": "search"}, {"tool_name": "search"}):
        assert metric.evaluate(case([ToolCall("fetch", arguments)], [ToolCall("fetch", None)])).value == 1.0


@pytest.mark.parametrize("raw, compared, names_only", [
    ("[]", 1.0, 1.0),          # stored as [], read back as no arguments
    ('""', 1.0, 1.0),          # "" likewise
    ('"x"', "E", 1.0),         # text: refused where arguments are compared
    ("0", "E", 1.0),
    ("not json", "E", 1.0),
    ("[1]", "E", "E"),         # a list: MLflow's FunctionCall refuses it, always
])
def test_mlflow_reads_arguments_that_are_not_an_object_as_its_store_gives_them_back(raw, compared, names_only):
    c = case([ToolCall("a", raw_arguments=raw)], [EMPTY])
    assert value(MlflowToolCallCorrectness(), c) == compared
    assert value(MlflowToolCallCorrectness(), case(c.tool_calls, [NONE])) == names_only
    # expected arguments that are not an object: MLflow refuses the case
    assert value(MlflowToolCallCorrectness(), case([EMPTY], [ToolCall("a", raw_arguments=raw)])) == "E"


def test_mlflow_lengths_decide_before_arguments_are_read():
    # MLflow says "no" on the counts before it reads the arguments it would refuse
    c = case([ToolCall("a", raw_arguments="x"), EMPTY], [EMPTY])
    assert MlflowToolCallCorrectness().evaluate(c).value == 0.0


def test_mlflow_refuses_what_it_cannot_store():
    with pytest.raises(InvalidCaseError, match="lone surrogate"):
        MlflowToolCallCorrectness().evaluate(case([ToolCall("a", {"q": "\ud800"})], [ToolCall("a", {"q": "x"})]))


# -- MLflow's own inputs (issue 48): a TOOL span's inputs, its expectations' calls -------

@pytest.mark.parametrize("inputs, against_empty, against_none", [
    ("", 1.0, 1.0), ([], 1.0, 1.0), ((), 1.0, 1.0),  # MLflow's `inputs or None`: no arguments
    ("[]", 1.0, 1.0), ('""', 1.0, 1.0),              # stored as is, read back decoded: empty
    ("x", "E", 1.0), ("null", "E", 1.0), ("0", "E", 1.0),  # text: by name only
    ('{"x": 1}', 0.0, 1.0),                          # the JSON of an object: that object
    ([1], "E", "E"), ([{"x": 1}], "E", "E"),        # a non-empty list: FunctionCall refuses it
    (None, 1.0, 1.0), ({}, 1.0, 1.0), ({"x": 1}, 0.0, 1.0),
])
def test_mlflow_tool_call_reads_a_spans_inputs_as_mlflow_does(inputs, against_empty, against_none):
    """The values mlflow 3.17.2 gives a trace whose TOOL span has these inputs,
    against an expected call with {} and with no arguments."""
    made = [mlflow_tool_call("a", inputs, output="ok")]
    assert made[0].output == "ok"
    assert value(MlflowToolCallCorrectness(), case(made, [EMPTY])) == against_empty
    assert value(MlflowToolCallCorrectness(), case(made, [NONE])) == against_none
    if inputs is not None and not isinstance(inputs, dict):  # kept as malformed for the other metrics
        assert not made[0].arguments_valid
        assert value(RagasToolCallF1(), case(made, [EMPTY])) == "E"


@pytest.mark.parametrize("inputs", [0, 0.0, False, 1, True, 2.5, b"x"])
def test_mlflow_tool_call_refuses_a_number_as_inputs(inputs):
    # MLflow reads 0, 0.0 and false as no arguments and refuses the others: a documented difference
    with pytest.raises(InvalidCaseError, match=r"^mlflow_tool_call: the inputs of the call of 'a' are .*Fix: pass None"):
        mlflow_tool_call("a", inputs)


def test_mlflow_expected_calls_read_left_out_arguments_as_mlflow_does():
    made = [ToolCall("search", {"q": "x"}), ToolCall("log", {"n": 1})]
    expectations = [{"name": "search", "arguments": {"q": "y"}}, {"name": "log"}]
    calls = mlflow_expected_calls(expectations)
    assert calls == [ToolCall("search", {"q": "y"}), ToolCall("log", None)] and not calls[1].arguments_given
    assert MlflowToolCallCorrectness().evaluate(case(made, calls)).value == 1.0  # mlflow 3.17.2: "yes", by name
    # the same mappings straight to AgentTestCase: "log" has empty arguments, which are compared
    assert MlflowToolCallCorrectness().evaluate(case(made, expectations)).value == 0.0
    assert mlflow_expected_calls([{"name": "a", "arguments": None, "outputs": 1, "exception": None}]) == [NONE]


@pytest.mark.parametrize("expected, message", [
    ([{"name": "a", "arguments": []}], r"expected_tool_calls\[0\] \('a'\) has arguments of type list; MLflow refuses"),
    ([{"name": "a", "arguments": ""}], r"of type str; MLflow refuses them \(\"Arguments must be a dict\"\)"),
    ([{"name": "a"}, "b"], r"expected_tool_calls\[1\] is str; expected a mapping"),
    ([{"name": ""}], r"expected_tool_calls\[0\]: ToolCall.name: expected a non-empty str"),
    ([{"arguments": {}}], r"expected_tool_calls\[0\]: ToolCall.name: expected a non-empty str, got NoneType"),
    ({"expected_tool_calls": []}, r"expected a list of expected calls, got dict. Fix: pass expectations"),
])
def test_mlflow_expected_calls_refuse_what_mlflow_refuses_and_blank_names(expected, message):
    with pytest.raises(InvalidCaseError, match=message):
        mlflow_expected_calls(expected)


def test_mlflow_reason_says_where_compare_arguments_overrides_mlflows_rule():
    made = [ToolCall("a", {"x": 1}), ToolCall("b", {})]
    one_without = [ToolCall("a", {"x": 2}), ToolCall("b", None)]
    compared = MlflowToolCallCorrectness(compare_arguments=True).evaluate(case(made, one_without))
    assert compared.value == 0.0  # MLflow says "yes" here (by name), and "no" with b's arguments written {}
    assert compared.reason.endswith("(arguments compared, as compare_arguments=True asks; MLflow compares "
                                    "this case by name: an expected call has no arguments given)")
    named = MlflowToolCallCorrectness(compare_arguments=False).evaluate(
        case(made, [ToolCall("a", {"x": 2}), ToolCall("b", {})]))
    assert named.value == 1.0 and named.reason.endswith(" by name (compare_arguments=False; MLflow compares "
                                                        "arguments here)")
    # where MLflow's rule agrees, the reason is as before
    assert MlflowToolCallCorrectness(compare_arguments=False).evaluate(case(made, one_without)).reason.endswith(
        " by name")
    assert "MLflow" not in MlflowToolCallCorrectness(compare_arguments=True).evaluate(case(made, made)).reason


def test_mlflow_reason_names_only_the_side_that_differs():
    # the same length, the same calls but for repeats on one side: one set holds a call the other lacks
    reason = MlflowToolCallCorrectness().evaluate(case([ToolCall("a"), ToolCall("b")], [ToolCall("a")] * 2)).reason
    assert reason == "no: not expected b({})"


def test_mlflow_docstring_examples():
    failures, attempted = doctest.testmod(_mlflow, optionflags=doctest.ELLIPSIS)
    assert attempted and not failures


# -- agentevals' overrides, as agentevals reads them -----------------------------------

S1, S2 = ToolCall("search", {"q": 1}), ToolCall("search", {"q": 2})
OVERRIDE_CASES = [case([S1], [S2]), case([S1], [S1]), case([S1, S2], [ToolCall("search", {"q": 3})]),
                  case([], []), case([ToolCall("other", {"q": 1})], [ToolCall("other", {"q": 2})]),
                  case([S1], [ToolCall("search", {"q": 1, "r": 2})])]


def _truthy(first, second):
    return 1 if first == second else 0


def _yes(first, second):
    return "yes"


def _raises(first, second):
    raise RuntimeError("my comparison broke")


@pytest.mark.parametrize("override, want", [
    ([], (0, 1, 0, 1, 0, 0)), ("", (0, 1, 0, 1, 0, 0)), (None, (0, 1, 0, 1, 0, 0)),  # = no override
    ("bogus", (1, 1, 0, 1, 0, 1)), ("EXACT", (1, 1, 0, 1, 0, 1)),                      # = ignore
    (["q"], (0, 1, 0, 1, 0, 1)), (["missing"], (1, 1, 0, 1, 0, 1)), ([""], (1, 1, 0, 1, 0, 1)),
    (["q", 1], (0, "E", 0, 1, 0, "E")),       # the bad path is reached only when q matches
    ({"q": 1}, ("E", "E", "E", 1, 0, "E")),   # refused where a search call is compared
    (("q",), ("E", "E", "E", 1, 0, "E")),     # a tuple is not a list for agentevals
    (_truthy, (0, 1, 0, 1, 0, 0)), (_yes, (1, 1, 0, 1, 0, 1)),
])
def test_agentevals_overrides_as_agentevals_reads_them(override, want):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AgentMetricsWarning)
        metric = AgentevalsTrajectory(tool_args_match_overrides={"search": override})
    assert tuple(value(metric, c) for c in OVERRIDE_CASES) == want


def test_an_unknown_override_mode_warns_that_it_ignores_the_arguments():
    with pytest.warns(AgentMetricsWarning, match="agentevals reads it as 'ignore'"):
        AgentevalsTrajectory(tool_args_match_overrides={"search": "EXACT"})


def test_a_users_function_that_raises_is_an_error_row_naming_it_not_a_metric_bug():
    metric = AgentevalsTrajectory(tool_args_match_overrides={"search": _raises})
    result = metric.evaluate_batch(ToolCallBatch.from_cases(OVERRIDE_CASES), errors="record")
    message = result.errors[0]
    assert "your function _raises (" in message and "test_edge_cases.py" in message
    assert "RuntimeError: my comparison broke" in message and "metric bug" not in message
    assert 3 not in result.errors and result.values[3] == 1.0  # a case that never calls it
    with pytest.raises(UserFunctionError) as raised:
        metric.evaluate(OVERRIDE_CASES[0])
    assert isinstance(raised.value.__cause__, RuntimeError)


@pytest.mark.parametrize("metric", [
    lambda: get_metric("argument_accuracy", rules={"q": _raises}),
    lambda: get_metric("trajectory_match", args=_raises),
], ids=["argument_accuracy", "trajectory_match"])
def test_every_metric_that_takes_a_users_function_names_it_when_it_fails(metric):
    result = metric().evaluate_batch(ToolCallBatch.from_cases([case([S1], [S2])]), errors="record")
    assert "your function _raises (" in result.errors[0] and "metric bug" not in result.errors[0]


def test_argument_accuracy_names_a_function_that_returns_what_it_cannot_use():
    metric = get_metric("argument_accuracy", rules={"q": lambda got, want: "maybe"})
    result = metric.evaluate_batch(ToolCallBatch.from_cases([case([S1], [S2])]), errors="record")
    assert "returned str 'maybe'; expected a bool or a number in [0, 1]" in result.errors[0]
    assert "metric bug" not in result.errors[0]


# -- deepeval's hash-seed ties --------------------------------------------------------

def test_deepeval_ties_are_deterministic_here():
    """deepeval sums partial credit over a set, so a tie between two candidates
    is broken by the process's hash seed: 0.9583, 0.875 or 0.8749999999999999
    for this case there (docs/metrics/deepeval_tool_correctness.md); here the
    expected call's key order decides, always 0.875."""
    def n(x):
        return {"u": 1, "v": 1, "w": 1, "x": x}
    expected = [ToolCall("s", {"a": 1, "b": n(1), "c": n(1)}), ToolCall("s", {"a": 1, "b": n(1), "c": n(2)})]
    called = [ToolCall("s", {"a": 1, "b": n(1), "c": n(2)}), ToolCall("s", {"a": 1, "b": n(2), "c": n(1)})]
    assert DeepevalToolCorrectness(evaluation_params=IP).evaluate(case(called, expected)).value == 0.875
