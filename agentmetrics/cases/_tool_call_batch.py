"""ToolCallBatch: many test cases as columns of integer tool ids.

Tool names are dictionary-encoded once (``vocabulary[i]`` is the name of id
``i``) and each side is a flat int32 array of ids plus int64 offsets, so a
batch holds no Python object per call. Every metric in one evaluation shares
the same batch.
"""

from __future__ import annotations

import math

from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import chain, pairwise, repeat
from operator import attrgetter, is_not, methodcaller
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import BoolArray, IdArray, IntArray
from agentmetrics._base._optional import require
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics._columnar import (
    ArrowCases,
    Ingested,
    LazyCases,
    check_input_format,
    holds_call_objects,
    ingest,
    paused_gc,
    read_arrow_calls,
    records_from_arrow,
)
from agentmetrics._columnar._fields import COLUMN_FIELDS, read_field_columns
from agentmetrics._columnar._frames import add_fields, frame_columns, object_records, refuse_row
from agentmetrics._columnar._names import as_chunked, encode_arrow_names, offsets_from_lengths
from agentmetrics.cases._call_keys import (
    EQUALITIES,
    ArgumentIdColumns,
    CallArguments,
    CallItems,
    CallKeys,
    arguments_of_calls,
    arguments_of_items,
    keys_of_argument_ids,
    keys_of_sides,
)
from agentmetrics.cases._call_lists import CallLists, lists_of_items
from agentmetrics.cases._encode import NameEncoder
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import (
    CASE_FIELDS,
    AgentTestCase,
    ToolCall,
    UnreadableCase,
    describe,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    import pyarrow as pa

__all__ = ["ToolCallBatch"]


_NAME = attrgetter("name")
#: The case fields :meth:`ToolCallBatch.field` gives as float64 columns.
_NUMBER_FIELDS = ("latency", "cost")


def _value(cell: Any) -> Any:
    """A field column's cell as the case holds it: NaN (a number not given) as None."""
    return None if isinstance(cell, float) and cell != cell else cell
_METADATA = attrgetter("metadata")
_RAW = methodcaller("get", "raw_arguments")


def _record_arguments(records: list[Any], built: Mapping[int, Any], field: str) -> list[Any] | None:
    """The argument column of one side of ingested records (rows the reference
    read give their case's calls); None where a record is not a plain dict."""
    get = methodcaller("get", field)
    if not built:
        if not set(map(type, records)) <= {dict}:
            return None
        items = list(chain.from_iterable(filter(None, map(get, records))))
        if set(map(type, items)) == {dict}:
            raws = list(map(_RAW, items))
            if raws.count(None) == len(raws):
                arguments = list(map(methodcaller("get", "arguments", _NO_ARGUMENTS), items))
                if set(map(type, arguments)) <= {dict}:
                    return arguments
        return arguments_of_items(items)
    column: list[Any] = []
    for row, record in enumerate(records):
        if row in built:
            case = built[row]
            if type(case) is AgentTestCase:
                column.extend(arguments_of_calls(getattr(case, field) or ()))
        elif type(record) is dict:
            column.extend(arguments_of_items(record.get(field) or ()))
        else:
            return None
    return column


_NO_ARGUMENTS: dict[str, Any] = {}


def _record_fields(records: list[Any], built: Mapping[int, Any], field: str,
                   fields: dict[str, list[Any]]) -> bool:
    """Append each call's arguments, whether they are malformed and its
    output, on one side of ingested records, as its ToolCall holds them (see
    :class:`CallItems`); rows the reference read give their case's calls.
    False where a record or a call is not of the plain shapes the columnar
    reading takes."""
    arguments, malformed, outputs = fields["arguments"], fields["malformed"], fields["output"]
    stated = fields["given"]
    for row, record in enumerate(records):
        if row in built:
            case = built[row]
            if type(case) is AgentTestCase:
                for call in getattr(case, field) or ():
                    arguments.append(call.arguments)
                    malformed.append(call.raw_arguments is not None)
                    stated.append(call.arguments_given)
                    outputs.append(call.output)
            continue
        if type(record) is not dict:
            return False
        for item in record.get(field) or ():
            if type(item) is str:
                arguments.append({})
                malformed.append(False)
                stated.append(True)
                outputs.append(None)
                continue
            if type(item) is not dict:
                return False
            given = item.get("arguments")
            if given is None:
                arguments.append({})
            elif type(given) is dict:
                arguments.append(given)
            else:
                return False
            raw = item.get("raw_arguments") is not None
            malformed.append(raw)
            stated.append(raw or given is not None or "arguments" not in item)
            outputs.append(item.get("output"))
    return True


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
    #: Case fields read as columns from a table (see :meth:`field`), when the
    #: batch holds no case objects: float64 for latency and cost, else object.
    fields: Mapping[str, npt.NDArray[Any]] = attrs.field(factory=dict)
    #: Each call's arguments as a reader read them, aligned with the ids (see
    #: :class:`CallArguments`), when it kept them: :meth:`call_keys` reads them
    #: here rather than in the cases.
    call_arguments: CallArguments | None = None
    #: Each call's argument id, when a decoder gave them (see
    #: :class:`ArgumentIdColumns`): :meth:`call_keys` reads them first.
    argument_ids: ArgumentIdColumns | None = None
    _memo: dict[str, Any] = attrs.field(factory=dict, init=False)

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
                          offsets_from_lengths(np.fromiter(side.lengths, dtype=np.int64, count=n)),
                          np.fromiter(side.given, dtype=bool, count=n)))
        has_ids = any(map(is_not, read.case_ids, repeat(None)))  # stops at the first id
        batch = cls._assemble(read.vocabulary, sides[0], sides[1],
                              tuple(read.case_ids) if has_ids else None,
                              read.cases if keep_cases else None,  # type: ignore[arg-type]
                              invalid=read.invalid)
        if read.arguments is None or not keep_cases:
            return batch
        columns = [np.frombuffer(column, dtype=np.int64) if len(column) else
                   np.zeros(0, dtype=np.int64) for column in read.arguments]
        items = [None, None] if read.items is None else [
            np.frombuffer(column, dtype=np.int64) if len(column) else np.zeros(0, dtype=np.int64)
            for column in read.items]
        return attrs.evolve(batch, argument_ids=ArgumentIdColumns(
            columns[0], columns[1], items[0], items[1], read.item_fields))

    @classmethod
    def _from_valid_cases(
        cls, cases: Sequence[AgentTestCase], on_progress: Callable[[int], None] | None
    ) -> ToolCallBatch:
        # Every step maps a C-level getter over a chunk of cases: no Python
        # bytecode runs per case or per call, which is most of the speed-up.
        encoder = NameEncoder()
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
        encoder = NameEncoder()
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
        read = frame_columns(frame, tool_calls=tool_calls,
                             expected_tool_calls=expected_tool_calls, id=id)
        if read.kind == "objects":
            batch = cls.from_object_columns(read.called, read.expected, read.ids, fields=read.fields)
            if errors == "raise" and batch.invalid:
                row = min(batch.invalid)
                raise refuse_row(row, batch.case_id(row),
                                 batch.invalid[row].removeprefix(f"record {row}: "))
            return batch
        if read.kind == "arrow":
            batch = cls.from_arrow(tool_calls=read.called, expected_tool_calls=read.expected,
                                   errors="record" if read.fields else errors)
            batch = attrs.evolve(batch, case_ids=read.ids)
        else:
            batch = cls.from_columns(tool_calls=read.called, expected_tool_calls=read.expected,
                                     ids=read.ids, errors="record" if read.fields else errors)
        return batch.with_field_columns(read.fields, errors) if read.fields else batch

    def with_field_columns(self, fields: Mapping[str, Any], errors: ErrorsMode = "raise",
                           where: str = "record") -> ToolCallBatch:
        """This batch with the case-field columns ``fields`` (name -> a column
        of a table: latency, cost, input, actual_output, expected_output) read
        as columns, checked as a case checks each value; a row a cell makes
        unreadable is an invalid row (``errors="raise"``: refused at once)."""
        columns, bad = read_field_columns(fields, len(self), where)
        invalid = dict(self.invalid)
        for row, message in bad.items():
            invalid.setdefault(row, message)
        if errors == "raise" and invalid:
            row = min(invalid)
            raise refuse_row(row, self.case_id(row),
                             invalid[row].removeprefix(f"{where} {row}: "))
        for row in invalid:
            self.called_given[row] = self.expected_given[row] = False
        return attrs.evolve(self, fields={**self.fields, **columns},
                            invalid=dict(sorted(invalid.items())))

    @classmethod
    def from_object_columns(cls, called: Sequence[Any], expected: Sequence[Any],
                            ids: Sequence[Any] | None, *,
                            fields: Mapping[str, Sequence[Any]] | None = None) -> ToolCallBatch:
        """Two columns of call lists holding call objects (a DataFrame's object
        columns), read as records, arguments included, with the case fields of
        ``fields`` (column values by field name); unreadable rows kept as
        invalid rows."""
        batch = cls.from_records(object_records(called, expected, ids, fields), errors="record")
        return batch if ids is not None else attrs.evolve(batch, case_ids=None)

    @classmethod
    def from_arrow(
        cls,
        *,
        tool_calls: pa.Array | pa.ChunkedArray,
        expected_tool_calls: pa.Array | pa.ChunkedArray,
        ids: Sequence[Any] | pa.Array | pa.ChunkedArray | None = None,
        errors: ErrorsMode = "raise",
        fields: Mapping[str, Any] | None = None,
    ) -> ToolCallBatch:
        """Encode two ``list<string>`` Arrow columns with Arrow compute (needs pyarrow).

        Names are dictionary-encoded by Arrow; no Python object is made per
        name. Columns of ``list<dictionary<string>>`` (Parquet's dictionary
        encoding, kept with ``read_dictionary=``) skip the hashing and keep
        their codes. A null list means "not given"; a null or empty name is an
        invalid row. ``fields`` (case field name -> an Arrow column or a list,
        one value a row: ``actual_output``, ``expected_output``, ``latency``...)
        sends the rows through the records' reading, which puts each value in
        its case and checks it as a case file's line is checked.
        """
        check_errors_mode(errors)
        require("pyarrow", "arrow")
        if ids is not None and not isinstance(ids, (list, tuple)):
            ids = ids.to_pylist()  # type: ignore[union-attr]
        given = [as_chunked(tool_calls, "tool_calls"), as_chunked(expected_tool_calls, "expected_tool_calls")]
        columnar = not any(name not in COLUMN_FIELDS for name in fields or {})
        if not columnar or any(holds_call_objects(column) for column in given):
            if len(given[0]) != len(given[1]):
                raise InvalidCaseError(
                    f"from_arrow: tool_calls has {len(given[0])} rows but "
                    f"expected_tool_calls has {len(given[1])}; they must be parallel.")
            if ids is not None and len(ids) != len(given[0]):
                raise InvalidCaseError(f"from_arrow: ids has {len(ids)} rows, the columns {len(given[0])}.")
            calls = read_arrow_calls(given[0], given[1], ids, fields or {}) if columnar else None
            if calls is not None:  # call objects read as columns; the cases when first read
                has_ids = ids is not None and any(map(is_not, ids, repeat(None)))
                batch = cls._assemble(
                    calls.vocabulary, calls.sides[0], calls.sides[1],
                    tuple(ids) if has_ids and ids is not None else None,
                    ArrowCases(given[0], given[1], ids, fields or {}),  # type: ignore[arg-type]
                    invalid=calls.invalid)
                batch = attrs.evolve(batch, fields=calls.fields)
                if errors == "raise" and batch.invalid:
                    row, message = next(iter(batch.invalid.items()))
                    raise refuse_row(row, None if ids is None else ids[row],
                                     message.removeprefix(f"row {row}: "))
                return batch
            records = add_fields(records_from_arrow(given[0], given[1], ids), {
                name: column if isinstance(column, (list, tuple)) else column.to_pylist()
                for name, column in (fields or {}).items()})
            batch = cls.from_ingested(ingest(records, errors="record", where="row"))
            if ids is None:
                batch = attrs.evolve(batch, case_ids=None)
            if errors == "raise" and batch.invalid:
                row, message = next(iter(batch.invalid.items()))
                raise refuse_row(row, None if ids is None else ids[row],
                                 message.removeprefix(f"row {row}: "))
            return batch
        encoded = encode_arrow_names(given[0], given[1])
        n, invalid = len(encoded), encoded.invalid
        case_ids = None if ids is None else tuple(ids)
        if case_ids is not None and len(case_ids) != n:
            raise InvalidCaseError(f"from_arrow: ids has {len(case_ids)} rows, the columns {n}.")
        if errors == "raise" and invalid:
            row = min(invalid)
            raise refuse_row(row, None if case_ids is None else case_ids[row], invalid[row])
        batch = cls._assemble(encoded.vocabulary, encoded.sides[0], encoded.sides[1], case_ids,
                              invalid=invalid)
        return batch.with_field_columns(fields, errors, where="row") if fields else batch

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
        values = {name: _value(column[row]) for name, column in self.fields.items()}
        return AgentTestCase(
            tool_calls=self.called_names(row),
            expected_tool_calls=self.expected_names(row),
            metadata=metadata,
            **values,
        )

    def field(self, name: str) -> npt.NDArray[Any]:
        """One case field of every row, as a column: ``latency`` and ``cost``
        as float64 (NaN where a row has none), any other field as an object
        array (None where a row has none, and for an unreadable row). Array
        code in a metric's ``evaluate_batch`` reads its declared inputs here."""
        if name not in CASE_FIELDS:
            raise InvalidCaseError(f"ToolCallBatch.field: expected one of "
                                   f"{sorted(CASE_FIELDS)}, got {name!r}.")
        rows = len(self)
        column = self.fields.get(name)
        if column is not None:
            return column
        values: list[Any] = [None] * rows
        lacks = getattr(self.cases, "lacks", None)  # cases not built yet may say so unbuilt
        if lacks is not None and lacks(name):
            pass
        elif self.cases is not None:  # an unreadable row's UnreadableCase has no fields
            values = [getattr(case, name, None) for case in self.cases]
        elif name in ("tool_calls", "expected_tool_calls"):
            values = [None if row in self.invalid else getattr(self.case(row), name)
                      for row in range(rows)]
        elif name == "metadata" and self.case_ids is not None:
            values = [{"id": case_id} for case_id in self.case_ids]
        for row in self.invalid:
            values[row] = None
        if name in _NUMBER_FIELDS:
            return np.array([math.nan if value is None else value for value in values],
                            dtype=np.float64)
        column = np.empty(rows, dtype=object)
        column[:] = values
        return column

    def call_keys(self, equality: str = "python") -> CallKeys | None:
        """Every call as an int key id, equal for two calls exactly when they
        are equal under ``equality``, in one vocabulary for both sides and
        aligned with ``called_ids`` and ``expected_ids``; computed when first
        asked for and kept. ``"python"``: name, whether arguments were given,
        and arguments ``==`` as Python compares them (``1 == 1.0``, key order
        ignored, a missing argument differs): see :class:`CallKeys`.

        Read from :attr:`call_arguments` when a reader kept them, else from
        the records or cases the batch holds (without building cases from
        records); None when the batch holds tool names only. A metric passes
        the keys to the name kernels (``row_lcs(batch, keys)``) in place of
        the tool ids, and scores the ``unkeyed`` rows case by case."""
        if equality not in EQUALITIES:
            raise InvalidCaseError(f"ToolCallBatch.call_keys: equality must be one of "
                                   f"{', '.join(map(repr, EQUALITIES))}, got {equality!r}.")
        if equality not in self._memo:
            if self.argument_ids is not None:
                self._memo[equality] = keys_of_argument_ids(
                    (self.called_ids, self.expected_ids),
                    (self.called_offsets, self.expected_offsets), self.argument_ids)
                return self._memo[equality]  # type: ignore[no-any-return]
            with paused_gc():  # many small frozensets, no cycle: no collection to run
                arguments = self.call_arguments or self._arguments_read()
                self._memo[equality] = None if arguments is None else keys_of_sides(
                    (self.called_ids, self.expected_ids),
                    (self.called_offsets, self.expected_offsets), arguments)
        found: CallKeys | None = self._memo[equality]
        return found

    def call_items(self) -> CallItems | None:
        """Each call's item and each item's arguments and output, as a
        ToolCall holds them (see :class:`CallItems`), without building cases:
        from the decoder's table of distinct call texts when it kept one
        (calls of the same text share an item), else from the plain records
        the batch was read from (each call its own item); None otherwise (a
        batch of cases, or of names only)."""
        ids = self.argument_ids
        if (ids is not None and ids.called_items is not None and ids.expected_items is not None
                and ids.item_fields is not None):
            return CallItems(ids.called_items, ids.expected_items, ids.item_fields)
        if "items" in self._memo:  # read once a batch, whichever metrics ask
            found: CallItems | None = self._memo["items"]
            return found
        self._memo["items"] = None
        cases = self.cases
        plain = cases.plain_records() if isinstance(cases, LazyCases) else None
        if plain is None:
            return None
        fields: dict[str, list[Any]] = {"arguments": [], "given": [], "malformed": [],
                                        "output": []}
        for field, ids_of_side in (("tool_calls", self.called_ids),
                                   ("expected_tool_calls", self.expected_ids)):
            before = len(fields["arguments"])
            if not _record_fields(plain[0], plain[1], field, fields):
                return None
            if len(fields["arguments"]) - before != len(ids_of_side):
                return None
        called = len(self.called_ids)
        every = np.arange(len(fields["arguments"]), dtype=np.int64)
        items = self._memo["items"] = CallItems(every[:called], every[called:], fields)
        return items

    def call_lists(self) -> CallLists | None:
        """Each row's calls made and expected as tuples of ToolCall (see
        :class:`CallLists`; None for a row left to its case): from the fast
        decoder's call items, one ToolCall an item shared by every call that
        holds it, no case built; else the cases' own tuples (records' cases
        are built in bulk, which costs less than a ToolCall a call from their
        items). None for a batch of tool names only."""
        if "lists" in self._memo:
            found: CallLists | None = self._memo["lists"]
            return found
        lists: CallLists | None = None
        ids = self.argument_ids
        if (ids is not None and ids.called_items is not None and ids.expected_items is not None
                and ids.item_fields is not None):
            lists = lists_of_items(
                self.vocabulary, (self.called_ids, self.expected_ids),
                (self.called_offsets, self.expected_offsets),
                (self.called_given, self.expected_given),
                CallItems(ids.called_items, ids.expected_items, ids.item_fields))
        elif self.cases is not None:
            made: list[tuple[ToolCall, ...] | None] = []
            wanted: list[tuple[ToolCall, ...] | None] = []
            for case in self.cases:
                built = type(case) is AgentTestCase
                made.append(case.tool_calls if built else None)
                wanted.append(case.expected_tool_calls if built else None)
            for row in self.invalid:
                made[row] = wanted[row] = None
            lists = CallLists(made, wanted)
        self._memo["lists"] = lists
        return lists

    def _arguments_read(self) -> CallArguments | None:
        """The argument columns from the records (cases not built) or the
        cases; None if there are none or they do not line up with the ids."""
        cases = self.cases
        if cases is None:
            return None
        plain = cases.plain_records() if isinstance(cases, LazyCases) else None
        sides = []
        for field, ids in (("tool_calls", self.called_ids), ("expected_tool_calls",
                                                              self.expected_ids)):
            if plain is not None:
                column = _record_arguments(plain[0], plain[1], field)
            else:
                lists = [getattr(case, field) if type(case) is AgentTestCase else None
                         for case in cases]
                column = arguments_of_calls(chain.from_iterable(filter(None, lists)))
            if column is None or len(column) != len(ids):
                return None
            sides.append(column)
        return CallArguments(sides[0], sides[1])

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
            fields={name: column[start:stop] for name, column in self.fields.items()},
            call_arguments=None if self.call_arguments is None else CallArguments(
                self.call_arguments.called[c0:c1], self.call_arguments.expected[e0:e1]),
            argument_ids=None if self.argument_ids is None else _sliced_ids(
                self.argument_ids, c0, c1, e0, e1),
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
        fields: dict[str, npt.NDArray[Any]] = {}
        if cases is None:  # the fields as columns, from the columns or the cases of each part
            names = dict.fromkeys(name for b in batches for name in b.fields)
            if any(b.cases is not None for b in batches):
                names.update(dict.fromkeys(COLUMN_FIELDS))
            fields = {name: np.concatenate([b.field(name) for b in batches]) for name in names}
        return cls(vocabulary=tuple(index), called_ids=sides[0][0], called_offsets=sides[0][1],
                   expected_ids=sides[1][0], expected_offsets=sides[1][1],
                   called_given=sides[0][2], expected_given=sides[1][2], case_ids=case_ids,
                   cases=cases, invalid=invalid, fields=fields)


# Pickles and reprs name the public path, not this private module.
for _public in (ToolCallBatch,):
    _public.__module__ = "agentmetrics"
del _public


def _sliced_ids(columns: ArgumentIdColumns, c0: int, c1: int, e0: int,
                e1: int) -> ArgumentIdColumns:
    """The argument and item ids of the calls ``c0:c1`` and ``e0:e1``."""
    return ArgumentIdColumns(
        columns.called[c0:c1], columns.expected[e0:e1],
        None if columns.called_items is None else columns.called_items[c0:c1],
        None if columns.expected_items is None else columns.expected_items[e0:e1],
        columns.item_fields)
