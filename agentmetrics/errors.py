"""Every error agentmetrics raises, in one hierarchy.

Each class also derives from the built-in exception a caller would reach for
(``ValueError``, ``LookupError``, ``ImportError``), so ``except ValueError``
keeps working for code that does not know about agentmetrics.

Messages follow one pattern: what was expected, what was received, and how to
fix it.
"""

from __future__ import annotations

__all__ = [
    "AgentMetricsError",
    "DuplicateMetricError",
    "InvalidCaseError",
    "InvalidMetricError",
    "InvalidParameterError",
    "MetricLoadError",
    "MetricNotFoundError",
    "MissingFieldError",
    "RegistryError",
]


class AgentMetricsError(Exception):
    """Base class of every error raised by agentmetrics."""


class InvalidParameterError(AgentMetricsError, ValueError):
    """A metric parameter (a threshold, an option) has a wrong type or value."""


class InvalidCaseError(AgentMetricsError, ValueError):
    """A test case, tool call or dataset line is malformed."""


class MissingFieldError(AgentMetricsError, ValueError):
    """A field the metric requires is ``None`` on the test case."""

    def __init__(self, metric: str, field: str) -> None:
        self.metric = metric
        self.field = field
        super().__init__(
            f"metric {metric!r} requires the test case field {field!r}, "
            f"but it is None. Fix: pass {field}=[...] to AgentTestCase "
            f"(an empty list is allowed and means 'none')."
        )

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.metric, self.field))


class InvalidMetricError(AgentMetricsError, TypeError):
    """A metric class breaks the Metric contract (bad name, bad value returned)."""


class RegistryError(AgentMetricsError):
    """Base class of the registry's errors."""


class MetricNotFoundError(RegistryError, LookupError):
    """No installed or registered metric has the requested name."""


class MetricLoadError(RegistryError, ImportError):
    """A metric plugin is installed but cannot be loaded or is not a Metric."""


class DuplicateMetricError(RegistryError):
    """A metric name is claimed twice (two distributions, or a local re-registration)."""
