"""Call keys (``ToolCallBatch.call_keys``): two calls share a key id exactly
when the metric's Python equality says they are equal (checked against
``AdkToolTrajectory._same`` on generated calls with tricky arguments), from
every source (cases, plain records with cases not built, records partly read
the reference way, a reader's argument columns), and ADK's metric on keys
against its single-case ``evaluate`` and its case-by-case batch path."""

from __future__ import annotations

import copy
import json
import math
from itertools import chain, product

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentmetrics import (
    AgentTestCase,
    CaseEvaluationError,
    InvalidCaseError,
    MissingFieldError,
    ToolCall,
    ToolCallBatch,
)
from agentmetrics.batch import CallArguments, case_values, row_lcs

compat = pytest.importorskip("agentmetrics_compat")
AdkToolTrajectory = compat.AdkToolTrajectory
AgentevalsTrajectory = compat.AgentevalsTrajectory

NAN = json.loads("NaN")  # the one NaN object json gives: equal to itself inside a dict
_scalars = st.one_of(
    st.integers(-2, 2),
    st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5, 1e300, float(2**53), 2**53, 2**53 + 1, 10**400,
                     True, False, None, "", "a", "1", NAN, math.inf, -math.inf]),
    st.floats(),  # fresh NaN objects among them: equal to nothing, not even one another
    st.text(max_size=2),
)
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b"]), inner, max_size=2)),
    max_leaves=6)
_arguments = st.dictionaries(st.sampled_from(["x", "y", "z"]), _values, max_size=3)


_OUTPUTS = [None, None, "ok", 1, 1.0, True, {"r": [1, 2]}, {"r": [1.0, 2]}]
_EVERY_KIND = ("args", "args", "args", "none", "default", "raw", "tuple", "hidden", "subclass")
#: Calls every metric on keys scores from the keys (none left to measure).
_KEYED_KINDS = ("args", "args", "default")
#: Keyed calls and calls given no arguments (which some metrics refuse, and
#: trajectory_match takes as {}).
_GIVEN_OR_NOT = ("args", "default", "none")
#: Batches of every kind of call, of keyed calls only, of keyed and not-given ones.
_ANY_CASES = st.one_of(st.deferred(lambda: _cases()), st.deferred(lambda: _cases(_KEYED_KINDS)),
                       st.deferred(lambda: _cases(_GIVEN_OR_NOT)))


@st.composite
def _call(draw, kinds=_EVERY_KIND):
    name = draw(st.sampled_from(["a", "b"]))
    kind = draw(st.sampled_from(kinds))
    if kind == "args":
        return ToolCall(name, draw(_arguments), output=draw(st.sampled_from(_OUTPUTS)))
    if kind == "none":
        return ToolCall(name, None)
    if kind == "default":
        return ToolCall(name)
    if kind == "raw":
        return ToolCall(name, raw_arguments=draw(st.sampled_from(["", "{x", "[1]"])))
    if kind == "tuple":  # a value with no key (a tuple is never == a list)
        return ToolCall(name, {"x": draw(st.sampled_from([(1,), (1, 2), ()]))})
    if kind == "hidden":  # given=False by hand, holding arguments
        return ToolCall(name, {"x": 1}, arguments_given=False)
    return ToolCall(name, {"x": draw(st.sampled_from([_Str("v"), _Float(1.0)]))})


class _Str(str):
    """A str subclass: no key (its == and hash are its own to define)."""


class _Float(float):
    """A float subclass: no key."""


def _pool_calls(draw, pool, n, kinds=_EVERY_KIND):
    """``n`` calls, most of them copies of calls in ``pool`` (deep copies keep
    a NaN object shared, as a dict's copy does)."""
    return [copy.deepcopy(draw(st.sampled_from(pool))) if pool and draw(st.booleans())
            else draw(_call(kinds)) for _ in range(n)]


@st.composite
def _cases(draw, kinds=_EVERY_KIND):
    pool = draw(st.lists(_call(kinds), min_size=1, max_size=5))
    rows = []
    for _ in range(draw(st.integers(0, 8))):
        called = _pool_calls(draw, pool, draw(st.integers(0, 4)), kinds)
        expected = _pool_calls(draw, pool, draw(st.integers(0, 4)), kinds)
        rows.append(AgentTestCase(tool_calls=draw(st.sampled_from([called, called, None])),
                                  expected_tool_calls=draw(st.sampled_from(
                                      [expected, expected, None]))))
    return rows


def _flat_calls(cases, field):
    return [call for case in cases for call in (getattr(case, field) or ())]


def _keyable(call):
    return (call.raw_arguments is None and (call.arguments_given or not call.arguments)
            and _plain(call.arguments)
            and not any(type(v) is float and v != v for v in call.arguments.values()))


def _plain(value):
    if type(value) is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if type(value) is list:
        return all(map(_plain, value))
    return type(value) in (str, int, float, bool, type(None))


_SAME = AdkToolTrajectory()._same


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_cases())
def test_two_calls_share_a_key_exactly_when_adk_finds_them_equal(cases):
    batch = ToolCallBatch.from_cases(cases)
    keys = batch.call_keys()
    assert keys is not None and keys.equality == "python"
    calls = _flat_calls(cases, "tool_calls") + _flat_calls(cases, "expected_tool_calls")
    ids = keys.called_ids.tolist() + keys.expected_ids.tolist()
    assert len(ids) == len(calls) and max(ids, default=-1) < keys.size
    for (i, first), (j, second) in product(enumerate(calls), repeat=2):
        if _keyable(first) and _keyable(second):
            assert (ids[i] == ids[j]) == _SAME(first, second), (first, second)
        elif i != j:  # a call with no key shares its id with no other call
            assert ids[i] != ids[j]
    for row, case in enumerate(cases):
        keyable = all(map(_keyable, (case.tool_calls or ()))) and all(
            map(_keyable, (case.expected_tool_calls or ())))
        assert bool(keys.unkeyed[row]) == (not keyable)
        absent = [call for call in chain(case.tool_calls or (), case.expected_tool_calls or ())
                  if call.raw_arguments is None and not call.arguments_given
                  and not call.arguments]  # ToolCall(name, None): given no arguments
        assert bool(keys.not_given[row]) == bool(absent)
    assert batch.call_keys() is keys  # kept


def _record_call(call, form):
    """A record's form of a call (all read back as the same ToolCall)."""
    if call.raw_arguments is not None:
        return {"name": call.name, "raw_arguments": call.raw_arguments}
    if not call.arguments_given and not call.arguments:
        return {"name": call.name, "arguments": None}
    if not call.arguments_given:
        return None  # no record holds such a call
    if call.output is not None:
        return {"name": call.name, "arguments": call.arguments, "output": call.output}
    if not call.arguments and form == 0:
        return call.name
    if not call.arguments and form == 1:
        return {"name": call.name}
    return {"name": call.name, "arguments": call.arguments}


def _records(cases, form, odd):
    records = []
    for row, case in enumerate(cases):
        record = {}
        for field in ("tool_calls", "expected_tool_calls"):
            calls = getattr(case, field)
            if calls is None:
                continue
            items = [_record_call(call, form) for call in calls]
            if None in items:
                return None
            record[field] = items
        if row in odd:  # read the reference way (an unknown key: an unreadable row)
            record["unknown"] = 1
        records.append(record)
    return records


def _sources(cases, form=2, odd=()):
    """The batches of these cases: from the cases, from records (cases not
    built), and from the argument columns a reader would fill."""
    batches = {"cases": ToolCallBatch.from_cases(cases)}
    records = _records(cases, form, set(odd))
    if records is not None:
        batches["records"] = ToolCallBatch.from_records(records, errors="record")
        columns = ToolCallBatch.from_records(records, errors="record")
        ref = ToolCallBatch.from_cases(cases)
        arguments = []
        for field in ("tool_calls", "expected_tool_calls"):
            arguments.append([call.raw_arguments if call.raw_arguments is not None else
                              call.arguments if call.arguments_given else None
                              for call in _flat_calls(cases, field)])
        if not odd:
            batches["columns"] = ToolCallBatch(
                vocabulary=columns.vocabulary, called_ids=columns.called_ids,
                called_offsets=columns.called_offsets, expected_ids=columns.expected_ids,
                expected_offsets=columns.expected_offsets, called_given=columns.called_given,
                expected_given=columns.expected_given, cases=ref.cases,
                call_arguments=CallArguments(*arguments))
    return batches


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_cases(), form=st.integers(0, 2), odd=st.sets(st.integers(0, 7), max_size=2))
def test_every_source_gives_the_same_keys(cases, form, odd):
    batches = _sources(cases, form)
    reference = batches["cases"].call_keys()
    for name, batch in batches.items():
        keys = batch.call_keys()
        assert keys is not None, name
        assert keys.unkeyed.tolist() == reference.unkeyed.tolist(), name
        assert keys.not_given.tolist() == reference.not_given.tolist(), name
        assert len(keys.called_ids) == len(reference.called_ids), name
        left = keys.called_ids.tolist() + keys.expected_ids.tolist()
        right = reference.called_ids.tolist() + reference.expected_ids.tolist()
        for i, j in product(range(len(left)), repeat=2):  # the same partition of the calls
            assert (left[i] == left[j]) == (right[i] == right[j]), name
    if "records" in batches and not any(batches["records"].invalid):
        assert batches["records"].cases.plain_records() is not None  # not built for the keys
    partly = _sources(cases, form, odd).get("records")
    if partly is not None:  # rows read the reference way (unreadable) have no calls
        keys = partly.call_keys()
        assert keys is not None and len(keys.called_ids) == len(partly.called_ids)


def _today(metric, batch):
    """The case-by-case batch path, as it was before keys."""
    return case_values(metric, batch, "record", metric._value)


@pytest.mark.parametrize("match_type", ["EXACT", "IN_ORDER", "ANY_ORDER"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2))
def test_adk_on_keys_equals_evaluate_and_the_case_by_case_path(match_type, cases, form):
    _agrees_with_evaluate_and_today(AdkToolTrajectory(match_type=match_type), cases, form)


def _agrees_with_evaluate_and_today(metric, cases, form):
    """The metric's batch path on every source gives what its case-by-case
    path and its single-case evaluate give: values, errors and reasons."""
    for name, batch in _sources(cases, form).items():
        result = metric.evaluate_batch(batch, errors="record")
        today = _today(metric, ToolCallBatch.from_cases(cases))
        assert result.values.tobytes() == today.values.tobytes(), name
        assert result.passed.tolist() == today.passed.tolist(), name
        assert result.errors == today.errors, name
        for row, case in enumerate(cases):
            try:
                single = metric.evaluate(case)
            except (InvalidCaseError, MissingFieldError) as error:
                assert result.errors[row] == str(error), name
                continue
            assert result.values[row] == single.value, name
            assert result.reason(row) == single.reason == today.reason(row), name
        if result.errors:  # under errors="raise", the first error row's message
            with pytest.raises(CaseEvaluationError) as raised:
                metric.evaluate_batch(batch)
            assert result.errors[min(result.errors)] in str(raised.value)


@pytest.mark.parametrize("mode", ["unordered", "subset", "superset"])
@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2))
def test_agentevals_exact_arguments_on_keys_equals_evaluate_and_the_case_by_case_path(mode, cases,
                                                                                   form):
    # Rows holding a call given no arguments are refused by agentevals' own rule.
    _agrees_with_evaluate_and_today(AgentevalsTrajectory(trajectory_match_mode=mode), cases, form)
    overrides = {"a": "exact"}  # an override that is the default mode: still on keys
    _agrees_with_evaluate_and_today(AgentevalsTrajectory(
        trajectory_match_mode=mode, tool_args_match_overrides=overrides), cases, form)


def test_agentevals_reads_keys_only_under_exact_arguments(monkeypatch):
    cases = [AgentTestCase(tool_calls=[ToolCall("a", {"x": 1}), ToolCall("a", {"x": 1, "y": 2})],
                           expected_tool_calls=[ToolCall("a", {"x": 1, "y": 2})])]
    asked = []
    real = ToolCallBatch.call_keys

    def spy(self, equality="python"):
        asked.append(equality)
        return real(self, equality)

    monkeypatch.setattr(ToolCallBatch, "call_keys", spy)
    batch = ToolCallBatch.from_cases(cases)
    assert AgentevalsTrajectory().evaluate_batch(batch).values.tolist() == [0.0]  # 2 made, 1 expected
    assert asked == ["python"]
    loose = AgentevalsTrajectory(trajectory_match_mode="superset", tool_args_match_mode="subset")
    assert loose.evaluate_batch(ToolCallBatch.from_cases(cases)).values.tolist() == [1.0]
    mixed = AgentevalsTrajectory(tool_args_match_overrides={"a": "subset"})
    assert mixed.evaluate_batch(ToolCallBatch.from_cases(cases)).values.tolist() == [0.0]
    assert asked == ["python"]  # neither of the loose rules reads keys


def test_the_claims_of_python_equality():
    """The cases the docstring names, one by one."""
    pairs = [({"x": 1}, {"x": 1.0}, True), ({"x": True}, {"x": 1}, True),
             ({"x": 0.0}, {"x": -0.0}, True), ({"x": 1, "y": 2}, {"y": 2, "x": 1}, True),
             ({"x": 1}, {"x": 1, "y": None}, False), ({"x": [1, 2]}, {"x": [1.0, 2]}, True),
             ({"x": [1, 2]}, {"x": [2, 1]}, False), ({"x": []}, {"x": {}}, False),
             ({"x": {"a": [1]}}, {"x": {"a": [True]}}, True), ({"x": [NAN]}, {"x": [NAN]}, True),
             ({"x": {"a": NAN}}, {"x": {"a": NAN}}, True),
             ({"x": float("nan")}, {"x": float("nan")}, False),
             ({"x": 2**53 + 1}, {"x": float(2**53 + 1)}, False),
             ({"x": 2**53}, {"x": float(2**53)}, True), ({"x": 10**400}, {"x": math.inf}, False),
             ({"x": "1"}, {"x": 1}, False), ({"x": None}, {}, False)]
    for first, second, equal in pairs:
        batch = ToolCallBatch.from_cases([AgentTestCase(tool_calls=[ToolCall("a", first)],
                                                        expected_tool_calls=[ToolCall("a", second)])])
        keys = batch.call_keys()
        assert (keys.called_ids[0] == keys.expected_ids[0]) == equal, (first, second)
        assert _SAME(ToolCall("a", first), ToolCall("a", second)) == equal
    # A NaN as an argument's own value: no key (ADK's dict == takes the same NaN
    # object as equal, trajectory_match's value-by-value != does not).
    alone = ToolCallBatch.from_cases([AgentTestCase(tool_calls=[ToolCall("a", {"x": NAN})],
                                                    expected_tool_calls=[ToolCall("a", {"x": NAN})])])
    assert alone.call_keys().unkeyed.tolist() == [True]
    given = ToolCallBatch.from_cases([AgentTestCase(tool_calls=[ToolCall("a", None)],
                                                    expected_tool_calls=[ToolCall("a", {})])])
    keys = given.call_keys()
    assert keys.called_ids[0] != keys.expected_ids[0]  # None == {} is False in ADK


def test_names_only_batches_have_no_keys_and_bad_equalities_are_refused():
    names = ToolCallBatch.from_columns(tool_calls=[["a"]], expected_tool_calls=[["a"]])
    assert names.call_keys() is None
    with pytest.raises(InvalidCaseError, match="equality must be one of"):
        names.call_keys("json")


def test_keys_drive_the_name_kernels():
    batch = ToolCallBatch.from_cases([AgentTestCase(
        tool_calls=[ToolCall("a", {"x": 1}), ToolCall("b", {"y": 2})],
        expected_tool_calls=[ToolCall("a", {"x": 2}), ToolCall("b", {"y": 2.0})])])
    assert row_lcs(batch).tolist() == [2]
    assert row_lcs(batch, batch.call_keys()).tolist() == [1]


def test_a_column_not_lined_up_with_the_ids_is_refused():
    batch = ToolCallBatch.from_cases([AgentTestCase(tool_calls=["a"], expected_tool_calls=["a"])])
    bad = ToolCallBatch(vocabulary=batch.vocabulary, called_ids=batch.called_ids,
                        called_offsets=batch.called_offsets, expected_ids=batch.expected_ids,
                        expected_offsets=batch.expected_offsets, called_given=batch.called_given,
                        expected_given=batch.expected_given,
                        call_arguments=CallArguments([], [{}]))
    with pytest.raises(ValueError, match="argument column"):
        bad.call_keys()


def test_a_slice_keeps_its_argument_columns():
    cases = [AgentTestCase(tool_calls=[ToolCall("a", {"x": k})], expected_tool_calls=[ToolCall("a", {"x": 1})])
             for k in range(3)]
    batch = ToolCallBatch.from_cases(cases)
    columns = attrs_evolve(batch, CallArguments([{"x": k} for k in range(3)], [{"x": 1}] * 3))
    part = columns.slice(1, 3)
    assert part.call_arguments.called == [{"x": 1}, {"x": 2}]
    keys = part.call_keys()
    assert (keys.called_ids == keys.expected_ids).tolist() == [True, False]
    assert np.array_equal(AdkToolTrajectory().evaluate_batch(part).values, [1.0, 0.0])


def attrs_evolve(batch, arguments):
    import attrs
    return attrs.evolve(batch, call_arguments=arguments)


RagasToolCallF1 = compat.RagasToolCallF1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2))
def test_ragas_f1_on_keys_equals_evaluate_and_the_case_by_case_path(cases, form):
    metric = RagasToolCallF1()
    metric._value = lambda case: metric.measure(case)[0]  # the case-by-case reference (_today)
    _agrees_with_evaluate_and_today(metric, cases, form)


trajectory = pytest.importorskip("agentmetrics_trajectory")


@pytest.mark.parametrize("mode", ["strict", "unordered", "subset", "superset", "in_order"])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2),
       per_tool=st.sampled_from([None, {"a": "exact"}]))
def test_trajectory_match_exact_arguments_on_keys_equals_evaluate_and_the_case_by_case_path(
        mode, cases, form, per_tool):
    metric = trajectory.TrajectoryMatch(mode=mode, per_tool=per_tool)
    metric._value = lambda case: metric.measure(case)[0]  # the case-by-case reference (_today)
    _agrees_with_evaluate_and_today(metric, cases, form)


def test_trajectory_match_reads_keys_only_under_exact_arguments(monkeypatch):
    asked = []
    real = ToolCallBatch.call_keys
    monkeypatch.setattr(ToolCallBatch, "call_keys",
                        lambda self, equality="python": asked.append(equality) or real(self, equality))
    cases = [AgentTestCase(tool_calls=[ToolCall("a", {"x": 1, "y": 2})],
                           expected_tool_calls=[ToolCall("a", {"x": 1})])]
    assert trajectory.TrajectoryMatch().evaluate_batch(
        ToolCallBatch.from_cases(cases)).values.tolist() == [0.0]
    assert asked == ["python"]
    for loose in (trajectory.TrajectoryMatch(args="superset"),
                  trajectory.TrajectoryMatch(per_tool={"a": ["x"]})):
        assert loose.evaluate_batch(ToolCallBatch.from_cases(cases)).values.tolist() == [1.0]
    assert asked == ["python"]


tooluse = pytest.importorskip("agentmetrics_tooluse")


@pytest.mark.parametrize("options", [
    {"name": "argument_accuracy"},
    {"name": "argument_accuracy", "missing_calls": "ignore", "extra_arguments": "penalize"},
    {"name": "argument_accuracy", "compare": "normalized"},
    {"name": "tool_output_match"},
    {"name": "tool_output_match", "missing_calls": "ignore"},
])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2))
def test_paired_metrics_from_call_items_equal_evaluate_and_the_case_by_case_path(options, cases,
                                                                                 form):
    # From plain records the calls' fields are read without building the cases.
    from agentmetrics import get_metric

    metric = get_metric(options["name"], **{k: v for k, v in options.items() if k != "name"})
    _agrees_with_evaluate_and_today(metric, cases, form)
    records = _records(cases, form, set())
    if records is not None and cases:
        batch = ToolCallBatch.from_records(records, errors="record")
        assert batch.call_items() is not None
        metric.evaluate_batch(batch, errors="record")
        assert batch.cases._cases is None  # read from the records, not from built cases


@pytest.mark.parametrize("expected", [ToolCall("a", raw_arguments=""),
                                      ToolCall("a", {"x": 1}, raw_arguments="{x")])
def test_an_expected_call_with_raw_arguments_is_compared_by_its_arguments_in_batch_too(expected):
    # measure compares an expected call by the arguments it holds (its raw text
    # is not read); the batch paths did not (a validator error, "metric bug").
    from agentmetrics import get_metric

    metric = get_metric("argument_accuracy")
    case = AgentTestCase(tool_calls=[ToolCall("a", {"x": 1})], expected_tool_calls=[expected])
    single = metric.evaluate(case).value
    records = [{"tool_calls": [{"name": "a", "arguments": {"x": 1}}],
                "expected_tool_calls": [{"name": "a", "arguments": expected.arguments,
                                         "raw_arguments": expected.raw_arguments}]}]
    for batch in (ToolCallBatch.from_cases([case]), ToolCallBatch.from_records(records)):
        assert metric.evaluate_batch(batch).values.tolist() == [single]


@pytest.mark.parametrize("depth", [150, 300, 700])
def test_deeply_nested_arguments_go_to_the_metric_alike_on_every_path(depth):
    # Below MAX_DEPTH a value has a key; deeper, its row is the metric's own
    # (ragas' recursive freezing may fail there: both paths then give its error).
    from agentmetrics import get_metric

    deep: object = 1
    for _ in range(depth):
        deep = [deep]
    cases = [AgentTestCase(tool_calls=[], expected_tool_calls=[]),
             AgentTestCase(tool_calls=[ToolCall("a", {"x": deep})], expected_tool_calls=[])]
    keys = ToolCallBatch.from_cases(cases).call_keys()
    assert keys.unkeyed.tolist() == [False, depth > 200]
    for metric in (get_metric("ragas_tool_call_f1"), AdkToolTrajectory()):
        result = metric.evaluate_batch(ToolCallBatch.from_cases(cases), errors="record")
        assert result.values[0] == metric.evaluate(cases[0]).value  # row 0 unaffected
        try:
            single = metric.evaluate(cases[1]).value
        except Exception:
            assert 1 in result.errors
        else:
            assert result.values[1] == single



@pytest.mark.parametrize("strict_order", [True, False])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2))
def test_ragas_accuracy_from_call_items_equals_evaluate_and_the_case_by_case_path(strict_order,
                                                                                  cases, form):
    from agentmetrics import get_metric

    metric = get_metric("ragas_tool_call_accuracy", strict_order=strict_order)
    _agrees_with_evaluate_and_today(metric, cases, form)


@pytest.mark.parametrize("options", [
    {"name": "deepeval_tool_correctness"},
    {"name": "deepeval_tool_correctness", "evaluation_params": ["input_parameters", "output"]},
    {"name": "deepeval_tool_correctness", "evaluation_params": "input_parameters",
     "should_consider_ordering": True},
    {"name": "deepeval_tool_correctness", "evaluation_params": ["output"],
     "should_exact_match": True, "strict_mode": True},
    {"name": "mlflow_tool_call_correctness"},
    {"name": "mlflow_tool_call_correctness", "should_consider_ordering": True,
     "compare_arguments": True},
    {"name": "mlflow_tool_call_correctness", "compare_arguments": False},
    {"name": "agentevals_trajectory", "trajectory_match_mode": "superset",
     "tool_args_match_mode": "subset"},
    {"name": "agentevals_trajectory", "tool_args_match_mode": "ignore",
     "tool_args_match_overrides": {"a": "superset"}},
])
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2))
def test_metrics_on_call_lists_equal_evaluate_and_the_case_by_case_path(options, cases, form):
    # From plain records each row's calls are built from the call items, the
    # cases left unbuilt; from cases, the cases' own calls.
    from agentmetrics import get_metric

    metric = get_metric(options["name"], **{k: v for k, v in options.items() if k != "name"})
    _agrees_with_evaluate_and_today(metric, cases, form)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases=_ANY_CASES, form=st.integers(0, 2), odd=st.sets(st.integers(0, 7), max_size=2))
def test_call_lists_hold_the_cases_calls_or_leave_the_row(cases, form, odd):
    # Every row's calls equal its case's (name, arguments, given, output); a
    # row is left out only where a side is not given, the row is unreadable,
    # or (built from call items, as the fast decoder's are) a call's arguments
    # are not an object. Records' items give each call its own item.
    from agentmetrics.cases._call_lists import lists_of_items

    for name, batch in _sources(cases, form, odd).items():
        items = batch.call_items()  # before the lists: these build the records' cases
        lists = batch.call_lists()
        assert lists is not None, name
        if name == "records":
            if items is None:  # rows read the reference way: items are not read
                assert odd or not cases
                continue
            lists = lists_of_items(batch.vocabulary, (batch.called_ids, batch.expected_ids),
                                   (batch.called_offsets, batch.expected_offsets),
                                   (batch.called_given, batch.expected_given), items)
        assert len(lists.called) == len(lists.expected) == len(cases)
        for row, case in enumerate(cases):
            for side, calls in ((lists.called[row], case.tool_calls),
                                (lists.expected[row], case.expected_tool_calls)):
                if row in batch.invalid or calls is None:
                    assert side is None, name
                    continue
                if side is None:
                    assert name == "records" and any(c.raw_arguments is not None
                                                     for c in calls), name
                    continue
                assert [(c.name, c.arguments, c.arguments_given, c.output) for c in side] == \
                    [(c.name, c.arguments, c.arguments_given, c.output) for c in calls], name
    assert batch.call_lists() is batch.call_lists()  # kept


def test_names_only_batches_have_no_call_lists():
    from agentmetrics.batch import values_of_calls

    names = ToolCallBatch.from_columns(tool_calls=[["a"]], expected_tool_calls=[["a"]])
    assert names.call_lists() is None
    assert np.isnan(values_of_calls(names, lambda called, expected: 1.0)).all()
