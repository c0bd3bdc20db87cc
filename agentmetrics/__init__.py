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

from typing import TYPE_CHECKING, Any

from agentmetrics._base._version import __version__
from agentmetrics.errors import (
    AgentMetricsError,
    AgentMetricsWarning,
    CacheError,
    CacheWarning,
    CaptureError,
    CaseEvaluationError,
    DuplicateMetricError,
    EmptyEvaluationWarning,
    EvaluationInterrupted,
    InputTypeError,
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
    MetricLoadError,
    MetricNameError,
    MetricNotFoundError,
    MetricServiceError,
    MissingDependencyError,
    MissingFieldError,
    NestedTooDeepError,
    RegistryError,
    TransientMetricError,
    UserFunctionError,
)
from agentmetrics.metric._inputs import Input
from agentmetrics.metric._metric import Metric
from agentmetrics.metrics import PerTurn, ToolSelectionAccuracy, per_turn
from agentmetrics.model._model import AgentTestCase, EvalScore, ToolCall, UnreadableCase
from agentmetrics.registry import (
    MetricInfo,
    get_metric,
    get_metric_class,
    list_metrics,
    refresh,
    register_metric,
    unregister_metric,
)

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.capture import capture
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.engine._evaluate import aevaluate, evaluate
    from agentmetrics.io._compare import Comparison, compare
    from agentmetrics.io._input import example_cases, read_cases
    from agentmetrics.model._metric_result import MetricResult
    from agentmetrics.results._results import EvaluationResult
    from agentmetrics.results._summary import Summary
    from agentmetrics.results._table import Table
    from agentmetrics.runs import load_result

# Batch evaluation needs numpy; importing it lazily keeps `import agentmetrics`
# light for code (and pytest runs) that only score single cases.
_LAZY = {
    "ToolCallBatch": "agentmetrics.cases._tool_call_batch",
    "evaluate": "agentmetrics.engine._evaluate",
    "aevaluate": "agentmetrics.engine._evaluate",
    "EvaluationResult": "agentmetrics.results._results",
    "Comparison": "agentmetrics.io._compare",
    "compare": "agentmetrics.io._compare",
    "read_cases": "agentmetrics.io._input",
    "example_cases": "agentmetrics.io._input",
    "MetricResult": "agentmetrics.model._metric_result",
    "Summary": "agentmetrics.results._summary",
    "Table": "agentmetrics.results._table",
    "load_result": "agentmetrics.runs",
}


def __getattr__(name: str) -> Any:
    if name == "capture":
        # The subpackage, which is callable: `agentmetrics.capture()` opens a capture,
        # `agentmetrics.capture.Turn` is its class. Imported on first use: it is not
        # needed to score cases.
        import importlib

        return importlib.import_module("agentmetrics.capture")
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'agentmetrics' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The public names and the module's dunders: not the helpers this module
    imports for itself (``Any``, ``TYPE_CHECKING``, ``annotations``) nor its
    submodules, which are reached by their own names."""
    dunders = {name for name in globals() if name.startswith("__") and name.endswith("__")}
    return sorted(set(__all__) | dunders)


__all__ = [
    "AgentMetricsError",
    "AgentMetricsWarning",
    "AgentTestCase",
    "CacheError",
    "CacheWarning",
    "CaptureError",
    "CaseEvaluationError",
    "Comparison",
    "DuplicateMetricError",
    "EmptyEvaluationWarning",
    "EvalScore",
    "EvaluationInterrupted",
    "EvaluationResult",
    "Input",
    "InputTypeError",
    "InvalidCaseError",
    "InvalidMetricError",
    "InvalidParameterError",
    "Metric",
    "MetricInfo",
    "MetricLoadError",
    "MetricNameError",
    "MetricNotFoundError",
    "MetricResult",
    "MetricServiceError",
    "MissingDependencyError",
    "MissingFieldError",
    "NestedTooDeepError",
    "PerTurn",
    "RegistryError",
    "Summary",
    "Table",
    "ToolCall",
    "ToolCallBatch",
    "ToolSelectionAccuracy",
    "TransientMetricError",
    "UnreadableCase",
    "UserFunctionError",
    "__version__",
    "aevaluate",
    "capture",
    "compare",
    "evaluate",
    "example_cases",
    "get_metric",
    "get_metric_class",
    "list_metrics",
    "load_result",
    "per_turn",
    "read_cases",
    "refresh",
    "register_metric",
    "unregister_metric",
]
