"""Metrics as plain functions: two lists of tool names in, a number out.

For a notebook or a script that has the calls already and wants the value,
without building AgentTestCase objects or metric instances::

    >>> from agentmetrics.functional import tool_selection_accuracy
    >>> tool_selection_accuracy(["GetOrder", "CancelOrder"], ["GetOrder", "IssueRefund"])
    0.3333333333333333
    >>> tool_selection_accuracy([["A", "B"], ["A"]], [["B", "A"], ["B"]], order_matters=True)
    array([0.5, 0. ])

Each function gives exactly (bit for bit) what the metric class gives, on one
case through its scalar path and on columns through its vectorized one; the
tests hold them to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from agentmetrics._base._types import ErrorsMode
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.errors import InvalidCaseError
from agentmetrics.metrics import ToolSelectionAccuracy
from agentmetrics.model._model import AgentTestCase

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    import numpy.typing as npt

__all__ = ["tool_selection_accuracy"]


def tool_selection_accuracy(
    called: Any,
    expected: Any,
    *,
    order_matters: bool = False,
    errors: ErrorsMode = "raise",
) -> Any:
    """Intersection over union of the tools called and expected (see
    :class:`~agentmetrics.ToolSelectionAccuracy`).

    ``called`` and ``expected`` are either one case each (a list of tool
    names, ToolCall objects or ``{"name": ...}`` mappings): the value is a
    float; or two parallel columns of such lists (lists of lists, pandas
    Series, numpy object arrays, or Arrow ``list<string>`` arrays): the values
    are a float64 array, one a row. In columns, ``None`` means "not given";
    such a row, or one that cannot be read, raises InvalidCaseError naming the
    row, or with ``errors="record"`` gets NaN.
    """

    metric = ToolSelectionAccuracy(order_matters=order_matters)
    if not _columns(called, expected):
        return metric.evaluate(AgentTestCase(tool_calls=called, expected_tool_calls=expected)
                               ).value
    return _column_values(metric, called, expected, errors)


def _column_values(metric: Any, called: Any, expected: Any,
                   errors: ErrorsMode) -> npt.NDArray[np.float64]:

    if _is_arrow(called) and _is_arrow(expected):
        batch = ToolCallBatch.from_arrow(tool_calls=called, expected_tool_calls=expected,
                                         errors=errors)
    else:  # one Arrow column beside a list: its cells as Python lists
        called, expected = (column.to_pylist() if _is_arrow(column) else column
                            for column in (called, expected))
        batch = ToolCallBatch.from_columns(tool_calls=_as_sequence(called),
                                           expected_tool_calls=_as_sequence(expected),
                                           errors=errors)
    values: npt.NDArray[np.float64] = metric.evaluate_batch(batch, errors=errors).values
    return values


def _columns(called: Any, expected: Any) -> bool:
    """Whether the arguments are columns of cases rather than one case."""
    return _is_column(called) or _is_column(expected)


def _is_column(value: Any) -> bool:
    """Arrow arrays and pandas Series are columns; so are a numpy object array
    and a list or tuple whose every item is a list (or None). One case holds
    names, ToolCalls or mappings; an empty list is one case with no calls."""
    if _is_arrow(value) or type(value).__name__ == "Series":
        return True
    if hasattr(value, "ndim"):
        return bool(value.dtype == object and value.ndim == 1)
    if isinstance(value, (list, tuple)) and value:
        return all(item is None or _list_like(item) for item in value)
    return False


def _list_like(item: object) -> bool:
    return isinstance(item, (list, tuple)) or getattr(item, "ndim", 0) == 1


def _is_arrow(value: object) -> bool:
    return type(value).__module__.startswith("pyarrow")


def _as_sequence(column: Any) -> Sequence[Any]:
    """A column's cells as a sequence: lists and tuples as they are, a numpy
    object array or a pandas Series as the list of its cells, in order."""
    if isinstance(column, (list, tuple)):
        return column
    if hasattr(column, "ndim") or type(column).__name__ == "Series":
        return list(column)
    raise InvalidCaseError(
        f"expected a column of lists of tool names, got {type(column).__name__}. Fix: pass a "
        f"list of lists, a pandas Series, a numpy object array or an Arrow list array.")
