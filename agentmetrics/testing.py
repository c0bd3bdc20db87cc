"""Assertions for tests of agents: ``assert_that(case).called_tool("GetOrder")``.

Each check raises AssertionError with a message a person can act on: what
was expected and what the agent called, in call order. Checks chain::

    assert_that(case).called_tool("GetOrder").never_called_tool("DeleteOrder")
"""

from __future__ import annotations

from typing import Any

from agentmetrics._metric import Metric
from agentmetrics._model import AgentTestCase, _describe
from agentmetrics.errors import InvalidCaseError

__all__ = ["AgentAssertions", "MetricConformanceError", "assert_that", "check_metric"]


def _listing(names: tuple[str, ...]) -> str:
    return ", ".join(names) if names else "no tools"


class AgentAssertions:
    """Fluent checks on one AgentTestCase's tool calls; every method returns self."""

    __slots__ = ("case",)

    def __init__(self, case: AgentTestCase) -> None:
        if not isinstance(case, AgentTestCase):
            raise InvalidCaseError(
                f"assert_that expects an AgentTestCase, got {_describe(case)}. Fix: build "
                f"AgentTestCase(tool_calls=[...], expected_tool_calls=[...])."
            )
        self.case = case

    @property
    def _called(self) -> tuple[str, ...]:
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
        if name not in self._called:
            raise self._fail(f"expected the agent to call {name!r}, but it never did")
        return self

    def never_called_tool(self, name: str) -> AgentAssertions:
        """The agent never called ``name``."""
        positions = [i + 1 for i, called in enumerate(self._called) if called == name]
        if positions:
            where = ", ".join(f"#{p}" for p in positions)
            raise self._fail(
                f"expected the agent never to call {name!r}, but it did (call {where})"
            )
        return self

    def called_tools(self, *names: str) -> AgentAssertions:
        """The agent called every one of ``names`` (in any order, others allowed)."""
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
        from agentmetrics.registry import resolve_metric

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

    from agentmetrics._model import ToolCall

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


def check_metric(
    metric_cls: type[Metric],
    params: dict[str, Any] | None = None,
    *,
    cases: list[AgentTestCase] | None = None,
    seed: int = 0,
) -> None:
    """Check that ``metric_cls`` keeps the Metric contract, as a metric
    author's test: ``def test_contract(): check_metric(MyMetric)``.

    Checks the class metadata, threshold validation, EvalScore types and
    bounds on generated cases (plus ``cases``), required-field errors,
    ``evaluate_batch`` equal to ``evaluate`` (values bit for bit, passed,
    reasons, recorded errors), pickling, a readable repr and repeatability.
    ``params`` are constructor parameters used throughout. Raises
    MetricConformanceError naming the failed check and why.
    """
    import math
    import pickle

    from agentmetrics._tool_call_batch import ToolCallBatch
    from agentmetrics._metric import METRIC_NAME_PATTERN, _CASE_FIELDS
    from agentmetrics.errors import AgentMetricsError, InvalidMetricError, MissingFieldError

    label = getattr(metric_cls, "__name__", repr(metric_cls))
    params = dict(params or {})

    def fail(check: str, why: str) -> MetricConformanceError:
        return MetricConformanceError(f"check_metric({label}): {check}: {why}")

    # metadata
    if not (isinstance(metric_cls, type) and issubclass(metric_cls, Metric)):
        raise fail("is a Metric", f"expected a subclass of agentmetrics.Metric, got {metric_cls!r}")
    name = getattr(metric_cls, "name", None)
    if not isinstance(name, str) or not METRIC_NAME_PATTERN.match(name):
        raise fail("name", f"expected a str matching {METRIC_NAME_PATTERN.pattern}, got {name!r}")
    fields = metric_cls.required_fields
    if not isinstance(fields, tuple) or not set(fields) <= _CASE_FIELDS:
        raise fail("required_fields", f"expected a tuple of AgentTestCase fields, got {fields!r}")
    for attribute in ("requires_llm_judge", "higher_is_better"):
        if not isinstance(getattr(metric_cls, attribute), bool):
            raise fail(attribute, f"expected a bool, got {getattr(metric_cls, attribute)!r}")
    description = metric_cls.description
    if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
        raise fail("description", f"expected one non-empty line, got {description!r}")

    # construction and threshold validation
    try:
        metric = metric_cls(**params)
    except Exception as error:
        raise fail("construction", f"{label}(**{params!r}) raised {error!r}") from error
    if not isinstance(metric.threshold, float) or not 0.0 <= metric.threshold <= 1.0:
        raise fail("threshold", f"expected a float in [0, 1], got {metric.threshold!r}")
    for bad in (1.5, -0.1, math.nan, True, "0.8"):
        try:
            metric_cls(**{**params, "threshold": bad})
        except ValueError:
            continue
        except Exception as error:
            raise fail("threshold validation", f"threshold={bad!r} raised {error!r}, not a ValueError") from error
        raise fail("threshold validation", f"threshold={bad!r} was accepted; it must raise ValueError")
    tuned = metric_cls(**{**params, "threshold": 0.25})
    if tuned.threshold != 0.25:
        raise fail("threshold", f"threshold=0.25 gave {tuned.threshold!r}")

    # scores on generated cases
    checked = _generated_cases(seed, 60) + list(cases or [])
    scores: list[Any] = []
    for index, case in enumerate(checked):
        try:
            score = metric.evaluate(case)
        except InvalidMetricError as error:  # the validator found the metric at fault
            raise fail("score", f"case {index}: {error}") from error
        except AgentMetricsError as error:
            scores.append(error)
            continue
        if type(score.value) is not float or not 0.0 <= score.value <= 1.0:
            raise fail("value", f"case {index}: expected a float in [0, 1], got {score.value!r}")
        if type(score.passed) is not bool or score.passed != metric.passes(score.value):
            raise fail("passed", f"case {index}: passed={score.passed!r} for value {score.value!r} "
                                 f"and threshold {metric.threshold!r}")
        if not isinstance(score.reason, str) or not score.reason:
            raise fail("reason", f"case {index}: expected a non-empty str, got {score.reason!r}")
        if score.metric != name or score.threshold != metric.threshold:
            raise fail("score fields", f"case {index}: metric={score.metric!r}, threshold={score.threshold!r}")
        if metric.evaluate(case) != score:
            raise fail("repeatable", f"case {index}: a second evaluate gave a different score")
        scores.append(score)

    # required fields
    for field in fields:
        bare = AgentTestCase(**{f: getattr(checked[-1], f) for f in ("input", "actual_output",
                                                                    "tool_calls", "expected_tool_calls")
                                if f != field})
        try:
            metric.evaluate(bare)
        except MissingFieldError as error:
            if error.field != field:
                raise fail("required fields", f"{field}=None raised about {error.field!r}") from error
            continue
        raise fail("required fields", f"a case with {field}=None was scored; it must raise MissingFieldError")

    # batch equals scalar
    batch_cases = checked + [AgentTestCase(**{fields[0]: None})] if fields else checked
    try:
        result = metric.evaluate_batch(ToolCallBatch.from_cases(batch_cases), errors="record")
    except InvalidMetricError as error:
        raise fail("evaluate_batch", str(error)) from error
    if len(result) != len(batch_cases):
        raise fail("evaluate_batch", f"{len(result)} results for {len(batch_cases)} cases")
    for index, case in enumerate(batch_cases):
        try:
            expected = metric.evaluate(case)
        except AgentMetricsError as error:
            if result.errors.get(index) != str(error):
                raise fail("evaluate_batch", f"case {index}: evaluate raised {error!r}, the batch "
                                             f"recorded {result.errors.get(index)!r}") from error
            continue
        got = (float(result.values[index]), bool(result.passed[index]), result.reason(index))
        if got != (expected.value, expected.passed, expected.reason) or index in result.errors:
            raise fail("evaluate_batch", f"case {index}: batch gave {got!r}, evaluate gave "
                                         f"{(expected.value, expected.passed, expected.reason)!r}")

    # pickling and repr
    try:
        clone = pickle.loads(pickle.dumps(metric))
    except Exception as error:
        raise fail("pickle", f"{metric!r} does not survive pickling: {error!r}") from error
    sample = [(case, score) for case, score in zip(checked, scores) if not isinstance(score, Exception)]
    if clone != metric or any(clone.evaluate(case) != score for case, score in sample[:10]):
        raise fail("pickle", "the unpickled metric differs from the original")
    text = repr(metric)
    if not text.startswith(f"{metric_cls.__name__}(") or " object at 0x" in text or len(text) > 300:
        raise fail("repr", f"expected a readable {metric_cls.__name__}(...), got {text!r}")
