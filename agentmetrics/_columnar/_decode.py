"""JSONL lines of plain cases decoded by msgspec straight into columns: no
dict and no case object per line (needs msgspec, the ``fast`` extra).

A group of non-blank lines (bytes, without their newlines) is decoded in one
call into typed structs that take exactly the plain shape of a case line:

* the keys ``tool_calls``, ``expected_tool_calls``, ``id``, ``input``,
  ``actual_output`` and ``metadata`` only (any other key, ``response`` or
  ``turns`` included, is refused here and read by the reference);
* each side null, left out, or a list whose items are non-empty strings or
  call objects with a non-empty string ``name`` and no keys but ``arguments``
  (an object or null), ``id`` and ``raw_arguments`` (a string or null) and
  ``output`` (any value);
* ``metadata`` an object or null (the reference also takes ``false``, ``0``
  or ``""`` as no metadata: such lines go to it);
* every value decoded, so that msgspec checks every number as the line
  reader's JSON parser does: a float that overflows (``1e400``), an integer of
  more digits than Python converts, ``NaN`` and ``Infinity`` are refused.

What the decoder cannot be sure of makes the whole group go back to the
caller (``None``), who splits it and gives the lines the decoder still refuses
to the reference, the line reader, which says what is wrong: bytes that are
not UTF-8, lone surrogates (``"\\ud800"``, which Python's parser takes and
msgspec refuses), a line holding two values, a line long enough to nest
deeper than the recursion limit lets the reference parse. Duplicate keys are
read as the reference reads them (the last one holds).
"""

from __future__ import annotations

import importlib
import sys
from array import array
from collections.abc import Callable
from itertools import chain
from operator import attrgetter
from typing import Annotated, Any

import attrs
import numpy as np

from agentmetrics._base._lines import parse_json_line
from agentmetrics._base._optional import require
from agentmetrics._columnar._ingest import Reader

__all__ = ["ArgumentIds", "Decoded", "LineDecoder", "can_decode_fast"]

#: The version of msgspec the decoder was written against (``decode_lines``,
#: ``gc=False`` structs, ``UNSET``).
MIN_MSGSPEC = (0, 18)

_NAME = attrgetter("name")
_CALLED = attrgetter("tool_calls")
_EXPECTED = attrgetter("expected_tool_calls")
_ID = attrgetter("id")
_METADATA = attrgetter("metadata")
#: What a decoded side holds per call (_Side.kind).
_NAMES, _TOOL_IDS, _ITEMS = "names", "tool ids", "items"
#: With names alone, after a group of mostly new call texts, this many groups
#: are decoded into typed items (no table of texts to fill for nothing).
TYPED_GROUPS = 32
#: ... when a group of at least this many call texts, not a batch's first,
#: has more than a quarter new.
TYPED_AFTER = 64


def can_decode_fast() -> bool:
    """Whether msgspec (0.18 or later) can be imported: the fast decoder's only need."""
    try:
        msgspec = importlib.import_module("msgspec")
    except ImportError:
        return False
    version = tuple(int(part) for part in str(msgspec.__version__).split(".")[:2]
                    if part.isdigit())
    return version >= MIN_MSGSPEC


def _deepest() -> int:
    """How deep a line may nest and still be decoded here: under the depth the
    reference's parser reaches (the recursion limit less the frames below it:
    a few dozen where the readers run)."""
    return min(500, sys.getrecursionlimit() // 2)


class LineDecoder:
    """Decodes groups of plain case lines into the columns of a
    :class:`~agentmetrics._columnar.Reader` (see the module's doc)."""

    def __init__(self, arguments: ArgumentIds | None = None) -> None:
        msgspec = require("msgspec", "fast")
        unset = msgspec.UNSET
        unset_type = type(unset)
        name = Annotated[str, msgspec.Meta(min_length=1)]
        # gc=False: the structs hold decoded JSON only, which has no cycle.
        call = msgspec.defstruct(
            "Call", [("name", name),
                     ("arguments", dict[str, Any] | None | unset_type, unset),
                     ("id", str | None, None),
                     ("output", Any, None),
                     ("raw_arguments", str | None, None)],
            forbid_unknown_fields=True, gc=False)
        # The whole object is decoded (not only its "id"), so that every number
        # in it is checked as the line reader's parser checks it.
        metadata = dict[str, Any]
        # Each call item is kept as the bytes of its JSON value (msgspec.Raw:
        # no struct, no dict), and each distinct item text is checked once by
        # the typed decoding of an item (which checks every number in it),
        # then given its tool's id (names alone: see _name_ids) or its name
        # and argument id (see _new_item). With names alone, a file of
        # distinct calls (few texts seen twice) is decoded into typed items
        # instead (``typed``), which checks each one as it decodes it.

        def line_of(item: Any) -> Any:
            calls = list[item] | None | unset_type
            return msgspec.defstruct(
                "Line", [("tool_calls", calls, unset), ("expected_tool_calls", calls, unset),
                         ("id", Any, unset), ("input", Any, None), ("actual_output", Any, None),
                         ("metadata", metadata | None | unset_type, unset)],
                forbid_unknown_fields=True, gc=False)

        self._call = call
        self._unset = unset
        decoder = msgspec.json.Decoder(line_of(msgspec.Raw))
        self._decode_lines: Callable[[bytes], list[Any]] = decoder.decode_lines
        self._decode: Callable[[bytes], Any] = decoder.decode
        typed = msgspec.json.Decoder(line_of(call | name))
        self._typed_lines: Callable[[bytes], list[Any]] = typed.decode_lines
        self._typed_one: Callable[[bytes], Any] = typed.decode
        #: Groups left to decode into typed items (names alone), after a
        #: group whose item texts were mostly new.
        self._typed_left = 0
        #: Names alone: each item text seen in this batch -> its tool's id in
        #: the batch's vocabulary (see begin).
        self._name_ids: dict[bytes, int] = {}
        self._lookup: Callable[[str], int] | None = None
        self._refused = (msgspec.DecodeError, RecursionError)  # ValidationError is a DecodeError
        self.deepest = _deepest()
        self._arguments = arguments
        # An item checked as the typed decoding checks it.
        self._check_item: Callable[[bytes], Any] = msgspec.json.Decoder(call | name).decode
        if arguments is not None:
            # ... then read again with its arguments as the bytes of their value.
            raw_call = msgspec.defstruct(
                "RawCall", [("name", str), ("arguments", msgspec.Raw, unset),
                            ("raw_arguments", Any, None), ("output", msgspec.Raw, unset)],
                gc=False)
            self._raw_item: Callable[[bytes], Any] = msgspec.json.Decoder(raw_call | str).decode
            arguments.ids[unset] = arguments.empty  # no "arguments": {} given

    def decode(self, data: bytes, lines: int, longest: int) -> Decoded | None:
        """One struct for each of the ``lines`` non-blank lines ``data`` holds
        (blank lines between them are skipped), or None when the decoder is not
        sure of every line: the caller then splits the group. ``longest`` is the
        length of its longest line.

        Every non-blank line must start with ``{`` and end with ``}`` (JSON
        whitespace aside): then no value can run over a newline (a ``}`` then a
        ``{`` inside an object or a list is malformed, and a string cannot hold
        a newline), and as many values as lines means one value a line."""
        if not data.isascii():
            try:  # what the line reader decodes (msgspec checks strings; this checks all)
                data.decode("utf-8")
            except UnicodeDecodeError:
                return None
        if longest >= 2 * self.deepest and any(
                line.count(b"[") + line.count(b"{") >= self.deepest
                for line in data.split(b"\n") if len(line) >= 2 * self.deepest):
            return None  # nests deep enough (a bound: every [ and { counted) to be unsure of
        typed = self._arguments is None and self._typed_left > 0
        if typed:
            self._typed_left -= 1
        try:
            structs = (self._typed_lines if typed else self._decode_lines)(data)
        except self._refused:
            return None
        if len(structs) != lines:
            return None
        return self._decoded(structs)

    def decode_one(self, line: bytes) -> Decoded | None:
        """:meth:`decode` for one non-blank line of any shape: its struct in a
        list, or None."""
        if not line.isascii():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError:
                return None
        if len(line) >= 2 * self.deepest and line.count(b"[") + line.count(b"{") >= self.deepest:
            return None
        try:
            return self._decoded([(self._typed_one if self._arguments is None
                                   and self._typed_left > 0 else self._decode)(line)])
        except self._refused:
            return None

    def begin(self, reader: Reader) -> None:
        """Start a batch read into ``reader``: with names alone, the tool ids
        the decoder gives are ``reader``'s (its item texts are begun again)."""
        self._lookup = reader.parts.vocabulary.__getitem__
        self._name_ids = {}

    def _decoded(self, structs: list[Any]) -> Decoded | None:
        """The structs' sides read (each call's item id when the decoder keeps
        arguments, else its tool name or tool id); None if an item is one the
        typed decoding refuses."""
        n = len(structs)
        read = []
        for get in (_CALLED, _EXPECTED):
            rows: list[Any] = list(map(get, structs))
            if set(map(type, rows)) == {list}:
                given = [True] * n
            else:  # null or left out: not given
                given = [type(row) is list for row in rows]
                rows = [row if type(row) is list else () for row in rows]
            read.append((list(chain.from_iterable(rows)), list(map(len, rows)), given))
        (called, called_lengths, called_given), (expected, expected_lengths, expected_given) = read
        if self._arguments is not None:
            called_ids = self._item_ids(called)
            expected_ids = self._item_ids(expected)
            if called_ids is None or expected_ids is None:
                return None
            return Decoded(structs, _Side(called_ids, called_lengths, called_given, _ITEMS),
                           _Side(expected_ids, expected_lengths, expected_given, _ITEMS))
        kinds = set(map(type, called)) | set(map(type, expected))
        if kinds <= {self._call, str}:  # typed items
            return Decoded(structs,
                           _Side(_names(called, kinds), called_lengths, called_given, _NAMES),
                           _Side(_names(expected, kinds), expected_lengths, expected_given,
                                 _NAMES))
        tool_ids = self._tool_ids(called + expected)  # the bytes of each item (msgspec.Raw)
        if tool_ids is None:
            return None
        split = len(called)
        return Decoded(structs,
                       _Side(tool_ids[:split], called_lengths, called_given, _TOOL_IDS),
                       _Side(tool_ids[split:], expected_lengths, expected_given, _TOOL_IDS))

    def _tool_ids(self, items: list[Any]) -> list[int] | None:
        """Each call item's tool id in the batch's vocabulary, from the bytes
        of its JSON value, each distinct text checked by the typed decoding of
        an item once a batch; None if an item is refused (then no name enters
        the vocabulary). When most texts are new, the next groups are decoded
        into typed items instead."""
        table = self._name_ids
        lookup = self._lookup
        assert lookup is not None, "begin() names the batch's vocabulary first"
        texts = list(map(bytes, items))
        out: list[Any] = list(map(table.get, texts))
        if None in out:
            known = len(table)
            new = {text for text, found in zip(texts, out) if found is None}
            names = []
            for text in new:
                try:
                    item = self._check_item(text)
                except self._refused:
                    return None
                names.append(item if type(item) is str else item.name)
            for text, name in zip(new, names):
                table[text] = lookup(name)
            out = list(map(table.__getitem__, texts))
            # Mostly new, and not in a batch's first group (whose texts are
            # all new): texts rarely repeat here.
            if len(new) * 4 > len(texts) >= TYPED_AFTER and known:
                self._typed_left = TYPED_GROUPS
        return out

    def _item_ids(self, items: list[Any]) -> list[int] | None:
        """Each call item's id in the file's table of distinct item texts, or
        None if an item is refused."""
        table = self._arguments
        assert table is not None
        texts = list(map(bytes, items))
        known = table.items
        out: list[Any] = list(map(known.get, texts))
        if None in out:
            for text in {text for text, found in zip(texts, out) if found is None}:
                if not self._new_item(text):
                    return None
            out = list(map(known.__getitem__, texts))
        return out

    def _new_item(self, text: bytes) -> bool:
        """Check a call item seen for the first time, as the typed decoding
        checks one, and enter its name and argument id in the table; False if
        it is refused."""
        table = self._arguments
        assert table is not None
        try:
            self._check_item(text)
        except self._refused:
            return False
        item = self._raw_item(text)
        given: Any = {}  # the arguments as a ToolCall holds them: {} for none or null
        output: Any = None
        malformed = False
        stated = True  # arguments given (ToolCall.arguments_given): not for "arguments": null
        if type(item) is str:
            name, argument = item, table.empty
        else:
            name = item.name
            value = item.arguments
            key = value if value is self._unset else bytes(value)
            parsed: Any = None
            if value is not self._unset:
                # checked above: the line reader's parser reads it as it reads the line
                try:
                    parsed = parse_json_line(key.decode("utf-8"))
                except RecursionError:  # deeper than the parser goes here: the reference's
                    return False
                given = parsed or {}
            if item.raw_arguments is not None:  # arguments that are not an object: no key
                argument, malformed = table.unreadable, True
            else:
                stated = value is self._unset or parsed is not None
                found = table.ids.get(key)
                if found is None:
                    found = table.ids[key] = table.intern(parsed)
                argument = found
            if item.output is not self._unset:
                output = parse_json_line(bytes(item.output).decode("utf-8"))
        table.items[text] = len(table.names)
        table.names.append(name)
        table.arguments.append(argument)
        table.fields["arguments"].append(given)
        table.fields["malformed"].append(malformed)
        table.fields["given"].append(stated)
        table.fields["output"].append(output)
        return True

    def item_count(self) -> int:
        """How many distinct call items the table holds (0 without one)."""
        return 0 if self._arguments is None else len(self._arguments.names)

    def use_arguments(self, table: ArgumentIds) -> None:
        """Give the calls decoded from now on their ids from ``table`` (a
        fresh one: the ids of an earlier table mean nothing in it), as at
        start, so that a long file of distinct calls keeps no table of all of
        them. Only between batches: one batch's ids come from one table."""
        self._arguments = table
        table.ids[self._unset] = table.empty

    @property
    def item_fields(self) -> dict[str, list[Any]] | None:
        """Per call field, per item id, the field as a ToolCall holds it (see
        :class:`ArgumentIds`), when the decoder keeps arguments."""
        return None if self._arguments is None else self._arguments.fields

    def add(self, reader: Reader, decoded: Decoded, lines: Callable[[], list[bytes]]) -> None:
        """Append decoded lines to ``reader``'s columns; when it keeps records,
        ``lines()`` (the lines themselves) are kept as their records, from which
        the cases are built when read."""
        structs = decoded.structs
        parts = reader.parts
        lookup = parts.vocabulary.__getitem__
        for at, (side, read) in enumerate(((parts.called, decoded.called),
                                           (parts.expected, decoded.expected))):
            if read.kind is _ITEMS:
                # Each call's item id now; its tool id and argument id, -1
                # until finish() reads them from the table for the whole batch.
                assert reader.arguments is not None and reader.items is not None
                if read.calls:
                    reader.items[at].extend(array("q", read.calls))  # at C speed
                    side.ids.frombytes(b"\xff" * (4 * len(read.calls)))
                    reader.arguments[at].frombytes(b"\xff" * (8 * len(read.calls)))
            elif read.kind is _TOOL_IDS:
                side.ids.extend(array("i", read.calls))  # at C speed
            else:
                side.ids.extend(array("i", list(map(lookup, read.calls))))
            side.lengths.extend(read.lengths)
            side.given.extend(read.given)
        ids = list(map(_ID, structs))
        unset = self._unset
        if ids.count(unset):  # no "id": the one under metadata, if any
            metadata = list(map(_METADATA, structs))
            if metadata.count(unset) + metadata.count(None) == len(metadata):
                ids = [None if case_id is unset else case_id for case_id in ids]
            else:
                ids = [case_id if case_id is not unset else _metadata_id(line, unset)
                       for case_id, line in zip(ids, structs)]
        parts.case_ids.extend(ids)
        reader.rows += len(structs)
        if reader.records is not None:
            reader.records.extend(lines())

    def finish(self, reader: Reader) -> None:
        """End a batch read into ``reader``: the calls :meth:`add` gave item
        ids get their tool ids (in ``reader``'s vocabulary) and argument ids,
        read from the table once per distinct item of the batch."""
        table = self._arguments
        if table is None or reader.items is None or reader.arguments is None:
            return
        lookup = reader.parts.vocabulary.__getitem__
        sides = (reader.parts.called, reader.parts.expected)
        for side, items_of, arguments_of in zip(sides, reader.items, reader.arguments):
            if not len(items_of):
                continue
            items = np.frombuffer(items_of, dtype=np.int64)
            tool_ids = np.frombuffer(side.ids, dtype=np.int32)  # writable: the array's own bytes
            arguments = np.frombuffer(arguments_of, dtype=np.int64)
            decoded = np.flatnonzero(items >= 0)
            if not len(decoded):
                continue
            used = items[decoded]
            present = np.flatnonzero(np.bincount(used)).tolist()
            names, given_arguments = table.names, table.arguments
            tool_of = np.full(len(table.names), -1, dtype=np.int32)
            tool_of[present] = [lookup(names[item]) for item in present]
            argument_of = np.full(len(table.names), -1, dtype=np.int64)
            argument_of[present] = [given_arguments[item] for item in present]
            tool_ids[decoded] = tool_of[used]
            arguments[decoded] = argument_of[used]
            if bool((tool_ids < 0).any()):  # pragma: no cover - every call is read above
                raise AssertionError("a decoded call was left without its tool id")


@attrs.frozen(slots=True, eq=False)
class _Side:
    """One side of decoded lines: each call's name (``kind`` _NAMES), tool id
    in the batch's vocabulary (_TOOL_IDS) or item id in the decoder's table
    of call texts (_ITEMS); calls a line; whether a line gives the side."""

    calls: list[Any]
    lengths: list[int]
    given: list[bool]
    kind: str


@attrs.frozen(slots=True, eq=False)
class Decoded:
    """Decoded lines: their structs and their two sides, read."""

    structs: list[Any]
    called: _Side
    expected: _Side


class ArgumentIds:
    """The ids the decoder gives call arguments, one table for a whole file.

    ``items`` maps the text of a call item (the bytes of its JSON value) seen
    so far to its place in ``names`` (its tool name), ``arguments`` (its
    argument id) and each list of ``fields``: ``fields["arguments"]`` (its
    arguments as a ToolCall holds them: a dict, ``{}`` for none or
    ``null``), ``fields["given"]`` (``ToolCall.arguments_given``: False for
    ``null``), ``fields["malformed"]`` (whether it has ``raw_arguments``:
    arguments that are not an object) and ``fields["output"]`` (its output,
    None for none). ``ids`` maps an argument text to its id;
    ``intern(value)`` gives the value of a text seen for the first time its
    id (the same for two values exactly when they are equal under the keys'
    equality). ``empty`` is the id of no ``"arguments"`` (``{}`` given),
    ``unreadable`` what a call whose arguments are not an object holds
    (``raw_arguments``): it has no key."""

    def __init__(self, intern: Callable[[Any], int], empty: int, unreadable: int = -1) -> None:
        self.ids: dict[Any, int] = {}
        self.items: dict[bytes, int] = {}
        self.names: list[str] = []
        self.arguments: list[int] = []
        self.fields: dict[str, list[Any]] = {"arguments": [], "given": [], "malformed": [],
                                             "output": []}
        self.intern = intern
        self.empty = empty
        self.unreadable = unreadable


def _names(items: list[Any], kinds: set[type]) -> list[Any]:
    """The tool names of typed call items (names or call structs)."""
    if str not in kinds:
        return list(map(_NAME, items))
    if len(kinds) == 1:
        return items
    return [item if type(item) is str else item.name for item in items]


def _metadata_id(line: Any, unset: Any) -> Any:
    metadata = _METADATA(line)
    if metadata is None or metadata is unset:
        return None
    return metadata.get("id")
