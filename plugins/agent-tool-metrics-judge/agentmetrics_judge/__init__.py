"""LLM-judge metrics for agentmetrics, installed as a plugin.

- ``tool_call_appropriateness`` (:class:`ToolCallAppropriateness`): the share
  of an agent's tool calls that a judge model, reached through any
  OpenAI-compatible chat-completions endpoint, finds appropriate for the
  user's request.
"""

from __future__ import annotations

from agentmetrics_judge._appropriateness import ToolCallAppropriateness
from agentmetrics_judge._errors import JudgeConfigurationError
from agentmetrics_judge._verdict import DEFAULT_RUBRIC, VERDICT_SCHEMA

__version__ = "0.1.0"
__all__ = [
    "DEFAULT_RUBRIC",
    "VERDICT_SCHEMA",
    "JudgeConfigurationError",
    "ToolCallAppropriateness",
    "__version__",
]
