"""ToolSelectionAccuracy: did the agent pick the tools it was expected to pick?"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import filterfalse
from operator import attrgetter
from typing import TYPE_CHECKING, ClassVar

from agentmetrics._base._lis import longest_increasing_run
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics.metric._metric import Metric, validate_flag
from agentmetrics.model._model import AgentTestCase

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.model._metric_result import MetricResult

__all__ = ["ToolSelectionAccuracy", "longest_increasing_run"]


_NAME = attrgetter("name")


class ToolSelectionAccuracy(Metric):
    """Intersection over union of the tools called and the tools expected.

    Unordered (default): ``|A & E| / |A | E|`` over the *sets* of names, so
    repeated calls and call order do not matter; both empty scores 1.0.

    ``order_matters=True``: both lists are reduced to the order of each tool's
    first call; the value is the length of their longest common subsequence
    over ``|A | E|``. It never exceeds the unordered value and equals it when
    the shared tools were first called in the expected order.
    """

    name: ClassVar[str] = "tool_selection_accuracy"
    required_fields: ClassVar[tuple[str, ...]] = ("tool_calls", "expected_tool_calls")
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = (
        "Intersection over union of tool names called and expected, optionally order-aware."
    )
    default_threshold: ClassVar[float] = 0.8

    def __init__(self, threshold: float | None = None, order_matters: bool = False) -> None:
        super().__init__(threshold)
        self.order_matters = validate_flag(
            order_matters, metric=self.name, parameter="order_matters"
        )

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        assert case.tool_calls is not None and case.expected_tool_calls is not None
        return self.measure_names(map(_NAME, case.tool_calls), map(_NAME, case.expected_tool_calls))

    def scores_from_names(self) -> bool:
        return True

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """Vectorized evaluate: the same values (bit for bit), passed flags and
        reasons as :meth:`evaluate` on each case, computed with numpy."""
        from agentmetrics import _kernels
        from agentmetrics.batch import batch_errors, ratio_values

        failed = batch_errors(self, batch, check_errors_mode(errors))
        values = _kernels.selection_values(
            batch.called_ids,
            batch.called_offsets,
            batch.expected_ids,
            batch.expected_offsets,
            len(batch.vocabulary),
            self.order_matters,
        )
        return ratio_values(
            self, batch, values, failed, lambda c, e: self.measure_names(c, e)[1],
            self.reasons_of_names,
        )

    def reasons_of_names(
        self, called_lists: Sequence[Sequence[str] | None],
        expected_lists: Sequence[Sequence[str] | None],
    ) -> list[str]:
        """The reasons :meth:`measure_names` gives, for many cases in one call
        (a row with a side of None gets a placeholder: it is an error row)."""
        ordered = self.order_matters
        return ["(not scored)" if called is None or expected is None
                else _measured(called, expected, ordered)[2]
                for called, expected in zip(called_lists, expected_lists)]

    def measure_names(
        self, called_names: Iterable[str], expected_names: Iterable[str]
    ) -> tuple[float, str]:
        """``(value, reason)`` from two sequences of tool names, in call order."""
        matched, union, reason = _measured(called_names, expected_names, self.order_matters)
        return (matched / union if union else 1.0), reason


def _measured(called_names: Iterable[str], expected_names: Iterable[str], ordered: bool
              ) -> tuple[int, int, str]:
    """``(matched, union, reason)`` of one case: the scalar path, and the
    reasons of the batch path, in one place.

    Insertion-ordered dicts are each side's first-call order and its set at
    once; filter/filterfalse of a dict's ``__contains__`` make the lists
    without a comprehension's frame (this runs a million times a file)."""
    called = dict.fromkeys(called_names)
    expected = dict.fromkeys(expected_names)
    if not called and not expected:
        return 0, 0, "No tools expected and none called"
    missing = list(filterfalse(called.__contains__, expected))
    unexpected = list(filterfalse(expected.__contains__, called))
    matched = len(called) - len(unexpected)  # the shared tools
    union = len(called) + len(missing)
    if missing:
        reason = (("Missing expected tools: " if len(missing) > 1
                   else "Missing expected tool: ") + ", ".join(missing))
        if unexpected:
            reason += (("; Unexpected tools: " if len(unexpected) > 1
                        else "; Unexpected tool: ") + ", ".join(unexpected))
    elif unexpected:
        reason = (("Unexpected tools: " if len(unexpected) > 1 else "Unexpected tool: ")
                  + ", ".join(unexpected))
    else:
        reason = ""
    if ordered and matched > 1:
        in_called = list(filter(expected.__contains__, called))
        in_expected = list(filter(called.__contains__, expected))
        if in_called != in_expected:  # else all are in expected order: the LCS is matched
            # Positions among the shared tools order them as positions in expected do.
            position = {name: index for index, name in enumerate(in_expected)}
            matched = longest_increasing_run([position[name] for name in in_called])
            reason += (("; " if reason else "") + "Out of expected order: expected "
                       + " -> ".join(in_expected) + ", called " + " -> ".join(in_called))
    return matched, union, reason or "All expected tools called: " + ", ".join(expected)


ToolSelectionAccuracy.__module__ = "agentmetrics.metrics"  # pickles name the public path
