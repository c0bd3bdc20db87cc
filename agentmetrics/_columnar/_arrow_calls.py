"""Arrow columns of call objects (``list<struct<name, arguments, ...>>``) read
into tool-id columns with Arrow compute: no Python object per case or per call.

The reference is the records' reading of what :func:`records_from_arrow` makes
of the same rows (see :mod:`agentmetrics._columnar._arrow`). The columns are
read the reference's way where that is exact, and the reference itself reads
every row the columns cannot vouch for:

* the names are the calls' ``name`` field, flattened and dictionary-encoded
  into the shared tool ids; list offsets give the calls per case, a null
  list "not given";
* a row is *suspect* when any of its calls is null, has a null or empty name,
  a non-null value in a field a call does not have, an ``id`` or
  ``raw_arguments`` that is not text, or ``arguments`` that may be refused:
  JSON text that is not an object (or ``null``), a map whose keys are not
  text or repeat a key, any other type than a struct. A struct's arguments
  are never refused (Arrow cannot tell an absent key from a null, and the
  reference drops both). A row a case-field cell makes unreadable is suspect
  too. Suspect rows are read by the reference, alone: those it refuses are
  unreadable rows with its very message; the others are valid, with the
  names the columns hold;
* a table the columns cannot read at all (a side of other lists, a struct
  naming a field twice, fields read as records) returns None: the caller
  reads it all through the reference.

:class:`ArrowCases` keeps the Arrow columns and builds the AgentTestCases the
reference builds only when a metric first reads them: a metric that scores
names never pays for the arguments.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, overload

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import BoolArray, IdArray, IntArray
from agentmetrics._columnar._arrow import check_call_struct, holds_call_objects, records_from_arrow
from agentmetrics._columnar._fields import COLUMN_FIELDS, NUMBER_FIELDS, read_field_columns
from agentmetrics._columnar._frames import add_fields
from agentmetrics._columnar._ingest import LazyCases, _Built, ingest
from agentmetrics._columnar._names import (
    _arrow_codes,
    _without_null_entries,
    as_chunked,
    offsets_from_lengths,
)

__all__ = ["ArrowCalls", "ArrowCases", "read_arrow_calls", "reference_cases"]

#: The fields a call object may have (ToolCall's); any other non-null one is refused.
_CALL_KEYS = frozenset({"name", "arguments", "id", "output", "raw_arguments"})
_SIDES = ("tool_calls", "expected_tool_calls")
#: JSON texts are checked this many at a time (Python strings for these only).
_TEXT_GROUP = 65_536

Side = tuple[IdArray, IntArray, BoolArray]


@attrs.frozen(slots=True, eq=False)
class ArrowCalls:
    """What :func:`read_arrow_calls` read: the shared vocabulary, each side's
    (ids, offsets, given), the unreadable rows (row -> the reference's message)
    and the case-field columns (unreadable rows as None or NaN)."""

    vocabulary: tuple[str, ...]
    sides: tuple[Side, Side]
    invalid: dict[int, str]
    fields: dict[str, npt.NDArray[Any]]


@attrs.frozen(slots=True, eq=False)
class _SideRead:
    names: Any  # ChunkedArray of the flattened names (string or dictionary<string>)
    lengths: IntArray
    given: BoolArray
    suspect: BoolArray  # one flag a flattened call


def read_arrow_calls(tool_calls: Any, expected_tool_calls: Any, ids: Sequence[Any] | None,
                     fields: Mapping[str, Any]) -> ArrowCalls | None:
    """Read two parallel Arrow columns (ChunkedArrays, see :func:`as_chunked`), at
    least one of call objects, with the case-field columns ``fields`` (names in
    COLUMN_FIELDS; one cell a row); None when the reference must read the table."""
    columns = (tool_calls, expected_tool_calls)
    n = len(columns[0])
    if len(columns[1]) != n or any(len(column) != n for column in fields.values()):
        return None
    if any(name not in COLUMN_FIELDS for name in fields):
        return None
    for column, field in zip(columns, _SIDES):
        if holds_call_objects(column):
            check_call_struct(column, field)  # refused for the whole table, as the reference does
    sides: list[_SideRead] = []
    for column in columns:
        read = _calls_side(column) if holds_call_objects(column) else _names_side(column)
        if read is None:
            return None
        sides.append(read)
    dictionary, codes = _arrow_codes(_same_name_types([side.names for side in sides]))
    vocabulary = tuple(dictionary.to_pylist())
    empty = vocabulary.index("") if "" in vocabulary else -1
    suspect = np.zeros(n, dtype=bool)
    encoded: list[tuple[IdArray, IntArray]] = []
    for side, parts in zip(sides, codes):
        side_ids = _ids(parts)
        offsets = offsets_from_lengths(side.lengths)
        bad = side.suspect | (side_ids == empty) if empty >= 0 else side.suspect
        positions = np.flatnonzero(bad)
        if len(positions):
            suspect[np.searchsorted(offsets, positions, side="right") - 1] = True
        encoded.append((side_ids, offsets))
    cells, field_bad = read_field_columns(fields, n, "row") if fields else ({}, {})
    suspect[list(field_bad)] = True
    invalid = _reference_rows(columns, ids, fields, np.flatnonzero(suspect))
    out: list[Side] = []
    for side, (side_ids, offsets) in zip(sides, encoded):
        given = side.given.copy()
        if invalid:  # as the reference: an unreadable row holds no call on either side
            rows = np.fromiter(invalid, dtype=np.int64, count=len(invalid))
            lengths = side.lengths.copy()
            keep = np.ones(n, dtype=bool)
            keep[rows] = False
            side_ids = side_ids[np.repeat(keep, lengths)]
            lengths[rows] = 0
            offsets = offsets_from_lengths(lengths)
            given[rows] = False
        out.append((np.ascontiguousarray(side_ids, dtype=np.int32), offsets, given))
    for name, column in cells.items():
        for row in invalid:
            column[row] = np.nan if name in NUMBER_FIELDS else None
    return ArrowCalls(vocabulary, (out[0], out[1]), dict(sorted(invalid.items())), cells)


def _ids(parts: list[Any]) -> IdArray:
    """One side's dictionary codes as int32 (a null name, always refused, as 0)."""
    arrays = [(part.fill_null(0) if part.null_count else part).to_numpy(zero_copy_only=False)
              for part in parts]
    if not arrays:
        return np.zeros(0, dtype=np.int32)
    return np.concatenate(arrays).astype(np.int32, copy=False)


def _valid(values: Any) -> BoolArray:
    """Where a (chunked) array holds a value, one flag an entry."""
    import pyarrow.compute as pc

    if not values.null_count:
        return np.ones(len(values), dtype=bool)
    return np.asarray(pc.is_valid(values).to_numpy(zero_copy_only=False), dtype=bool)


def _text(kind: Any) -> bool:
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind))


def _lists(column: Any) -> tuple[IntArray, BoolArray]:
    """Each row's number of items (0 for a null list) and whether the list is given."""
    import pyarrow.compute as pc

    lengths = pc.list_value_length(column).fill_null(0).to_numpy(zero_copy_only=False)
    return lengths.astype(np.int64), _valid(column)


def _names_side(column: Any) -> _SideRead | None:
    """A side of names (``list<string>``): a null or empty name is suspect."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)
            or pa.types.is_fixed_size_list(kind)):
        return None
    value = kind.value_type
    if pa.types.is_dictionary(value):
        value = value.value_type
    if not (pa.types.is_string(value) or pa.types.is_large_string(value)):
        return None
    names = _without_null_entries(pc.list_flatten(column))
    lengths, given = _lists(column)
    return _SideRead(names, lengths, given, ~_valid(names))


def _calls_side(column: Any) -> _SideRead | None:
    """A side of call objects: the ``name`` field, and every call the reference might refuse."""
    import pyarrow.compute as pc

    struct = column.type.value_type
    keys = [struct.field(i).name for i in range(struct.num_fields)]
    if len(set(keys)) != len(keys):
        return None  # a field named twice: which value a call has is the reference's to say
    calls = pc.list_flatten(column)
    lengths, given = _lists(column)
    children = _struct_children(calls, len(keys))  # each field, a null call's fields null
    names = _without_null_entries(children[keys.index("name")])
    suspect = ~_valid(names)  # a null call, or a null name
    for key, child in zip(keys, children):
        if key == "name" or not child.null_count < len(child):
            continue  # the name, or a field no call gives
        if key not in _CALL_KEYS:
            suspect |= _valid(child)
        elif key in ("id", "raw_arguments"):
            if not _text(child.type):
                suspect |= _valid(child)
        elif key == "arguments":
            suspect |= _odd_arguments(child)
    return _SideRead(names, lengths, given, suspect)


def _struct_children(calls: Any, count: int) -> list[Any]:
    """A chunked struct array's fields as chunked arrays, the struct's nulls merged in."""
    import pyarrow as pa

    parts = [chunk.flatten() for chunk in calls.chunks]
    kinds = [calls.type.field(i).type for i in range(count)]
    return [pa.chunked_array([part[i] for part in parts], type=kinds[i]) for i in range(count)]


def _odd_arguments(values: Any) -> BoolArray:
    """The calls whose ``arguments`` the reference might refuse (a null is no arguments)."""
    import pyarrow as pa

    kind = values.type
    if pa.types.is_dictionary(kind):
        values = values.cast(kind.value_type)
        kind = values.type
    if pa.types.is_struct(kind) or pa.types.is_null(kind):
        return np.zeros(len(values), dtype=bool)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return _odd_json(values)
    if pa.types.is_map(kind):
        return _odd_maps(values)
    return _valid(values)


def _odd_json(values: Any) -> BoolArray:
    """JSON text that is not an object or ``null`` (or does not parse)."""
    odd = np.zeros(len(values), dtype=bool)
    start = 0
    for chunk in values.chunks:
        for first in range(0, len(chunk), _TEXT_GROUP):
            texts = chunk.slice(first, _TEXT_GROUP).to_pylist()
            for index, text in enumerate(texts):
                if text is None:
                    continue
                try:
                    parsed = json.loads(text)
                except Exception:  # the reference says what is wrong (or fails as it fails)
                    odd[start + first + index] = True
                    continue
                if parsed is not None and type(parsed) is not dict:
                    odd[start + first + index] = True
        start += len(chunk)
    return odd


def _odd_maps(values: Any) -> BoolArray:
    """Maps whose keys are not text, or that give a key twice (keys are never null)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = values.type
    entries = values.cast(pa.list_(pa.struct([kind.key_field, kind.item_field])))
    lengths = pc.list_value_length(entries).fill_null(0).to_numpy(zero_copy_only=False)
    if not (pa.types.is_string(kind.key_type) or pa.types.is_large_string(kind.key_type)):
        return np.asarray(lengths > 0)
    flat = pc.list_flatten(entries)
    if not len(flat):
        return np.zeros(len(values), dtype=bool)
    keys = pa.chunked_array([chunk.field(0) for chunk in flat.chunks], type=kind.key_type)
    owner = np.repeat(np.arange(len(values), dtype=np.int64), lengths)
    pairs = pa.table({"call": owner, "key": keys})
    counts = pairs.group_by(["call", "key"]).aggregate([([], "count_all")])
    twice = counts.filter(pc.greater(counts.column("count_all"), 1)).column("call")
    odd = np.zeros(len(values), dtype=bool)
    odd[twice.to_numpy()] = True
    return odd


def _same_name_types(names: list[Any]) -> list[Any]:
    """Both sides' names as plain strings, or as dictionaries of one type."""
    import pyarrow as pa

    kinds = {values.type for values in names}
    if len(kinds) == 1 and pa.types.is_dictionary(next(iter(kinds))):
        kind = next(iter(kinds))
        if pa.types.is_string(kind.value_type):
            return names
    return [values if values.type == pa.string() else values.cast(pa.string()) for values in names]


# --------------------------------------------------------------------------- the reference


def _cells(column: Any, rows: Any = None) -> list[Any]:
    """A field column's cells (all, or those of ``rows``) as Python values."""
    import pyarrow as pa

    if isinstance(column, (pa.Array, pa.ChunkedArray)):
        return list((column if rows is None else column.take(pa.array(rows))).to_pylist())
    values = column if isinstance(column, (list, tuple)) else (
        column.tolist() if hasattr(column, "tolist") else list(column))
    return list(values) if rows is None else [values[row] for row in rows]


def _records(columns: Sequence[Any], ids: Sequence[Any] | None, fields: Mapping[str, Any],
             first_row: int = 0) -> list[Any]:
    return add_fields(records_from_arrow(columns[0], columns[1], ids, first_row=first_row),
                      {name: _cells(column) for name, column in fields.items()})


def _reference_rows(columns: Sequence[Any], ids: Sequence[Any] | None,
                    fields: Mapping[str, Any], rows: IntArray) -> dict[int, str]:
    """The rows among ``rows`` the reference refuses, with its messages."""
    import pyarrow as pa

    if not len(rows):
        return {}
    index = pa.array(rows)
    taken = [column.take(index) for column in columns]
    records = add_fields(
        records_from_arrow(taken[0], taken[1], None if ids is None else [ids[row] for row in rows]),
        {name: _cells(column, rows) for name, column in fields.items()})
    read = ingest(records, errors="record", where="row")
    invalid = {}
    for local, message in read.invalid.items():
        row = int(rows[local])
        invalid[row] = f"row {row}: " + message.removeprefix(f"row {local}: ")
    return invalid


def reference_cases(columns: Sequence[Any], ids: Sequence[Any] | None,
                    fields: Mapping[str, Any], first_row: int = 0) -> LazyCases:
    """The cases the reference reads from these columns (as ``batch.cases``
    holds them: the AgentTestCase, or what could not be read)."""
    return ingest(_records(columns, ids, fields, first_row), errors="record", where="row").cases


#: Rows read one at a time before the cases are all built at once (a metric
#: that reads every row, row by row, pays for a few rows twice only).
ALONE = 16


class ArrowCases(Sequence[Any]):
    """The cases of Arrow call columns, built by the reference when first read:
    all at once when iterated; the first few rows asked for one by one are read
    alone (a row that is not given, say), then all at once. Slices stay Arrow
    slices."""

    __slots__ = ("_alone", "_cases", "_columns", "_fields", "_first", "_ids")

    def __init__(self, tool_calls: Any, expected_tool_calls: Any, ids: Sequence[Any] | None,
                 fields: Mapping[str, Any], first_row: int = 0) -> None:
        self._columns = (as_chunked(tool_calls, "tool_calls"),
                         as_chunked(expected_tool_calls, "expected_tool_calls"))
        self._ids = None if ids is None else tuple(ids)
        self._fields = {name: _sliceable(column) for name, column in fields.items()}
        self._first = first_row
        self._cases: Sequence[Any] | None = None
        self._alone = 0

    def lacks(self, name: str) -> bool:
        """Whether no case here can have the case field ``name``: these columns
        give calls, ids and the field columns only (a case's ``expectation``,
        ``turns`` or ``usage`` is None), so none need be built to say so."""
        return name not in self._fields and name not in ("tool_calls", "expected_tool_calls",
                                                          "metadata")

    def _all(self) -> Sequence[Any]:
        if self._cases is None:
            self._cases = list(reference_cases(self._columns, self._ids, self._fields,
                                               self._first))
        return self._cases

    def __len__(self) -> int:
        return len(self._columns[0])

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Any]: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            if self._cases is not None:
                return _Built(list(self._cases[index]))
            rows = range(len(self))[index]
            if rows.step != 1:
                return _Built([self[row] for row in rows])
            return self._rows(rows.start, len(rows))
        if self._cases is not None or self._alone >= ALONE:
            return self._all()[index]
        row = range(len(self))[index]  # an IndexError as a list's
        self._alone += 1
        return self._rows(row, 1)._all()[0]

    def _rows(self, start: int, count: int) -> ArrowCases:
        stop = start + count
        return ArrowCases(self._columns[0].slice(start, count),
                          self._columns[1].slice(start, count),
                          None if self._ids is None else self._ids[start:stop],
                          {name: column[start:stop] if isinstance(column, (list, tuple))
                           else column.slice(start, count)
                           for name, column in self._fields.items()},
                          self._first + start)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._all())

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        if self._cases is not None:
            return (_Built, (list(self._cases),))
        return (ArrowCases, (*self._columns, self._ids, self._fields, self._first))

    def __repr__(self) -> str:
        state = "built" if self._cases is not None else "not built yet"
        return f"<{len(self)} cases from Arrow columns, {state}>"


def _sliceable(column: Any) -> Any:
    """A field column kept as an Arrow column or a tuple (either slices)."""
    import pyarrow as pa

    if isinstance(column, (pa.Array, pa.ChunkedArray, list, tuple)):
        return column
    return tuple(_cells(column))

