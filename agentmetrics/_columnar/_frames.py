"""A pandas DataFrame's call columns read: which columns, which ids, and what
their cells hold (names, Arrow lists, or call objects read as records). The
batch is then built from what was read; the DataFrame stays here.

Also the wording of a row that cannot be read, which every tabular reader
(Arrow, pandas, a partition) shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from itertools import chain
from operator import is_not
from typing import Any, Literal

import attrs
import numpy as np

from agentmetrics._base._optional import require
from agentmetrics._columnar._arrow import check_unique_columns
from agentmetrics._columnar._fields import COLUMN_FIELDS
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import describe, is_not_given

__all__ = ["TABLE_FIELDS", "FrameColumns", "add_fields", "field_columns", "frame_columns",
           "holds_mappings", "is_arrow_list", "object_records", "refuse_row"]

#: The case fields a table (a DataFrame, an Arrow table, a partition) may hold in columns
#: of these names beside its call columns and ids; each row's values go into its case.
TABLE_FIELDS = ("input", "actual_output", "expected_output", "latency", "cost", "usage", "metadata")


@attrs.frozen(slots=True)
class FrameColumns:
    """A DataFrame's two call columns and its ids, and what the cells hold:
    ``"objects"`` (call objects, read as records), ``"arrow"`` (Arrow-backed
    lists, as Arrow arrays) or ``"lists"`` (lists of names, as Python lists).
    ``fields``: the case-field columns, as lists of values for ``"objects"``,
    as the DataFrame's columns otherwise (read as columns by ``_fields``)."""

    kind: Literal["objects", "arrow", "lists"]
    called: Any
    expected: Any
    ids: tuple[Any, ...] | None
    fields: dict[str, Any] = attrs.field(factory=dict)


def frame_columns(frame: Any, *, tool_calls: str, expected_tool_calls: str,
                  id: str | None) -> FrameColumns:
    """The call columns ``tool_calls`` and ``expected_tool_calls`` of ``frame``
    and its ids: the ``id`` column, else the index when it is not a plain
    0..n-1 range. InvalidCaseError naming a column that is missing or twice."""
    pd = require("pandas", "pandas")
    if not isinstance(frame, pd.DataFrame):
        raise InvalidCaseError(f"from_pandas: expected a pandas DataFrame, got {describe(frame)}.")
    check_unique_columns(frame.columns, (tool_calls, expected_tool_calls, id), "from_pandas")
    present = field_columns(frame.columns)
    missing = [c for c in (tool_calls, expected_tool_calls, id) if c and c not in frame.columns
               and not (present and c in (tool_calls, expected_tool_calls)
                        and c in ("tool_calls", "expected_tool_calls"))]
    if missing:
        raise InvalidCaseError(
            f"from_pandas: no column {missing[0]!r}; the DataFrame has "
            f"{list(frame.columns)}. Fix: pass tool_calls=... and "
            f"expected_tool_calls=... naming your columns."
        )
    if id is not None:
        case_ids: tuple[Any, ...] | None = tuple(frame[id].tolist())
    elif isinstance(frame.index, pd.RangeIndex) and frame.index.start == 0 and frame.index.step == 1:
        case_ids = None
    else:
        case_ids = tuple(frame.index.tolist())
    # A call column the table does not have (it holds other fields): not given on any row.
    absent = pd.Series([None] * len(frame), index=frame.index, dtype=object)
    called = frame[tool_calls] if tool_calls in frame.columns else absent
    expected = frame[expected_tool_calls] if expected_tool_calls in frame.columns else absent
    names = [name for name in present if name not in (tool_calls, expected_tool_calls, id)]
    if (any(name not in COLUMN_FIELDS for name in names) or holds_mappings(called)
            or holds_mappings(expected)):
        # Call objects, usage or metadata: read as records, every field by the reference.
        fields = {name: frame[name].tolist() for name in names}
        return FrameColumns("objects", called.tolist(), expected.tolist(), case_ids, fields)
    columns = {name: frame[name] for name in names}  # read as columns (_fields)
    if is_arrow_list(called) and is_arrow_list(expected):
        pa = require("pyarrow", "arrow")
        return FrameColumns("arrow", pa.array(called.array), pa.array(expected.array), case_ids,
                            columns)
    return FrameColumns("lists", called.tolist(), expected.tolist(), case_ids, columns)


def field_columns(present: Any) -> tuple[str, ...]:
    """The case fields among a table's column names, in TABLE_FIELDS' order."""
    names = {str(name) for name in present}
    return tuple(field for field in TABLE_FIELDS if field in names)


def add_fields(records: list[Any], fields: Mapping[str, Sequence[Any]]) -> list[Any]:
    """``records`` (one a row; an UnreadableCase stays as it is) with each row's
    value of every field column; a missing cell (None, NaN, ``pd.NA``) gives no
    value, so the case's field is "not given"."""
    for name, values in fields.items():
        if len(values) != len(records):
            raise InvalidCaseError(f"{name}: expected one value a row ({len(records)}), got "
                                   f"{len(values)}.")
        for record, value in zip(records, values):
            value = _cell(value)
            if isinstance(record, dict) and not is_not_given(value):
                record[name] = value
    return records


#: The row types :func:`holds_mappings` reads without a test per cell (a
#: float is pandas' NaN for a missing cell).
_PLAIN_ROWS = frozenset({list, tuple, type(None), float})
_PRESENT = partial(is_not, None)


def holds_mappings(series: Any) -> bool:
    """Whether a DataFrame's object column holds call objects (mappings) in its lists.

    The types of every item of every list are gathered at C speed (one
    ``set(map(type, ...))``), then each distinct type is asked once."""
    if getattr(series.dtype, "pyarrow_dtype", None) is not None:
        return False
    cells = series.tolist()
    rows = set(map(type, cells))
    if rows <= _PLAIN_ROWS:  # lists, tuples and missing cells: no test per cell
        lists: Any = cells if type(None) not in rows else filter(_PRESENT, cells)
        if float in rows:
            lists = (cell for cell in lists if type(cell) is not float)
    else:
        lists = [cell for cell in cells
                 if isinstance(cell, (list, tuple))
                 or (isinstance(cell, np.ndarray) and cell.ndim == 1)]  # else not calls
    kinds = set(map(type, chain.from_iterable(lists)))
    return any(issubclass(kind, Mapping) for kind in kinds)


def is_arrow_list(series: Any, *, or_null: bool = False) -> bool:
    """Whether a pandas column is Arrow-backed and holds lists (``or_null``: or
    holds no value at all, a null-typed column)."""
    pyarrow_dtype = getattr(series.dtype, "pyarrow_dtype", None)
    if pyarrow_dtype is None:
        return False
    pa = require("pyarrow", "arrow")
    return bool(pa.types.is_list(pyarrow_dtype) or pa.types.is_large_list(pyarrow_dtype)
                or (or_null and pa.types.is_null(pyarrow_dtype)))


def object_records(called: Sequence[Any], expected: Sequence[Any], ids: Sequence[Any] | None,
                   fields: Mapping[str, Sequence[Any]] | None = None) -> list[dict[str, Any]]:
    """Two columns of call lists holding call objects (a DataFrame's object
    columns) as the records the records' reading takes, arguments included,
    with the values of the ``fields`` columns (see :func:`add_fields`)."""
    records: list[dict[str, Any]] = [
        {"tool_calls": _cell(a), "expected_tool_calls": _cell(b)}
        for a, b in zip(called, expected)]
    if ids is not None:
        for record, identity in zip(records, ids):
            record["id"] = identity
    return add_fields(records, fields or {})


def _cell(value: Any) -> Any:
    """A DataFrame cell as a record's value: arrays as lists, a missing cell as None."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, float) and value != value:
        return None
    return value


def refuse_row(row: int, case_id: Any, message: str, where: str = "row",
               local: int | None = None) -> InvalidCaseError:
    """The error for a row that cannot be read, with ``errors="raise"``: the
    row, the case's id when it has one, what is wrong, and the way to keep
    going. Every tabular reader (Arrow, pandas, a partition) words it so.
    ``local`` is the row's position in its batch when ``row`` counts the whole."""
    notes = ([] if local is None else [f"row {local} of this batch"]) + (
        [] if case_id is None else [f"id {case_id!r}"])
    named = f"{where} {row}" + (f" ({', '.join(notes)})" if notes else "")
    return InvalidCaseError(
        f"{named}: {message} To score the other rows and keep this one as an error row, "
        f"pass errors=\"record\".")
