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
from itertools import chain, repeat
from operator import attrgetter, is_
from typing import Annotated, Any

from agentmetrics._base._optional import require
from agentmetrics._columnar._ingest import Reader

__all__ = ["LineDecoder", "can_decode_fast"]

#: The version of msgspec the decoder was written against (``decode_lines``,
#: ``gc=False`` structs, ``UNSET``).
MIN_MSGSPEC = (0, 18)

_NAME = attrgetter("name")
_CALLED = attrgetter("tool_calls")
_EXPECTED = attrgetter("expected_tool_calls")
_ID = attrgetter("id")
_METADATA = attrgetter("metadata")


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

    def __init__(self) -> None:
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
        metadata = msgspec.defstruct("Metadata", [("id", Any, unset)], gc=False)
        calls = list[call | name] | None | unset_type  # type: ignore[valid-type]
        line = msgspec.defstruct(
            "Line", [("tool_calls", calls, unset), ("expected_tool_calls", calls, unset),
                     ("id", Any, unset), ("input", Any, None), ("actual_output", Any, None),
                     ("metadata", metadata | None | unset_type, unset)],
            forbid_unknown_fields=True, gc=False)
        self._call = call
        self._unset = unset
        decoder = msgspec.json.Decoder(line)
        self._decode_lines: Callable[[bytes], list[Any]] = decoder.decode_lines
        self._decode: Callable[[bytes], Any] = decoder.decode
        self._refused = (msgspec.DecodeError, RecursionError)  # ValidationError is a DecodeError
        self.deepest = _deepest()

    def decode(self, data: bytes, lines: int, longest: int) -> list[Any] | None:
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
        try:
            structs = self._decode_lines(data)
        except self._refused:
            return None
        return structs if len(structs) == lines else None

    def decode_one(self, line: bytes) -> list[Any] | None:
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
            return [self._decode(line)]
        except self._refused:
            return None

    def add(self, reader: Reader, structs: list[Any], lines: Callable[[], list[bytes]]) -> None:
        """Append decoded lines to ``reader``'s columns; when it keeps records,
        ``lines()`` (the lines themselves) are kept as their records, from which
        the cases are built when read."""
        parts = reader.parts
        lookup = parts.vocabulary.__getitem__
        n = len(structs)
        call = self._call
        for side, get in ((parts.called, _CALLED), (parts.expected, _EXPECTED)):
            rows: list[Any] = list(map(get, structs))
            if set(map(type, rows)) == {list}:
                given = [True] * n
            else:  # null or left out: not given
                given = [type(row) is list for row in rows]
                rows = [row if type(row) is list else () for row in rows]
            items = list(chain.from_iterable(rows))
            kinds = set(map(type, items))
            if kinds <= {call}:
                names: list[Any] = list(map(_NAME, items))
            elif kinds <= {str}:
                names = items
            else:
                names = [item if type(item) is str else item.name for item in items]
            side.ids.extend(array("i", list(map(lookup, names))))
            side.lengths.extend(map(len, rows))
            side.given.extend(given)
        ids = list(map(_ID, structs))
        unset = self._unset
        if any(map(is_, ids, repeat(unset))):  # no "id": the one under metadata, if any
            ids = [case_id if case_id is not unset else _metadata_id(line, unset)
                   for case_id, line in zip(ids, structs)]
        parts.case_ids.extend(ids)
        reader.rows += n
        if reader.records is not None:
            reader.records.extend(lines())


def _metadata_id(line: Any, unset: Any) -> Any:
    metadata = _METADATA(line)
    if metadata is None or metadata is unset:
        return None
    found = _ID(metadata)
    return None if found is unset else found
