"""Efficiency: redundant_calls, loop_detected and call_budget."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

from agentmetrics import AgentTestCase, InvalidParameterError, Metric, ToolCall

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from agentmetrics import MetricResult, ToolCallBatch

__all__ = ["CallBudget", "LoopDetected", "RedundantCalls", "call_key", "find_loop"]

_SHOWN = 3


def call_key(call: ToolCall, by: str) -> str:
    """What makes two calls the same: the name (``by="name"``), or the name and
    the arguments as canonical JSON (``by="call"``; unreadable argument text
    compared as given)."""
    if by == "name":
        return call.name
    arguments = call.arguments if call.arguments_valid else {"<raw>": call.raw_arguments}
    return call.name + json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=repr)


def _show(call: ToolCall) -> str:
    if not call.arguments:
        return call.name
    text = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())
    return f"{call.name}({text if len(text) <= 50 else text[:47] + '...'})"


def _check_by(owner: str, by: object) -> str:
    if by not in ("call", "name"):
        raise InvalidParameterError(
            f"{owner}: by must be 'call' (same name and arguments) or 'name' (same tool), got {by!r}.")
    return str(by)


def _check_count(owner: str, name: str, value: object, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise InvalidParameterError(f"{owner}: {name} must be a whole number >= {least}, got {value!r}.")
    return value


def _names_result(metric: Metric, batch: ToolCallBatch, values: npt.NDArray[np.float64], errors: str,
                  reason: Callable[[list[str]], str]) -> MetricResult:
    """A result from per-case values computed on tool names, the reason of a
    case made from its called names when asked for."""
    import numpy as np

    from agentmetrics import MetricResult
    from agentmetrics.batch import batch_errors, passes

    failed = batch_errors(metric, batch, errors)
    if failed:
        values[list(failed)] = np.nan

    def explain(row: int) -> str:
        names = batch.called_names(row)
        assert names is not None
        return reason(list(names))

    return MetricResult(metric, values, passes(metric, values), failed, explain)


def _names_batch(metric: Metric, batch: ToolCallBatch, by: str) -> None:
    if by == "call":
        from agentmetrics.batch import require_cases

        require_cases(metric, batch, "with by='call' compares arguments", "by='name'")


class RedundantCalls(Metric):
    """The share of calls that repeat an earlier identical call (lower is better).

    ``by="call"`` (default): same tool and same arguments; ``by="name"``: same
    tool. No calls scores 0.0. Passes at or below the threshold (default 0.0:
    no repeat allowed).
    """

    name: ClassVar[str] = "redundant_calls"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls",)
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = False
    description: ClassVar[str] = "Share of tool calls that repeat an earlier identical call (lower is better)."
    default_threshold: ClassVar[float] = 0.0

    def __init__(self, threshold: float | None = None, by: str = "call") -> None:
        super().__init__(threshold)
        self.by = _check_by(self.name, by)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None
        calls = case.tool_calls
        if not calls:
            return 0.0, "No tool calls"
        seen: Counter[str] = Counter()
        first: dict[str, ToolCall] = {}
        for call in calls:
            key = call_key(call, self.by)
            seen[key] += 1
            first.setdefault(key, call)
        repeats = len(calls) - len(seen)
        if not repeats:
            return 0.0, f"No repeated calls among {len(calls)}"
        worst = [f"{_show(first[key]) if self.by == 'call' else key} x{count}"
                 for key, count in seen.most_common() if count > 1]
        listed = ", ".join(worst[:_SHOWN]) + (f" and {len(worst) - _SHOWN} more" if len(worst) > _SHOWN else "")
        return repeats / len(calls), f"{repeats} of {len(calls)} calls repeat an earlier one: {listed}"

    def scores_from_names(self) -> bool:
        return self.by == "name"

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized with ``by="name"`` (calls less distinct tools); case by
        case with ``by="call"``."""
        _names_batch(self, batch, self.by)
        from agentmetrics.batch import check_errors_mode

        if self.by == "call":
            return super().evaluate_batch(batch, errors=check_errors_mode(errors))
        import numpy as np

        from agentmetrics.batch import row_set_counts

        made = np.diff(batch.called_offsets)
        values = np.zeros(len(batch))
        np.divide(made - row_set_counts(batch)[0], made, out=values, where=made > 0)
        return _names_result(self, batch, values, errors,
                             lambda names: self.measure(AgentTestCase(tool_calls=names))[1])


def find_loop(keys: Sequence[str], max_period: int, repeats: int) -> tuple[int, int, int] | None:
    """The first block of 1 to ``max_period`` consecutive keys that occurs at
    least ``repeats`` times in a row: ``(start, period, times)``, the
    earliest start and, there, the shortest period; None when there is none."""
    best: tuple[int, int, int] | None = None
    for period in range(1, max_period + 1):
        run = 0
        for i in range(len(keys) - period):
            run = run + 1 if keys[i] == keys[i + period] else 0
            if run >= (repeats - 1) * period:
                start = i + 1 - run
                times = 1 + run // period
                block = keys[start:start + period]
                while keys[start + times * period:start + (times + 1) * period] == block:
                    times += 1
                if best is None or start < best[0]:
                    best = (start, period, times)
                break
    return best


class LoopDetected(Metric):
    """1.0 when the calls contain a loop, else 0.0 (lower is better).

    A loop: a block of 1 to ``max_period`` consecutive calls made
    ``repeats`` times in a row (default 3), ``by="call"`` (same tool and
    arguments) or ``by="name"``. The reason names the block, where it starts
    and how often it ran. Passes when no loop is found (threshold 0.0).
    """

    name: ClassVar[str] = "loop_detected"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls",)
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = False
    description: ClassVar[str] = "1.0 when a block of calls repeats back to back several times (lower is better)."
    default_threshold: ClassVar[float] = 0.0

    def __init__(self, threshold: float | None = None, repeats: int = 3, max_period: int = 4,
                 by: str = "call") -> None:
        super().__init__(threshold)
        self.repeats = _check_count(self.name, "repeats", repeats, 2)
        self.max_period = _check_count(self.name, "max_period", max_period, 1)
        self.by = _check_by(self.name, by)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None
        calls = case.tool_calls
        found = find_loop([call_key(call, self.by) for call in calls], self.max_period, self.repeats)
        if found is None:
            return 0.0, (f"No block of up to {self.max_period} calls repeats {self.repeats} times in a row "
                         f"among {len(calls)} calls")
        start, period, times = found
        block = " -> ".join(_show(call) if self.by == "call" else call.name
                            for call in calls[start:start + period])
        return 1.0, f"Loop: {block} made {times} times in a row from call #{start + 1}"

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Case by case with ``by="call"``; from the tool names with ``by="name"``."""
        _names_batch(self, batch, self.by)
        from agentmetrics.batch import check_errors_mode

        return super().evaluate_batch(batch, errors=check_errors_mode(errors))


class CallBudget(Metric):
    """1.0 within ``budget`` calls, else ``budget / calls`` (the share of the
    calls the budget allows). The reason says how many calls went over and
    which tools were called most. Passes only within budget by default
    (threshold 1.0)."""

    name: ClassVar[str] = "call_budget"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls",)
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = "1.0 within the allowed number of tool calls, else budget / calls."
    default_threshold: ClassVar[float] = 1.0

    def __init__(self, threshold: float | None = None, budget: int = 10) -> None:
        super().__init__(threshold)
        self.budget = _check_count(self.name, "budget", budget, 0)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_names is not None
        return self.measure_names(case.tool_names)

    def measure_names(self, called: Sequence[str]) -> tuple[float, str]:
        made = len(called)
        if made <= self.budget:
            return 1.0, f"{made} calls, within the budget of {self.budget}"
        most = ", ".join(f"{name} x{count}" for name, count in Counter(called).most_common(_SHOWN))
        return self.budget / made, (f"{made} calls, {made - self.budget} over the budget of {self.budget}; "
                                    f"most called: {most}")

    def scores_from_names(self) -> bool:
        return True

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: str = "raise") -> MetricResult:
        """Vectorized: the calls per case against the budget."""
        import numpy as np

        made = np.diff(batch.called_offsets)
        values = np.ones(len(batch))
        np.divide(self.budget, made, out=values, where=made > self.budget)
        return _names_result(self, batch, values, errors, lambda names: self.measure_names(names)[1])
