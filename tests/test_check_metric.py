"""check_metric, the conformance kit: passes good metrics, names what breaks bad ones."""

from __future__ import annotations

import numpy as np
import pytest

from agentmetrics import Metric, ToolSelectionAccuracy
from agentmetrics.testing import MetricConformanceError, check_metric


class Good(Metric):
    name = "good_metric"
    required_fields = ("tool_calls",)
    description = "Share of at most four calls."

    def measure(self, case):
        return min(len(case.tool_calls), 4) / 4, f"{len(case.tool_calls)} calls"


def test_builtin_passes_in_both_modes():
    check_metric(ToolSelectionAccuracy)
    check_metric(ToolSelectionAccuracy, {"order_matters": True, "threshold": 0.5})


def test_a_plain_metric_passes_with_the_default_batch_loop():
    check_metric(Good)


def broken(**overrides):
    return type("Broken", (Good,), overrides)


def wrong_batch(self, batch, *, errors="raise"):
    result = Good.evaluate_batch(self, batch, errors=errors)
    values = result.values.copy()
    values[3] = np.nextafter(values[3], 2.0)  # one ulp off: still wrong
    return type(result)(self, values, result.passed, result.errors, result.explain)


def unpicklable_init(self, threshold=None):
    super(type(self), self).__init__(threshold)
    self.hook = lambda: None


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"name": "Bad Name"}, "name: expected a str matching"),
        ({"description": ""}, "description: expected one non-empty line"),
        ({"required_fields": ("tools",)}, "required_fields: expected a tuple of AgentTestCase fields"),
        ({"higher_is_better": 1}, "higher_is_better: expected a bool"),
        ({"evaluate_batch": wrong_batch}, "evaluate_batch: case 3: batch gave"),
        ({"measure": lambda self, case: (0.5, "")},
         "score: case 0: metric bug in Broken: evaluate returned reason ''; expected a non-empty str"),
    ],
)
def test_each_broken_contract_is_named(overrides, message):
    with pytest.raises(MetricConformanceError, match=rf"^check_metric\(Broken\): {message}"):
        check_metric(broken(**overrides))


def test_not_a_metric():
    with pytest.raises(MetricConformanceError, match="is a Metric: expected a subclass"):
        check_metric(dict)  # type: ignore[arg-type]


def test_unpicklable_metric_is_named():
    class Hooked(Good):
        name = "hooked"

        def __init__(self, threshold=None):
            super().__init__(threshold)
            self._hook = lambda: None

        def __reduce__(self):
            return object.__reduce__(self)

    with pytest.raises(MetricConformanceError, match="pickle: .* does not survive pickling"):
        check_metric(Hooked)


def test_construction_errors_are_named():
    with pytest.raises(MetricConformanceError, match=r"construction: Good\(\*\*\{'cap': 3\}\) raised"):
        check_metric(Good, {"cap": 3})


class BadRepr(Good):
    name = "bad_repr"

    def __repr__(self):
        return "<BadRepr>"


def test_unreadable_repr_is_named():
    with pytest.raises(MetricConformanceError, match=r"repr: expected a readable BadRepr\(\.\.\.\), got '<BadRepr>'"):
        check_metric(BadRepr)


# -- the checks one by one (metric_checks), as a metric author parametrizes them --

from agentmetrics.testing import CHECK_NAMES, MetricCheck, metric_checks  # noqa: E402


@pytest.mark.parametrize("check", metric_checks(ToolSelectionAccuracy, {"order_matters": True}), ids=str)
def test_each_check_of_the_builtin_is_its_own_test(check):
    assert isinstance(check, MetricCheck) and check.name in CHECK_NAMES
    check()


def test_checks_come_in_check_metric_order_with_readable_ids():
    checks = metric_checks(Good)
    assert tuple(check.name for check in checks) == CHECK_NAMES
    assert [str(check) for check in checks][:2] == ["Good-is_a_metric", "Good-metadata"]
    assert all(check.description for check in checks)
    assert [c.name for c in metric_checks(Good, only=("pickle", "repr"))] == ["pickle", "repr"]
    with pytest.raises(Exception, match=r"unknown checks \['pickles'\]"):
        metric_checks(Good, only=("pickles",))


@pytest.mark.parametrize(
    ("overrides", "failing"),
    [
        ({"description": ""}, "metadata"),
        ({"evaluate_batch": wrong_batch}, "batch_equals_scalar"),
        ({"__init__": unpicklable_init, "__reduce__": lambda self: object.__reduce__(self)}, "pickle"),
        ({"__repr__": lambda self: "<Broken>"}, "repr"),
    ],
)
def test_a_broken_metric_fails_exactly_the_check_it_breaks(overrides, failing, monkeypatch):
    import sys

    cls = broken(**overrides)
    cls.__module__ = __name__
    monkeypatch.setattr(sys.modules[__name__], "Broken", cls, raising=False)  # picklable by name
    failed = []
    for check in metric_checks(cls):
        try:
            check()
        except MetricConformanceError:
            failed.append(check.name)
    assert failed == [failing]


# -- metrics that read more than calls: filled from their declared inputs (issue 51) --

import math  # noqa: E402

import agentmetrics as am  # noqa: E402
from agentmetrics import AgentTestCase, Input  # noqa: E402
from agentmetrics.testing._cases import input_cases  # noqa: E402


class AnswerMatch(Metric):
    name = "answer_match_test"
    description = "1 when the answer equals the reference."
    inputs = ("actual_output", "expected_output")

    def measure(self, case):
        same = case.actual_output == case.expected_output
        return float(same), "equal" if same else f"{case.actual_output!r} differs"


class Seconds(Metric):
    name = "seconds_test"
    description = "The run's wall time."
    inputs = ("latency",)
    value_range = (0.0, math.inf)
    default_threshold = 2.5
    higher_is_better = False
    unit = "s"

    def measure(self, case):
        return case.latency, f"took {case.latency:g} s"


class Rubric(Metric):
    name = "rubric_test"
    description = "Share of the rubric's words in the answer."
    inputs = ("actual_output", Input("metadata.rubric", "text", "the grading rubric"))

    def measure(self, case):
        words = case.metadata["rubric"].split()
        hits = sum(word in str(case.actual_output) for word in words)
        return (hits / len(words) if words else 1.0), f"{hits} of {len(words)} rubric words"


@pytest.mark.parametrize("metric", [AnswerMatch, Seconds, Rubric])
def test_a_correct_non_tool_metric_passes_and_is_really_scored(metric):
    check_metric(metric)
    subject_cases = metric.declared_inputs()
    cases = input_cases(subject_cases, 0, 60)
    values = [metric().evaluate(case).value for case in cases]
    assert len(set(values)) > 1  # the generated cases exercise it: not one constant value


def test_answer_cases_hold_equal_unequal_empty_and_unicode_pairs():
    cases = input_cases(AnswerMatch.declared_inputs(), 0, 60)
    pairs = [(case.actual_output, case.expected_output) for case in cases]
    assert pairs[0][0] == pairs[0][1] and pairs[1][0] != pairs[1][1]
    assert sum(a == e for a, e in pairs) >= 5 and sum(a != e for a, e in pairs) >= 5
    values = [v for pair in pairs for v in pair]
    assert "" in values and any(isinstance(v, str) and not v.isascii() for v in values)
    assert any(isinstance(v, (dict, list)) for v in values) and any(isinstance(v, float) for v in values)
    assert input_cases(AnswerMatch.declared_inputs(), 0, 60) == cases  # seeded
    assert input_cases(AnswerMatch.declared_inputs(), 1, 60) != cases


def test_numbers_and_metadata_keys_are_filled_with_their_kinds():
    seconds = [case.latency for case in input_cases(Seconds.declared_inputs(), 0, 60)]
    assert seconds[0] == 0 and max(seconds) >= 1e6 and min(s for s in seconds if s) < 1e-3
    rubric = [case.metadata["rubric"] for case in input_cases(Rubric.declared_inputs(), 0, 60)]
    assert all(isinstance(text, str) for text in rubric) and "" in rubric


def mutant(base, **overrides):
    """A subclass with ``overrides``, picklable by its name (so only what is mutated fails)."""
    name = f"Mutant{len([n for n in globals() if n.startswith('Mutant')])}"
    cls = type(name, (base,), {**overrides, "__module__": __name__, "__qualname__": name})
    globals()[name] = cls
    return cls


def skip_checks(self, case):
    """Reads nothing: the declared inputs are never checked."""


def ignore_absence(self, case):
    return 0.0, f"answer {case.actual_output!r}"


def coerce_rubric(self, case):
    words = str(case.metadata.get("rubric", "")).split()
    return (1.0 if words else 0.5), "coerced"


def batch_off_by_one_ulp(self, batch, *, errors="raise"):
    result = Metric.evaluate_batch(self, batch, errors=errors)
    values = result.values.copy()
    values[0] = np.nextafter(values[0], -1.0)
    return type(result)(self, values, result.passed, result.errors, result.explain)


class Undeclared(Metric):
    """An answer metric that declares nothing: today's kit scored 0 of 60 and said PASS."""

    name = "undeclared_test"
    description = "Reads the reference from metadata without declaring it."

    def measure(self, case):
        return float(case.actual_output == case.metadata["expected"]), "compared"


class Refusing(AnswerMatch):
    """Refuses (rightly, with an agentmetrics error) every case without an undeclared metadata value."""

    name = "refusing_test"

    def measure(self, case):
        if "reference" not in case.metadata:
            raise am.InvalidCaseError("refusing_test: the case has no metadata 'reference'.")
        return float(case.actual_output == case.metadata["reference"]), "compared"


def check_output_only(self, case):
    """Checks the answer, never the rubric."""
    type(self).declared_inputs()[0].read(case, self.name)


@pytest.mark.parametrize(
    ("metric", "message"),
    [
        (mutant(AnswerMatch, measure=lambda self, case: (2.5, "too much")),
         r"score: case 0: metric bug in Mutant\d+: measure returned 2\.5; expected a float in \[0, 1\]"),
        (mutant(AnswerMatch, measure=lambda self, case: (1.0, "")),
         r"score: case 0: metric bug in Mutant\d+: evaluate returned reason ''"),
        (mutant(AnswerMatch, measure=lambda self, case: (float(case.metadata["expected"]), "x")),
         r"score: case 0: evaluate raised KeyError: 'expected'\. A metric refuses a case it cannot "
         r"score with an agentmetrics error .* never a plain KeyError; the case: AgentTestCase\("),
        (mutant(AnswerMatch, measure=lambda self, case: (1 / len(str(case.actual_output)), "x")),
         r"score: case \d+: evaluate raised ZeroDivisionError: division by zero"),
        (Undeclared, r"score: case 0: evaluate raised KeyError"),
        (mutant(AnswerMatch, evaluate_batch=batch_off_by_one_ulp),
         r"evaluate_batch: case 0: batch gave \(0\.9999999999999999, True, 'equal'\), evaluate gave "
         r"\(1\.0, True, 'equal'\)"),
        (mutant(AnswerMatch, check_required_fields=skip_checks, measure=ignore_absence),
         r"required inputs: case 0 without actual_output: the case was scored \(value 0\.0, reason "
         r"'answer None'\); it must raise MissingFieldError naming the metric 'answer_match_test' and "
         r"actual_output\. Fix: declare it"),
        (mutant(Rubric, check_required_fields=check_output_only, measure=coerce_rubric),
         r"required inputs: case 0 without metadata\['rubric'\]: the case was scored"),
        (mutant(Seconds, measure=lambda self, case: (-1.0, "negative")),
         r"score: case 0: metric bug in Mutant\d+: measure returned -1\.0; expected a float in \[0, inf\)"),
        (Refusing, r"scores: scored none of its 60 cases \(60 generated from what it declares it reads: "
                   r"actual_output, expected_output; 0 given with cases=\): each was refused\. Fix: "
                   r"declare every input .* or pass cases=\[AgentTestCase\(\.\.\.\)\] .* The first "
                   r"refusal \(case 0\): refusing_test: the case has no metadata 'reference'\.$"),
    ],
    ids=["value 2.5", "empty reason", "KeyError", "ZeroDivisionError", "undeclared input",
         "batch differs", "absence ignored", "metadata absence ignored", "below (0, inf)",
         "scores nothing"],
)
def test_a_mutated_metric_fails_naming_the_problem(metric, message):
    with pytest.raises(MetricConformanceError, match=rf"^check_metric\({metric.__name__}\): {message}"):
        check_metric(metric)


def coerce_kind(self, case):
    """Checks presence only, then converts the rubric whatever it is."""
    for item in type(self).declared_inputs():
        value = case.metadata.get(item.key) if item.key else getattr(case, item.name)
        if value is None:
            raise am.MissingFieldError(self.name, item.where)


def test_a_metric_that_coerces_a_wrong_kind_fails_input_kinds():
    metric = mutant(Rubric, check_required_fields=coerce_kind, measure=coerce_rubric)
    with pytest.raises(MetricConformanceError, match=(
            rf"^check_metric\({metric.__name__}\): input kinds: case 0 with metadata\['rubric'\] = float 1\.5 "
            r"\(declared text\): the case was scored \(value 1\.0, reason 'coerced'\); it must raise "
            r"InputTypeError naming the metric 'rubric_test' and metadata\['rubric'\]")):
        check_metric(metric)


def test_a_metric_scored_only_on_given_cases_passes():
    check_metric(Refusing, cases=[AgentTestCase(actual_output="a", expected_output="b",
                                                 metadata={"reference": "a"})])


#: Registered metrics the kit cannot run on generated cases alone: an LLM judge needs its
#: server (its plugin's tests run the kit against a local one), bfcl_ast a BFCL entry in
#: metadata (its plugin's tests pass real BFCL cases with cases=).
NEEDS_MORE = {"tool_call_appropriateness", "bfcl_ast"}


def test_the_kit_passes_every_registered_metric_that_needs_nothing_more():
    from agentmetrics.registry import get_metric_class, list_metrics

    checked = []
    for info in list_metrics():
        if info.error is not None or info.name in NEEDS_MORE:
            continue
        try:
            metric = get_metric_class(info.name)
        except am.MetricLoadError:  # an entry point of another checkout's install: isolated
            continue
        check_metric(metric)
        checked.append(info.name)
    assert {"tool_selection_accuracy", "expectation_match", "per_turn"} <= set(checked)


def test_input_problem_names_a_missing_input_rather_than_raising():
    from agentmetrics.registry import get_metric_class

    declared = get_metric_class("expectation_match").declared_inputs()
    (expectation,) = [item for item in declared if item.name == "expectation"]
    assert "requires the test case field 'expectation'" in expectation.problem(AgentTestCase(tool_calls=[]))
