"""Many records (mappings of case fields) as columns, with no object per case.

:func:`ingest` (or a :class:`Reader`, fed a group at a time) reads records
into what a ToolCallBatch is built from: each side's tool ids in one shared
vocabulary, lengths and "given" flags, the case ids, the rows that could not
be read, and the cases themselves as a :class:`LazyCases` sequence, built all
at once the first time a metric reads one. Records are read ``CHUNK`` at a
time, so that the passes over a group find it in the processor's cache. A
group of records that all have the plain shape (dicts with the case fields;
calls as names or ``{"name", "arguments", ...}`` dicts; no provider
``response``, no ``turns``) is checked and read column by column, one C-level
loop per field; any other record goes through :func:`case_from_record`, the
reference, which says what is wrong and where. The columnar reading accepts
only what the reference accepts and gives what it gives (tested side by side
on generated records): it is never less strict.
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain, islice, repeat
from operator import is_not, itemgetter, methodcaller
from typing import Any, overload

import attrs

from agentmetrics._base._types import ErrorsMode
from agentmetrics._columnar._records import case_from_record
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import (
    AgentTestCase,
    UnreadableCase,
    call_columns,
    call_for_name,
    calls_from_mappings,
    cases_from_fields,
    describe,
    to_tool_call,
)

__all__ = ["BadName", "Ingested", "LazyCases", "Reader", "SideColumns", "Vocabulary", "cases_from_records",
           "ingest", "paused_gc"]

#: The keys of a record the columnar reading takes; a record with others
#: (``response``, ``format``, ``turns``, unknown keys) goes to the reference.
PLAIN_KEYS = frozenset({"tool_calls", "expected_tool_calls", "id", "input", "actual_output",
                        "metadata"})
SIDES = ("tool_calls", "expected_tool_calls")
#: Groups of at most this many records that are not all plain are read record by record.
SMALL_GROUP = 32

_NONE = type(None)
_EMPTY: tuple[()] = ()
_GETTERS = {key: methodcaller("get", key) for key in PLAIN_KEYS}
_NAME = itemgetter("name")
_ARGUMENTS = itemgetter("arguments")
_GET_ARGUMENTS = methodcaller("get", "arguments")
#: Call keys whose values need no check beyond the arguments' (an ``output``
#: may be any value); a call with an ``id`` or ``raw_arguments`` takes the
#: general check.
_LIGHT_KEYS = frozenset({"name", "arguments", "output"})
#: An argument value taken as it is: an object, or null (none given).
_ARGUMENT_KINDS = frozenset({dict, type(None)})
_STR = frozenset({str})
#: Records are read this many at a time: every pass over a group's calls then
#: finds them still in the processor's cache (about twice as fast as passes
#: over all the records at once).
CHUNK = 512


class BadName(Exception):
    """A name that cannot be a tool name: leave the columnar path."""


class Vocabulary(dict[Any, int]):
    """name -> id; an unseen name gets the next id (first-seen order).

    Lookups of known names run at C speed; only a new name runs Python code,
    which refuses (BadName) anything but a non-empty ``str``. A known name's
    ``str`` subclass (an Enum member) finds the plain name's id, as ToolCall
    would store it."""

    def __missing__(self, name: Any) -> int:
        if type(name) is not str or not name:
            raise BadName
        self[name] = new_id = len(self)
        return new_id


@attrs.frozen(slots=True, eq=False)
class SideColumns:
    """One side's calls over many cases: tool ids (flat, in order, from the
    shared vocabulary), calls per case, and whether each case gives the list."""

    ids: array[int]
    lengths: list[int]
    given: list[bool]


@attrs.frozen(slots=True, eq=False)
class Ingested:
    """What :func:`ingest` read: the sides, the case ids (None where a case has
    none), the unreadable rows (row -> message) and the cases, built lazily."""

    called: SideColumns
    expected: SideColumns
    vocabulary: Vocabulary
    case_ids: list[Any]
    invalid: dict[int, str]
    cases: LazyCases
    #: Each side's argument id a call (see :class:`ArgumentIds`), aligned
    #: with the ids, when the reader kept them: -1 for a call without one.
    arguments: tuple[array[int], array[int]] | None = None
    #: Each side's item id a call (its place in the decoder's table of
    #: distinct call texts), aligned likewise: -1 for a call without one.
    items: tuple[array[int], array[int]] | None = None
    #: Per field ("arguments", "malformed", "output"), per item id, the
    #: field as a ToolCall holds it (see ``agentmetrics.batch.CallItems``).
    item_fields: Mapping[str, Sequence[Any]] | None = None


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused for a bulk read: reading allocates
    many lists and objects that make no reference cycle, and each collection
    would walk every object alive (a million records' worth), for nothing.
    Collection resumes as it was, whatever happens inside."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _side_rows(records: list[dict[str, Any]], field: str,
               keys: set[str]) -> tuple[list[Any], list[bool]] | None:
    """Each record's list for ``field`` (``()`` where not given) and the given flags."""
    n = len(records)
    if field not in keys:
        return [_EMPTY] * n, [False] * n
    rows = list(map(_GETTERS[field], records))
    kinds = set(map(type, rows))
    if not kinds <= {list, _NONE}:
        return None
    if _NONE not in kinds:
        return rows, [True] * n
    return [_EMPTY if row is None else row for row in rows], list(map(is_not, rows, repeat(None)))


def _names(items: list[Any]) -> Sequence[Any] | None:
    """The tool names of a side's calls, some of them call dicts (names alone
    never come here: see :func:`_ids`), every call but its name checked as
    ToolCall checks it (the vocabulary checks the names); None when one is not
    plain or not valid."""
    kinds = set(map(type, items))
    if kinds == {dict}:
        return _dict_names(items)
    if kinds == {str, dict}:
        if call_columns([item for item in items if type(item) is dict]) is None:
            return None
        return [item if type(item) is str else item["name"] for item in items]
    return None


def _dict_names(items: list[dict[str, Any]]) -> Sequence[Any] | None:
    """:func:`_names` for call dicts. The common shapes (``{"name", "arguments"}``
    in every call, or ``{"name"}`` alone) are checked in a few passes over the
    calls; any other goes through :func:`call_columns`."""
    n = len(items)
    keys = sum(map(len, items))
    try:
        if keys == 2 * n:  # two keys each: "name" and "arguments", or the general check
            # dict.keys refuses anything but a dict (a null "arguments" included:
            # the general check takes those), so one pass checks type and keys.
            keys_of = set().union(*map(dict.keys, map(_ARGUMENTS, items)))
            if all(isinstance(key, str) for key in keys_of):
                return list(map(_NAME, items))
            return None
        if keys == n:  # "name" alone
            return list(map(_NAME, items))
        if set().union(*items) <= _LIGHT_KEYS:  # e.g. some calls with an "output" (any value)
            names = list(map(_NAME, items))
            arguments = list(map(_GET_ARGUMENTS, items))
            # The argument keys' types checked once per distinct key (all dicts by then).
            if set(map(type, arguments)) <= _ARGUMENT_KINDS and all(
                    type(key) is str for key in set().union(*filter(None, arguments))):
                return names
            return None
    except (KeyError, TypeError):
        pass  # other keys, or arguments that are not a dict: the general check decides
    columns = call_columns(items)
    return None if columns is None else columns["name"]


def _ids(vocabulary: Vocabulary, items: list[Any]) -> array[int] | None:
    """The tool ids of a side's calls (names or plain call dicts, every call
    checked as ToolCall checks it); None when one is not plain or not valid.
    Names alone take one pass: the vocabulary refuses anything but a
    non-empty str (a call dict, unhashable, stops it with a TypeError)."""
    lookup = vocabulary.__getitem__
    try:  # a list first: array() of a list is faster than array.extend of an iterator
        return array("i", list(map(lookup, items)))
    except BadName:
        return None
    except TypeError:
        pass  # a call dict (or a list): read the names out of the calls
    names = _names(items)
    if names is None:
        return None
    try:
        return array("i", list(map(lookup, names)))
    except (BadName, TypeError):  # TypeError: an unhashable "name"
        return None


def _plain(records: list[Any], parts: _Parts) -> bool:
    """Add a group of plain records to ``parts``; False (``parts`` as it was)
    when any record needs the reference reading."""
    if not records:
        return True
    if set(map(type, records)) != {dict}:
        return False
    keys = set().union(*records)
    if not keys <= PLAIN_KEYS:
        return False
    metadata = list(map(_GETTERS["metadata"], records)) if "metadata" in keys else None
    if metadata is not None and not set(map(type, metadata)) <= {dict, _NONE}:
        return False
    vocabulary = parts.vocabulary
    known = len(vocabulary)
    read = []
    for field in SIDES:
        found = _side_rows(records, field, keys)
        ids = None if found is None else _ids(vocabulary, list(chain.from_iterable(found[0])))
        if found is None or ids is None:
            while len(vocabulary) > known:  # names this group added, newest first
                vocabulary.popitem()
            return False
        read.append((found, ids))
    for side, ((rows, given), ids) in zip((parts.called, parts.expected), read):
        side.ids.extend(ids)
        side.lengths.extend(map(len, rows))
        side.given.extend(given)
    if metadata is None or not any(map(methodcaller("__contains__", "id"), filter(None, metadata))):
        parts.case_ids.extend(map(_GETTERS["id"], records) if "id" in keys else
                              repeat(None, len(records)))
    else:  # no "id" key: the id kept under metadata, as the reference reads it
        parts.case_ids.extend(record["id"] if "id" in record else (meta or {}).get("id")
                              for record, meta in zip(records, metadata))
    return True


def _one(record: Any, options: Mapping[str, Any]) -> AgentTestCase:
    """One record through the reference reading (cases pass as they are)."""
    if isinstance(record, AgentTestCase):
        return record
    if isinstance(record, UnreadableCase):
        raise InvalidCaseError(record.message)
    if isinstance(record, Mapping) and not isinstance(record, dict):
        record = dict(record)
    if not isinstance(record, dict):
        raise InvalidCaseError(
            f"expected a mapping of case fields (or an AgentTestCase), got {describe(record)}. "
            f"Fix: pass dicts such as {{'tool_calls': [...], 'expected_tool_calls': [...]}}.")
    return case_from_record(record, **options)


def _case_id(record: Any) -> Any:
    if isinstance(record, AgentTestCase):
        return record.metadata.get("id")
    if isinstance(record, UnreadableCase):
        return record.id
    if isinstance(record, Mapping):
        try:
            return record.get("id")
        except Exception:  # a mapping whose get fails: no id to name it by
            return None
    return None


class _Parts:
    """The groups read so far, joined in order."""

    def __init__(self) -> None:
        self.vocabulary = Vocabulary()
        self.called = SideColumns(array("i"), [], [])
        self.expected = SideColumns(array("i"), [], [])
        self.case_ids: list[Any] = []
        self.invalid: dict[int, str] = {}
        self.built: dict[int, Any] = {}  # row -> what the reference gave (case or bad record)

    def add_case(self, called: tuple[str, ...] | None, expected: tuple[str, ...] | None,
                 case_id: Any) -> None:
        _add_side(self.called, called, self.vocabulary)
        _add_side(self.expected, expected, self.vocabulary)
        self.case_ids.append(case_id)


def _add_side(side: SideColumns, names: tuple[str, ...] | None, vocabulary: Vocabulary) -> None:
    """One case's names (None: not given) at the end of ``side``."""
    if names:
        side.ids.extend(map(vocabulary.__getitem__, names))
        side.lengths.append(len(names))
    else:
        side.lengths.append(0)
    side.given.append(names is not None)


#: What turns kept items (a decoder's lines) into the records they hold, in order.
Parse = Callable[[list[Any]], list[Any]]

#: How a reader reads one record the reference way: the row and the record
#: give the case, or an UnreadableCase saying why not (or it raises).
Reference = Callable[[int, Any], "AgentTestCase | UnreadableCase"]


def ingest(records: Sequence[Any], *, errors: ErrorsMode = "raise", where: str = "record",
           options: Mapping[str, Any] | None = None,
           reference: Reference | None = None) -> Ingested:
    """Read ``records`` (see the module's doc). An unreadable record raises
    InvalidCaseError naming ``{where} {row}`` (``errors="raise"``) or becomes
    an invalid row with that message (``"record"``). ``reference``, if given,
    reads the records that are not plain instead (a reader that names lines
    by file and number passes its own)."""
    reader = Reader(reference or _reference(errors, where, dict(options or {})))
    with paused_gc():
        reader.add(records if isinstance(records, list) else list(records))
    return reader.result()


class Reader:
    """Records read a group at a time into one set of columns (see :func:`ingest`).

    With ``keep_records=False`` the records are not kept: the result then has
    no cases (a reader that scores names alone keeps its memory flat).
    ``parse``, if given, turns kept records that are not records yet (the
    lines of a decoder) into records when the cases are first built."""

    def __init__(self, reference: Reference, *, keep_records: bool = True,
                 parse: Parse | None = None, keep_arguments: bool = False,
                 item_fields: Mapping[str, Sequence[Any]] | None = None) -> None:
        self.reference = reference
        self.parts = _Parts()
        self.records: list[Any] | None = [] if keep_records else None
        self.rows = 0
        self.parse = parse
        #: Each side's argument id a call, filled by a decoder that reads them
        #: (rows read here hold -1: no id).
        self.arguments: tuple[array[int], array[int]] | None = (
            (array("q"), array("q")) if keep_arguments else None)
        #: Each side's item id a call, and each item's fields.
        self.items: tuple[array[int], array[int]] | None = (
            (array("q"), array("q")) if keep_arguments else None)
        self.item_fields = item_fields

    def add(self, records: list[Any]) -> None:
        """Read these records, the rows after those read so far."""
        before = self._calls()
        for start in range(0, len(records), CHUNK):
            _group(records, start, min(start + CHUNK, len(records)), self.parts,
                   self.reference, self.rows)
        self.rows += len(records)
        if self.records is not None:
            self.records.extend(records)
        self._no_arguments(before)

    def add_case(self, case: AgentTestCase | UnreadableCase, record: Any = None) -> None:
        """One row the caller has read the reference way."""
        before = self._calls()
        _add_read(self.parts, self.rows, case, record)
        self.rows += 1
        if self.records is not None:
            self.records.append(record)
        self._no_arguments(before)

    def _calls(self) -> tuple[int, int]:
        return len(self.parts.called.ids), len(self.parts.expected.ids)

    def _no_arguments(self, before: tuple[int, int]) -> None:
        """The calls read since ``before`` hold no argument id."""
        for columns in (self.arguments, self.items):
            if columns is not None:
                for column, start, now in zip(columns, before, self._calls()):
                    column.extend(repeat(-1, now - start))

    def result(self) -> Ingested:
        parts = self.parts
        cases = LazyCases(self.records if self.records is not None else [None] * self.rows,
                          parts.built, self.parse)
        return Ingested(parts.called, parts.expected, parts.vocabulary, parts.case_ids,
                        parts.invalid, cases, self.arguments, self.items, self.item_fields)


def _reference(errors: ErrorsMode, where: str, options: dict[str, Any]) -> Reference:
    def read(row: int, record: Any) -> AgentTestCase | UnreadableCase:
        try:
            return _one(record, options)
        except InvalidCaseError as error:
            message = f"{where} {row}: {error}"
            if errors == "raise":
                raise InvalidCaseError(message) from None
            return UnreadableCase(where, row, message, id=_case_id(record))

    return read


def _group(records: list[Any], start: int, stop: int, parts: _Parts,
           reference: Reference, offset: int) -> None:
    if _plain(records[start:stop], parts):
        return
    if stop - start > SMALL_GROUP:
        middle = (start + stop) // 2
        _group(records, start, middle, parts, reference, offset)
        _group(records, middle, stop, parts, reference, offset)
        return
    for row in range(start, stop):
        record = records[row]
        _add_read(parts, offset + row, reference(offset + row, record), record)


def _add_read(parts: _Parts, row: int, case: AgentTestCase | UnreadableCase,
              record: Any) -> None:
    if isinstance(case, UnreadableCase):
        parts.invalid[row] = case.message
        parts.built[row] = record  # as ToolCallBatch.from_cases keeps what it could not read
        parts.add_case(None, None, case.id)
    else:
        parts.built[row] = case
        parts.add_case(case.tool_names, case.expected_tool_names, case.metadata.get("id"))


def _calls(items: list[Any]) -> list[Any]:
    """The ToolCalls of a side's checked items (names or plain call dicts)."""
    kinds = set(map(type, items))
    if kinds <= {str}:
        return list(map(call_for_name, items))
    calls = calls_from_mappings(items) if kinds == {dict} else None
    if calls is not None:
        return calls
    # Mixed names and dicts, or values ToolCall converts (a str subclass as an
    # argument name): call by call. They were checked when the records were read.
    return [to_tool_call(item, "", 0) for item in items]


def cases_from_records(records: list[dict[str, Any]]) -> list[AgentTestCase]:
    """AgentTestCases from plain records that :func:`ingest` has read, all at
    once, equal to ``case_from_record`` record by record."""
    with paused_gc():
        return _cases_from_records(records)


def _cases_from_records(records: list[dict[str, Any]]) -> list[AgentTestCase]:
    n = len(records)
    if not n:
        return []
    keys = set().union(*records)
    columns: dict[str, Iterable[Any]] = {}
    for field in SIDES:
        found = _side_rows(records, field, keys)
        assert found is not None
        rows, given = found
        calls = iter(_calls(list(chain.from_iterable(rows))))
        tuples = map(tuple, map(islice, repeat(calls), map(len, rows)))
        columns[field] = (row if flag else None for row, flag in zip(tuples, given))
    for field in ("input", "actual_output"):
        if field in keys:
            columns[field] = map(_GETTERS[field], records)
    metadata = map(_GETTERS["metadata"], records) if "metadata" in keys else repeat(None, n)
    if "id" in keys:
        columns["metadata"] = [{**(meta or {}), "id": record["id"]} if "id" in record
                               else dict(meta or {}) for record, meta in zip(records, metadata)]
    else:
        columns["metadata"] = [dict(meta or {}) for meta in metadata]
    return cases_from_fields(columns, n)


#: The first rows of a LazyCases asked for one at a time are built alone (a
#: check of a few reasons builds no other case); the next one builds them all.
ALONE = 16


class LazyCases(Sequence[Any]):
    """The cases of ingested records, built (all at once) when first read;
    the first ``ALONE`` rows asked for by index are built alone.

    Rows the reference read hold what it gave: the AgentTestCase, or the
    record itself where it could not be read (as ``ToolCallBatch.from_cases``
    keeps what it could not read). ``parse``, if given, turns the kept items
    of the other rows into their records first (see :class:`Reader`)."""

    __slots__ = ("_alone", "_built", "_cases", "_parse", "_records", "_singles")

    def __init__(self, records: list[Any], built: dict[int, Any],
                 parse: Parse | None = None) -> None:
        self._records = records
        self._built = built
        self._parse = parse
        self._cases: list[Any] | None = None
        self._alone: dict[int, Any] = {}  # row -> its case, of the rows built alone or prepared
        self._singles = 0  # how many rows were built one by one

    def _plain(self, records: list[Any]) -> list[Any]:
        return records if self._parse is None else self._parse(records)

    def _all(self) -> list[Any]:
        if self._cases is None:
            # The rows already built (by the reference, or alone) are kept as they are.
            known = {**self._alone, **self._built} if self._alone else self._built
            if not known:
                cases: list[Any] = cases_from_records(self._plain(self._records))
            else:
                plain = [row for row in range(len(self._records)) if row not in known]
                made = iter(cases_from_records(self._plain([self._records[row] for row in plain])))
                cases = [known[row] if row in known else next(made)
                         for row in range(len(self._records))]
            self._cases = cases
        return self._cases

    def prepare(self, rows: Iterable[int]) -> None:
        """Build the cases of ``rows`` in one go, before they are read one by
        one (kept as rows built alone); all the cases when that is more than
        ``ALONE`` rows and at least half of them. What a batch path that leaves some rows to their cases
        asks first, so that those rows cost neither a build each nor a build
        of every row."""
        if self._cases is not None:
            return
        wanted = [row for row in dict.fromkeys(rows)
                  if row not in self._built and row not in self._alone]
        if not wanted:
            return
        if len(wanted) > ALONE and 2 * (len(wanted) + len(self._alone)) >= len(self._records):
            self._all()
            return
        made = cases_from_records(self._plain([self._records[row] for row in wanted]))
        self._alone.update(zip(wanted, made, strict=True))

    def plain_records(self) -> tuple[list[Any], dict[int, Any]] | None:
        """The records the cases will be built from and the rows the reference
        read (row -> its case, or the record it could not read), while the
        cases are not built yet and the records are plain dicts; else None.
        What reads one field of every case (a batch's call arguments) reads
        it here without building the cases."""
        if self._cases is not None or self._parse is not None:
            return None
        return self._records, self._built

    def __len__(self) -> int:
        return len(self._records)

    @overload
    def __getitem__(self, index: int) -> Any: ...
    @overload
    def __getitem__(self, index: slice) -> LazyCases: ...

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            if self._cases is not None:
                return _Built(self._cases[index])
            rows = range(len(self._records))[index]
            if rows.step == 1:  # the common slice: only the rows read the reference way move
                built = {row - rows.start: case for row, case in self._built.items()
                         if row in rows}
            else:
                built = {new: self._built[old] for new, old in enumerate(rows)
                         if old in self._built}
            return LazyCases(self._records[index], built, self._parse)
        if self._cases is None:
            # Any integer (a numpy one too) as a list takes it: IndexError, TypeError as its.
            row = range(len(self._records))[index]
            if row in self._built:  # read the reference way: nothing to build
                return self._built[row]
            if row in self._alone:
                return self._alone[row]
            if self._singles < ALONE:
                self._singles += 1
                case = self._alone[row] = cases_from_records(
                    self._plain([self._records[row]]))[0]
                return case
        return self._all()[index]

    def __iter__(self) -> Iterator[Any]:
        return iter(self._all())

    def __reduce__(self) -> tuple[Callable[..., Any], tuple[Any, ...]]:
        return (_Built, (self._all(),))

    def __repr__(self) -> str:
        state = "built" if self._cases is not None else "not built yet"
        return f"<{len(self)} cases from records, {state}>"


class _Built(LazyCases):
    """Cases already built (a slice of built cases, or unpickled)."""

    __slots__ = ()

    def __init__(self, cases: list[Any]) -> None:
        super().__init__(cases, {})
        self._cases = cases
