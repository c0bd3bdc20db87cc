"""Python columns of tool names (lists of names, ToolCalls or ``{"name": ...}``
mappings, ``None`` for a side not given) encoded as tool ids with one shared
vocabulary: the columns a :class:`~agentmetrics.ToolCallBatch` is built from."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import chain
from operator import itemgetter
from typing import Any

import numpy as np

from agentmetrics._base._arrays import BoolArray, IdArray, IntArray
from agentmetrics._base._types import ErrorsMode
from agentmetrics._columnar import BadName, Vocabulary
from agentmetrics._columnar._names import offsets_from_lengths
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import ToolCall, describe, is_not_given

__all__ = ["NameEncoder"]



def _is_missing(value: object) -> bool:
    """``None``, ``pd.NA`` and float NaN (pandas' empty cell) mean "not given"."""
    return is_not_given(value) or (isinstance(value, float) and math.isnan(value))


def _row_names(row: object, field: str) -> list[str]:
    """The names in one row given as names, ToolCalls or mappings (the slow path)."""
    if isinstance(row, np.ndarray) and row.ndim == 0:
        row = row.item()  # a DataFrame cell holding a 0-d array
        if _is_missing(row):
            raise InvalidCaseError(f"{field}: a 0-d array holding {row!r}; pass None instead.")
    if isinstance(row, (str, bytes, Mapping)) or not isinstance(row, (Iterable, np.ndarray)):
        raise InvalidCaseError(
            f"{field}: expected a list of tool names, got {describe(row)}. "
            f"Fix: wrap a single name in a list, e.g. ['GetOrder']."
        )
    if isinstance(row, AbstractSet):
        raise InvalidCaseError(
            f"{field}: expected a list of tool names in call order, got a "
            f"{type(row).__name__}, which has no order. Fix: pass a list."
        )
    names = []
    for position, item in enumerate(row):
        if isinstance(item, ToolCall):
            names.append(item.name)
        elif isinstance(item, str) and item:
            names.append(str.__str__(item))  # str subclasses: their plain value
        elif isinstance(item, Mapping) and isinstance(item.get("name"), str) and item["name"]:
            names.append(str.__str__(item["name"]))
        else:
            raise InvalidCaseError(
                f"{field}[{position}]: expected a non-empty tool name, a ToolCall or a "
                f"mapping with 'name', got {describe(item)}."
            )
    return names


_GET_NAME = itemgetter("name")


def _plain_names(items: list[Any]) -> list[Any] | None:
    """The names of a side's items, read at C speed where every item is a name
    or a plain ``{"name": ...}`` dict (the encoder then checks each name);
    None sends the caller to the row-by-row path, which says what is wrong."""
    kinds = set(map(type, items))
    if kinds <= {str}:
        return items
    try:
        if kinds == {dict}:
            return list(map(_GET_NAME, items))
        if kinds <= {str, dict, ToolCall}:
            return [item if type(item) is str else item.name if type(item) is ToolCall
                    else item["name"] for item in items]
    except KeyError:
        return None
    return None


class NameEncoder:
    """Builds one shared vocabulary while encoding the rows of both sides."""

    def __init__(self) -> None:
        self.index = Vocabulary()

    def encode(
        self, rows: Sequence[Any], field: str, errors: ErrorsMode, invalid: dict[int, str]
    ) -> tuple[IdArray, IntArray, BoolArray]:
        n = len(rows)
        kinds = set(map(type, rows))
        if kinds <= {list, tuple, np.ndarray, type(None)}:  # the common cases, at C speed
            if np.ndarray in kinds and any(row.ndim != 1 for row in rows
                                           if type(row) is np.ndarray):
                return self._encode_slowly(rows, field, errors, invalid)
            given = np.ones(n, dtype=bool)
            present = rows
            if type(None) in kinds:
                given = np.fromiter((row is not None for row in rows), dtype=bool, count=n)
                present = [() if row is None else row for row in rows]
            lengths = np.fromiter(map(len, present), dtype=np.int64, count=n)
            items = list(chain.from_iterable(present))
            names = _plain_names(items)
            encoded = None if names is None else self.encode_names(names, lengths, given)
            if encoded is not None:
                return encoded
            # The slow path gets the rows as given: a None row stays "not given".
        # Arrays, NaN cells, ToolCalls, mappings or bad rows: row by row.
        return self._encode_slowly(rows, field, errors, invalid)

    def encode_names(
        self, names: Iterable[Any], lengths: IntArray, given: BoolArray
    ) -> tuple[IdArray, IntArray, BoolArray] | None:
        """Encode the names of all rows, in order; None if one is not a
        non-empty str (or not hashable), which sends the caller to the slow path."""
        try:
            ids = np.fromiter(
                map(self.index.__getitem__, names), dtype=np.int32, count=int(lengths.sum())
            )
        except (BadName, TypeError):
            return None
        return ids, offsets_from_lengths(lengths), given

    def _encode_slowly(
        self, rows: Sequence[Any], field: str, errors: ErrorsMode, invalid: dict[int, str]
    ) -> tuple[IdArray, IntArray, BoolArray]:
        # Rows holding ToolCalls, mappings or bad items: normalise row by row.
        n = len(rows)
        lengths = np.zeros(n, dtype=np.int64)
        given = np.ones(n, dtype=bool)
        ids: list[int] = []
        index = self.index
        for row_number, row in enumerate(rows):
            if _is_missing(row):
                given[row_number] = False
                continue
            try:
                names = _row_names(row, field)
            except InvalidCaseError as error:
                if errors == "raise":
                    raise InvalidCaseError(f"row {row_number}: {error}") from None
                given[row_number] = False
                invalid.setdefault(row_number, str(error))
                continue
            ids.extend(index.setdefault(name, len(index)) for name in names)
            lengths[row_number] = len(names)
        return np.asarray(ids, dtype=np.int32), offsets_from_lengths(lengths), given
