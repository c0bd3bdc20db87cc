"""Comparing answers and arguments as values: the one home of what ``answer_match``
and ``tool_call_micro_f1`` (by arguments) call equal, and of the column helpers
the built-ins over case fields share.

Values are compared as JSON values: text with text, character for character;
numbers by value (``1 == 1.0``; a bool is no number: ``True != 1``); null;
lists and tuples in order; mappings by their keys, in any order. Any other
Python value (a set, a date) equals what Python's ``==`` says it equals.
"""

from __future__ import annotations

import json
import math
import numbers
import unicodedata
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from agentmetrics.batch import MetricResult, batch_errors, check_errors_mode, passes

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._base._arrays import BoolArray, FloatArray
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.metric._metric import Metric

__all__ = ["MeasuredReasons", "ValueReasons", "field_failures", "field_values", "first_difference", "json_key",
           "normalized_text", "parsed_json", "shortened", "value_kind"]

#: How many characters of a value a reason shows.
SHOWN = 40

# The characters a JSON text (other than a bare string) can start with.
_JSON_START = frozenset('{["-0123456789tfn')


def json_key(value: Any) -> Hashable:
    """A hashable key equal for two values exactly when they are equal as JSON
    values (see the module's doc)."""
    kind = type(value)
    if kind is str or value is None:
        return value  # type: ignore[no-any-return]
    if kind is bool:
        return ("b", value)
    if kind is int or kind is float:
        return ("n", value) if math.isfinite(value) else ("x", repr(value))
    if kind is list or kind is tuple:
        return ("l", tuple(map(json_key, value)))
    if kind is dict:
        return ("d", frozenset((json_key(k), json_key(v)) for k, v in value.items()))
    return _other_key(value)


def _other_key(value: Any) -> Hashable:
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (bool, np.bool_)):
        return ("b", bool(value))
    if isinstance(value, numbers.Integral):
        return ("n", int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        return ("n", number) if math.isfinite(number) else ("x", repr(number))
    if isinstance(value, Mapping):
        return ("d", frozenset((json_key(k), json_key(v)) for k, v in value.items()))
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return ("l", tuple(map(json_key, value)))
    try:
        hash(value)
    except TypeError:
        return ("r", type(value).__qualname__, repr(value))
    return ("o", value)


def _refuse_constant(text: str) -> Any:
    raise ValueError(text)


def parsed_json(value: Any) -> Any:
    """``value``, or, when it is text holding a JSON value (``'{"a": 1}'``,
    ``'[1, 2]'``, ``'3.5'``, ``'true'``, ``'null'``, ``'"quoted"'``), that value.
    NaN and Infinity are no JSON: such text stays text."""
    if type(value) is not str:
        return value
    stripped = value.strip()
    if not stripped or (stripped[0] not in _JSON_START and stripped[0] != '"'):
        return value
    try:
        return json.loads(stripped, parse_constant=_refuse_constant)
    except ValueError:  # JSONDecodeError too
        return value


def normalized_text(text: str) -> str:
    """``text`` compared loosely: Unicode NFKC, case-folded, runs of whitespace
    made one space, stripped."""
    if text.isascii():  # NFKC leaves ASCII as it is; casefold is lower there
        return " ".join(text.lower().split())
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.split())


def value_kind(value: Any) -> str:
    """A value's JSON kind, as a reason names it."""
    if isinstance(value, str):
        return "text"
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "a flag"
    if isinstance(value, numbers.Real):
        return "a number"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence) and not isinstance(value, (bytes, bytearray)):
        return "a list"
    return f"a {type(value).__name__}"


def shortened(value: Any, width: int = SHOWN) -> str:
    """``repr(value)``, cut to ``width`` characters with ``...``."""
    text = repr(value)
    return text if len(text) <= width else text[:width - 3] + "..."


def first_difference(actual: Any, expected: Any, path: str = "") -> str:
    """Where two values that are not equal as JSON values first differ, in a
    few words: ``"at ['items'][2]: 3 items, expected 2"``."""
    where = f"at {path}: " if path else ""
    kind_a, kind_e = value_kind(actual), value_kind(expected)
    if kind_a != kind_e:
        return f"{where}actual is {kind_a}, expected is {kind_e}"
    if kind_a == "text":
        stop = min(len(actual), len(expected))
        at = next((i for i in range(stop) if actual[i] != expected[i]), stop)
        return f"{where}text differs at character {at + 1}"
    if kind_a == "an object":
        missing = [key for key in expected if key not in actual]
        if missing:
            return f"{where}expected key {shortened(missing[0], 20)} is missing"
        extra = [key for key in actual if key not in expected]
        if extra:
            return f"{where}unexpected key {shortened(extra[0], 20)}"
        for key in expected:
            if json_key(actual[key]) != json_key(expected[key]):
                return first_difference(actual[key], expected[key], f"{path}[{key!r}]")
    if kind_a == "a list":
        if len(actual) != len(expected):
            return f"{where}{len(actual)} items, expected {len(expected)}"
        for index, (item, wanted) in enumerate(zip(actual, expected)):
            if json_key(item) != json_key(wanted):
                return first_difference(item, wanted, f"{path}[{index}]")
    return f"{where}values differ"


def field_failures(metric: Metric, batch: ToolCallBatch, errors: str,
                   missing: BoolArray) -> dict[int, str]:
    """The error rows of a batch, from the metric's declared inputs: when no row
    lacks an input (``missing``, from the input columns) and none is unreadable,
    none (without a look at each case); otherwise :func:`agentmetrics.batch.batch_errors`,
    which names the metric and the input as the single-case check does."""
    if batch.invalid or missing.any():
        return batch_errors(metric, batch, errors)
    check_errors_mode(errors)
    return {}


def field_values(metric: Metric, batch: ToolCallBatch, errors: str, field: str,
                 reason_of: Callable[[float], str]) -> MetricResult:
    """A metric whose value is a number field itself (``latency``, ``cost``):
    the batch's float64 column (copied, never written), NaN and an error on a
    row that lacks it, each reason ``reason_of(value)`` when asked for."""
    values = batch.field(field).copy()
    failed = field_failures(metric, batch, errors, np.isnan(values))
    if failed:
        values[list(failed)] = np.nan
    return MetricResult(metric, values, passes(metric, values), failed,
                        ValueReasons(values, reason_of))


class MeasuredReasons:
    """Each row's reason, as ``metric.measure`` gives it for the row's case,
    made when asked for (one row, or every row at once with :meth:`many`)."""

    __slots__ = ("batch", "failed", "metric")

    def __init__(self, metric: Metric, batch: ToolCallBatch, failed: Mapping[int, str]) -> None:
        self.metric = metric
        self.batch = batch
        self.failed = failed

    def __call__(self, row: int) -> str:
        reason = self.metric.measure(self.batch.case(row))[1]
        assert isinstance(reason, str)
        return reason

    def many(self, rows: int) -> list[str]:
        failed = self.failed
        return ["" if row in failed else self(row) for row in range(rows)]


class ValueReasons:
    """Reasons made from each row's value alone (``reason_of(value)``), when
    asked for: what ``measure`` says of a case with that value."""

    __slots__ = ("reason_of", "values")

    def __init__(self, values: FloatArray, reason_of: Callable[[float], str]) -> None:
        self.values = values
        self.reason_of = reason_of

    def __call__(self, row: int) -> str:
        return self.reason_of(float(self.values[row]))

    def many(self, rows: int) -> list[str]:
        reason_of = self.reason_of
        return ["" if value != value else reason_of(value)  # NaN: an error row
                for value in self.values[:rows].tolist()]
