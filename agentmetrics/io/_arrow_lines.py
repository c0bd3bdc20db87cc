"""JSONL of tool-name lists read straight into Arrow columns (needs pyarrow).

Lines of the shape ``{"tool_calls": [names], "expected_tool_calls": [names],
"id": "..."}`` (any order, ``id`` optional, a string, a 64-bit integer or null:
one or the other in a group of lines) are parsed by
pyarrow's JSON reader many thousands at a time, with an explicit schema, into
``list<string>`` columns, and encoded by :meth:`ToolCallBatch.from_arrow`: no
Python object per line. Every other line (calls given as objects, a provider
``response``, extra keys, an id of another type, a null list, an empty name, bytes
that are not UTF-8, malformed JSON) goes through the line-by-line reader,
which is the reference: the rows, errors and line numbers are the ones it
gives for the whole file.

How a group of lines is checked: pyarrow must parse it without an error
(it refuses duplicate keys, unexpected keys and values of another type) into
exactly one row per non-blank line (a line holding two objects would make
more), with no null list and no row that ``from_arrow`` finds invalid. A group
that fails is split in two and each half tried again, down to a few lines,
which the line reader takes; so a bad line costs a few parses of its
neighbourhood, and a file where most lines need the line reader switches to
it for the rest.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterator
from typing import Any

import attrs
import numpy as np

from agentmetrics._base._lines import BOMS, decode_line, parse_json_lines
from agentmetrics._base._optional import require
from agentmetrics._base._types import ErrorsMode
from agentmetrics._columnar import Reader, paused_gc
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.io._dataset import case_of_line, case_of_parsed_line

__all__ = ["Chunk", "name_list_chunks", "readable_as_arrow"]

#: Bytes read from the file at a time.
READ_BYTES = 1 << 22
#: Groups of at most this many lines that fail are read line by line.
SMALL_GROUP = 16
#: Once more lines have needed the line reader than not (and more than
#: SWITCH_AFTER), it takes the rest of the file.
SWITCH_TO_LINES = True
SWITCH_AFTER = 1024
_WHITESPACE = b" \t\r\n"
#: Lines the line path parses and reads at a time (see _Reader.line_group): few
#: enough that their objects stay in the processor's cache while they are read
#: (measured: 64 lines 8.2 s, 512 lines 14.9 s for 300,000 lines of call objects;
#: json.loads of lines held 512 at a time takes twice as long as one at a time).
PARSE_LINES = 64


@attrs.frozen(slots=True, eq=False)
class Chunk:
    """A chunk of cases and the line each came from."""

    batch: ToolCallBatch
    numbers: list[int]


def readable_as_arrow(path: str) -> bool:
    """Whether ``path`` is a plain UTF-8 file (no gzip, no byte-order mark):
    the files this reader takes; pyarrow must be installed."""
    import importlib

    try:
        importlib.import_module("pyarrow")
        importlib.import_module("pyarrow.json")
    except ImportError:
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError:
        return False
    return not head.startswith(b"\x1f\x8b") and not any(head.startswith(bom)
                                                        for bom, *_ in BOMS)


class _Reader:
    def __init__(self, label: str, errors: ErrorsMode, options: dict[str, Any]) -> None:
        self.label = label
        self.errors = errors
        self.options = options
        pa = require("pyarrow", "arrow")
        self.pa = pa
        self.json = require("pyarrow.json", "arrow")
        names = pa.list_(pa.string())
        # Ids are strings or integers (64-bit): a group is parsed with the kind the
        # last group had, and again with the other when pyarrow says an id was of it.
        self.id_schemas = [
            self.json.ParseOptions(
                explicit_schema=pa.schema([("tool_calls", names), ("expected_tool_calls", names),
                                           ("id", id_type)]),
                unexpected_field_behavior="error")
            for id_type in (pa.string(), pa.int64())]
        self.fast_lines = 0
        self.slow_lines = 0

    def arrow_group(self, lines: list[bytes]) -> ToolCallBatch | None:
        """The lines as one batch, or None when any of them needs the line reader."""
        data = b"\n".join(lines)
        if not data.isascii():
            try:  # pyarrow stores strings without checking that they are UTF-8
                data.decode("utf-8")
            except UnicodeDecodeError:
                return None
        read_options = self.json.ReadOptions(use_threads=False,
                                             block_size=max(len(data) + 1, 1 << 20))
        table = None
        for attempt, options in enumerate(self.id_schemas):
            try:
                table = self.json.read_json(io.BytesIO(data), parse_options=options,
                                            read_options=read_options)
                break
            except Exception as error:
                # Another try only for an id of the other kind (a float, a big or a
                # mixed id fails both: the line reader's).
                if attempt or not re.search(r"Column\(/id\) changed from (string|number) to "
                                            r"(number|string)", str(error)):
                    return None
        if table is None:
            return None
        if attempt:  # the file's ids are of the other kind: try that one first from now on
            self.id_schemas.reverse()
        if table.num_rows != len(lines):
            return None
        calls, expected = table.column("tool_calls"), table.column("expected_tool_calls")
        if calls.null_count or expected.null_count:
            return None  # "not given": the line reader says so, in its words
        ids = table.column("id")
        try:
            batch = ToolCallBatch.from_arrow(
                tool_calls=calls, expected_tool_calls=expected,
                ids=None if ids.null_count == len(ids) else ids, errors="record")
        except Exception:
            return None
        return None if batch.invalid else batch

    def line_group(self, lines: list[bytes], numbers: list[int]) -> ToolCallBatch:
        """Lines pyarrow does not take (calls as objects, say): parsed with the
        line reader's JSON parser and read column by column
        (:class:`agentmetrics._columnar.Reader`), 64 at a time while
        they are in the processor's cache; a line that is not plain is read by
        the line reader itself, which says what is wrong."""

        def reference(row: int, record: Any) -> Any:
            # ``record`` is the line's value as the line reader parses it: not parsed again.
            return case_of_parsed_line(numbers[row], record, self.label, self.errors,
                                       self.options)

        def unparsed(row: int) -> Any:
            case = case_of_line(decode_line(numbers[row], lines[row]), self.label, self.errors,
                                self.options)
            assert case is not None  # blank lines were dropped before
            return case

        reader = Reader(reference, keep_records=False)
        with paused_gc():  # until the records are gone: nothing for a collection to find
            for start in range(0, len(lines), PARSE_LINES):
                group = lines[start:start + PARSE_LINES]
                records = _parsed(group)
                if records is None:  # not UTF-8 or not JSON somewhere: line by line
                    for offset in range(len(group)):
                        reader.add_case(unparsed(start + offset))
                else:
                    reader.add(records)
                records = None
            return ToolCallBatch.from_ingested(reader.result(), keep_cases=False)

    def batch(self, lines: list[bytes], numbers: list[int], objects: list[bool]) -> ToolCallBatch:
        """The cases of these non-blank lines; ``objects`` tells the lines
        that look like one JSON object (``{`` to ``}``): only runs of those go
        to pyarrow (which crashes on some other input, a leading ``null``)."""
        pieces: list[ToolCallBatch] = []
        start = 0
        while start < len(lines):
            stop = start
            while stop < len(lines) and objects[stop]:
                stop += 1
            if stop > start:
                self._group(lines, numbers, start, stop, pieces)
            if stop < len(lines):  # one line that is not an object
                self.slow_lines += 1
                pieces.append(self.line_group(lines[stop:stop + 1], numbers[stop:stop + 1]))
            start = stop + 1
        return ToolCallBatch.concat(pieces)

    def _group(self, lines: list[bytes], numbers: list[int], start: int, stop: int,
               pieces: list[ToolCallBatch]) -> None:
        arrow_pays = (self.slow_lines <= max(self.fast_lines, SWITCH_AFTER)
                      or not SWITCH_TO_LINES)
        if stop - start > SMALL_GROUP and arrow_pays:
            batch = self.arrow_group(lines[start:stop])
            if batch is not None:
                self.fast_lines += stop - start
                pieces.append(batch)
                return
            if stop - start > 1:
                middle = (start + stop) // 2
                self._group(lines, numbers, start, middle, pieces)
                self._group(lines, numbers, middle, stop, pieces)
                return
        self.slow_lines += stop - start
        pieces.append(self.line_group(lines[start:stop], numbers[start:stop]))


def _parsed(lines: list[bytes]) -> list[Any] | None:
    """Each line's JSON value, as the line reader parses it; None when any line
    is not UTF-8 or not JSON (the line reader then says which and why)."""
    try:
        text = b"\n".join(lines).decode("utf-8")
    except UnicodeDecodeError:
        return None
    texts = text.split("\n")
    if len(texts) != len(lines):  # pragma: no cover - a newline byte is a newline
        return None
    if "\r" in text:
        texts = [line[:-1] if line.endswith("\r") else line for line in texts]
    return parse_json_lines(texts, text)


def _all_braced(body: bytes, lines: int) -> bool:
    """Whether every one of the ``lines`` lines of ``body`` (joined by
    newlines) starts with ``{`` and ends with ``}``, so that none is blank:
    told by numpy over the bytes, without a loop in Python."""
    if lines == 0 or not body.startswith(b"{") or not body.endswith(b"}"):
        return False
    raw = np.frombuffer(body, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)  # never first or last: body starts with { and ends with }
    return bool(np.all(raw[newlines + 1] == 123) and np.all(raw[newlines - 1] == 125))


def name_list_chunks(path: str, chunk_size: int, *, errors: ErrorsMode = "raise",
                     options: dict[str, Any] | None = None) -> Iterator[Chunk]:
    """The cases of a JSONL file, ``chunk_size`` at a time (as the line reader
    counts them: blank lines are not cases), each chunk one ToolCallBatch with
    the line number of each of its rows. ``errors`` and ``options`` are the
    line reader's (see :func:`agentmetrics.read_cases`); with ``errors="raise"``
    the first unreadable line raises InvalidCaseError naming ``file:line``.

    Only for metrics that score from tool names alone: the batches carry no
    case objects."""
    reader = _Reader(path, errors, dict(options or {}))
    pending: list[bytes] = []
    numbers: list[int] = []
    objects: list[bool] = []
    number = 0  # of the last line split off
    rest = b""
    with open(path, "rb") as handle:
        while True:
            data = handle.read(READ_BYTES)
            if data:
                data = rest + data
                cut = data.rfind(b"\n")
                if cut < 0:
                    rest = data
                    continue
                body, rest = data[:cut], data[cut + 1:]
            else:
                body, rest = rest, b""
            lines = body.split(b"\n") if body or data else []
            if _all_braced(body, len(lines)):  # the common case, without a loop in Python
                pending.extend(lines)
                numbers.extend(range(number + 1, number + 1 + len(lines)))
                objects.extend([True] * len(lines))
            else:
                for offset, line in enumerate(lines, start=number + 1):
                    text = line.strip(_WHITESPACE)
                    if text:
                        pending.append(line)
                        numbers.append(offset)
                        objects.append(text[0] == 123 and text[-1] == 125)  # "{" ... "}"
            number += len(lines)
            while len(pending) >= chunk_size:
                yield Chunk(reader.batch(pending[:chunk_size], numbers[:chunk_size],
                                         objects[:chunk_size]), numbers[:chunk_size])
                del pending[:chunk_size], numbers[:chunk_size], objects[:chunk_size]
            if not data:
                break
    if pending:
        yield Chunk(reader.batch(pending, numbers, objects), numbers)
