"""Arrow columns of tool names (``list<string>``) encoded as tool ids with Arrow
compute: no Python object per name. The tool-id columns a
:class:`~agentmetrics.ToolCallBatch` is assembled from.

Names are dictionary-encoded by Arrow. Columns of ``list<dictionary<string>>``
(Parquet's dictionary encoding, kept with ``read_dictionary=``) skip the
hashing and keep their codes. A null list means "not given"; a null or empty
name is an invalid row, worded as the records' reading words it.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from agentmetrics._base._arrays import BoolArray, IdArray, IntArray
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import describe

__all__ = ["ArrowNames", "as_chunked", "encode_arrow_names", "offsets_from_lengths"]


#: What the records' reading says of a null and of an empty name (one wording for both readers).
_NULL_NAME = "expected a ToolCall, a tool name (str) or a mapping with 'name'; got NoneType None."
_EMPTY_NAME = ("ToolCall.name: expected a non-empty str, got ''. Fix: give every tool call the "
               "name of the tool that was called.")


def offsets_from_lengths(lengths: IntArray) -> IntArray:
    """Row offsets (n + 1 of them, from 0) of rows of these lengths."""
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


@attrs.frozen(slots=True, eq=False)
class ArrowNames:
    """Both sides' names as tool ids: the shared vocabulary, each side's (ids,
    offsets, given), and the rows holding a null or empty name (why, per row)."""

    vocabulary: tuple[str, ...]
    sides: tuple[tuple[IdArray, IntArray, BoolArray], tuple[IdArray, IntArray, BoolArray]]
    invalid: dict[int, str]

    def __len__(self) -> int:
        return len(self.sides[0][2])


def encode_arrow_names(tool_calls: Any, expected_tool_calls: Any) -> ArrowNames:
    """Encode two parallel ``list<string>`` ChunkedArrays (see :func:`as_chunked`)
    with one vocabulary; InvalidCaseError when a column is not a list of strings
    or the two differ in length."""
    import pyarrow.compute as pc

    columns = [_arrow_list(column, field) for column, field in
               zip((tool_calls, expected_tool_calls), ("tool_calls", "expected_tool_calls"))]
    if len(columns[0]) != len(columns[1]):
        raise InvalidCaseError(
            f"from_arrow: tool_calls has {len(columns[0])} rows but "
            f"expected_tool_calls has {len(columns[1])}; they must be parallel."
        )
    flat = [_without_null_entries(pc.list_flatten(column)) for column in columns]
    dictionary, codes = _arrow_codes(flat)
    vocabulary = tuple(dictionary.to_pylist())
    side_ids = [
        np.concatenate(
            [
                (part.fill_null(0) if part.null_count else part).to_numpy(zero_copy_only=False)
                for part in parts
            ]
            or [np.zeros(0, dtype=np.int32)]
        ).astype(np.int32, copy=False)
        for parts in codes
    ]
    sides = []
    invalid: dict[int, str] = {}
    for side, (column, field) in enumerate(zip(columns, ("tool_calls", "expected_tool_calls"))):
        lengths = pc.list_value_length(column).fill_null(0).to_numpy(zero_copy_only=False)
        offsets = offsets_from_lengths(lengths.astype(np.int64))
        given = pc.is_valid(column).to_numpy(zero_copy_only=False).astype(bool)
        ids_side = side_ids[side]
        # A null name encodes as a null index: find the rows that hold one.
        if flat[side].null_count:
            validity = pc.is_valid(flat[side]).to_numpy(zero_copy_only=False).astype(bool)
        else:
            validity = np.ones(len(ids_side), dtype=bool)
        bad_positions = np.flatnonzero(~validity)
        if "" in vocabulary:
            bad_positions = np.union1d(bad_positions, np.flatnonzero(ids_side == vocabulary.index("")))
        for position in bad_positions:
            row = int(np.searchsorted(offsets, position, side="right") - 1)
            message = f"{field}[{int(position - offsets[row])}]: " + (
                _NULL_NAME if not validity[position] else _EMPTY_NAME)
            invalid.setdefault(row, message)
        sides.append((np.ascontiguousarray(ids_side), offsets, given))
    return ArrowNames(vocabulary, (sides[0], sides[1]), invalid)


def as_chunked(column: Any, field: str) -> Any:
    """An Arrow column as a ChunkedArray; a column (or lists) of no value at all as
    ``list<string>``; anything else refused, naming ``field``."""
    import pyarrow as pa

    if isinstance(column, pa.Array):
        column = pa.chunked_array([column])
    if not isinstance(column, pa.ChunkedArray):
        raise InvalidCaseError(
            f"from_arrow: {field} must be a pyarrow Array or ChunkedArray, got {describe(column)}."
        )
    if pa.types.is_null(column.type):  # a column with no value at all: nothing given
        return column.cast(pa.list_(pa.string()))
    if ((pa.types.is_list(column.type) or pa.types.is_large_list(column.type))
            and pa.types.is_null(column.type.value_type)):  # lists that hold no name
        return column.cast(pa.list_(pa.string()))
    return column


def _arrow_list(column: Any, field: str) -> Any:
    import pyarrow as pa

    if not (pa.types.is_list(column.type) or pa.types.is_large_list(column.type)):
        raise InvalidCaseError(
            f"from_arrow: {field} must be list<string>, got {column.type}. Fix: cast it, "
            f"e.g. column.cast(pa.list_(pa.string()))."
        )
    value_type = column.type.value_type
    if pa.types.is_dictionary(value_type) and _is_arrow_string(value_type.value_type):
        return column  # already encoded: the fast path keeps the codes
    if not _is_arrow_string(value_type):
        raise InvalidCaseError(f"from_arrow: {field} must be list<string>, got {column.type}.")
    return column.cast(pa.list_(pa.string())) if column.type != pa.list_(pa.string()) else column


def _without_null_entries(values: Any) -> Any:
    """Dictionary-encoded names whose dictionary holds a null, as plain strings.

    A valid index can point at a null dictionary entry: the name is then null,
    but the array's own null count says nothing of it."""
    import pyarrow as pa

    if pa.types.is_dictionary(values.type) and any(
            chunk.dictionary.null_count for chunk in values.chunks):
        return values.cast(pa.string())
    return values


def _is_arrow_string(arrow_type: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type))


def _arrow_codes(flat: list[Any]) -> tuple[Any, list[Any]]:
    """Dictionary-encode the flattened names of both sides with one dictionary.

    Returns the dictionary (a string array) and each side's code arrays.
    Columns that are already ``list<dictionary<string>>`` (as Parquet files
    often store them) keep their codes: only their dictionaries are unified,
    and no name is hashed.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    chunks = [chunk for values in flat for chunk in values.chunks]
    if flat and all(pa.types.is_dictionary(values.type) for values in flat):
        encoded = pa.chunked_array(chunks, type=flat[0].type).unify_dictionaries()
        dictionary = encoded.chunk(0).dictionary if encoded.num_chunks else pa.array([], pa.string())
        if dictionary.null_count or len(pc.unique(dictionary)) != len(dictionary):
            # Repeated or null dictionary entries would give one name two codes.
            flat = [values.cast(pa.string()) for values in flat]
            return _arrow_codes(flat)
    else:
        flat = [
            values.cast(pa.string()) if pa.types.is_dictionary(values.type) else values
            for values in flat
        ]
        chunks = [chunk for values in flat for chunk in values.chunks]
        # One hash table across both sides, without copying the strings into
        # one array: Arrow encodes chunk by chunk with a shared memo table.
        encoded = pa.chunked_array(chunks, type=pa.string()).dictionary_encode()
        dictionaries = [chunk.dictionary for chunk in encoded.chunks]
        if any(not d.equals(dictionaries[-1]) for d in dictionaries):
            encoded = encoded.unify_dictionaries()
        dictionary = encoded.chunk(0).dictionary if encoded.num_chunks else pa.array([], pa.string())
    codes = []
    first = 0
    for values in flat:
        side = encoded.chunks[first : first + values.num_chunks]
        first += values.num_chunks
        codes.append([chunk.indices for chunk in side])
    return dictionary, codes
