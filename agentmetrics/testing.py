"""Assertions for tests of agents: ``assert_that(case).called_tool("GetOrder")``.

Each check raises AssertionError with a message a person can act on: what
was expected and what the agent called, in call order. Checks chain::

    assert_that(case).called_tool("GetOrder").never_called_tool("DeleteOrder")
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs

from agentmetrics._base._display import range_text
from agentmetrics.errors import (
    AgentMetricsError,
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
    MissingFieldError,
)
from agentmetrics.metric._metric import METRIC_NAME_PATTERN, Metric, check_metric_class
from agentmetrics.model._model import CASE_FIELDS, AgentTestCase, ToolCall, describe
from agentmetrics.registry import resolve_metric

__all__ = [
    "AgentAssertions",
    "CHECK_NAMES",
    "MetricCheck",
    "MetricConformanceError",
    "assert_that",
    "check_metric",
    "metric_checks",
]


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "no tools"


class AgentAssertions:
    """Fluent checks on one AgentTestCase's tool calls; every method returns self."""

    __slots__ = ("case",)

    def __init__(self, case: AgentTestCase) -> None:
        if not isinstance(case, AgentTestCase):
            raise InvalidCaseError(
                f"assert_that expects an AgentTestCase, got {describe(case)}. Fix: build "
                f"AgentTestCase(tool_calls=[...], expected_tool_calls=[...])."
            )
        self.case = case

    @property
    def _called(self) -> tuple[str, ...]:
        __tracebackhide__ = True
        names = self.case.tool_names
        if names is None:
            raise InvalidCaseError(
                "assert_that: the test case has tool_calls=None, so there is nothing to "
                "check. Fix: record what the agent called, e.g. AgentTestCase(tool_calls=[...]); "
                "an empty list means it called nothing."
            )
        return names

    def _fail(self, expectation: str) -> AssertionError:
        return AssertionError(f"{expectation}\n  the agent called: {_listing(self._called)}")

    def called_tool(self, name: str) -> AgentAssertions:
        """The agent called ``name`` at least once."""
        __tracebackhide__ = True  # pytest shows the test's line and this message, not our source
        if name not in self._called:
            raise self._fail(f"expected the agent to call {name!r}, but it never did")
        return self

    def never_called_tool(self, name: str) -> AgentAssertions:
        """The agent never called ``name``."""
        __tracebackhide__ = True
        positions = [i + 1 for i, called in enumerate(self._called) if called == name]
        if positions:
            where = ", ".join(f"#{p}" for p in positions)
            raise self._fail(
                f"expected the agent never to call {name!r}, but it did (call {where})"
            )
        return self

    def called_tools(self, *names: str) -> AgentAssertions:
        """The agent called every one of ``names`` (in any order, others allowed)."""
        __tracebackhide__ = True
        called = set(self._called)
        missing = [name for name in dict.fromkeys(names) if name not in called]
        if missing:
            raise self._fail(
                f"expected the agent to call all of {', '.join(names)}; "
                f"missing: {', '.join(missing)}"
            )
        return self

    def called_exactly(self, *names: str) -> AgentAssertions:
        """The set of tools called is exactly ``names`` (order and repeats aside)."""
        __tracebackhide__ = True
        called = dict.fromkeys(self._called)
        wanted = dict.fromkeys(names)
        missing = [name for name in wanted if name not in called]
        unexpected = [name for name in called if name not in wanted]
        if missing or unexpected:
            parts = []
            if missing:
                parts.append(f"missing: {', '.join(missing)}")
            if unexpected:
                parts.append(f"unexpected: {', '.join(unexpected)}")
            raise self._fail(
                f"expected the agent to call exactly {_listing(tuple(wanted))}; "
                + "; ".join(parts)
            )
        return self

    def called_in_order(self, *names: str) -> AgentAssertions:
        """``names`` appear in this order among the first calls of each tool
        (other tools may come between)."""
        __tracebackhide__ = True
        first_calls = tuple(dict.fromkeys(self._called))
        position = 0
        for index, name in enumerate(names):
            try:
                position = first_calls.index(name, position) + 1
            except ValueError:
                reason = (
                    f"{name!r} was never called"
                    if name not in first_calls
                    else f"{name!r} was first called before {names[index - 1]!r}"
                )
                raise self._fail(
                    f"expected first calls in the order {' -> '.join(names)}, but {reason}"
                    f"\n  first calls, in order: {' -> '.join(first_calls) or 'none'}"
                ) from None
        return self

    def called_tool_times(self, name: str, times: int) -> AgentAssertions:
        """The agent called ``name`` exactly ``times`` times."""
        __tracebackhide__ = True
        count = self._called.count(name)
        if count != times:
            raise self._fail(
                f"expected the agent to call {name!r} {times} time{'s' * (times != 1)}, "
                f"but it called it {count} time{'s' * (count != 1)}"
            )
        return self

    def meets_metric(
        self,
        metric: Metric | type[Metric] | str,
        threshold: float | None = None,
        **params: Any,
    ) -> AgentAssertions:
        """The case passes ``metric`` (an instance, a class or a registry name),
        with ``threshold`` and ``params`` overriding its configuration."""
        __tracebackhide__ = True

        resolved = resolve_metric(metric, threshold, **params)
        score = resolved.evaluate(self.case)
        if not score.passed:
            side = "below" if resolved.higher_is_better else "above"
            raise AssertionError(
                f"{score.metric}: {score.value:.2f} is {side} the threshold "
                f"{score.threshold:g}: {score.reason}"
            )
        return self


def assert_that(case: AgentTestCase) -> AgentAssertions:
    """Start a chain of checks on ``case``."""
    return AgentAssertions(case)


# -- the conformance kit for metric authors -----------------------------------------


class MetricConformanceError(AssertionError):
    """A metric class breaks the Metric contract; the message says which check."""


_NAMES = ("GetOrder", "CancelOrder", "IssueRefund", "Search", "検索", "emoji🙂")


def _generated_cases(seed: int, count: int) -> list[AgentTestCase]:
    """Seeded cases covering empty lists, repeats, unicode names and arguments."""
    import random


    rng = random.Random(seed)

    def calls() -> list[ToolCall]:
        return [
            ToolCall(rng.choice(_NAMES), {"id": rng.randint(1, 3)} if rng.random() < 0.5 else {})
            for _ in range(rng.randint(0, 6))
        ]

    cases = [
        AgentTestCase(tool_calls=[], expected_tool_calls=[]),
        AgentTestCase(tool_calls=["GetOrder"], expected_tool_calls=[]),
        AgentTestCase(tool_calls=[], expected_tool_calls=["GetOrder"]),
        AgentTestCase(tool_calls=["GetOrder", "GetOrder"], expected_tool_calls=["GetOrder"]),
        AgentTestCase(tool_calls=["B", "A"], expected_tool_calls=["A", "B"]),
    ]
    while len(cases) < count:
        called = calls()
        expected = called[::-1] if rng.random() < 0.3 else calls()
        cases.append(
            AgentTestCase(
                input=f"request {len(cases)}",
                actual_output="done",
                tool_calls=called,
                expected_tool_calls=expected,
                metadata={"id": f"case-{len(cases)}"},
            )
        )
    return cases


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
        self._scores: list[Any] | None = None

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
    def cases(self) -> list[AgentTestCase]:
        return _generated_cases(self.seed, 60) + self.extra_cases

    def scores(self) -> list[Any]:
        """Each case's EvalScore, or the AgentMetricsError it raised."""

        if self._scores is None:
            scores: list[Any] = []
            for index, case in enumerate(self.cases):
                try:
                    scores.append(self.metric.evaluate(case))
                except InvalidMetricError as error:  # the validator found the metric at fault
                    raise self.fail("score", f"case {index}: {error}") from error
                except AgentMetricsError as error:
                    scores.append(error)
            self._scores = scores
        return self._scores


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
    metric = s.metric
    for index, (case, score) in enumerate(zip(s.cases, s.scores())):
        if isinstance(score, Exception):
            continue
        low, high = s.metric_cls.value_range
        if (type(score.value) is not float or not low <= score.value <= high
                or not math.isfinite(score.value)):
            raise s.fail("value", f"case {index}: expected a float in {range_text((low, high))}, "
                                  f"got {score.value!r}")
        if type(score.passed) is not bool or score.passed != metric.passes(score.value):
            raise s.fail("passed", f"case {index}: passed={score.passed!r} for value {score.value!r} "
                                   f"and threshold {metric.threshold!r}")
        if not isinstance(score.reason, str) or not score.reason:
            raise s.fail("reason", f"case {index}: expected a non-empty str, got {score.reason!r}")
        if score.metric != s.metric_cls.name or score.threshold != metric.threshold:
            raise s.fail("score fields", f"case {index}: metric={score.metric!r}, threshold={score.threshold!r}")
        if metric.evaluate(case) != score:
            raise s.fail("repeatable", f"case {index}: a second evaluate gave a different score")


def _check_required_fields(s: _Subject) -> None:

    metric, last = s.metric, s.cases[-1]
    for field in s.metric_cls.required_fields:
        bare = AgentTestCase(**{f: getattr(last, f) for f in ("input", "actual_output",
                                                              "tool_calls", "expected_tool_calls")
                                if f != field})
        try:
            metric.evaluate(bare)
        except MissingFieldError as error:
            if error.field != field:
                raise s.fail("required fields", f"{field}=None raised about {error.field!r}") from error
            continue
        raise s.fail("required fields", f"a case with {field}=None was scored; it must raise MissingFieldError")


def _check_batch_equals_scalar(s: _Subject) -> None:
    from agentmetrics.cases._tool_call_batch import ToolCallBatch

    metric, fields = s.metric, s.metric_cls.required_fields
    batch_cases = s.cases + [AgentTestCase(**{fields[0]: None})] if fields else s.cases
    try:
        result = metric.evaluate_batch(ToolCallBatch.from_cases(batch_cases), errors="record")
    except InvalidMetricError as error:
        raise s.fail("evaluate_batch", str(error)) from error
    if len(result) != len(batch_cases):
        raise s.fail("evaluate_batch", f"{len(result)} results for {len(batch_cases)} cases")
    for index, case in enumerate(batch_cases):
        try:
            expected = metric.evaluate(case)
        except AgentMetricsError as error:
            if result.errors.get(index) != str(error):
                raise s.fail("evaluate_batch", f"case {index}: evaluate raised {error!r}, the batch "
                                               f"recorded {result.errors.get(index)!r}") from error
            continue
        got = (float(result.values[index]), bool(result.passed[index]), result.reason(index))
        if got != (expected.value, expected.passed, expected.reason) or index in result.errors:
            raise s.fail("evaluate_batch", f"case {index}: batch gave {got!r}, evaluate gave "
                                           f"{(expected.value, expected.passed, expected.reason)!r}")


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
    ("scores", "EvalScore types, bounds, passed, reason and fields on generated cases; repeatable",
     _check_scores),
    ("required_fields", "a case missing a required field raises MissingFieldError naming it",
     _check_required_fields),
    ("batch_equals_scalar", "evaluate_batch gives evaluate's values bit for bit, passed, reasons, errors",
     _check_batch_equals_scalar),
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

    Runs every check of :func:`metric_checks` in order: the class metadata,
    threshold validation, EvalScore types and bounds on generated cases (plus
    ``cases``), required-field errors, ``evaluate_batch`` equal to
    ``evaluate`` (values bit for bit, passed, reasons, recorded errors),
    pickling, a readable repr and repeatability. ``params`` are constructor
    parameters used throughout. Raises MetricConformanceError naming the
    failed check and why.
    """
    for check in metric_checks(metric_cls, params, cases=cases, seed=seed):
        check()
