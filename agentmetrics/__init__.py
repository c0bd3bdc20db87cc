"""agentmetrics: deterministic, fast metrics for how LLM agents use tools.

>>> from agentmetrics import AgentTestCase, ToolSelectionAccuracy
>>> case = AgentTestCase(
...     tool_calls=["GetOrder", "CancelOrder"],
...     expected_tool_calls=["GetOrder", "CancelOrder", "IssueRefund"],
... )
>>> ToolSelectionAccuracy(threshold=0.8).evaluate(case)
EvalScore(value=0.67, passed=False, reason='Missing expected tool: IssueRefund', metric='tool_selection_accuracy', threshold=0.8)
"""

from __future__ import annotations

from agentmetrics._dataset import read_cases
from agentmetrics._metric import Metric
from agentmetrics._model import AgentTestCase, EvalScore, ToolCall
from agentmetrics.errors import (
    AgentMetricsError,
    DuplicateMetricError,
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
    MetricLoadError,
    MetricNotFoundError,
    MissingFieldError,
)
from agentmetrics.metrics import ToolSelectionAccuracy
from agentmetrics.registry import (
    MetricInfo,
    get_metric,
    get_metric_class,
    list_metrics,
    refresh,
    register_metric,
    unregister_metric,
)

__version__ = "0.1.0"

__all__ = [
    "AgentMetricsError",
    "AgentTestCase",
    "DuplicateMetricError",
    "EvalScore",
    "InvalidCaseError",
    "InvalidMetricError",
    "InvalidParameterError",
    "Metric",
    "MetricInfo",
    "MetricLoadError",
    "MetricNotFoundError",
    "MissingFieldError",
    "ToolCall",
    "ToolSelectionAccuracy",
    "__version__",
    "get_metric",
    "get_metric_class",
    "list_metrics",
    "read_cases",
    "refresh",
    "register_metric",
    "unregister_metric",
]
