"""ToolCallMicroF1: each case's F1 of tool calls, pooled over a run as micro averages."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, ClassVar

import attrs
import numpy as np

from agentmetrics._kernels import multiset_overlap
from agentmetrics.batch import (
    MetricResult,
    batch_errors,
    check_errors_mode,
    passes,
    ratio_result,
    require_cases,
    row_multiset_overlap,
)
from agentmetrics.corpus import Ratio, Reducer
from agentmetrics.errors import InvalidCaseError
from agentmetrics.metric._metric import Metric, validate_flag
from agentmetrics.metrics._values import MeasuredReasons, json_key, shortened
from agentmetrics.model._metric_result import describe_error, loop_evaluate
from agentmetrics.model._model import AgentTestCase, ToolCall

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._base._arrays import FloatArray, IntArray
    from agentmetrics._base._types import ErrorsMode
    from agentmetrics.cases._tool_call_batch import ToolCallBatch

__all__ = ["ToolCallMicroF1", "call_key"]

_NAME = "tool_call_micro_f1"


def call_key(call: ToolCall) -> tuple[str, Hashable]:
    """A call matched by name and arguments: its name and its arguments as a
    JSON value (``1 == 1.0``; keys in any order). InvalidCaseError for a call
    whose arguments could not be read."""
    if call.raw_arguments is not None:
        text = shortened(call.raw_arguments)
        raise InvalidCaseError(
            f"{_NAME}: a {call.name} call has arguments that are not a JSON object ({text}); "
            f"expected an object to match by arguments. Fix: repair the recorded arguments, "
            f"or score by name (arguments=False).")
    return call.name, json_key(call.arguments)


def _counted(keys: Counter[Any], calls: dict[Any, ToolCall] | None) -> str:
    """Keys with their counts, as a reason lists them: ``search x2, lookup``;
    with ``calls``, each with its arguments: ``search(q='x')``."""
    def shown(key: Any) -> str:
        if calls is None:
            return str(key)
        call = calls[key]
        text = ", ".join(f"{name}={value!r}" for name, value in call.arguments.items())
        return f"{call.name}({text if len(text) <= 30 else text[:27] + '...'})"

    return ", ".join(f"{shown(key)} x{count}" if count > 1 else shown(key)
                     for key, count in keys.items())


class ToolCallMicroF1(Metric):
    """Each case's F1 of the tool calls made against those expected, by name
    (repeats count: each call is matched one to one with an expected call of
    the same name, exactly as ``tool_call_f1`` counts them); with
    ``arguments=True``, a call matches an expected call of the same name and
    equal arguments (as JSON values). ``matched = sum(min(called[k],
    expected[k]))``, ``F1 = 2 * matched / (made + expected)``; both empty
    scores 1.0.

    Over a run, the matches are pooled: ``micro_precision = sum(matched) /
    sum(made)``, ``micro_recall = sum(matched) / sum(expected)`` and
    ``micro_f1 = 2 * sum(matched) / (sum(made) + sum(expected))``: a case with
    many calls weighs more than one with few, unlike the mean of the F1s.
    """

    name: ClassVar[str] = _NAME
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = (
        "F1 of tool calls by name (or name and arguments); micro precision, recall, F1."
    )
    default_threshold: ClassVar[float] = 0.8
    #: Each case's calls matched, made and expected: what the micro averages pool.
    statistics: ClassVar[tuple[str, ...]] = ("matched", "called", "expected")
    aggregates: ClassVar[Mapping[str, Reducer]] = {
        "micro_precision": Ratio("matched", "called"),
        "micro_recall": Ratio("matched", "expected"),
        "micro_f1": Ratio("matched", ("called", "expected"), scale=2.0),
    }

    def __init__(self, threshold: float | None = None, arguments: bool = False) -> None:
        super().__init__(threshold)
        self.arguments = validate_flag(arguments, metric=self.name, parameter="arguments")

    def _keys(self, calls: Sequence[ToolCall]) -> list[Any]:
        if self.arguments:
            return list(map(call_key, calls))
        return [call.name for call in calls]

    def measure(  # type: ignore[override]  # a triple: the metric declares statistics
            self, case: AgentTestCase) -> tuple[float, str, dict[str, float]]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        called, expected = self._keys(case.tool_calls), self._keys(case.expected_tool_calls)
        shown = None
        if self.arguments:
            shown = dict(zip(chain(called, expected),
                             chain(case.tool_calls, case.expected_tool_calls)))
        return self.measure_keys(called, expected, shown)

    def measure_keys(self, called_keys: Sequence[Any], expected_keys: Sequence[Any],
                     calls: dict[Any, ToolCall] | None = None
                     ) -> tuple[float, str, dict[str, float]]:
        """``(F1, reason, statistics)`` from the keys of the calls made and
        expected (tool names, or with ``calls``, keys of :func:`call_key` and
        the calls they show)."""
        made, wanted = len(called_keys), len(expected_keys)
        if not made and not wanted:
            return 1.0, "No tool calls expected and none made", _statistics(0, 0, 0)
        called, expected = Counter(called_keys), Counter(expected_keys)
        matched = sum((called & expected).values())
        reason = f"precision {matched}/{made}, recall {matched}/{wanted}"
        missed, extra = expected - called, called - expected
        if missed:
            reason += f"; missed: {_counted(missed, calls)}"
        if extra:
            reason += f"; extra: {_counted(extra, calls)}"
        return 2 * matched / (made + wanted), reason, _statistics(matched, made, wanted)

    def scores_from_names(self) -> bool:
        return not self.arguments

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """By name: the per-case matches counted on the batch's tool-id arrays
        (the same kernel as every multiset metric), no object per case. By
        arguments: each call's key encoded once, then the same kernel."""
        if not self.arguments:
            failed = batch_errors(self, batch, errors)
            matched = row_multiset_overlap(batch)
            made = np.diff(batch.called_offsets)
            wanted = np.diff(batch.expected_offsets)
            result = ratio_result(self, batch, 2 * matched, made + wanted, failed,
                                  lambda c, e: self.measure_keys(c, e)[1])
            return attrs.evolve(result, statistics=_columns(matched, made, wanted))
        mode = check_errors_mode(errors)
        require_cases(self, batch, "compares arguments", "arguments=False")
        assert batch.cases is not None
        failed = batch_errors(self, batch, "record")
        matched, made, wanted, refused = self.argument_counts(batch.cases)
        for row, error in refused.items():
            failed.setdefault(row, describe_error(error))
        if failed and mode == "raise":
            return loop_evaluate(self, batch, mode)  # raises at the first such case, as it does
        values = np.ones(len(batch))
        np.divide(2 * matched, made + wanted, out=values, where=made + wanted > 0)
        if failed:
            values[list(failed)] = np.nan
        failed = dict(sorted(failed.items()))
        return MetricResult(self, values, passes(self, values), failed,
                            MeasuredReasons(self, batch, failed),
                            statistics=_columns(matched, made, wanted))

    def argument_counts(self, cases: Sequence[AgentTestCase]
                        ) -> tuple[IntArray, IntArray, IntArray, dict[int, InvalidCaseError]]:
        """Per case, calls matched by name and arguments, made and expected,
        from call keys encoded once; and the cases refused for arguments that
        could not be read (a case missing a list counts none)."""
        index: dict[Any, int] = {}
        sides: list[tuple[list[int], list[int]]] = [([], []), ([], [])]
        refused: dict[int, InvalidCaseError] = {}
        for row, case in enumerate(cases):
            try:
                keys = [_ids(case.tool_calls, index), _ids(case.expected_tool_calls, index)]
            except InvalidCaseError as error:
                refused[row] = error
                keys = [[], []]
            for (ids, lengths), side in zip(sides, keys):
                ids.extend(side)
                lengths.append(len(side))
        arrays = []
        for ids, lengths in sides:
            offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
            np.cumsum(lengths, out=offsets[1:])
            arrays.append((np.array(ids, dtype=np.int32), offsets))
        matched = multiset_overlap(arrays[0][0], arrays[0][1], arrays[1][0], arrays[1][1],
                                   len(index))
        return matched, np.diff(arrays[0][1]), np.diff(arrays[1][1]), refused


def _ids(calls: Iterable[ToolCall] | None, index: dict[Any, int]) -> list[int]:
    if calls is None:
        return []
    return [index.setdefault(key, len(index)) for key in map(call_key, calls)]


def _statistics(matched: int, made: int, wanted: int) -> dict[str, float]:
    return {"matched": float(matched), "called": float(made), "expected": float(wanted)}


def _columns(matched: IntArray, made: IntArray, wanted: IntArray) -> dict[str, FloatArray]:
    return {"matched": matched.astype(np.float64), "called": made.astype(np.float64),
            "expected": wanted.astype(np.float64)}
