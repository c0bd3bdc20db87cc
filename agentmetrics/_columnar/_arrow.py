"""Arrow columns of call objects read as records.

Spark's ``spark.read.json``, Parquet files written from dicts, Ray Data and
Arrow-backed pandas all store calls as ``list<struct<name, arguments, ...>>``.
Such a column is turned into the plain records that :func:`ingest` reads (the
reference reading), so every rule, check and message is the records' own.
What Arrow's types add is written down here, once:

* a struct's null field is an absent key: Arrow gives every struct in a
  column the union of the fields seen, so ``{"q": 1}`` beside
  ``{"city": "Oslo"}`` comes back as ``{"q": 1, "city": None}``; the null is
  dropped, at every depth of the arguments (values inside lists are kept as
  they are, nulls included);
* ``arguments`` held as a map (``map<string, V>``) is an object with those
  keys (a key given twice is refused); held as text, it is JSON text that
  must hold an object (``"null"`` and a null value are "no arguments given":
  ``ToolCall.arguments_given`` False; Arrow cannot tell a field left out
  from a null one);
* a null call list is "not given"; a null call, or a call whose name is null,
  is refused by the records' reading, naming the row and the position.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import UnreadableCase

__all__ = ["check_call_struct", "check_unique_columns", "holds_call_objects", "records_from_arrow"]



def check_unique_columns(present: Iterable[Any], wanted: Iterable[str | None], where: str) -> None:
    """Refuse a table (Arrow, Parquet, a DataFrame) with two columns of a name
    that is read (``wanted``; None entries ignored): which of them holds the
    calls cannot be told, so none is guessed."""
    present = [str(name) for name in present]
    counts = Counter(present)
    twice = [name for name in dict.fromkeys(wanted) if name is not None and counts[name] > 1]
    if twice:
        name = twice[0]
        raise InvalidCaseError(
            f"{where}: expected one column named {name!r}, got {counts[name]} (the columns are "
            f"{present}); which one holds the data cannot be told. Fix: drop "
            f"or rename the others (pyarrow: table.rename_columns([...]); pandas: "
            f"frame.loc[:, ~frame.columns.duplicated()]).")


def holds_call_objects(column: Any) -> bool:
    """Whether an Arrow column is a list of structs (call objects)."""
    import pyarrow as pa

    kind = column.type
    return bool((pa.types.is_list(kind) or pa.types.is_large_list(kind)
                 or pa.types.is_fixed_size_list(kind)) and pa.types.is_struct(kind.value_type))


def check_call_struct(column: Any, field: str) -> None:
    """Refuse a list of structs with no string ``name`` field, naming what it has."""
    import pyarrow as pa

    struct = column.type.value_type
    names = [struct.field(i).name for i in range(struct.num_fields)]
    if "name" not in names:
        raise InvalidCaseError(
            f"{field}: expected call objects with a 'name' field (list<struct<name: string, "
            f"arguments: ...>>), got {column.type} with fields {names}. Fix: rename the field "
            f"that holds the tool's name to 'name'.")
    kind = struct.field("name").type
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if not (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_null(kind)):
        raise InvalidCaseError(
            f"{field}: the calls' 'name' field must be a string, got {kind}. Fix: cast it to "
            f"string.")


def records_from_arrow(tool_calls: Any, expected_tool_calls: Any,
                       ids: Sequence[Any] | None, *, first_row: int = 0) -> list[Any]:
    """One record a row (``tool_calls``, ``expected_tool_calls`` and ``id``
    when ``ids`` is given) from two Arrow columns, either of which may hold
    call objects (see the module's doc) or names. A row whose arguments
    cannot be read is an UnreadableCase naming the call, which the records'
    reading reports at its row (``first_row`` + its position: the columns may
    be a slice of a table)."""
    sides = []
    bad: dict[int, str] = {}
    for column, field in ((tool_calls, "tool_calls"), (expected_tool_calls, "expected_tool_calls")):
        objects = holds_call_objects(column)
        if objects:
            check_call_struct(column, field)
        rows = column.to_pylist()
        sides.append(_side(rows, _map_arguments(column), field, bad)
                     if objects and _needs_reading(column) else rows)
    identities = ids if ids is not None else [None] * len(sides[0])
    records: list[Any] = []
    for row, (called, expected, identity) in enumerate(zip(sides[0], sides[1], identities)):
        if row in bad:
            records.append(UnreadableCase("<arrow>", first_row + row, bad[row], id=identity))
        elif ids is None:
            records.append({"tool_calls": called, "expected_tool_calls": expected})
        else:
            records.append({"tool_calls": called, "expected_tool_calls": expected,
                            "id": identity})
    return records


def _needs_reading(column: Any) -> bool:
    """Whether the calls' Python values differ from their records: a null at
    any depth (an absent key, or a value the records' reading must refuse),
    or arguments held as a map or as text. Most columns have none and are
    taken as ``to_pylist`` gives them."""
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    return any(not hasattr(chunk, "flatten")
               or _holds_null_or_text(chunk.flatten()) for chunk in chunks)


def _holds_null_or_text(values: Any, calls: bool = True) -> bool:
    import pyarrow as pa

    kind = values.type
    if values.null_count or pa.types.is_map(kind):
        return True
    if pa.types.is_struct(kind):
        for index, child in enumerate(values.flatten()):  # the struct's own nulls merged in
            text = pa.types.is_string(child.type) or pa.types.is_large_string(child.type)
            if calls and text and kind.field(index).name == "arguments":
                return True  # JSON text, parsed by the reading
            if _holds_null_or_text(child, calls=False):
                return True
        return False
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        return _holds_null_or_text(values.flatten(), calls=False)
    if pa.types.is_dictionary(kind):
        return _holds_null_or_text(values.dictionary, calls=False)
    return False


def _map_arguments(column: Any) -> bool:
    """Whether a column of call objects holds its arguments as a map: only a
    map's entries (a list of pairs) are an object, an empty one included; a
    list of another type is a list, whatever the other rows hold."""
    import pyarrow as pa

    struct = column.type.value_type
    index = struct.get_field_index("arguments")
    return index >= 0 and bool(pa.types.is_map(struct.field(index).type))


def _side(rows: list[Any], maps: bool, field: str, bad: dict[int, str]) -> list[Any]:
    out: list[Any] = []
    for row, calls in enumerate(rows):
        if calls is None:
            out.append(None)
            continue
        read = []
        for position, item in enumerate(calls):
            try:
                read.append(_call(item, maps))
            except _BadArguments as error:
                bad.setdefault(row, f"{field}[{position}].{error}")
                read.append(None)
        out.append(read)
    return out


def _call(item: Any, maps: bool) -> Any:
    if not isinstance(item, dict):
        return item  # a null call: the records' reading refuses it where it is
    call = {key: value for key, value in item.items() if value is not None}
    if "name" not in call and "name" in item:
        call["name"] = None  # a null name stays, to be refused as such
    if "arguments" in call:
        call["arguments"] = _arguments(call["arguments"], maps)
    elif "arguments" in item:
        call["arguments"] = None  # null: no arguments given (ToolCall.arguments_given False)
    return call


def _arguments(value: Any, maps: bool) -> Any:
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError as error:
            raise _BadArguments(f"arguments: expected JSON text of an object, got {value[:60]!r} "
                                f"({error}).") from None
        if parsed is not None and not isinstance(parsed, dict):
            raise _BadArguments(
                f"arguments: expected JSON text of an object, got JSON of a "
                f"{type(parsed).__name__}: {value[:60]!r}.")
        return parsed
    if maps and isinstance(value, list):  # a map column's entries: (key, value) pairs
        result: dict[Any, Any] = {}
        for key, entry in value:
            if key in result:
                raise _BadArguments(f"arguments: the map gives the key {key!r} twice.")
            result[key] = _plain(entry, drop_nulls=False)
        return result
    return _plain(value, drop_nulls=True)


def _plain(value: Any, *, drop_nulls: bool) -> Any:
    """A struct's nulls dropped at every depth (they are absent keys)."""
    if isinstance(value, dict):
        return {key: _plain(entry, drop_nulls=True) for key, entry in value.items()
                if not (drop_nulls and entry is None)}
    if isinstance(value, list):
        return [_plain(entry, drop_nulls=False) for entry in value]
    return value


class _BadArguments(InvalidCaseError):
    """Arguments that cannot be read; kept in the call so that the records'
    reading reports it at its row and position."""
