"""mlflow_tool_call_correctness: MLflow's ToolCallCorrectness (exact mode), reproduced."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from agentmetrics import AgentTestCase, InvalidCaseError, Metric, ToolCall

from agentmetrics_compat._common import check_flag, listed, readable_arguments

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["MlflowToolCallCorrectness"]

_NAME = "mlflow_tool_call_correctness"


class MlflowToolCallCorrectness(Metric):
    """MLflow's ``ToolCallCorrectness`` scorer (MLflow 3.x) in its
    deterministic mode, ``should_exact_match=True``: 1.0 for "yes", 0.0 for
    "no". (Its other mode asks an LLM judge and is not reproduced.)

    - The calls made and expected must be as many; then, with
      ``should_consider_ordering``, equal position by position, otherwise
      equal **as sets**.
    - A call is its name and its arguments as JSON with sorted keys, so
      ``1`` and ``1.0`` differ, and so do ``"1"`` and ``1``. With
      ``compare_arguments=False``, names only: MLflow does this when any
      expected call is given without arguments.

    Quirks kept: **no expected calls is refused** (MLflow reads an empty
    expected list as no expectations, and its exact mode then raises), and
    unordered, the sets hide repeats: ``[a, a, b]`` against ``[a, b, b]`` is
    1.0.
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "MLflow's ToolCallCorrectness, exact mode: same length, then in order or as sets."
    default_threshold: ClassVar[float] = 1.0

    def __init__(self, threshold: float | None = None, should_consider_ordering: bool = False,
                 compare_arguments: bool = True) -> None:
        self.should_consider_ordering = check_flag(_NAME, "should_consider_ordering",
                                                   should_consider_ordering)
        self.compare_arguments = check_flag(_NAME, "compare_arguments", compare_arguments)
        super().__init__(threshold)

    def _signatures(self, calls: Sequence[ToolCall], side: str) -> list[str]:
        if not self.compare_arguments:
            return [call.name for call in calls]
        readable_arguments(_NAME, calls, side, "repair them, or pass compare_arguments=False.")
        out = []
        for k, call in enumerate(calls):
            try:
                text = json.dumps(call.arguments, sort_keys=True)
            except (TypeError, ValueError) as error:
                raise InvalidCaseError(
                    f"{_NAME}: {side} call #{k + 1} ({call.name}) has arguments MLflow cannot write "
                    f"as JSON ({error}); expected JSON values. Fix: convert them, or pass "
                    f"compare_arguments=False.") from None
            out.append(f"{call.name}({text})")
        return out

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        if not case.expected_tool_calls:
            raise InvalidCaseError(
                f"{_NAME}: no expected calls. MLflow reads an empty expected list as no "
                f"expectations and refuses to score it in exact mode. Fix: give the expected "
                f"calls, or score this case with trajectory_match, which scores an empty list.")
        made = self._signatures(case.tool_calls, "called")
        wanted = self._signatures(case.expected_tool_calls, "expected")
        if len(made) != len(wanted):
            return 0.0, f"no: {len(made)} calls made, {len(wanted)} expected"
        if self.should_consider_ordering:
            for k, (got, want) in enumerate(zip(made, wanted, strict=True)):
                if got != want:
                    return 0.0, f"no: call #{k + 1} is {got}, expected {want}"
            return 1.0, f"yes: all {len(wanted)} calls in order"
        if set(made) != set(wanted):
            missing = sorted(set(wanted) - set(made))
            extra = sorted(set(made) - set(wanted))
            return 0.0, f"no: missing {listed(missing)}; not expected {listed(extra)}"
        if sorted(made) != sorted(wanted):
            return 1.0, ("yes: the same calls as sets, though repeated differently (MLflow "
                         "compares sets)")
        return 1.0, f"yes: the same {len(wanted)} calls, in any order"

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Case by case in one tight loop of ``measure``'s values (without
        ``evaluate``'s checks of each result; the values are checked once, as
        a batch), each reason made by ``evaluate`` when asked for."""
        from agentmetrics.batch import case_values, require_cases

        require_cases(self, batch, "compares calls")
        return case_values(self, batch, errors, lambda case: self.measure(case)[0])
