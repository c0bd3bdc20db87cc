"""A table's case-field columns read as columns: no object per case.

``latency`` and ``cost`` become float64 columns (NaN where a row has none),
checked with array code exactly as :class:`~agentmetrics.AgentTestCase`
checks one value (a finite number at or above 0, never text or a bool:
a cell it refuses makes its row unreadable, with the case's own message);
``input``, ``actual_output`` and ``expected_output`` stay object columns, a
missing cell (None, NaN, ``pd.NA``) as None. ``usage`` and ``metadata``
(mappings) are not read here: a table holding them goes through the records'
reading, which checks every key.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import AgentTestCase, is_not_given

__all__ = ["COLUMN_FIELDS", "NUMBER_FIELDS", "read_field_columns"]

#: The case fields a table's columns give as columns (the others need records).
COLUMN_FIELDS = ("input", "actual_output", "expected_output", "latency", "cost")
#: Those held as float64 (NaN: not given).
NUMBER_FIELDS = ("latency", "cost")


def read_field_columns(fields: Mapping[str, Any], rows: int, where: str = "record"
                       ) -> tuple[dict[str, npt.NDArray[Any]], dict[int, str]]:
    """The field columns of a table (name -> a pandas Series, an Arrow column,
    a numpy array or a list, one value a row), as columns, and the rows a cell
    makes unreadable (row -> message, worded as the records' reading words it)."""
    columns: dict[str, npt.NDArray[Any]] = {}
    invalid: dict[int, str] = {}
    for name, given in fields.items():
        if name not in COLUMN_FIELDS:
            raise InvalidCaseError(f"{name}: a mapping column is read as records, not as a "
                                   f"column; expected one of {list(COLUMN_FIELDS)}.")
        if len(given) != rows:
            raise InvalidCaseError(f"{name}: expected one value a row ({rows}), got "
                                   f"{len(given)}.")
        if name in NUMBER_FIELDS:
            columns[name] = _numbers(name, given, invalid, where)
        else:
            columns[name] = _objects(given)
    return columns, dict(sorted(invalid.items()))


def _plain(given: Any) -> Any:
    """An Arrow column as a list; anything else (a pandas Series, read through
    its dtype, a numpy array, a list) as it is."""
    to_pylist = getattr(given, "to_pylist", None)
    return to_pylist() if to_pylist is not None else given


def _arrow_kind(given: Any) -> str:
    """``"number"`` for an Arrow column of integers or floats, ``"text"`` for
    one of strings, ``""`` for anything else (read as Python values)."""
    kind = getattr(given, "type", None)
    if kind is None or not hasattr(given, "to_pylist"):
        return ""
    name = str(kind)
    if name in _ARROW_NUMBERS:
        return "number"
    return "text" if name in ("string", "large_string", "large_utf8", "utf8") else ""


#: Arrow types read as numbers without a Python object per cell (a bool is
#: never a number; a decimal or a date goes through the cells).
_ARROW_NUMBERS = frozenset({"int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                            "uint64", "halffloat", "float", "double", "float16", "float32",
                            "float64"})


def _numbers(name: str, given: Any, invalid: dict[int, str], where: str
             ) -> npt.NDArray[np.float64]:
    if _arrow_kind(given) == "number":  # a null as NaN; each number as float() reads it
        given = np.asarray(given.to_numpy(zero_copy_only=False))
    else:
        given = _plain(given)
    dtype = getattr(given, "dtype", None)
    cells: Sequence[Any]
    if dtype is not None and getattr(dtype, "kind", "") in "fiu":
        values = np.array(given, dtype=np.float64)  # a copy; NaN: pandas' missing value
        bad = np.flatnonzero(np.isinf(values) | (values < 0)).tolist()
        cells = values.tolist()
    else:
        cells = given.tolist() if hasattr(given, "tolist") else list(given)
        values = np.full(len(cells), math.nan)
        bad = []
        for row, cell in enumerate(cells):
            if is_not_given(cell) or (isinstance(cell, float) and cell != cell):
                continue
            if (isinstance(cell, bool) or not isinstance(cell, numbers.Real)
                    or not math.isfinite(float(cell)) or float(cell) < 0):
                bad.append(row)
                continue
            values[row] = float(cell)
    for row in bad:
        values[row] = math.nan
        try:
            AgentTestCase(**{name: cells[row]})
        except InvalidCaseError as error:
            invalid.setdefault(row, f"{where} {row}: {error}")
        else:  # pragma: no cover - the case accepts what the check refused
            raise AssertionError(f"{name}: {cells[row]!r} was refused here and accepted by "
                                 f"the case")
    return values


def _objects(given: Any) -> npt.NDArray[Any]:
    if _arrow_kind(given) == "text":  # str cells, None for a null: no test per cell
        texts = given.to_numpy(zero_copy_only=False)
        column = np.empty(len(texts), dtype=object)
        column[:] = texts
        return column
    given = _plain(given)
    column = np.empty(len(given), dtype=object)
    if hasattr(given, "dtype") and hasattr(given, "isna"):  # pandas: its own missing marks
        missing = given.isna().to_numpy()
        column[:] = given.to_numpy(dtype=object)
    else:
        cells: Sequence[Any] = given.tolist() if isinstance(given, np.ndarray) else given
        column[:] = cells
        missing = np.fromiter((is_not_given(cell) or (isinstance(cell, float) and cell != cell)
                               for cell in cells), dtype=bool, count=len(cells))
    column[missing] = None
    cells = column.tolist()
    if np.ndarray in set(map(type, cells)):  # list cells of a Parquet file, read by pandas
        for row, cell in enumerate(cells):
            if isinstance(cell, np.ndarray):
                column[row] = cell.tolist()
    return column
