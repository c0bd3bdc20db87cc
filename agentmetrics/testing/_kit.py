"""The conformance kit for metric authors: ``check_metric(MyMetric)`` in a test.

It builds the metric, fills cases from what the metric declares it reads
(:mod:`agentmetrics.testing._cases`), and checks what it gives back: every
value in the declared range, passed flags, non-empty reasons, refusals that
are agentmetrics errors (a plain KeyError is a failure naming the case), a
missing input refused with MissingFieldError and one of the wrong kind with
InputTypeError, ``evaluate_batch`` and ``agentmetrics.evaluate`` equal to
``evaluate``, pickling and repr. A metric that scored none of its cases
fails: the kit never passes what it did not exercise.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs

from agentmetrics._base._display import range_text
from agentmetrics.errors import (
    AgentMetricsError,
    InputTypeError,
    InvalidMetricError,
    InvalidParameterError,
    MissingFieldError,
)
from agentmetrics.metric._inputs import Input
from agentmetrics.metric._metric import METRIC_NAME_PATTERN, Metric, check_metric_class
from agentmetrics.model._model import CASE_FIELDS, AgentTestCase, EvalScore
from agentmetrics.testing._cases import CALL_FIELDS, call_cases, input_cases, wrong_value, without

__all__ = ["CHECK_NAMES", "MetricCheck", "MetricConformanceError", "check_metric", "metric_checks"]


class MetricConformanceError(AssertionError):
    """A metric class breaks the Metric contract; the message says which check."""


#: How many cases the kit generates of each sort (tool calls; declared inputs).
_COUNT = 60

_Outcome = EvalScore | AgentMetricsError

_FIX_DECLARE = ("Fix: declare it in the class's inputs (or required_fields) and let "
                "Metric.evaluate check it; an evaluate of your own calls "
                "self.check_required_fields(case) before reading the case.")


def _shown(case: AgentTestCase) -> str:
    """The case's given fields, shortened: what a failure message shows of it."""
    given = ", ".join(f"{field.name}={getattr(case, field.name)!r}"
                      for field in attrs.fields(AgentTestCase)
                      if getattr(case, field.name) not in (None, {}))
    text = f"AgentTestCase({given})"
    return text if len(text) <= 240 else text[:237] + "..."


class _Subject:
    """A metric class under check, with what several checks share (built once)."""

    def __init__(self, metric_cls: type[Metric], params: dict[str, Any] | None,
                 cases: list[AgentTestCase] | None, seed: int) -> None:
        self.metric_cls = metric_cls
        self.params = dict(params or {})
        self.extra_cases = list(cases or [])
        self.seed = seed
        self.label = getattr(metric_cls, "__name__", repr(metric_cls))
        self._metric: Metric | None = None
        self._generated: list[AgentTestCase] | None = None
        self._scores: list[_Outcome] | None = None
        self._variants: list[tuple[str, Input, str, AgentTestCase]] | None = None

    def fail(self, check: str, why: str) -> MetricConformanceError:
        return MetricConformanceError(f"check_metric({self.label}): {check}: {why}")

    @property
    def metric(self) -> Metric:
        """The metric built with ``params`` (the construction check's subject)."""
        if self._metric is None:
            if not (isinstance(self.metric_cls, type) and issubclass(self.metric_cls, Metric)):
                raise self.fail("is a Metric",
                                f"expected a subclass of agentmetrics.Metric, got {self.metric_cls!r}")
            try:
                self._metric = self.metric_cls(**self.params)
            except Exception as error:
                raise self.fail("construction",
                                f"{self.label}(**{self.params!r}) raised {error!r}") from error
        return self._metric

    @property
    def inputs(self) -> tuple[Input, ...]:
        """What the metric declares it reads (checked by the metadata check)."""
        try:
            return self.metric_cls.declared_inputs()
        except InvalidMetricError as error:
            raise self.fail("inputs", str(error)) from None

    @property
    def generated(self) -> list[AgentTestCase]:
        """The tool-call cases (for a metric that reads calls or declares
        nothing), then the cases filled from its declared inputs (for one that
        reads anything else)."""
        if self._generated is None:
            inputs = self.inputs
            cases = []
            if not inputs or any(item.field in CALL_FIELDS for item in inputs):
                cases += call_cases(self.seed, _COUNT)
            if any(item.field not in CALL_FIELDS for item in inputs):
                cases += input_cases(inputs, self.seed, _COUNT)
            self._generated = cases
        return self._generated

    @property
    def cases(self) -> list[AgentTestCase]:
        return self.generated + self.extra_cases

    def case_name(self, index: int) -> str:
        given = index - len(self.generated)
        return f"case {index}" if given < 0 else f"case {index} (cases[{given}])"

    def attempt(self, check: str, index: int, case: AgentTestCase) -> _Outcome:
        """``evaluate(case)``: its score, or the agentmetrics error it refused
        the case with; anything else it raises fails ``check``."""
        try:
            return self.metric.evaluate(case)
        except InvalidMetricError as error:  # the validator found the metric at fault
            raise self.fail(check, f"{self.case_name(index)}: {error}") from error
        except AgentMetricsError as error:
            return error
        except Exception as error:
            kind = type(error).__name__
            raise self.fail(check, (
                f"{self.case_name(index)}: evaluate raised {kind}: {error}. A metric refuses a "
                f"case it cannot score with an agentmetrics error (MissingFieldError, "
                f"InputTypeError, InvalidCaseError), never a plain {kind}; the case: "
                f"{_shown(case)}")) from error

    def scores(self) -> list[_Outcome]:
        """Each case's EvalScore, or the AgentMetricsError it was refused with."""
        if self._scores is None:
            self._scores = [self.attempt("score", index, case)
                            for index, case in enumerate(self.cases)]
        return self._scores

    def base(self) -> tuple[int, AgentTestCase] | None:
        """The first case scored that gives every declared input (else the first
        scored): what the absent and wrong-kind variants are made from."""
        scored = [(index, case) for index, (case, score) in enumerate(zip(self.cases, self.scores()))
                  if isinstance(score, EvalScore)]
        complete = [(index, case) for index, case in scored
                    if all(item.problem(case) is None for item in self.inputs)]
        found = complete or scored
        return found[0] if found else None

    def variants(self) -> list[tuple[str, Input, str, AgentTestCase]]:
        """(``"absent"`` or ``"wrong"``, the input, what was done to it, the case):
        the base case without each declared input, then with each (where one can
        be built) of a wrong kind."""
        if self._variants is None:
            found: list[tuple[str, Input, str, AgentTestCase]] = []
            base = self.base()
            if base is not None:
                index, case = base
                found += [("absent", item, f"{self.case_name(index)} without {item.where}",
                           without(case, item)) for item in self.inputs]
                for item in self.inputs:
                    wrong = wrong_value(case, item)
                    if wrong is not None:
                        shown = f"{type(wrong[1]).__name__} {wrong[1]!r}"
                        found.append(("wrong", item, f"{self.case_name(index)} with {item.where} = {shown} "
                                            f"(declared {item.value_kind})", wrong[0]))
            self._variants = found
        return self._variants


def _check_is_a_metric(s: _Subject) -> None:
    if not (isinstance(s.metric_cls, type) and issubclass(s.metric_cls, Metric)):
        raise s.fail("is a Metric", f"expected a subclass of agentmetrics.Metric, got {s.metric_cls!r}")


def _check_metadata(s: _Subject) -> None:

    _check_is_a_metric(s)
    cls = s.metric_cls
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not METRIC_NAME_PATTERN.match(name):
        raise s.fail("name", f"expected a str matching {METRIC_NAME_PATTERN.pattern}, got {name!r}")
    fields = cls.required_fields
    if not isinstance(fields, tuple) or not set(fields) <= CASE_FIELDS:
        raise s.fail("required_fields", f"expected a tuple of AgentTestCase fields, got {fields!r}")
    for attribute in ("requires_llm_judge", "higher_is_better"):
        if not isinstance(getattr(cls, attribute), bool):
            raise s.fail(attribute, f"expected a bool, got {getattr(cls, attribute)!r}")
    description = cls.description
    if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
        raise s.fail("description", f"expected one non-empty line, got {description!r}")
    try:
        check_metric_class(cls)  # value_range, unit, default_threshold and the others
    except InvalidMetricError as error:
        raise s.fail("class attributes", str(error)) from None
    s.inputs  # noqa: B018 (a bad inputs declaration fails here, naming the attribute)


def _inside(value_range: tuple[float, float]) -> float:
    """A threshold a quarter of the way into ``value_range`` (0.25 for [0, 1]),
    or a quarter past its one finite end."""
    low, high = (float(bound) for bound in value_range)
    if math.isfinite(low) and math.isfinite(high):
        return low + (high - low) * 0.25
    if math.isfinite(low):
        return low + 0.25
    return high - 0.25 if math.isfinite(high) else 0.25


def _check_construction(s: _Subject) -> None:
    metric = s.metric
    low, high = s.metric_cls.value_range
    if (not isinstance(metric.threshold, float) or not low <= metric.threshold <= high
            or not math.isfinite(metric.threshold)):
        raise s.fail("threshold", f"expected a float in {range_text((low, high))}, got "
                                  f"{metric.threshold!r}")
    inside = _inside((low, high))
    tuned = s.metric_cls(**{**s.params, "threshold": inside})
    if tuned.threshold != inside:
        raise s.fail("threshold", f"threshold={inside!r} gave {tuned.threshold!r}")


def _check_threshold_validation(s: _Subject) -> None:
    s.metric  # noqa: B018 (a class that cannot be built fails here as construction)
    low, high = (float(bound) for bound in s.metric_cls.value_range)
    # Past each finite end of the range (1.5 and -0.1 for [0, 1]), then what no range holds.
    outside = ([high + max(0.5, (high - low) / 2)] if math.isfinite(high) else []) + (
        [low - 0.1 * max(1.0, high - low if math.isfinite(high) else 1.0)]
        if math.isfinite(low) else [])
    for bad in (*outside, math.nan, math.inf, True, "0.8"):
        try:
            s.metric_cls(**{**s.params, "threshold": bad})
        except ValueError:
            continue
        except Exception as error:
            raise s.fail("threshold validation", f"threshold={bad!r} raised {error!r}, not a ValueError") from error
        raise s.fail("threshold validation", f"threshold={bad!r} was accepted; it must raise ValueError")


def _check_scores(s: _Subject) -> None:
    metric, scores = s.metric, s.scores()
    if not any(isinstance(score, EvalScore) for score in scores):
        declared = ", ".join(item.name for item in s.inputs) or "nothing"
        raise s.fail("scores", (
            f"scored none of its {len(scores)} cases ({len(s.generated)} generated from what it "
            f"declares it reads: {declared}; {len(s.extra_cases)} given with cases=): each was "
            f"refused. Fix: declare every input the metric reads, e.g. inputs = "
            f"('actual_output', 'expected_output') or inputs = (Input('metadata.seconds', "
            f"'number'),), so the kit fills them; or pass cases=[AgentTestCase(...)] with cases "
            f"the metric scores. The first refusal (case 0): {scores[0]}"))
    low, high = s.metric_cls.value_range
    for index, (case, score) in enumerate(zip(s.cases, scores)):
        if not isinstance(score, EvalScore):
            continue
        where = s.case_name(index)
        if (type(score.value) is not float or not low <= score.value <= high
                or not math.isfinite(score.value)):
            raise s.fail("value", f"{where}: expected a float in {range_text((low, high))}, "
                                  f"got {score.value!r}")
        if type(score.passed) is not bool or score.passed != metric.passes(score.value):
            raise s.fail("passed", f"{where}: passed={score.passed!r} for value {score.value!r} "
                                   f"and threshold {metric.threshold!r}")
        if not isinstance(score.reason, str) or not score.reason:
            raise s.fail("reason", f"{where}: expected a non-empty str, got {score.reason!r}")
        if score.metric != s.metric_cls.name or score.threshold != metric.threshold:
            raise s.fail("score fields", f"{where}: metric={score.metric!r}, "
                                         f"threshold={score.threshold!r}")
        if s.attempt("repeatable", index, case) != score:
            raise s.fail("repeatable", f"{where}: a second evaluate gave a different score")


def _refused(s: _Subject, check: str, item: Input, done: str, case: AgentTestCase,
             expected: type[AgentMetricsError]) -> AgentMetricsError | None:
    """The ``expected`` error ``evaluate(case)`` raised; a failure of ``check``
    if it scored the case or raised anything else."""
    need = (f"it must raise {expected.__name__} naming the metric {s.metric.name!r} and "
            f"{item.where}")
    try:
        score = s.metric.evaluate(case)
    except expected as error:
        return error
    except InvalidMetricError as error:
        raise s.fail(check, f"{done}: {error}") from error
    except Exception as error:
        raise s.fail(check, f"{done}: evaluate raised {type(error).__name__}: {error}; "
                            f"{need}. {_FIX_DECLARE}") from error
    raise s.fail(check, f"{done}: the case was scored (value {score.value!r}, reason "
                        f"{score.reason!r}); {need}. {_FIX_DECLARE}")


def _check_required_fields(s: _Subject) -> None:
    for change, item, done, case in s.variants():
        if change == "absent":
            error = _refused(s, "required inputs", item, done, case, MissingFieldError)
            assert isinstance(error, MissingFieldError)
            if (error.metric, error.field) != (s.metric.name, item.where):
                raise s.fail("required inputs", (
                    f"{done}: MissingFieldError named the metric {error.metric!r} and "
                    f"{error.field!r}; expected {s.metric.name!r} and {item.where!r}"))


def _check_input_kinds(s: _Subject) -> None:
    for change, item, done, case in s.variants():
        if change == "wrong":
            error = _refused(s, "input kinds", item, done, case, InputTypeError)
            assert isinstance(error, InputTypeError)
            if (error.metric, error.where) != (s.metric.name, item.where):
                raise s.fail("input kinds", (
                    f"{done}: InputTypeError named the metric {error.metric!r} and "
                    f"{error.where}; expected {s.metric.name!r} and {item.where}"))


def _agrees(s: _Subject, label: str, who: str, result: Any, cases: list[AgentTestCase],
            singles: list[_Outcome]) -> None:
    """``result`` (a MetricResult) gives each case what ``evaluate`` gave it."""
    if len(result) != len(cases):
        raise s.fail(label, f"{len(result)} results for {len(cases)} cases")
    for index, single in enumerate(singles):
        where = s.case_name(index) if index < len(s.cases) else f"case {index}"
        if isinstance(single, AgentMetricsError):
            if result.errors.get(index) != str(single):
                raise s.fail(label, f"{where}: evaluate raised {single!r}, {who} recorded "
                                    f"{result.errors.get(index)!r}")
            continue
        got = (float(result.values[index]), bool(result.passed[index]), result.reason(index))
        expected = (single.value, single.passed, single.reason)
        if got != expected or index in result.errors:
            error = f" and recorded the error {result.errors[index]!r}" if index in result.errors else ""
            raise s.fail(label, f"{where}: {who} gave {got!r}{error}, evaluate gave {expected!r}")


def _check_batch_equals_scalar(s: _Subject) -> None:
    from agentmetrics.cases._tool_call_batch import ToolCallBatch  # numpy: only when checked
    from agentmetrics.engine._evaluate import evaluate

    metric = s.metric
    variants = [case for _, _, _, case in s.variants()]
    cases = s.cases + variants
    singles = s.scores() + [s.attempt("evaluate_batch", len(s.cases) + k, case)
                            for k, case in enumerate(variants)]
    paths: tuple[tuple[str, str, Callable[[], Any]], ...] = (
        ("evaluate_batch", "batch",
         lambda: metric.evaluate_batch(ToolCallBatch.from_cases(cases), errors="record")),
        ("agentmetrics.evaluate", "agentmetrics.evaluate(cases, [metric])",
         lambda: next(iter(evaluate(cases, [metric], errors="record").results.values()))),
    )
    for label, who, run in paths:
        try:
            result = run()
        except InvalidMetricError as error:
            raise s.fail(label, str(error)) from error
        except Exception as error:
            raise s.fail(label, f"{who} with errors='record' raised {type(error).__name__}: "
                                f"{error}; it must score every case or record why not") from error
        _agrees(s, label, who, result, cases, singles)


def _check_pickle(s: _Subject) -> None:
    import pickle

    metric = s.metric
    try:
        clone = pickle.loads(pickle.dumps(metric))
    except Exception as error:
        raise s.fail("pickle", f"{metric!r} does not survive pickling: {error!r}") from error
    sample = [(case, score) for case, score in zip(s.cases, s.scores()) if not isinstance(score, Exception)]
    if clone != metric or any(clone.evaluate(case) != score for case, score in sample[:10]):
        raise s.fail("pickle", "the unpickled metric differs from the original")


def _check_repr(s: _Subject) -> None:
    text = repr(s.metric)
    name = s.metric_cls.__name__
    if not text.startswith(f"{name}(") or " object at 0x" in text or len(text) > 300:
        raise s.fail("repr", f"expected a readable {name}(...), got {text!r}")


#: The checks, in the order check_metric runs them: (name, what it checks, function).
_CHECKS: tuple[tuple[str, str, Callable[[_Subject], None]], ...] = (
    ("is_a_metric", "the class subclasses agentmetrics.Metric", _check_is_a_metric),
    ("metadata", "name, required_fields, the two flags and a one-line description", _check_metadata),
    ("construction", "builds with the parameters; threshold a float in its value_range, settable",
     _check_construction),
    ("threshold_validation", "a bad threshold raises ValueError", _check_threshold_validation),
    ("scores", "scores some of its cases; values in value_range, passed, non-empty reasons, "
     "fields; refusals are agentmetrics errors; repeatable",
     _check_scores),
    ("required_fields", "a case without a declared input (each, metadata keys too) raises "
     "MissingFieldError naming the metric and the input", _check_required_fields),
    ("input_kinds", "a declared input of another kind raises InputTypeError naming it (never "
     "coerced)", _check_input_kinds),
    ("batch_equals_scalar", "evaluate_batch and agentmetrics.evaluate give evaluate's values bit "
     "for bit, passed, reasons, errors", _check_batch_equals_scalar),
    ("pickle", "the metric survives pickling and scores the same", _check_pickle),
    ("repr", "a readable ClassName(...) repr", _check_repr),
)


@attrs.frozen(slots=True)
class MetricCheck:
    """One named contract check of one metric class; call it to run it.

    Made by :func:`metric_checks`; ``str(check)`` is ``Class-check_name``, a
    test id. Raises MetricConformanceError when the metric breaks the check.
    """

    metric_cls: type[Metric]
    name: str
    description: str
    _run: Callable[[_Subject], None] = attrs.field(repr=False)
    _subject: _Subject = attrs.field(repr=False, eq=False)

    def __call__(self) -> None:
        self._run(self._subject)

    def __str__(self) -> str:
        return f"{self._subject.label}-{self.name}"


#: The names of the checks, in the order check_metric runs them.
CHECK_NAMES: tuple[str, ...] = tuple(name for name, _, _ in _CHECKS)


def metric_checks(
    metric_cls: type[Metric],
    params: dict[str, Any] | None = None,
    *,
    cases: list[AgentTestCase] | None = None,
    seed: int = 0,
    only: tuple[str, ...] | None = None,
) -> list[MetricCheck]:
    """The contract checks of ``metric_cls`` as separate callables, one test each::

        @pytest.mark.parametrize("check", metric_checks(MyMetric), ids=str)
        def test_contract(check):
            check()

    ``only`` picks checks by name (see :data:`CHECK_NAMES`). The checks share
    one built metric and its scores, so running them all costs what one
    :func:`check_metric` call does.
    """

    unknown = sorted(set(only or ()) - set(CHECK_NAMES))
    if unknown:
        raise InvalidParameterError(
            f"metric_checks(only=...): unknown checks {unknown}; expected names from {list(CHECK_NAMES)}.")
    subject = _Subject(metric_cls, params, cases, seed)
    return [MetricCheck(metric_cls, name, description, run, subject)
            for name, description, run in _CHECKS if only is None or name in only]


def check_metric(
    metric_cls: type[Metric],
    params: dict[str, Any] | None = None,
    *,
    cases: list[AgentTestCase] | None = None,
    seed: int = 0,
) -> None:
    """Check that ``metric_cls`` keeps the Metric contract, as a metric
    author's test: ``def test_contract(): check_metric(MyMetric)``.

    Runs every check of :func:`metric_checks` in order on cases generated
    from the metric's declared inputs (text, numbers, JSON values, tool calls,
    metadata values, each of its kind; seeded by ``seed``) plus ``cases``: the
    class metadata, threshold validation; that it scores at least one case,
    every value a float in its ``value_range``, passed flags, non-empty
    reasons, and refusals that are agentmetrics errors (any other exception
    fails, naming the case); each declared input, when absent, refused with
    MissingFieldError and, when of another kind, with InputTypeError, naming
    the metric and the input; ``evaluate_batch`` and ``agentmetrics.evaluate``
    equal to ``evaluate`` (values bit for bit, passed, reasons, recorded
    errors); pickling, a readable repr and repeatability. ``params`` are
    constructor parameters used throughout. Raises MetricConformanceError
    naming the failed check and why.
    """
    for check in metric_checks(metric_cls, params, cases=cases, seed=seed):
        check()
