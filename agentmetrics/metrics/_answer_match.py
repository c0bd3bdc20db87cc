"""AnswerMatch: is the agent's answer the reference answer?"""

from __future__ import annotations

from itertools import repeat
from operator import eq, is_
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from agentmetrics.batch import MetricResult, passes
from agentmetrics.errors import InvalidParameterError
from agentmetrics.metric._inputs import Input
from agentmetrics.metric._metric import Metric
from agentmetrics.metrics._values import (
    MeasuredReasons,
    field_failures,
    first_difference,
    json_key,
    normalized_text,
    parsed_json,
    shortened,
)
from agentmetrics.model._model import AgentTestCase, describe

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._base._arrays import BoolArray
    from agentmetrics._base._types import ErrorsMode
    from agentmetrics.cases._tool_call_batch import ToolCallBatch

__all__ = ["MODES", "AnswerMatch"]

#: The ways answers are compared, with what each calls equal.
MODES = {
    "exact": "equal values: text character for character, numbers by value, lists in "
             "order, objects by keys",
    "normalized": "text Unicode-NFKC normalized, case-folded, whitespace collapsed and "
                  "stripped; anything else as in 'json'",
    "json": "equal as JSON values, text that holds JSON parsed first",
}


class AnswerMatch(Metric):
    """1.0 when ``actual_output`` equals ``expected_output``, else 0.0.

    ``mode="exact"`` (default): equal as values: text with text, character for
    character; numbers by value (``1 == 1.0``, but ``True`` is no number);
    lists and tuples in order; objects (mappings) by keys, in any order.

    ``mode="normalized"``: two texts are compared after Unicode NFKC
    normalization, case folding, and collapsing each run of whitespace into
    one space, stripped. When either side is not text, the pair is compared
    as in ``"json"``.

    ``mode="json"``: each side that is text holding a JSON value
    (``'{"a": 1}'``, ``'[1, 2]'``, ``'2.0'``, ``'"quoted"'``) is parsed
    first; then as ``"exact"``. So ``'{"b": 2, "a": 1.0}'`` equals
    ``{"a": 1, "b": 2}``. Text that is no JSON stays text.

    The reason shows both values, shortened, and where they first differ.
    """

    name: ClassVar[str] = "answer_match"
    inputs: ClassVar[tuple[str | Input, ...]] = (
        Input("actual_output", doc="the agent's final answer (any JSON value)"),
        Input("expected_output", doc="the reference answer (any JSON value)"),
    )
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = True
    description: ClassVar[str] = (
        "1.0 when the answer equals the reference: exactly, as normalized text, or as JSON."
    )
    default_threshold: ClassVar[float] = 1.0
    #: A cached score is reused only for the same answer against the same reference.
    cache_fields: ClassVar[tuple[str, ...]] = ("actual_output", "expected_output")

    def __init__(self, threshold: float | None = None, mode: str = "exact") -> None:
        super().__init__(threshold)
        if not isinstance(mode, str) or mode not in MODES:
            raise InvalidParameterError(
                f"{self.name}: mode must be one of {sorted(MODES)}, got {describe(mode)}. "
                f"Fix: pass e.g. mode='normalized' to compare text loosely.")
        self.mode = mode

    def matches(self, actual: Any, expected: Any) -> bool:
        """Whether two answers are equal under this metric's ``mode``."""
        mode = self.mode
        if mode == "exact":
            if type(actual) is str and type(expected) is str:
                return actual == expected
            return json_key(actual) == json_key(expected)
        if mode == "normalized" and type(actual) is str and type(expected) is str:
            return normalized_text(actual) == normalized_text(expected)
        if type(actual) is str and actual == expected:
            return True
        return json_key(parsed_json(actual)) == json_key(parsed_json(expected))

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        actual, expected = case.actual_output, case.expected_output
        mode = self.mode
        if self.matches(actual, expected):
            return 1.0, f"answers match ({mode}): {shortened(actual)}"
        if mode == "normalized" and type(actual) is str and type(expected) is str:
            where = first_difference(normalized_text(actual), normalized_text(expected))
        elif mode == "exact":
            where = first_difference(actual, expected)
        else:
            where = first_difference(parsed_json(actual), parsed_json(expected))
        return 0.0, (f"answers differ ({mode}), {where}: actual {shortened(actual)}, "
                     f"expected {shortened(expected)}")

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """The answers as two columns: rows of two texts compared in one C-level
        pass (exact, json), every other row by :meth:`matches`; reasons made by
        :meth:`measure` when asked for."""
        actual = batch.field("actual_output")
        expected = batch.field("expected_output")
        failed = field_failures(self, batch, errors, _nones(actual) | _nones(expected))
        values = self.match_values(actual, expected).astype(np.float64)
        if failed:
            values[list(failed)] = np.nan
        return MetricResult(self, values, passes(self, values), failed,
                            MeasuredReasons(self, batch, failed))

    def match_values(self, actual: np.ndarray, expected: np.ndarray) -> BoolArray:
        """:meth:`matches` of every row of two object columns, as bools."""
        n = len(actual)
        if self.mode == "normalized":
            return np.fromiter(map(self.matches, actual, expected), dtype=bool, count=n)
        texts = _texts(actual) & _texts(expected)
        out = np.zeros(n, dtype=bool)
        both = np.flatnonzero(texts)
        out[both] = np.fromiter(map(eq, actual[both], expected[both]), dtype=bool,
                                count=len(both))
        rest = np.flatnonzero(~out if self.mode == "json" else ~texts)
        out[rest] = np.fromiter(map(self.matches, actual[rest], expected[rest]), dtype=bool,
                                count=len(rest))
        return out


def _nones(column: np.ndarray) -> BoolArray:
    return np.fromiter(map(is_, column, repeat(None)), dtype=bool, count=len(column))


def _texts(column: np.ndarray) -> BoolArray:
    return np.fromiter(map(is_, map(type, column), repeat(str)), dtype=bool, count=len(column))
