"""Testing tools: assertions for tests of agents, and the conformance kit for metric authors.

``assert_that(case).called_tool("GetOrder")`` checks one case's calls;
``check_metric(MyMetric)`` (or :func:`metric_checks`, one test per check)
checks that a metric class keeps the Metric contract on cases generated from
what it declares it reads.
"""

from __future__ import annotations

from agentmetrics.testing._assertions import AgentAssertions, assert_that
from agentmetrics.testing._kit import (
    CHECK_NAMES,
    MetricCheck,
    MetricConformanceError,
    check_metric,
    metric_checks,
)

# Shown (and pickled) by the path users import them from, not the private module.
for _public in (AgentAssertions, MetricCheck, MetricConformanceError):
    _public.__module__ = __name__
del _public

__all__ = [
    "AgentAssertions",
    "CHECK_NAMES",
    "MetricCheck",
    "MetricConformanceError",
    "assert_that",
    "check_metric",
    "metric_checks",
]
