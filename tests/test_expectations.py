"""Expectations and expectation_match: the matchers, the JSON form, the
optimal alignment (against a brute-force reference written here), the metric
single and batched, and its refusals."""

from __future__ import annotations

import itertools
import json
import math
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import (
    AgentTestCase,
    CaseEvaluationError,
    InvalidCaseError,
    MissingFieldError,
    ToolCallBatch,
    get_metric,
)
from agentmetrics.model._canonical import encode_fields
from agentmetrics._columnar._records import case_from_record
from agentmetrics.expectations._align import value_of
from agentmetrics.expectations import (
    LIMIT,
    AnyOrder,
    AnyValue,
    Call,
    Close,
    Either,
    Equals,
    Expectation,
    InOrder,
    Items,
    MayOmit,
    Object,
    OneOf,
    OptionalStep,
    Regex,
    Repeat,
    Text,
    align,
    expectation_from_json,
    matcher_from_json,
)

# -- matchers ---------------------------------------------------------------------


def test_equals_numbers_bools_and_nesting():
    assert Equals(1).matches(1.0) and not Equals(1, numbers="typed").matches(1.0)
    assert not Equals(1).matches(True) and not Equals(True).matches(1) and not Equals(0).matches(False)
    assert Equals({"a": [1, {"b": 2}]}).matches({"a": [1.0, {"b": 2}]})
    assert not Equals({"a": [1, {"b": 2}]}, numbers="typed").matches({"a": [1.0, {"b": 2}]})
    assert not Equals({"a": 1}).matches({"a": 1, "b": 2}) and not Equals([1, 2]).matches([2, 1])
    assert not Equals("1").matches(1) and not Equals(None).matches(0) and Equals(None).matches(None)
    assert not Equals(1).matches(float("nan"))


def test_the_other_matchers():
    assert OneOf(["NYC", "New York"]).matches("NYC") and not OneOf(["NYC"]).matches("nyc")
    assert AnyValue().matches(None) and not AnyValue().omittable and MayOmit(1).omittable
    assert Close(3.0, abs_tol=0.01).matches(3.005) and not Close(3.0, abs_tol=0.01).matches(3.02)
    assert Close(2).matches(2.0) and not Close(1).matches(True) and not Close(1).matches("1")
    assert Text("New York", ignore_case=True, ignore_whitespace=True).matches("newyork")
    assert not Text("New York", ignore_case=True).matches("newyork")
    assert Text("a.b-c", ignore_punctuation=True).matches("abc") and not Text("a").matches(1)
    assert Text("a b-c", ignore_punctuation=" -").matches("abc") and not Text("a:b", ignore_punctuation=" -").matches("ab")
    assert Regex(r"\d{4}").matches("2024") and not Regex(r"\d{4}").matches("20245")
    assert Object({"a": 1, "b": MayOmit(2)}).matches({"a": 1}) and not Object({"a": 1}).matches({"a": 1, "c": 3})
    assert Object({"a": 1}, extra="allow").matches({"a": 1, "c": 3})
    # unordered items pair optimally: a greedy pass would give 1 to the first matcher and fail
    assert Items([OneOf([1, 2]), 1], ordered=False).matches([1, 2])
    assert not Items([1, 1], ordered=False).matches([1, 2]) and not Items([1]).matches([1, 1])
    assert Items([1, 2]).matches([1, 2]) and not Items([1, 2]).matches([2, 1])


@pytest.mark.parametrize("bad, where", [
    (lambda: Equals(float("nan")), "Equals.value"), (lambda: Equals({1: 2}), "string keys"),
    (lambda: Equals(object()), "a JSON value"), (lambda: Equals(1, numbers="loose"), "Equals.numbers"),
    (lambda: OneOf([]), "at least one"), (lambda: OneOf([MayOmit(1)]), "MayOmit"),
    (lambda: MayOmit(MayOmit(1)), "MayOmit.inner"), (lambda: Close("x"), "Close.target"),
    (lambda: Close(1, abs_tol=-1), "Close.abs_tol"), (lambda: Regex("("), "valid regular expression"),
    (lambda: Text(3), "Text.value"), (lambda: Text("a", ignore_punctuation=""), "Text.ignore_punctuation"), (lambda: Object({"a": 1}, extra="maybe"), "Object.extra"),
    (lambda: Call(""), "Call.name"), (lambda: Call("a", ["x"]), "Call.arguments"),
    (lambda: Repeat(Call("a"), at_least=-1), "Repeat.at_least"),
    (lambda: Repeat(Call("a"), 2, 1), "Repeat.at_most"), (lambda: Either([Call("a")]), "two alternatives"),
    (lambda: Expectation("a"), "Expectation.steps"), (lambda: Expectation([Call("a")], never=[InOrder([])]),
                                                      "Expectation.never"),
    (lambda: Expectation([Call("a")], extra_calls="sometimes"), "Expectation.extra_calls"),
])
def test_construction_is_validated(bad, where):
    with pytest.raises(InvalidCaseError, match=where):
        bad()


@pytest.mark.parametrize("form, path", [
    ({"steps": [{"call": "a", "arguments": {"x": {"$close": "no"}}}]}, r"expectation\.steps\[0\]\.arguments\.x"),
    ({"steps": [{"call": "a"}, {"in_order": [{"call": "b", "argumnts": {}}]}]},
     r"expectation\.steps\[1\]\.in_order\[0\]: expected the options of call"),
    ({"steps": {"any_order": [{"cal": "a"}]}}, r"expectation\.steps\.any_order\[0\]: expected exactly one"),
    ({"steps": [{"call": "a", "arguments": {"x": {"$one_of": [1], "$any": True}}}]}, r"arguments\.x: expected one matcher key"),
    ({"steps": [{"call": "a", "arguments": {"x": {"$oneof": [1]}}}]}, r"arguments\.x: expected one matcher key"),
    ({"steps": [{"repeat": {"call": "a"}, "at_least": 3, "at_most": 2}]}, r"steps\[0\]: Repeat\.at_most"),
    ({"step": []}, r"expectation: expected the keys steps"),
    ({"steps": [], "never": [{"any_order": []}]}, r"expectation\.never\[0\]: expected a call pattern"),
    ([], r"expectation: expected an object"),
])
def test_json_errors_name_the_path(form, path):
    with pytest.raises(InvalidCaseError, match=path):
        expectation_from_json(form)


_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(-2, 2, allow_nan=False) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6)
_matchers = st.recursive(
    st.builds(Equals, _values) | st.builds(lambda v: Equals(v, numbers="typed"), _values)
    | st.just(AnyValue()) | st.builds(Close, st.integers(-5, 5), st.sampled_from([0, 0.5]))
    | st.builds(Text, st.text(max_size=4), st.booleans(), st.booleans(),
                st.booleans() | st.sampled_from([",.", " ,./-_*^"]))
    | st.builds(Regex, st.sampled_from([r"a+", r"\d*", r"$x"])),
    lambda inner: st.builds(OneOf, st.lists(inner, min_size=1, max_size=3))
    | st.builds(lambda d, e: Object(d, extra=e), st.dictionaries(st.sampled_from(["a", "$b", "c"]), inner, max_size=3),
                st.sampled_from(["forbid", "allow"]))
    | st.builds(lambda items, o: Items(items, ordered=o), st.lists(inner, max_size=3), st.booleans()),
    max_leaves=5)


@settings(max_examples=200, deadline=None)
@given(_matchers, st.booleans())
def test_matchers_round_trip_through_json_and_pickle(matcher, omit):
    matcher = MayOmit(matcher) if omit else matcher
    text = json.dumps(matcher.to_json())
    back = matcher_from_json(json.loads(text), "x")
    assert back == matcher and hash(back) == hash(matcher)
    assert pickle.loads(pickle.dumps(matcher)) == matcher


# -- the alignment against brute force ---------------------------------------------

_NAMES = ["a", "b", "c"]
_ARGS = [None, {"x": 1}, {"x": OneOf([1, 2])}, {"x": MayOmit(1)}, {"x": AnyValue()}]
_calls_pattern = st.builds(lambda n, a, e: Call(n, a, extra_arguments=e), st.sampled_from(_NAMES),
                           st.sampled_from(_ARGS), st.sampled_from(["forbid", "allow"]))
_steps = st.recursive(
    _calls_pattern | st.builds(lambda c, k, m: Repeat(c, k, None if m is None else max(k, 1) + m),
                               _calls_pattern, st.integers(0, 2), st.none() | st.integers(0, 1)),
    lambda inner: st.builds(InOrder, st.lists(inner, max_size=3)) | st.builds(AnyOrder, st.lists(inner, max_size=3))
    | st.builds(OptionalStep, inner) | st.builds(Either, st.lists(inner, min_size=2, max_size=2)),
    max_leaves=5)
_expectations = st.builds(Expectation, _steps, st.lists(_calls_pattern, max_size=1),
                          st.sampled_from(["forbid", "allow"]))
_made = st.lists(st.tuples(st.sampled_from(_NAMES + ["d"]),
                           st.sampled_from([{}, {"x": 1}, {"x": 2}, {"x": 1.0}, {"x": 1, "y": 0}])),
                 max_size=5)


def _slots(step, path, out):
    """The steps that take calls (Call, Repeat), each with its path."""
    if isinstance(step, (Call, Repeat)):
        out.append((path, step))
    elif isinstance(step, (InOrder, AnyOrder, Either)):
        for k, inner in enumerate(step.steps if not isinstance(step, Either) else step.alternatives):
            _slots(inner, f"{path}/{k}", out)
    else:
        _slots(step.step, f"{path}/o", out)


def _reference(expectation, calls):
    """Every assignment of each call to a slot or to none, kept when valid;
    the best value. Independent of the module: a plain enumeration."""
    slots = []
    _slots(expectation.steps, "", slots)
    forbidden = [i for i, c in enumerate(calls) if any(p.accepts(*c) for p in expectation.never)]

    def within(path, assignment):
        return [i for i, s in enumerate(assignment) if (s is not None and slots[s][0].startswith(path + "/"))
                or (s is not None and slots[s][0] == path)]

    def valid(step, path, assignment):
        if isinstance(step, Call):
            taken = within(path, assignment)
            return len(taken) <= 1 and all(step.accepts(*calls[i]) for i in taken)
        if isinstance(step, Repeat):
            taken = within(path, assignment)
            return ((step.at_most is None or len(taken) <= step.at_most)
                    and all(step.call.accepts(*calls[i]) for i in taken))
        if isinstance(step, OptionalStep):
            return valid(step.step, f"{path}/o", assignment)
        if isinstance(step, Either):
            used = [k for k in range(len(step.alternatives)) if within(f"{path}/{k}", assignment)]
            return len(used) <= 1 and all(valid(s, f"{path}/{k}", assignment)
                                          for k, s in enumerate(step.alternatives))
        parts = [within(f"{path}/{k}", assignment) for k in range(len(step.steps))]
        if isinstance(step, InOrder):
            for first, second in itertools.combinations(parts, 2):
                if first and second and max(first) >= min(second):
                    return False
        return all(valid(s, f"{path}/{k}", assignment) for k, s in enumerate(step.steps))

    def weight(step):
        if isinstance(step, Call):
            return 1
        if isinstance(step, Repeat):
            return step.at_least
        if isinstance(step, OptionalStep):
            return 0
        if isinstance(step, Either):
            return 1
        return sum(weight(s) for s in step.steps)

    def credit(step, path, assignment):
        if isinstance(step, Call):
            return 1.0 if within(path, assignment) else 0.0
        if isinstance(step, Repeat):
            return float(min(len(within(path, assignment)), step.at_least))
        if isinstance(step, OptionalStep):
            return 0.0
        if isinstance(step, Either):  # the alternative holding calls, else the best
            used = [k for k in range(len(step.alternatives)) if within(f"{path}/{k}", assignment)]
            best = 0.0
            for k, s in enumerate(step.alternatives):
                if used and k not in used:
                    continue
                w = weight(s)
                best = max(best, credit(s, f"{path}/{k}", assignment) / w if w else 1.0)
            return best
        return sum(credit(s, f"{path}/{k}", assignment) for k, s in enumerate(step.steps))

    total = weight(expectation.steps)
    best = None
    for assignment in itertools.product([None, *range(len(slots))], repeat=len(calls)):
        if not valid(expectation.steps, "", assignment):
            continue
        extra = (sum(1 for i, s in enumerate(assignment) if s is None and i not in forbidden)
                 if expectation.extra_calls == "forbid" else 0)
        denominator = total + extra + len(forbidden)
        c = credit(expectation.steps, "", assignment)
        value = c / denominator if denominator else 1.0
        best = value if best is None else max(best, value)
    return best


@settings(max_examples=500, deadline=None)
@given(_expectations, _made)
def test_the_alignment_is_optimal_against_brute_force(expectation, calls):
    found = align(expectation, calls)
    want = _reference(expectation, calls)
    assert math.isclose(found.value, want, rel_tol=0, abs_tol=1e-12), (found, want)
    assert found.value == value_of(expectation, calls)
    assert (found.value == 1.0) == (found.credit == found.weight and not found.extra and not found.forbidden)


_flat_expectations = st.builds(
    Expectation, st.builds(AnyOrder, st.lists(_calls_pattern, max_size=4)) | st.builds(
        lambda calls: InOrder([AnyOrder(calls)]), st.lists(_calls_pattern, max_size=4)),
    st.lists(_calls_pattern, max_size=2), st.sampled_from(["forbid", "allow"]))


@settings(max_examples=300, deadline=None)
@given(_flat_expectations, _made)
def test_one_group_in_any_order_is_a_matching_and_still_optimal(expectation, calls):
    """The shape of tau2 and BFCL's parallel answers takes a matching, not the
    general search: the same values as brute force, forbidden calls that
    patterns also accept included."""
    want = _reference(expectation, calls)
    assert math.isclose(align(expectation, calls).value, want, rel_tol=0, abs_tol=1e-12)
    assert math.isclose(value_of(expectation, calls), want, rel_tol=0, abs_tol=1e-12)


def test_a_large_group_in_any_order_is_scored_not_refused():
    group = Expectation(AnyOrder([Call("get", {"id": k % 3}) for k in range(12)]))
    calls = [("get", {"id": k % 3}) for k in range(30)]
    found = align(group, calls)
    assert found.credit == 12 and len(found.extra) == 18 and found.value == 12 / 30


def test_a_greedy_pairing_would_miss_it():
    # the first call fits both patterns; taking it for the first leaves the second unmet
    expectation = Expectation(AnyOrder([Call("a", {"x": AnyValue()}), Call("a", {"x": 1})]))
    assert align(expectation, [("a", {"x": 1}), ("a", {"x": 2})]).value == 1.0
    # in order: the parallel pair may come in either order inside the flow
    flow = Expectation([Call("search"), AnyOrder([Call("hold"), Call("rules")]), Call("book")])
    assert align(flow, [("search", {}), ("rules", {}), ("hold", {}), ("book", {})]).value == 1.0
    assert align(flow, [("search", {}), ("rules", {}), ("book", {}), ("hold", {})]).value == 0.75 * 4 / 5


def test_values_of_the_documented_rules():
    e = Expectation([Call("a"), OptionalStep(Call("log")), Repeat(Call("poll"), 2, 3)], never=[Call("drop")])
    assert align(e, [("a", {}), ("log", {}), ("poll", {}), ("poll", {})]).value == 1.0
    assert align(e, [("a", {}), ("poll", {})]).value == 2 / 3  # one of two polls
    assert align(e, [("a", {}), ("poll", {}), ("poll", {}), ("poll", {}), ("poll", {})]).value == 3 / 4  # one too many
    assert align(e, [("a", {}), ("poll", {}), ("poll", {}), ("drop", {})]).value == 3 / 4
    loose = Expectation([Call("a")], extra_calls="allow")
    assert align(loose, [("z", {}), ("a", {}), ("z", {})]).value == 1.0
    assert align(Expectation([]), []).value == 1.0 and align(Expectation([]), [("a", {})]).value == 0.0
    either = Expectation([Either([Call("x"), InOrder([Call("y"), Call("z")])])])
    assert align(either, [("y", {})]).value == 0.5 and align(either, [("x", {})]).value == 1.0


def test_a_case_too_large_to_align_exactly_is_refused():
    # keeping the best credit per set of calls bounds the work at 2**calls sets
    e = Expectation([AnyOrder([Repeat(Call("a"), 0), Call("a")])])
    assert align(e, [("a", {})] * 12).value == 1.0
    with pytest.raises(InvalidCaseError, match=f"more than {LIMIT:,} ways"):
        align(e, [("a", {})] * 19)


# -- the metric ---------------------------------------------------------------------

FLOW = {"steps": [{"call": "search", "arguments": {"city": {"$one_of": ["NYC", "New York"]}}},
                  {"any_order": [{"call": "hold"}, {"call": "rules"}]},
                  {"call": "book", "arguments": {"seat": {"$optional": "12A"}}}],
        "never": [{"call": "cancel"}]}


def _case(calls, expectation=FLOW, **fields):
    return AgentTestCase(tool_calls=calls, expectation=expectation, **fields)


def test_the_metric_scores_and_explains():
    metric = get_metric("expectation_match")
    good = _case([{"name": "search", "arguments": {"city": "NYC"}}, "rules", "hold", "book"])
    assert metric.evaluate(good).value == 1.0 and metric.evaluate(good).passed
    bad = _case([{"name": "search", "arguments": {"city": "Boston"}}, "hold", "rules",
                 {"name": "book", "arguments": {"seat": "3C"}}, "cancel"])
    score = metric.evaluate(bad)
    assert score.value == 2 / 7 and not score.passed  # 2 of 4 met; 2 calls unaccounted for, 1 forbidden
    assert "first unmet: steps.in_order[0] search(city=one of 'NYC', 'New York')" in score.reason
    assert "closest call: #1 search(city='Boston'): city='Boston' (expected one of 'NYC', 'New York')" in score.reason
    assert "forbidden calls made: #5 cancel" in score.reason


def test_batch_equals_single_and_refusals_are_rows():
    metric = get_metric("expectation_match")
    cases = [_case(["search", "hold"]), _case([{"name": "search", "arguments": {"city": "NYC"}}, "hold", "rules", "book"]),
             AgentTestCase(tool_calls=["a"], expected_tool_calls=["a"]),
             _case([{"name": "search", "raw_arguments": "{oops"}])]
    result = metric.evaluate_batch(ToolCallBatch.from_cases(cases), errors="record")
    assert len(result) == 4 and set(result.errors) == {2, 3}
    assert "expectation" in result.errors[2] and "not a JSON object" in result.errors[3]
    for row in (0, 1):
        single = metric.evaluate(cases[row])
        assert result.values[row] == single.value and result.reason(row) == single.reason
    with pytest.raises(CaseEvaluationError, match="case 2"):
        metric.evaluate_batch(ToolCallBatch.from_cases(cases))


def test_other_metrics_read_expected_tool_calls_and_refuse_an_expectation_alone():
    case = _case(["search"])
    metric = get_metric("tool_selection_accuracy")
    with pytest.raises(MissingFieldError, match="expected_tool_calls.*gives an expectation instead.*"
                                                 "expectation_match"):
        metric.evaluate(case)
    result = metric.evaluate_batch(ToolCallBatch.from_cases([case]), errors="record")
    assert "score it with expectation_match" in result.errors[0]
    again = pickle.loads(pickle.dumps(MissingFieldError("m", "expected_tool_calls", True)))
    assert "expectation_match" in str(again)


def test_a_case_file_holds_the_json_form_and_the_cache_key_tells_expectations_apart():
    case = case_from_record({"id": "c1", "tool_calls": ["search"], "expectation": FLOW})
    assert case.expectation == expectation_from_json(FLOW) and case.metadata["id"] == "c1"
    with pytest.raises(InvalidCaseError, match=r"AgentTestCase\.expectation\.steps\[0\]"):
        case_from_record({"tool_calls": [], "expectation": {"steps": [{"cal": "x"}]}})
    one = Expectation([Call("a", {"x": Equals(1, numbers="typed")})])
    other = Expectation([Call("a", {"x": Equals(1.0, numbers="typed")})])
    keys = {encode_fields(("expectation",), [e]) for e in (one, other, Expectation([Call("a", {"x": 1})]))}
    assert len(keys) == 3 and one != other
    assert encode_fields(("expectation",), [one]) == encode_fields(("expectation",), [pickle.loads(pickle.dumps(one))])


def test_an_unreadable_row_stays_its_own_error_row():
    from agentmetrics import UnreadableCase, evaluate

    rows = [UnreadableCase("cases.jsonl", 1, "line 1: not JSON"), _case(["search"]),
            AgentTestCase(tool_calls=["search"])]
    result = evaluate(rows, ["expectation_match"], errors="record", progress=False)["expectation_match"]
    assert len(result) == 3 and result.errors[0] == "line 1: not JSON"
    assert 1 not in result.errors and "requires the test case field 'expectation'" in result.errors[2]


def test_the_cache_never_serves_a_score_for_another_expectation(tmp_path):
    from agentmetrics import evaluate

    cache = tmp_path / "scores.sqlite"
    calls = [{"name": "a", "arguments": {"x": 1}}]
    first = [_case(calls, {"steps": [{"call": "a", "arguments": {"x": 1}}]})]
    second = [_case(calls, {"steps": [{"call": "a", "arguments": {"x": {"$equals": 1.0, "numbers": "typed"}}}]}),
              _case(calls, {"steps": [{"call": "a", "arguments": {"x": 1.0}}]})]
    assert evaluate(first, ["expectation_match"], cache=cache, progress=False)["expectation_match"].values.tolist() == [1.0]
    again = evaluate(second, ["expectation_match"], cache=cache, progress=False)
    # typed 1.0 refuses the call's 1 (0 of 1 met, the call unaccounted for); 1.0 accepts it
    assert again["expectation_match"].values.tolist() == [0.0, 1.0]
    mixed = evaluate(second[:1] + first, ["expectation_match"], cache=cache, progress=False)
    assert mixed["expectation_match"].values.tolist() == [0.0, 1.0]
    # the batch path scores without the cache today; the keys it would use tell the cases apart
    from agentmetrics.engine._cache import case_keys

    keys = case_keys(get_metric("expectation_match"), first + second)
    assert len(set(keys)) == 3 and None not in keys


def _metrics_reading_expected_calls():
    import agentmetrics
    from agentmetrics.registry import get_metric_class

    return [info.name for info in agentmetrics.list_metrics()
            if "expected_tool_calls" in get_metric_class(info.name).required_fields]


@pytest.mark.parametrize("name", _metrics_reading_expected_calls())
def test_every_metric_reading_expected_calls_refuses_an_expectation_alone_and_says_so(name):
    from agentmetrics import evaluate

    metric = get_metric(name)
    case = _case([{"name": "search", "arguments": {"city": "NYC"}}])
    with pytest.raises(MissingFieldError, match="expectation_match"):
        metric.evaluate(case)
    plain = AgentTestCase(tool_calls=[{"name": "a", "output": 1}], expected_tool_calls=[{"name": "a", "output": 1}])
    result = evaluate([case, plain],
                      [metric], errors="record", progress=False)[metric.name]
    assert len(result) == 2 and "expectation_match" in result.errors[0] and 1 not in result.errors


def test_a_forbidden_call_is_not_taken_for_a_step_another_call_can_meet():
    # both calls fit the step; taking the forbidden one would leave the other unaccounted for
    e = Expectation(AnyOrder([Call("a")]), never=[Call("a", {"x": 1})])
    assert align(e, [("a", {"x": 1}), ("a", {"x": 2})]).value == 0.5  # 1 / (1 step + 1 forbidden), not 1/3
    assert value_of(e, [("a", {"x": 1}), ("a", {"x": 2})]) == 0.5


def test_the_command_line_scores_expectations_in_a_case_file_one_row_per_line(tmp_path, capsys):
    from agentmetrics.cli import main

    lines = [
        {"id": "t1", "tool_calls": [{"name": "poll", "arguments": {}}] * 2,
         "expectation": {"steps": [{"repeat": {"call": "poll"}, "at_least": 1, "at_most": 3}],
                         "never": [{"call": "delete_user"}]}},
        {"id": "t2", "tool_calls": ["delete_user"], "expectation": {"steps": [{"call": "poll"}]}},
        {"id": "t3", "tool_calls": [], "expectation": {"steps": [{"cal": "poll"}]}},
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(map(json.dumps, lines)) + "\nnot json\n", encoding="utf-8")
    for reader in ("auto", "lines"):
        main(["evaluate", str(path), "--metric", "expectation_match", "--errors", "record",
              "--format", "jsonl", "--reader", reader])
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
        assert [(r["id"], r["value"]) for r in rows] == [("t1", 1.0), ("t2", 0.0), ("t3", None), (None, None)]
        assert "cases.jsonl:3: AgentTestCase.expectation.steps[0]" in rows[2]["error"]
        assert "first unmet: steps.in_order[0] poll" in rows[1]["reason"]
