"""ToolCallBatch: many test cases as columns of integer tool ids.

Tool names are dictionary-encoded once (``vocabulary[i]`` is the name of id
``i``) and each side is a flat int32 array of ids plus int64 offsets, so a
batch holds no Python object per call. Every metric in one evaluation shares
the same batch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from itertools import chain, pairwise, repeat
from operator import attrgetter, is_not, itemgetter
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from agentmetrics._base._arrays import BoolArray, IdArray, IntArray
from agentmetrics._base._optional import require
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics._columnar import (
    BadName,
    Ingested,
    Vocabulary,
    check_input_format,
    check_unique_columns,
    holds_call_objects,
    ingest,
    records_from_arrow,
)
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase, describe, is_not_given

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

__all__ = ["ToolCallBatch", "holds_mappings", "refuse_row"]


_NAME = attrgetter("name")
_METADATA = attrgetter("metadata")


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


class _Encoder:
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
        return ids, _offsets_from_lengths(lengths), given

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
        return np.asarray(ids, dtype=np.int32), _offsets_from_lengths(lengths), given


def _offsets_from_lengths(lengths: IntArray) -> IntArray:
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


@attrs.frozen(slots=True, eq=False, repr=False)
class ToolCallBatch:
    """Test cases in columnar form, built once and shared by every metric.

    ``called_ids[called_offsets[i]:called_offsets[i + 1]]`` are the ids of
    the tools case ``i`` called, in call order (likewise ``expected_*``);
    ``vocabulary[id]`` is a tool's name. ``called_given[i]`` is False where
    the case's ``tool_calls`` is ``None`` (not given). ``invalid`` maps the
    rows that could not be read (``errors="record"``) to why. ``case_ids``
    holds each case's id, or ``None`` to use positions. ``cases`` keeps the
    original AgentTestCase objects when the batch was built from them, for
    metrics that need more than tool names.
    """

    vocabulary: tuple[str, ...]
    called_ids: IdArray
    called_offsets: IntArray
    expected_ids: IdArray
    expected_offsets: IntArray
    called_given: BoolArray
    expected_given: BoolArray
    case_ids: tuple[Any, ...] | None = None
    cases: tuple[AgentTestCase, ...] | None = None
    invalid: Mapping[int, str] = attrs.field(factory=dict)

    # -- constructors ----------------------------------------------------------

    @classmethod
    def _assemble(
        cls,
        vocabulary: Iterable[str],
        called: tuple[IdArray, IntArray, BoolArray],
        expected: tuple[IdArray, IntArray, BoolArray],
        case_ids: tuple[Any, ...] | None,
        cases: tuple[AgentTestCase, ...] | None = None,
        invalid: Mapping[int, str] | None = None,
    ) -> ToolCallBatch:
        """A batch from each side's (ids, offsets, given); rows in ``invalid``
        count as given on neither side."""
        for row in invalid or {}:
            called[2][row] = expected[2][row] = False
        return cls(
            vocabulary=tuple(vocabulary),
            called_ids=called[0],
            called_offsets=called[1],
            expected_ids=expected[0],
            expected_offsets=expected[1],
            called_given=called[2],
            expected_given=expected[2],
            case_ids=case_ids,
            cases=cases,
            invalid=dict(sorted((invalid or {}).items())),
        )

    @classmethod
    def from_cases(
        cls,
        cases: Iterable[AgentTestCase],
        *,
        errors: ErrorsMode = "raise",
        on_progress: Callable[[int], None] | None = None,
    ) -> ToolCallBatch:
        """Encode AgentTestCase objects; ``metadata["id"]`` becomes the case id.

        ``on_progress``, if given, is called with numbers of cases read, which
        add up to the number of cases.
        """
        check_errors_mode(errors)
        kept = cases if isinstance(cases, (list, tuple)) else list(cases)
        if set(map(type, kept)) <= {AgentTestCase}:
            return cls._from_valid_cases(kept, on_progress)
        invalid: dict[int, str] = {}
        called: list[Any] = []
        expected: list[Any] = []
        case_ids: list[Any] = []
        for row_number, case in enumerate(kept):
            if not isinstance(case, AgentTestCase):
                message = case.message if isinstance(case, UnreadableCase) else (
                    f"expected an AgentTestCase, got {describe(case)}. Fix: build "
                    f"AgentTestCase(tool_calls=[...], expected_tool_calls=[...])."
                )
                if errors == "raise":
                    raise InvalidCaseError(f"case {row_number}: {message}")
                invalid[row_number] = message
                called.append(None)
                expected.append(None)
                case_ids.append(case.id if isinstance(case, UnreadableCase) else None)
                continue
            calls = case.tool_calls
            called.append(None if calls is None else [call.name for call in calls])
            calls = case.expected_tool_calls
            expected.append(None if calls is None else [call.name for call in calls])
            case_ids.append(case.metadata.get("id"))
        if on_progress is not None:
            on_progress(len(kept))
        has_ids = case_ids.count(None) < len(case_ids)
        batch = cls._encode(called, expected, errors, invalid, tuple(case_ids) if has_ids else None)
        return attrs.evolve(batch, cases=tuple(kept))

    @classmethod
    def from_records(
        cls,
        records: Iterable[Mapping[str, Any] | AgentTestCase],
        *,
        errors: ErrorsMode = "raise",
        input_format: str | None = None,
        hosted_tools: bool = True,
    ) -> ToolCallBatch:
        """Encode mappings of case fields: the keys a JSONL line has
        (``tool_calls``, ``expected_tool_calls``, ``id``, ``input``,
        ``actual_output``, ``metadata``, ``turns``, or ``response`` with
        ``format``), read as :func:`agentmetrics.read_cases` reads a line.

        Records of the plain shape are read column by column, with no object
        per case; their AgentTestCases are built all at once when a metric
        first reads them (``batch.cases``). AgentTestCase items pass as they
        are. A record that cannot be read raises InvalidCaseError naming
        ``record N`` and the field, or, with ``errors="record"``, becomes a
        row that every metric reports. ``input_format`` and ``hosted_tools``
        are :func:`agentmetrics.read_cases`' for ``response`` payloads.
        """
        check_errors_mode(errors)
        if isinstance(records, (str, bytes, Mapping)) or not isinstance(records, Iterable):
            raise InvalidCaseError(
                f"from_records: expected a list or iterable of mappings, got {describe(records)}. "
                f"Fix: wrap a single record in a list.")
        check_input_format(input_format)
        read = ingest(list(records), errors="record",
                      options={"input_format": input_format, "hosted_tools": hosted_tools})
        if errors == "raise" and read.invalid:
            row = min(read.invalid)
            raise refuse_row(row, read.case_ids[row],
                             read.invalid[row].removeprefix(f"record {row}: "), "record")
        return cls.from_ingested(read)

    @classmethod
    def from_ingested(cls, read: Ingested, *, keep_cases: bool = True) -> ToolCallBatch:
        """The batch of what :func:`agentmetrics._columnar.ingest` read (with its
        cases, built when first read, unless ``keep_cases`` is False)."""
        sides = []
        for side in (read.called, read.expected):
            n = len(side.lengths)
            sides.append((np.frombuffer(side.ids, dtype=np.int32).copy() if side.ids else
                          np.zeros(0, dtype=np.int32),
                          _offsets_from_lengths(np.fromiter(side.lengths, dtype=np.int64, count=n)),
                          np.fromiter(side.given, dtype=bool, count=n)))
        has_ids = any(map(is_not, read.case_ids, repeat(None)))  # stops at the first id
        return cls._assemble(read.vocabulary, sides[0], sides[1],
                             tuple(read.case_ids) if has_ids else None,
                             read.cases if keep_cases else None,  # type: ignore[arg-type]
                             invalid=read.invalid)

    @classmethod
    def _from_valid_cases(
        cls, cases: Sequence[AgentTestCase], on_progress: Callable[[int], None] | None
    ) -> ToolCallBatch:
        # Every step maps a C-level getter over a chunk of cases: no Python
        # bytecode runs per case or per call, which is most of the speed-up.
        encoder = _Encoder()
        sides: list[tuple[IdArray, IntArray, BoolArray]] = []
        for field in ("tool_calls", "expected_tool_calls"):
            rows: list[Any] = list(map(attrgetter(field), cases))
            given = np.ones(len(rows), dtype=bool)
            try:
                lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
            except TypeError:  # len(None): some cases do not give this list
                given = np.fromiter((row is not None for row in rows), dtype=bool, count=len(rows))
                rows = [() if row is None else row for row in rows]
                lengths = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
            encoded = encoder.encode_names(map(_NAME, chain.from_iterable(rows)), lengths, given)
            assert encoded is not None  # ToolCall validated every name
            sides.append(encoded)
            if on_progress is not None:
                on_progress(len(cases) // 2 if field == "tool_calls" else len(cases) - len(cases) // 2)
        case_ids = list(map(dict.get, map(_METADATA, cases), repeat("id")))
        has_ids = case_ids.count(None) < len(case_ids)
        return cls._assemble(
            encoder.index, sides[0], sides[1], tuple(case_ids) if has_ids else None, tuple(cases)
        )

    @classmethod
    def from_columns(
        cls,
        *,
        tool_calls: Sequence[Any],
        expected_tool_calls: Sequence[Any],
        ids: Sequence[Any] | None = None,
        errors: ErrorsMode = "raise",
    ) -> ToolCallBatch:
        """Encode two parallel columns of name lists (``None`` = not given).

        Rows may also hold ToolCall objects or ``{"name": ...}`` mappings.
        With ``errors="record"``, an unreadable row is kept and reported by
        every metric instead of stopping the build.
        """
        check_errors_mode(errors)
        if len(tool_calls) != len(expected_tool_calls):
            raise InvalidCaseError(
                f"from_columns: tool_calls has {len(tool_calls)} rows but "
                f"expected_tool_calls has {len(expected_tool_calls)}; they must be parallel."
            )
        if ids is not None and len(ids) != len(tool_calls):
            raise InvalidCaseError(
                f"from_columns: ids has {len(ids)} rows but the call columns have "
                f"{len(tool_calls)}."
            )
        return cls._encode(
            tool_calls, expected_tool_calls, errors, {}, None if ids is None else tuple(ids)
        )

    @classmethod
    def _encode(
        cls,
        called: Sequence[Any],
        expected: Sequence[Any],
        errors: ErrorsMode,
        invalid: dict[int, str],
        case_ids: tuple[Any, ...] | None,
    ) -> ToolCallBatch:
        encoder = _Encoder()
        called_ids, called_offsets, called_given = encoder.encode(
            called, "tool_calls", errors, invalid
        )
        expected_ids, expected_offsets, expected_given = encoder.encode(
            expected, "expected_tool_calls", errors, invalid
        )
        return cls._assemble(
            encoder.index,
            (called_ids, called_offsets, called_given),
            (expected_ids, expected_offsets, expected_given),
            case_ids,
            invalid=invalid,  # a row bad on one side is unreadable on both
        )

    @classmethod
    def from_pandas(
        cls,
        frame: pd.DataFrame,
        *,
        tool_calls: str = "tool_calls",
        expected_tool_calls: str = "expected_tool_calls",
        id: str | None = None,
        errors: ErrorsMode = "raise",
    ) -> ToolCallBatch:
        """Encode two list columns of a DataFrame (needs pandas).

        ``id`` names a column of case ids; by default the index is used when
        it is not a plain 0..n-1 range. Arrow-backed list columns take the
        Arrow path.
        """
        pd = require("pandas", "pandas")
        if not isinstance(frame, pd.DataFrame):
            raise InvalidCaseError(f"from_pandas: expected a pandas DataFrame, got {describe(frame)}.")
        check_unique_columns(frame.columns, (tool_calls, expected_tool_calls, id), "from_pandas")
        missing = [c for c in (tool_calls, expected_tool_calls, id) if c and c not in frame.columns]
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
        called, expected = frame[tool_calls], frame[expected_tool_calls]
        if holds_mappings(called) or holds_mappings(expected):
            batch = cls.from_object_columns(called.tolist(), expected.tolist(), case_ids)
            if errors == "raise" and batch.invalid:
                row = min(batch.invalid)
                raise refuse_row(row, batch.case_id(row),
                                 batch.invalid[row].removeprefix(f"record {row}: "))
            return batch
        if _is_arrow_list(called) and _is_arrow_list(expected):
            pa = require("pyarrow", "arrow")
            batch = cls.from_arrow(
                tool_calls=pa.array(called.array),
                expected_tool_calls=pa.array(expected.array),
                errors=errors,
            )
            return attrs.evolve(batch, case_ids=case_ids)
        return cls.from_columns(
            tool_calls=called.tolist(),
            expected_tool_calls=expected.tolist(),
            ids=case_ids,
            errors=errors,
        )

    @classmethod
    def from_object_columns(cls, called: Sequence[Any], expected: Sequence[Any],
                            ids: Sequence[Any] | None) -> ToolCallBatch:
        """Two columns of call lists holding call objects (a DataFrame's object
        columns), read as records, arguments included; unreadable rows kept
        as invalid rows."""
        records: list[dict[str, Any]] = [
            {"tool_calls": _cell(a), "expected_tool_calls": _cell(b)}
            for a, b in zip(called, expected)]
        if ids is not None:
            for record, identity in zip(records, ids):
                record["id"] = identity
        batch = cls.from_records(records, errors="record")
        return batch if ids is not None else attrs.evolve(batch, case_ids=None)

    @classmethod
    def from_arrow(
        cls,
        *,
        tool_calls: pa.Array | pa.ChunkedArray,
        expected_tool_calls: pa.Array | pa.ChunkedArray,
        ids: Sequence[Any] | pa.Array | pa.ChunkedArray | None = None,
        errors: ErrorsMode = "raise",
    ) -> ToolCallBatch:
        """Encode two ``list<string>`` Arrow columns with Arrow compute (needs pyarrow).

        Names are dictionary-encoded by Arrow; no Python object is made per
        name. Columns of ``list<dictionary<string>>`` (Parquet's dictionary
        encoding, kept with ``read_dictionary=``) skip the hashing and keep
        their codes. A null list means "not given"; a null or empty name is an
        invalid row.
        """
        check_errors_mode(errors)
        require("pyarrow", "arrow")
        if ids is not None and not isinstance(ids, (list, tuple)):
            ids = ids.to_pylist()  # type: ignore[union-attr]
        given = [_chunked(tool_calls, "tool_calls"), _chunked(expected_tool_calls, "expected_tool_calls")]
        if any(holds_call_objects(column) for column in given):
            if len(given[0]) != len(given[1]):
                raise InvalidCaseError(
                    f"from_arrow: tool_calls has {len(given[0])} rows but "
                    f"expected_tool_calls has {len(given[1])}; they must be parallel.")
            if ids is not None and len(ids) != len(given[0]):
                raise InvalidCaseError(f"from_arrow: ids has {len(ids)} rows, the columns {len(given[0])}.")
            records = records_from_arrow(given[0], given[1], ids)
            batch = cls.from_ingested(ingest(records, errors="record", where="row"))
            if ids is None:
                batch = attrs.evolve(batch, case_ids=None)
            if errors == "raise" and batch.invalid:
                row, message = next(iter(batch.invalid.items()))
                raise refuse_row(row, None if ids is None else ids[row],
                                 message.removeprefix(f"row {row}: "))
            return batch
        columns = [_arrow_list(column, field) for column, field in
                   zip(given, ("tool_calls", "expected_tool_calls"))]
        if len(columns[0]) != len(columns[1]):
            raise InvalidCaseError(
                f"from_arrow: tool_calls has {len(columns[0])} rows but "
                f"expected_tool_calls has {len(columns[1])}; they must be parallel."
            )
        n = len(columns[0])
        import pyarrow.compute as pc

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
            offsets = _offsets_from_lengths(lengths.astype(np.int64))
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
        case_ids = None if ids is None else tuple(ids)
        if case_ids is not None and len(case_ids) != n:
            raise InvalidCaseError(f"from_arrow: ids has {len(case_ids)} rows, the columns {n}.")
        if errors == "raise" and invalid:
            row = min(invalid)
            raise refuse_row(row, None if case_ids is None else case_ids[row], invalid[row])
        return cls._assemble(vocabulary, sides[0], sides[1], case_ids, invalid=invalid)

    # -- reading ---------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.called_given)

    def __repr__(self) -> str:
        return (
            f"ToolCallBatch({len(self)} cases, {len(self.called_ids)} calls, "
            f"{len(self.expected_ids)} expected calls, {len(self.vocabulary)} distinct tools)"
        )

    def case_id(self, row: int) -> Any:
        """The case's id, or None when it has none (its position then names it)."""
        return None if self.case_ids is None else self.case_ids[row]

    def called_names(self, row: int) -> tuple[str, ...] | None:
        if not self.called_given[row]:
            return None
        start, stop = self.called_offsets[row], self.called_offsets[row + 1]
        return tuple(map(self.vocabulary.__getitem__, self.called_ids[start:stop].tolist()))

    def expected_names(self, row: int) -> tuple[str, ...] | None:
        if not self.expected_given[row]:
            return None
        start, stop = self.expected_offsets[row], self.expected_offsets[row + 1]
        return tuple(map(self.vocabulary.__getitem__, self.expected_ids[start:stop].tolist()))

    def case(self, row: int) -> AgentTestCase:
        """The row as an AgentTestCase (the original one when built from cases)."""
        if self.cases is not None:
            return self.cases[row]
        metadata = {} if self.case_ids is None else {"id": self.case_ids[row]}
        return AgentTestCase(
            tool_calls=self.called_names(row),
            expected_tool_calls=self.expected_names(row),
            metadata=metadata,
        )

    def name_lists(self) -> tuple[list[list[str] | None], list[list[str] | None]]:
        """Every row's called and expected names as lists (None where a side
        is not given): the names of all rows looked up at once."""
        names = np.empty(len(self.vocabulary), dtype=object)
        names[:] = self.vocabulary
        sides = []
        for ids, offsets, given in ((self.called_ids, self.called_offsets, self.called_given),
                                    (self.expected_ids, self.expected_offsets,
                                     self.expected_given)):
            flat = names[ids].tolist()
            bounds = offsets.tolist()
            rows: list[list[str] | None] = [flat[a:b] for a, b in pairwise(bounds)]
            for row in np.flatnonzero(~given).tolist():
                rows[row] = None
            sides.append(rows)
        return sides[0], sides[1]

    def slice(self, start: int, stop: int) -> ToolCallBatch:
        """Rows ``start:stop`` as a batch sharing this one's arrays and vocabulary."""
        c0, c1 = self.called_offsets[start], self.called_offsets[stop]
        e0, e1 = self.expected_offsets[start], self.expected_offsets[stop]
        return ToolCallBatch(
            vocabulary=self.vocabulary,
            called_ids=self.called_ids[c0:c1],
            called_offsets=self.called_offsets[start : stop + 1] - c0,
            expected_ids=self.expected_ids[e0:e1],
            expected_offsets=self.expected_offsets[start : stop + 1] - e0,
            called_given=self.called_given[start:stop],
            expected_given=self.expected_given[start:stop],
            case_ids=None if self.case_ids is None else self.case_ids[start:stop],
            cases=None if self.cases is None else self.cases[start:stop],
            invalid={r - start: m for r, m in self.invalid.items() if start <= r < stop},
        )


    @classmethod
    def concat(cls, batches: Sequence[ToolCallBatch]) -> ToolCallBatch:
        """The rows of several batches, one after another, in one batch (their
        vocabularies joined; ids, cases and unreadable rows kept)."""
        if len(batches) == 1:
            return batches[0]
        index: dict[str, int] = {}
        sides: list[tuple[IdArray, IntArray, BoolArray]] = []
        remaps = [np.fromiter((index.setdefault(name, len(index)) for name in b.vocabulary),
                              dtype=np.int32, count=len(b.vocabulary)) for b in batches]
        for ids_of, offsets_of, given_of in (("called_ids", "called_offsets", "called_given"),
                                             ("expected_ids", "expected_offsets",
                                              "expected_given")):
            ids = [remap[getattr(b, ids_of)] for remap, b in zip(remaps, batches)]
            starts = np.cumsum([0] + [len(part) for part in ids])
            offsets = np.concatenate(
                [getattr(b, offsets_of)[:-1] + start for b, start in zip(batches, starts)]
                + [np.array([starts[-1]], dtype=np.int64)]).astype(np.int64)
            sides.append((np.concatenate(ids).astype(np.int32) if ids else
                          np.zeros(0, dtype=np.int32), offsets,
                          np.concatenate([getattr(b, given_of) for b in batches])))
        rows = np.cumsum([0] + [len(b) for b in batches]).tolist()
        case_ids = None
        if any(b.case_ids is not None for b in batches):
            case_ids = tuple(chain.from_iterable(
                b.case_ids if b.case_ids is not None else repeat(None, len(b)) for b in batches))
        cases = None
        if all(b.cases is not None for b in batches):
            cases = tuple(chain.from_iterable(b.cases or () for b in batches))
        invalid = {start + row: message for start, b in zip(rows, batches)
                   for row, message in b.invalid.items()}
        return cls(vocabulary=tuple(index), called_ids=sides[0][0], called_offsets=sides[0][1],
                   expected_ids=sides[1][0], expected_offsets=sides[1][1],
                   called_given=sides[0][2], expected_given=sides[1][2], case_ids=case_ids,
                   cases=cases, invalid=invalid)


def holds_mappings(series: Any) -> bool:
    """Whether a DataFrame's object column holds call objects (mappings) in its lists."""
    if getattr(series.dtype, "pyarrow_dtype", None) is not None:
        return False
    for cell in series.tolist():
        if isinstance(cell, np.ndarray) and cell.ndim != 1:
            continue  # not a list of calls: the column's reading says what it is
        if isinstance(cell, (list, tuple, np.ndarray)) and any(
                isinstance(item, Mapping) for item in cell):
            return True
    return False


def _cell(value: Any) -> Any:
    """A DataFrame cell as a record's value: arrays as lists, a missing cell as None."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, float) and value != value:
        return None
    return value


def _is_arrow_list(series: Any) -> bool:
    dtype = series.dtype
    pyarrow_dtype = getattr(dtype, "pyarrow_dtype", None)
    if pyarrow_dtype is None:
        return False
    import pyarrow as pa

    return bool(pa.types.is_list(pyarrow_dtype) or pa.types.is_large_list(pyarrow_dtype))


#: What the records' reading says of a null and of an empty name (one wording for both readers).
_NULL_NAME = "expected a ToolCall, a tool name (str) or a mapping with 'name'; got NoneType None."
_EMPTY_NAME = ("ToolCall.name: expected a non-empty str, got ''. Fix: give every tool call the "
               "name of the tool that was called.")


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


def _chunked(column: Any, field: str) -> Any:
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


# Pickles and reprs name the public path, not this private module.
for _public in (ToolCallBatch,):
    _public.__module__ = "agentmetrics"
del _public
