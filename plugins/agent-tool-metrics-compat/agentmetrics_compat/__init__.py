"""The peers' tool-use metrics, reproduced for agentmetrics, installed as a plugin.

A team moving from another evaluation library scores its cases with that
library's definition, quirks included, and compares the numbers before
switching to agentmetrics' own metrics:

- ``deepeval_tool_correctness`` (:class:`DeepevalToolCorrectness`): deepeval's ToolCorrectnessMetric.
- ``ragas_tool_call_f1`` (:class:`RagasToolCallF1`): ragas' ToolCallF1.
- ``ragas_tool_call_accuracy`` (:class:`RagasToolCallAccuracy`): ragas' ToolCallAccuracy.
- ``agentevals_trajectory`` (:class:`AgentevalsTrajectory`): agentevals' trajectory match.
- ``adk_tool_trajectory`` (:class:`AdkToolTrajectory`): Google ADK's TrajectoryEvaluator.
- ``mlflow_tool_call_correctness`` (:class:`MlflowToolCallCorrectness`): MLflow's
  ToolCallCorrectness, exact mode; :func:`mlflow_tool_call` and
  :func:`mlflow_expected_calls` read the calls from MLflow's own inputs.
- ``bfcl_ast`` (:class:`BfclAst`): the Berkeley Function Calling Leaderboard's AST
  checker, Python categories.

Each is tested against the peer library itself, offline.
"""

from __future__ import annotations

from agentmetrics_compat._adk import AdkToolTrajectory
from agentmetrics_compat._agentevals import AgentevalsTrajectory
from agentmetrics_compat._bfcl import BfclAst, Verdict, check_bfcl
from agentmetrics_compat._deepeval import DeepevalToolCorrectness
from agentmetrics_compat._mlflow import MlflowToolCallCorrectness, mlflow_expected_calls, mlflow_tool_call
from agentmetrics_compat._ragas import RagasToolCallAccuracy, RagasToolCallF1

__version__ = "0.1.0"
__all__ = [
    "AdkToolTrajectory",
    "AgentevalsTrajectory",
    "BfclAst",
    "DeepevalToolCorrectness",
    "MlflowToolCallCorrectness",
    "RagasToolCallAccuracy",
    "RagasToolCallF1",
    "Verdict",
    "__version__",
    "check_bfcl",
    "mlflow_expected_calls",
    "mlflow_tool_call",
]
