"""Every error agentmetrics raises, in one hierarchy.

Each class also derives from the built-in exception a caller would reach for
(``ValueError``, ``LookupError``, ``ImportError``), so ``except ValueError``
keeps working for code that does not know about agentmetrics.

Messages follow one pattern: what was expected, what was received, and how to
fix it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "AgentMetricsError",
    "AgentMetricsWarning",
    "CacheError",
    "CacheWarning",
    "CaptureError",
    "CaseEvaluationError",
    "DuplicateMetricError",
    "EmptyEvaluationWarning",
    "EvaluationInterrupted",
    "InputTypeError",
    "InvalidCaseError",
    "InvalidMetricError",
    "InvalidParameterError",
    "MetricLoadError",
    "MetricNameError",
    "MetricNotFoundError",
    "MetricServiceError",
    "MissingDependencyError",
    "MissingFieldError",
    "NestedTooDeepError",
    "RegistryError",
    "TransientMetricError",
    "UserFunctionError",
    "call_user_function",
    "user_function_returned",
]


class AgentMetricsError(Exception):
    """Base class of every error raised by agentmetrics."""


class InvalidParameterError(AgentMetricsError, ValueError):
    """A metric parameter (a threshold, an option) has a wrong type or value."""


class CacheError(InvalidParameterError):
    """The score cache cannot be used: a path that names no file of its own
    (``cache=""``), a file of another program, of another format, or holding
    rows agentmetrics did not write. The message names the file and the fix."""


class InvalidCaseError(AgentMetricsError, ValueError):
    """A test case, tool call or dataset line is malformed."""


class CaptureError(InvalidCaseError):
    """What :func:`agentmetrics.capture` recorded cannot be read exactly: a
    model response the readers refuse (the message names the provider, the
    endpoint and the turn), a stream that was closed before it ended, or no
    model traffic at all inside the ``with`` block."""


#: What to give for a field that is not a list of calls, by field (a JSONL line or a
#: DataFrame column of the same name gives it too).
_FIELD_FIXES = {
    "input": "pass input=... (what the agent was asked) to AgentTestCase.",
    "actual_output": "pass actual_output=... (the agent's answer) to AgentTestCase.",
    "expected_output": "pass expected_output=... (the reference answer, any JSON value) to "
                       "AgentTestCase.",
    "latency": "pass latency=... (the run's wall time in seconds, a number) to AgentTestCase.",
    "cost": "pass cost=... (what the run cost, a number) to AgentTestCase.",
    "usage": "pass usage={'input_tokens': ..., 'output_tokens': ...} to AgentTestCase.",
    "turns": "pass turns=[...] (one case per turn) to AgentTestCase.",
}


class MissingFieldError(AgentMetricsError, ValueError):
    """A field the metric requires is ``None`` on the test case."""

    def __init__(self, metric: str, field: str, has_expectation: bool = False,
                 expected: str | None = None) -> None:
        self.metric = metric
        self.field = field
        self.has_expectation = has_expectation
        self.expected = expected
        if field.startswith("metadata["):
            key = field[len("metadata["):-1]
            super().__init__(
                f"metric {metric!r} reads {field} ({expected or 'any JSON value'}), but the "
                f"test case's metadata has no {key} (or holds None). Fix: pass "
                f"AgentTestCase(metadata={{{key}: ...}}); a JSONL line's or a table's "
                f"metadata gives it too.")
            return
        if field == "expectation":
            fix = ("pass expectation=Expectation([...]) (or its JSON form) to AgentTestCase, or "
                   "score the case with a metric that reads expected_tool_calls.")
        elif field in _FIELD_FIXES:
            fix = _FIELD_FIXES[field]
        else:
            fix = (f"pass {field}=[...] to AgentTestCase (an empty list is allowed and means "
                   f"'none').")
        if has_expectation and field == "expected_tool_calls":
            fix += (" This case gives an expectation instead, which this metric does not read: "
                    "score it with expectation_match.")
        super().__init__(
            f"metric {metric!r} requires the test case field {field!r}, but it is None. Fix: {fix}"
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.metric, self.field, self.has_expectation, self.expected))


class InputTypeError(InvalidCaseError):
    """A metric's declared input holds a value of another kind than it
    declares (text where a number is declared): refused, never coerced."""

    def __init__(self, metric: str, where: str, expected: str, value: object) -> None:
        self.metric = metric
        self.where = where
        self.expected = expected
        self.value = value
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        super().__init__(
            f"metric {metric!r} reads {where} as {expected}, got {type(value).__name__} "
            f"{shown}. Fix: give {where} as that kind; it is never converted from another.")

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.metric, self.where, self.expected, self.value))


class NestedTooDeepError(InvalidCaseError):
    """A case whose values nest deeper than a metric's (often recursive)
    comparison of them can follow: scoring it ran out of Python's stack. The
    case's error, not the metric's bug: the other cases are scored."""

    def __init__(self, metric: str, limit: int) -> None:
        self.metric = metric
        self.limit = limit
        super().__init__(
            f"{metric}: this case could not be scored: comparing its values went deeper than "
            f"Python's recursion limit ({limit} frames) allows. Expected arguments and outputs "
            f"nested at most a few hundred levels deep; this case's are deeper (or the metric "
            f"recurses without end). Fix: flatten the nested arguments or outputs (or raise "
            f"sys.setrecursionlimit).")

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.metric, self.limit))


class CaseEvaluationError(AgentMetricsError, ValueError):
    """One case of a batch could not be scored (``errors="raise"``).

    ``index`` and ``case_id`` say which case; the original error is chained
    as ``__cause__``.
    """

    def __init__(self, index: int, case_id: object, metric: str, message: str) -> None:
        self.index = index
        self.case_id = case_id
        self.metric = metric
        self.message = message
        named = f"case {index}" if case_id is None else f"case {index} (id {case_id!r})"
        super().__init__(
            f"{named} could not be scored by {metric!r}: {message} "
            f"Fix the case, or pass errors='record' to score the rest and report it."
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.index, self.case_id, self.metric, self.message))


class MissingDependencyError(AgentMetricsError, ImportError):
    """An optional dependency (pandas, pyarrow, tqdm, matplotlib) is needed."""


class InvalidMetricError(AgentMetricsError, TypeError):
    """A metric class breaks the Metric contract (bad name, bad value returned)."""


class RegistryError(AgentMetricsError):
    """Base class of the registry's errors."""


class MetricNotFoundError(RegistryError, LookupError):
    """No installed or registered metric has the requested name.

    Besides its message: ``metric`` (the name asked for) and ``suggestions``
    (registry names close to it, best first; empty when none is close)."""

    def __init__(self, message: str, *, metric: str | None = None,
                 suggestions: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.metric = metric
        self.suggestions = suggestions


class MetricLoadError(RegistryError, ImportError):
    """A metric plugin is installed but cannot be loaded or is not a Metric.

    Besides its message: ``metric`` (the name asked for), ``distribution``
    and ``target`` (``module:attribute`` of the entry point) when known, and
    ``problem``, what went wrong, in words."""

    def __init__(self, message: str, *, metric: str | None = None,
                 distribution: str | None = None, target: str | None = None,
                 problem: str | None = None) -> None:
        super().__init__(message)
        self.metric = metric
        self.distribution = distribution
        self.target = target
        self.problem = problem


class DuplicateMetricError(RegistryError, ValueError):
    """A metric name is claimed twice (two distributions, or a local re-registration).

    Besides its message: ``metric`` (the name asked for or registered) and
    ``candidates`` (the names that each pick one of the claimants, e.g.
    ``distribution/name``; empty for a re-registration)."""

    def __init__(self, message: str, *, metric: str | None = None,
                 candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.metric = metric
        self.candidates = candidates


class MetricNameError(RegistryError, TypeError):
    """A metric was asked for by something that is not a name (a str)."""


class MetricServiceError(AgentMetricsError, RuntimeError):
    """A metric could not score a case because a service it calls failed or
    answered badly: a judge's verdict that is not valid JSON, an HTTP error.

    Not the case's fault and not a bug in the metric: with ``errors="record"``
    the case's row carries the message, and the rest are scored.
    """


class TransientMetricError(MetricServiceError):
    """A failure worth retrying: a rate limit (HTTP 429), a server error (5xx),
    a dropped connection. ``retry_after`` is how long the service asked to wait,
    in seconds (HTTP ``Retry-After``), or None. ``evaluate(..., retries=R)``
    retries these, with exponential backoff and jitter, and never waits less
    than ``retry_after``."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        self.retry_after = retry_after
        super().__init__(message)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.retry_after))


class UserFunctionError(AgentMetricsError, ValueError):
    """A function the user gave a metric (a comparison rule, an override of
    the argument check) raised, or returned what the metric cannot use.

    Neither the case's fault nor a bug in the metric: with
    ``errors="record"`` the case's row carries the message, which names the
    function and where it is defined; its own exception is chained as
    ``__cause__``.
    """


def _function_name(function: object) -> str:
    """``qualname (file:line)`` of a function where Python knows it, else its repr."""
    name = getattr(function, "__qualname__", None) or getattr(function, "__name__", None)
    code = getattr(function, "__code__", None)
    if name is None:
        return repr(function)[:80]
    if code is not None:
        return f"{name} ({code.co_filename}:{code.co_firstlineno})"
    return str(name)


def call_user_function(function: Callable[..., Any], role: str, *args: Any,
                       truth: bool = False) -> Any:
    """``function(*args)`` (with ``truth``, the truth value of its result, as
    ``if function(*args):`` reads it); any exception it raises becomes a
    :class:`UserFunctionError` that names the function and its ``role`` (for
    example "the override for 'search' of agentevals_trajectory"), chained to
    the original, so a case it fails on is an error row of the user's function,
    not a metric bug. An agentmetrics error it raises passes unchanged."""
    try:
        return bool(function(*args)) if truth else function(*args)
    except AgentMetricsError:
        raise
    except Exception as error:
        raise UserFunctionError(
            f"{role}: your function {_function_name(function)} raised "
            f"{type(error).__name__}: {str(error)[:200]}; expected it to return. Fix the "
            f"function (it is yours, not the metric's), or pass errors='record' to score "
            f"the other cases.") from error


def user_function_returned(function: object, role: str, result: object, expected: str) -> UserFunctionError:
    """The error for a user's function that returned what the metric cannot use."""
    shown = repr(result)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return UserFunctionError(
        f"{role}: your function {_function_name(function)} returned "
        f"{type(result).__name__} {shown}; expected {expected}. Fix the function.")


class EvaluationInterrupted(KeyboardInterrupt):
    """An evaluation stopped by Ctrl-C. It is a KeyboardInterrupt, so it stops
    the program as one does; ``result`` holds what finished (the cases not yet
    scored are error rows that say so), and a cache kept everything scored.

    Not an AgentMetricsError, so that ``except Exception`` never swallows it.
    """

    def __init__(self, result: object) -> None:
        self.result = result
        super().__init__("the evaluation was interrupted; .result holds the cases scored so far")


class AgentMetricsWarning(UserWarning):
    """Base class of every warning agentmetrics gives."""


class EmptyEvaluationWarning(AgentMetricsWarning):
    """``evaluate()`` was given no case: the result has no row, and its
    summary's means and pass rates are NaN (unknown), not 0 or 1."""


class CacheWarning(AgentMetricsWarning):
    """The cache could not be read or written during a run: the scores are in
    the result all the same; those not written are scored again next time."""


def metric_bug(metric: object, what: str) -> InvalidMetricError:
    """The error for a metric that broke its contract: says whose bug it is.
    (Here, below every module that checks a metric, so none imports another
    to raise it.)"""
    return InvalidMetricError(
        f"metric bug in {type(metric).__name__}: {what}. This is a bug in the metric, "
        f"not in the case: report it to the metric's author."
    )
