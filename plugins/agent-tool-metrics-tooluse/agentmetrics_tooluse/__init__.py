"""Tool-use metrics for agentmetrics, installed as a plugin.

- ``argument_accuracy`` (:class:`ArgumentAccuracy`): expected arguments matched per paired call.
- ``tool_output_match`` (:class:`ToolOutputMatch`): expected tool outputs matched.
- ``trajectory_lcs`` (:class:`TrajectoryLCS`): expected calls made in order (LCS over expected).
- ``redundant_calls``, ``loop_detected``, ``call_budget``: efficiency.

Comparison rules for arguments and outputs: :class:`Exact`, :class:`Normalized`,
:class:`Numeric`, :class:`SetEqual`, another metric (:class:`MetricRule`), or
any callable.
"""

from __future__ import annotations

from agentmetrics_tooluse._efficiency import CallBudget, LoopDetected, RedundantCalls
from agentmetrics_tooluse._matched import ArgumentAccuracy, ToolOutputMatch
from agentmetrics_tooluse._ordered import TrajectoryLCS
from agentmetrics_tooluse._rules import Exact, MetricRule, Normalized, Numeric, SetEqual

__version__ = "0.1.0"
__all__ = [
    "ArgumentAccuracy",
    "CallBudget",
    "Exact",
    "LoopDetected",
    "MetricRule",
    "Normalized",
    "Numeric",
    "RedundantCalls",
    "SetEqual",
    "ToolOutputMatch",
    "TrajectoryLCS",
    "__version__",
]
