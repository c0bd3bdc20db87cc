"""Trajectory metrics for agentmetrics, installed as a plugin.

- ``tool_call_f1`` (:class:`ToolCallF1`): F1 over the multisets of tool names.
- ``trajectory_match`` (:class:`TrajectoryMatch`): 1.0 when the calls match
  the expected ones under a mode, with one-to-one optimal matching.
"""

from __future__ import annotations

from agentmetrics_trajectory._f1 import ToolCallF1
from agentmetrics_trajectory._match import TrajectoryMatch

__version__ = "0.1.0"
__all__ = ["ToolCallF1", "TrajectoryMatch", "__version__"]
