"""TrajectoryMatch: modes, argument rules, optimal matching, batch, conformance."""

from __future__ import annotations

import inspect
import itertools
import random
import sys
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentmetrics import AgentTestCase, InvalidCaseError, InvalidParameterError, ToolCall, ToolCallBatch, evaluate
from agentmetrics.testing import check_metric
from agentmetrics_trajectory import TrajectoryMatch, _match
from agentmetrics_trajectory._match import ARGS_MODES, MODES, maximum_matching
from agentmetrics_trajectory._matching import first_fit_order_matching

MODE_ARGS = [(mode, args) for mode in MODES for args in ARGS_MODES]


def case(called, expected):
    return AgentTestCase(tool_calls=called, expected_tool_calls=expected)


def call(name, **arguments):
    return ToolCall(name, arguments)


# --- an independent reference: brute force over assignments -----------------------

def args_ok(rule, actual, expected):
    if rule == "ignore":
        return True
    if rule == "exact":
        return actual == expected
    if rule == "subset":
        return all(k in expected and expected[k] == v for k, v in actual.items())
    return all(k in actual and actual[k] == v for k, v in expected.items())  # superset


def reference(mode, rule, called, expected):
    fits = lambda a, e: a.name == e.name and args_ok(rule, a.arguments, e.arguments)  # noqa: E731
    if mode == "strict":
        return float(len(called) == len(expected) and all(map(fits, called, expected)))
    if mode == "in_order":  # some increasing choice of calls fits the expected ones in turn
        return float(any(all(fits(called[i], e) for i, e in zip(chosen, expected))
                         for chosen in itertools.combinations(range(len(called)), len(expected))))
    # Try every injective assignment of the smaller side into the larger one.
    def covers(left, right, fit):
        return any(all(fit(l, right[j]) for l, j in zip(left, choice))
                   for choice in itertools.permutations(range(len(right)), len(left)))
    if mode == "unordered":
        return float(len(called) == len(expected) and covers(called, expected, fits))
    if mode == "subset":
        return float(len(called) <= len(expected) and covers(called, expected, fits))
    return float(len(expected) <= len(called) and covers(expected, called, lambda e, a: fits(a, e)))


def call_with_id(name, value):
    return ToolCall(name, {} if value is None else {"id": value})


tool_calls = st.lists(
    st.builds(call_with_id, st.sampled_from(["A", "B"]), st.sampled_from([None, 1, 2])),
    max_size=4,
)


@settings(max_examples=400, deadline=None)
@given(called=tool_calls, expected=tool_calls, mode_args=st.sampled_from(MODE_ARGS))
def test_matches_brute_force_reference(called, expected, mode_args):
    mode, args = mode_args
    value = TrajectoryMatch(mode=mode, args=args).evaluate(case(called, expected)).value
    assert value == reference(mode, args, called, expected)


@settings(max_examples=200, deadline=None)
@given(called=tool_calls, expected=tool_calls, data=st.data(),
       mode=st.sampled_from(["unordered", "subset", "superset"]), args=st.sampled_from(ARGS_MODES))
def test_result_never_depends_on_list_order(called, expected, data, mode, args):
    metric = TrajectoryMatch(mode=mode, args=args)
    base = metric.evaluate(case(called, expected)).value
    assert metric.evaluate(case(data.draw(st.permutations(called)),
                                data.draw(st.permutations(expected)))).value == base


def test_greedy_matching_would_fail_here():
    # The first call fits both expected calls; greedy pairing takes the first
    # and leaves the second call without a partner. Optimal matching pairs all.
    called = [call("Search", q="x", page=1), call("Search", q="x")]
    expected = [call("Search", q="x"), call("Search", q="x", page=1)]
    assert TrajectoryMatch(mode="unordered", args="superset").evaluate(case(called, expected)).value == 1.0
    assert maximum_matching([[0, 1], [0]], 2) == [1, 0]


# --- reasons name the first mismatch ------------------------------------------------

@pytest.mark.parametrize(
    ("metric", "called", "expected", "reason"),
    [
        (TrajectoryMatch(), ["A", "B"], ["A", "B"], "All 2 calls match (mode=strict, args=exact)"),
        (TrajectoryMatch(), [], [], "No tool calls expected and none made"),
        (TrajectoryMatch(), ["A", "C"], ["A", "B"], "call #2 (B): expected B, called C"),
        (TrajectoryMatch(), ["A"], ["A", "B"], "missing call #2: B"),
        (TrajectoryMatch(), ["A", "B", "D"], ["A", "B"], "extra call #3: D"),
        (TrajectoryMatch(), [call("A", id=8)], [call("A", id=7)],
         "call #1 (A): argument 'id' differs: expected 7, called 8"),
        (TrajectoryMatch(args="superset"), [call("A")], [call("A", id=7)],
         "call #1 (A): argument 'id' missing (expected 7)"),
        (TrajectoryMatch(args="subset"), [call("A", id=7, x=1)], [call("A", id=7)],
         "call #1 (A): unexpected argument 'x'=1"),
        (TrajectoryMatch(mode="unordered"), [call("A", id=8), "B"], ["B", call("A", id=7)],
         "missing call: A(id=7) (the A call made: argument 'id' differs: expected 7, called 8); "
         "extra call: A(id=8)"),
        (TrajectoryMatch(mode="subset"), ["A", "Z"], ["A", "B"], "extra call: Z"),
        (TrajectoryMatch(mode="superset"), ["A", "Z"], ["A", "B"], "missing call: B"),
    ],
)
def test_reasons(metric, called, expected, reason):
    assert metric.evaluate(case(called, expected)).reason == reason


# --- argument rules and per-tool overrides ------------------------------------------

def test_per_tool_overrides():
    called = [call("Search", q="shoes", ts=123), call("Buy", sku=7, note="x")]
    expected = [call("Search", q="shoes", ts=999), call("Buy", sku=7)]
    assert TrajectoryMatch().evaluate(case(called, expected)).value == 0.0
    metric = TrajectoryMatch(per_tool={"Search": ["q"], "Buy": lambda a, e: a["sku"] == e["sku"]})
    assert metric.evaluate(case(called, expected)).value == 1.0
    assert TrajectoryMatch(per_tool={"Search": "ignore", "Buy": "superset"}).evaluate(
        case(called, expected)).value == 1.0
    rejected = TrajectoryMatch(per_tool={"Search": "ignore", "Buy": lambda a, e: False})
    assert rejected.evaluate(case(called, expected)).reason == (
        "call #2 (Buy): arguments rejected by the custom comparison")


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"mode": "loose"}, "mode must be one of strict, unordered, subset, superset, in_order, got 'loose'"),
        ({"args": "fuzzy"}, "args must be one of exact, ignore, subset, superset"),
        ({"per_tool": {"A": 3}}, r"per_tool\['A'\] must be one of"),
        ({"per_tool": ["A"]}, "per_tool must map tool names to argument rules"),
    ],
)
def test_bad_parameters(params, message):
    with pytest.raises(InvalidParameterError, match=message):
        TrajectoryMatch(**params)


# --- batch ---------------------------------------------------------------------------

names = st.lists(st.sampled_from(["A", "B", "C"]), max_size=5)


@settings(max_examples=150, deadline=None)
@given(rows=st.lists(st.tuples(names, names), max_size=25), mode=st.sampled_from(MODES))
def test_vectorized_batch_equals_scalar_when_arguments_are_ignored(rows, mode):
    metric = TrajectoryMatch(mode=mode, args="ignore")
    batch = ToolCallBatch.from_columns(tool_calls=[c for c, _ in rows], expected_tool_calls=[e for _, e in rows])
    result = metric.evaluate_batch(batch)
    for row, (called, expected) in enumerate(rows):
        want = metric.evaluate(case(called, expected))
        assert (float(result.values[row]), bool(result.passed[row]), result.reason(row)) == (
            want.value, want.passed, want.reason)


def test_argument_rules_need_a_batch_with_arguments():
    batch = ToolCallBatch.from_columns(tool_calls=[["A"]], expected_tool_calls=[["A"]])
    with pytest.raises(InvalidCaseError, match="holds tool names only. Fix: build it with ToolCallBatch.from_cases"):
        TrajectoryMatch().evaluate_batch(batch)
    cases = [case([call("A", id=1)], [call("A", id=1)]), case([call("A", id=1)], [call("A", id=2)])]
    assert evaluate(cases, TrajectoryMatch())["trajectory_match"].values.tolist() == [1.0, 0.0]


@pytest.mark.parametrize(("mode", "args"), MODE_ARGS)
def test_conformance_kit(mode, args):
    check_metric(TrajectoryMatch, {"mode": mode, "args": args})


# --- matching at scale: iterative, grouped, and the same reasons as before ----------
#
# Beyond a few same-tool pairs (_FEW_PAIRS), the implementation pairs groups of
# interchangeable calls by count and runs an iterative Hopcroft-Karp on what
# remains; a failing case is paired again in the previous order where the reason
# depends on it. Below: brute force for the matching size, and the previous
# (recursive Kuhn) implementation, copied here, for every value, verdict, reason
# and custom comparison asked, with grouping forced on small cases (few_pairs=0).


def previous_maximum_matching(compatible, right_size):
    """maximum_matching as it was up to 0.1.0: recursive augmenting paths (Kuhn)."""
    match = [-1] * right_size

    def augment(left, seen):
        for right in compatible[left]:
            if not seen[right]:
                seen[right] = True
                if match[right] == -1 or augment(match[right], seen):
                    match[right] = left
                    return True
        return False

    for left in range(len(compatible)):
        augment(left, [False] * right_size)
    return match


class PreviousTrajectoryMatch(TrajectoryMatch):
    """TrajectoryMatch with the pairing of 0.1.0: every pair compared, then Kuhn."""

    def _pairing(self, actual, expected):
        compatible = [
            [j for j, want in enumerate(expected) if self._mismatch(call, want) is None]
            for call in actual
        ]
        match = previous_maximum_matching(compatible, len(expected))
        return {left for left in match if left != -1}, {j for j, left in enumerate(match) if left != -1}


def brute_force_matching_size(compatible, right_size):
    """The largest number of pairs, over every injective assignment."""
    n = max(len(compatible), right_size)
    return max(
        (sum(1 for left, rights in enumerate(compatible) if order[left] in rights)
         for order in itertools.permutations(range(n))),
        default=0,
    )


graphs = st.integers(0, 6).flatmap(lambda right_size: st.tuples(
    st.lists(st.lists(st.integers(0, right_size - 1), unique=True) if right_size else st.just([]),
             max_size=6),
    st.just(right_size),
))


@settings(max_examples=400, deadline=None)
@given(graph=graphs)
def test_maximum_matching_is_maximum_and_valid(graph):
    compatible, right_size = graph
    match = maximum_matching(compatible, right_size)
    assert len(match) == right_size
    paired = [left for left in match if left != -1]
    assert len(paired) == len(set(paired))  # one to one
    assert all(left == -1 or right in compatible[left] for right, left in enumerate(match))
    assert len(paired) == brute_force_matching_size(compatible, right_size)


@settings(max_examples=400, deadline=None)
@given(graph=graphs, data=st.data())
def testfirst_fit_order_matching_is_the_previous_matching(graph, data):
    compatible, right_size = graph
    compatible = [sorted(rights) if data.draw(st.booleans()) else rights for rights in compatible]
    # Left items with equal lists may share a kind (and then skip seen items together).
    kinds = [next(k for k, other in enumerate(compatible) if other == rights) for rights in compatible]
    if data.draw(st.booleans()):
        kinds = list(range(len(compatible)))
    assert first_fit_order_matching(compatible, right_size, kinds) == previous_maximum_matching(
        compatible, right_size)


def test_greedy_first_fit_is_not_maximum_but_matching_is():
    # Left 0 fits rights 0 and 1, left 1 only right 0: first fit pairs one, matching two.
    compatible = [[0, 1], [0]]
    assert brute_force_matching_size(compatible, 2) == 2
    assert sorted(maximum_matching(compatible, 2)) == [0, 1]
    # A longer chain: a first fit leaves left n-1 unpaired; one augmenting path of length n fixes it.
    n = 50
    chain = [[i + 1, i] for i in range(n - 1)] + [[n - 1]]
    assert -1 not in maximum_matching(chain, n)


# Argument values: unhashable ones, values that compare equal across types
# (1, 1.0, True), values JSON would confuse ((1, 2) and [1, 2]), NaN (unequal
# to itself), a set, nested data.
ARGUMENTS = [
    {}, {"q": 1}, {"q": 1.0}, {"q": True}, {"q": "1"}, {"q": [1, 2]}, {"q": (1, 2)},
    {"q": {"a": [1]}}, {"q": {"a": [1.0]}}, {"q": 1, "page": 2}, {"page": 2, "q": 1},
    {"page": 2}, {"q": float("nan")}, {"q": -0.0}, {"q": 0}, {"q": {1, 2}},
]
RULES = ["exact", "ignore", "subset", "superset", ["q"], ["q", "page"], "custom"]


def custom_rule(log):
    """A deterministic comparison that is neither symmetric nor transitive; it logs its calls."""
    def rule(actual, expected):
        log.append((repr(actual), repr(expected)))
        return (len(repr(actual)) + 2 * len(repr(expected))) % 3 != 0
    return rule


def outcome(cls, mode, args, per_tool, called, expected, few_pairs=None):
    """(value, passed, reason) or the error raised, and the custom comparison's calls.

    ``few_pairs``: the number of same-tool pairs up to which every pair is
    compared instead of grouping calls (0: always group)."""
    if few_pairs is not None:
        with mock.patch.object(_match, "_FEW_PAIRS", few_pairs):
            return outcome(cls, mode, args, per_tool, called, expected)
    log = []
    resolve = lambda rule: custom_rule(log) if rule == "custom" else rule  # noqa: E731
    per_tool = None if per_tool is None else {name: resolve(rule) for name, rule in per_tool.items()}
    metric = cls(mode=mode, args=resolve(args), per_tool=per_tool)
    try:
        result = metric.evaluate(case(called, expected))
        return (result.value, result.passed, result.reason), log
    except Exception as error:
        return (type(error).__name__, str(error)), log


argument_calls = st.builds(ToolCall, st.sampled_from(["A", "B"]), st.sampled_from(ARGUMENTS))


@settings(max_examples=600, deadline=None)
@given(called=st.lists(argument_calls, max_size=7), data=st.data(),
       mode=st.sampled_from(MODES), args=st.sampled_from(RULES),
       per_tool=st.none() | st.dictionaries(st.sampled_from(["A", "B"]), st.sampled_from(RULES), max_size=1))
def test_same_values_reasons_and_comparisons_as_the_previous_implementation(
        called, data, mode, args, per_tool):
    if data.draw(st.booleans()):  # often a reordering of the calls, with an edit or two
        expected = data.draw(st.permutations(called))
        if expected and data.draw(st.booleans()):
            expected = expected[1:]
        expected = expected + data.draw(st.lists(argument_calls, max_size=2))
    else:
        expected = data.draw(st.lists(argument_calls, max_size=7))
    previous = outcome(PreviousTrajectoryMatch, mode, args, per_tool, called, expected)
    assert outcome(TrajectoryMatch, mode, args, per_tool, called, expected) == previous
    assert outcome(TrajectoryMatch, mode, args, per_tool, called, expected, few_pairs=0) == previous


def test_same_reasons_as_the_previous_implementation_on_larger_cases():
    # Few distinct calls, many repeats: large groups, and sets of groups that do
    # not all fit each other (subset and superset rules), paired by Hopcroft-Karp
    # or, when the case fails, in the previous order.
    rng = random.Random(11)
    pool = [{"q": 1}, {"q": 1, "page": 2}, {"page": 2}, {}, {"q": [1]}, {"q": 2, "page": 2}]
    for _ in range(300):
        args = rng.choice(RULES)
        names = ["A", "B"][: rng.randint(1, 2)]
        kinds = pool[: rng.randint(2, len(pool))]
        calls = [ToolCall(rng.choice(names), rng.choice(kinds)) for _ in range(rng.randint(0, 60))]
        expected = rng.sample(calls, len(calls)) if rng.random() < 0.5 else [
            ToolCall(rng.choice(names), rng.choice(kinds)) for _ in range(rng.randint(0, 60))]
        if expected and rng.random() < 0.5:
            expected[rng.randrange(len(expected))] = ToolCall(rng.choice(names), rng.choice(kinds))
        mode = rng.choice(MODES)
        assert outcome(TrajectoryMatch, mode, args, None, calls, expected, few_pairs=0) == outcome(
            PreviousTrajectoryMatch, mode, args, None, calls, expected)


def test_two_thousand_interchangeable_calls():
    # Recursion depth grew with the number of interchangeable calls (RecursionError near 1,000).
    calls = [call("Search", q="x", filters={"lang": ["en", "fr"]}) for _ in range(2000)]
    for mode in ("unordered", "subset", "superset"):
        result = TrajectoryMatch(mode=mode).evaluate(case(calls, list(calls)))
        assert (result.value, result.reason) == (1.0, f"All 2000 calls match (mode={mode}, args=exact)")
    result = TrajectoryMatch(mode="unordered").evaluate(case(calls[1:], calls))
    assert (result.value, result.reason) == (0.0, "missing call: Search(q='x', filters={'lang': ['en', 'fr']})")
    # A custom comparison is asked for every pair (a million here), never grouped.
    result = TrajectoryMatch(mode="unordered", args=lambda a, e: a == e).evaluate(case(calls[:1000], calls[:999]))
    assert (result.value, result.reason) == (0.0, "extra call: Search(q='x', filters={'lang': ['en', 'fr']})")


def test_a_thousand_calls_half_of_them_with_their_own_arguments():
    called = [call("Get", id=i) if i % 2 else call("Search", q="x") for i in range(1000)]
    expected = random.Random(3).sample(called, len(called))
    for args in ("exact", "subset", "superset", ["id", "q"]):
        result = TrajectoryMatch(mode="unordered", args=args).evaluate(case(called, expected))
        assert result.value == 1.0, args
    changed = [call("Get", id=-1) if c == call("Get", id=999) else c for c in expected]
    assert TrajectoryMatch(mode="unordered").evaluate(case(called, changed)).reason == (
        "missing call: Get(id=-1) (the Get call made: argument 'id' differs: expected -1, called 999); "
        "extra call: Get(id=999)")


def test_greedy_trap_at_scale():
    # The documented trap, 1,000 times over: Search(q, page) fits both expected
    # calls, Search(q) only one. Not all fit all, so Hopcroft-Karp pairs them.
    wide, narrow = call("Search", q="x", page=1), call("Search", q="x")
    called = [wide, narrow] * 1000
    expected = [narrow, wide] * 1000
    metric = TrajectoryMatch(mode="unordered", args="superset")
    assert metric.evaluate(case(called, expected)).value == 1.0
    result = metric.evaluate(case(called, expected + [wide]))
    assert (result.value, result.reason) == (0.0, "missing call: Search(q='x', page=1)")
    # Which expected call is named when several are interchangeable: as before.
    small = (called[:300], expected[:300] + [narrow, wide])
    assert outcome(TrajectoryMatch, "superset", "superset", None, *small) == outcome(
        PreviousTrajectoryMatch, "superset", "superset", None, *small)


def test_matching_does_not_recurse():
    n = 1500
    chain = [[i + 1, i] for i in range(n - 1)] + [[n - 1]]  # one augmenting path of length n
    everything = [list(range(n))] * n  # the previous order flips paths of length up to n
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 50)
    try:
        chained = maximum_matching(chain, n)
        full = maximum_matching(everything, n)
        replayed = first_fit_order_matching(everything, n, [0] * n)
    finally:
        sys.setrecursionlimit(limit)
    assert -1 not in chained and -1 not in full and sorted(replayed) == list(range(n))


def test_in_order_allows_extra_calls_and_names_the_first_missing():
    metric = TrajectoryMatch(mode="in_order")
    assert metric.evaluate(case(["A", "X", "B", "B"], ["A", "B"])).value == 1.0
    score = metric.evaluate(case(["B", "A"], ["A", "B"]))
    assert score.value == 0.0
    assert score.reason == "expected call #2 not made in order after call #2: B (calls of B: #1)"
    # An earliest-fit embedding exists whenever any does, whatever the argument rule.
    superset = TrajectoryMatch(mode="in_order", args="superset")
    calls = [call("A", id=1, x=0), call("A", id=1), call("B")]
    assert superset.evaluate(case(calls, [call("A", id=1), call("A"), call("B")])).value == 1.0
