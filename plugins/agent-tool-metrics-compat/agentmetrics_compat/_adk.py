"""adk_tool_trajectory: Google ADK's TrajectoryEvaluator, reproduced."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from agentmetrics import AgentTestCase, InvalidParameterError, Metric, ToolCall

from agentmetrics_compat._common import (
    check_flag,
    names_reason,
    readable_arguments,
    require_readable,
    show_call,
    unreadable_rows_nan,
)

if TYPE_CHECKING:
    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["MATCH_TYPES", "AdkToolTrajectory"]

_NAME = "adk_tool_trajectory"
MATCH_TYPES = ("EXACT", "IN_ORDER", "ANY_ORDER")


class AdkToolTrajectory(Metric):
    """Google ADK's TrajectoryEvaluator (``tool_trajectory_avg_score``, ADK
    2.x) for one invocation: 1.0 when the tool calls match, else 0.0.

    - ``match_type="EXACT"`` (ADK's default): the same calls in the same order.
    - ``"IN_ORDER"``: the expected calls appear in order among the calls made;
      extra calls allowed.
    - ``"ANY_ORDER"``: every expected call was made (repeats counted), in any
      order; extra calls allowed.
    - Two calls match on the name and, unless ``ignore_args``, arguments equal
      as Python values (``1 == 1.0``; a missing or extra argument differs).
      A call given no arguments (``ToolCall(name, None)``, ADK's
      ``FunctionCall(args=None)``) matches only another such call, not one
      given ``{}`` (ADK compares ``None == {}``). The call id is ignored. No
      expected calls: IN_ORDER and ANY_ORDER match; EXACT matches only no
      calls.
    - Arguments that are not a JSON object (``raw_arguments``) are refused
      whatever ``ignore_args`` says: ADK's FunctionCall takes an object only.

    ADK averages the invocations of a session: score a case whose ``turns``
    are the invocations with ``per_turn("adk_tool_trajectory",
    aggregate="mean")``, which gives ADK's overall score and, at threshold
    1.0 (ADK's default), its pass status.
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "Google ADK's tool trajectory match (EXACT, IN_ORDER, ANY_ORDER), reproduced."
    default_threshold: ClassVar[float] = 1.0

    def __init__(self, threshold: float | None = None, match_type: str = "EXACT",
                 ignore_args: bool = False) -> None:
        plain = getattr(match_type, "name", match_type)  # ADK's MatchType members
        if not isinstance(plain, str) or plain.upper() not in MATCH_TYPES:
            raise InvalidParameterError(
                f"{_NAME}: match_type must be one of {', '.join(map(repr, MATCH_TYPES))} (any case), "
                f"got {match_type!r}.")
        self.match_type = plain.upper()
        self.ignore_args = check_flag(_NAME, "ignore_args", ignore_args)
        super().__init__(threshold)

    def _show(self, call: ToolCall) -> str:
        return call.name if self.ignore_args else show_call(call)

    def _same(self, got: ToolCall, want: ToolCall) -> bool:
        return got.name == want.name and (self.ignore_args or (
            got.arguments == want.arguments and got.arguments_given == want.arguments_given))

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        called, expected = case.tool_calls, case.expected_tool_calls
        fix = "repair them (ADK's FunctionCall takes an object, even with ignore_args)."
        readable_arguments(_NAME, called, "called", fix)
        readable_arguments(_NAME, expected, "expected", fix)
        problem = self._problem(called, expected)
        if problem:
            return 0.0, f"{self.match_type}: {problem}"
        return 1.0, f"{self.match_type}: {len(called)} calls made, {len(expected)} expected, matched"

    def _problem(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str:
        """Why the calls do not match, or "" when they do."""
        how = {"EXACT": self._exact, "IN_ORDER": self._in_order, "ANY_ORDER": self._any_order}
        return how[self.match_type](called, expected)

    def _value(self, case: AgentTestCase) -> float:
        """What ``measure(case)`` gives as the value (raises where it refuses)."""
        called, expected = case.tool_calls, case.expected_tool_calls
        assert called is not None and expected is not None
        require_readable(called, expected)
        return 0.0 if self._problem(called, expected) else 1.0

    def _exact(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str:
        if len(called) != len(expected):
            return f"{len(called)} calls made, {len(expected)} expected"
        for k, (got, want) in enumerate(zip(called, expected, strict=True)):
            if not self._same(got, want):
                return f"call #{k + 1} is {self._show(got)}, expected {self._show(want)}"
        return ""

    def _in_order(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str:
        j = 0
        for got in called:
            if j < len(expected) and self._same(got, expected[j]):
                j += 1
        if j == len(expected):
            return ""
        return (f"{j} of {len(expected)} expected calls made in order; the next, "
                f"{self._show(expected[j])} (#{j + 1}), was not made after them")

    def _any_order(self, called: Sequence[ToolCall], expected: Sequence[ToolCall]) -> str:
        left = list(called)
        for j, want in enumerate(expected):
            for i, got in enumerate(left):
                if self._same(got, want):
                    del left[i]
                    break
            else:
                return f"expected call #{j + 1} {self._show(want)} was not made (or not as often)"
        return ""

    def scores_from_names(self) -> bool:
        return self.ignore_args

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized: EXACT is an LCS as long as both sides, IN_ORDER an LCS
        as long as the expected side, ANY_ORDER a count of calls paired one to
        one as long as the expected side (ADK's greedy pairing finds as many,
        equality being an equivalence). Calls are compared by name with
        ``ignore_args``, else by their Python-equality call keys
        (``batch.call_keys()``: name, arguments ``==``, whether given). A row
        the keys leave out (arguments that are not an object, a value with no
        key) is scored by ``measure``; each reason is made by ``evaluate``
        when asked for."""
        import numpy as np

        from agentmetrics.batch import (
            CallKeys,
            batch_errors,
            case_values,
            ratio_values,
            require_cases,
            row_lcs,
            row_multiset_overlap,
        )

        def values(batch: ToolCallBatch, keys: CallKeys | None = None) -> Any:
            made, wanted = np.diff(batch.called_offsets), np.diff(batch.expected_offsets)
            if self.match_type == "ANY_ORDER":
                ok = row_multiset_overlap(batch, keys) == wanted
            else:
                ok = row_lcs(batch, keys) == wanted
                if self.match_type == "EXACT":
                    ok &= made == wanted
            if keys is None:
                return unreadable_rows_nan(batch, ok.astype(np.float64))
            out = ok.astype(np.float64)
            out[keys.unkeyed] = np.nan
            return out

        if not self.ignore_args:
            require_cases(self, batch, "compares arguments", "ignore_args=True")
            keys = batch.call_keys("python")
            if keys is None:
                return case_values(self, batch, errors, self._value)
            return case_values(self, batch, errors, self._value,
                               bulk=lambda batch: values(batch, keys))

        if batch.cases is not None:  # a case whose arguments ADK refuses goes to measure
            return case_values(self, batch, errors, self._value, bulk=values)
        failed = batch_errors(self, batch, errors)
        return ratio_values(self, batch, values(batch), failed, names_reason(self))


