"""JSONL of cases decoded by msgspec in chunks, straight into columns (needs
msgspec: ``pip install 'agent-tool-metrics[fast]'``).

The file is read in blocks of whole lines; each chunk of ``chunk_size``
non-blank lines is decoded 512 lines at a time by
:class:`agentmetrics._columnar.LineDecoder`, which takes lines of the plain
shape (calls as names or ``{"name", "arguments", ...}`` objects, ids of any
JSON value) and fills the columns a ToolCallBatch is made of: no dict and no
case object per line. A group it is not sure of is split in two and each half
tried again, down to a few lines; a line it still refuses (a provider
``response``, an unknown key, malformed JSON, bytes that are not UTF-8...) is
read by the line reader, which is the reference: the rows, values, errors and
line numbers are the ones it gives for the whole file. A file where most lines
need the line reader switches to it (parsing a group of lines at a time) for
the rest.

With ``keep_cases`` (a metric reads more than tool names), each chunk keeps
its lines, and its AgentTestCases are built from them, in bulk and by the line
reader's JSON parser, the first time a metric reads them; a chunk scored from
names alone never builds them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._lines import BOMS, decode_line, parse_json_lines
from agentmetrics._base._types import ErrorsMode
from agentmetrics._columnar import LineDecoder, Reader, can_decode_fast, paused_gc
from agentmetrics.cases._call_keys import argument_table
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.errors import InvalidCaseError
from agentmetrics.io._arrow_lines import Chunk
from agentmetrics.io._dataset import case_of_line, case_of_parsed_line
from agentmetrics.model._model import UnreadableCase

__all__ = ["fast_chunks", "readable_fast"]

#: Bytes read from the file at a time.
READ_BYTES = 1 << 22
#: Lines decoded at a time: their structs stay in the processor's cache while
#: their columns are read.
GROUP = 512
#: Groups of at most this many lines that the decoder refuses are read line by line.
SMALL_GROUP = 16
#: Once more lines have needed the line reader than not (and more than this
#: many), it takes the rest of the file.
SWITCH_AFTER = 1024
#: With arguments kept, the table of distinct call items (each one's text,
#: name, argument id and arguments) is begun again before a batch once it
#: holds more than this many: about 50 MB on calls of a few hundred bytes.
TABLE_ITEMS = 100_000
_WHITESPACE = b" \t\r\n"


def readable_fast(path: str) -> bool:
    """Whether ``path`` is a plain UTF-8 file (no gzip, no byte-order mark),
    the files this reader takes, and msgspec can be imported."""
    if not can_decode_fast():
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(4)
    except OSError:
        return False
    return not head.startswith(b"\x1f\x8b") and not any(head.startswith(bom)
                                                        for bom, *_ in BOMS)


def _records_of(items: list[Any]) -> list[Any]:
    """The records of a chunk's kept items: decoded lines (bytes) parsed as
    the line reader parses them; records the reference read, as they are."""
    lines = [item for item in items if type(item) is bytes]
    if not lines:
        return items
    texts = [line.decode("utf-8") for line in lines]
    parsed = parse_json_lines(texts, "\n".join(texts))
    if parsed is None:  # pragma: no cover - the decoder took only lines the parser takes
        raise InvalidCaseError("a line the fast decoder read could not be parsed again. "
                               "This is a bug in agentmetrics; please report it, and use "
                               "--reader lines meanwhile.")
    made = iter(parsed)
    return [next(made) if type(item) is bytes else item for item in items]


@attrs.frozen(slots=True, eq=False)
class _Block:
    """A block of whole lines read from the file: ``body``, and for each of its
    non-blank lines where it starts and ends in ``body``, its number in the
    file, and whether it starts with ``{`` and ends with ``}`` (``braced``:
    runs of those are decoded together)."""

    body: bytes
    starts: npt.NDArray[np.int64]
    ends: npt.NDArray[np.int64]
    numbers: npt.NDArray[np.int64]
    braced: npt.NDArray[np.bool_]
    #: How many lines ``body`` holds, blank ones included.
    lines_read: int

    def line(self, index: int) -> bytes:
        return self.body[int(self.starts[index]):int(self.ends[index])]

    def lines(self, start: int, stop: int) -> list[bytes]:
        body = self.body
        return [body[a:b] for a, b in zip(self.starts[start:stop].tolist(),
                                          self.ends[start:stop].tolist())]


def _block(body: bytes, first_number: int) -> _Block:
    """The non-blank lines of ``body`` (whole lines, without the last newline),
    told by numpy over the bytes; only lines that do not start with ``{`` or do
    not end with ``}`` are looked at one by one."""
    raw = np.frombuffer(body, dtype=np.uint8)
    newlines = np.flatnonzero(raw == 10)
    starts = np.concatenate(([0], newlines + 1)).astype(np.int64)
    ends = np.concatenate((newlines, [len(body)])).astype(np.int64)
    numbers = np.arange(first_number, first_number + len(starts), dtype=np.int64)
    if not len(body):
        braced = np.zeros(len(starts), dtype=bool)
    else:  # an empty line's indexes are clamped into the body: "ends > starts" refuses it
        first = raw[np.minimum(starts, len(body) - 1)]
        last = raw[np.maximum(ends - 1, 0)]
        before_last = raw[np.maximum(ends - 2, 0)]
        braced = (ends > starts) & (first == 123) & (
            (last == 125) | ((last == 13) & (ends - starts >= 2) & (before_last == 125)))
    if not braced.all():
        others = np.flatnonzero(~braced).tolist()
        blank = [row for row in others
                 if not body[int(starts[row]):int(ends[row])].strip(_WHITESPACE)]
        if blank:
            keep = np.ones(len(starts), dtype=bool)
            keep[blank] = False
            starts, ends, numbers, braced = starts[keep], ends[keep], numbers[keep], braced[keep]
    return _Block(body, starts, ends, numbers, braced, len(newlines) + 1)


class _Chunks:
    """Reads ranges of blocks' lines into batches (see the module's doc)."""

    def __init__(self, label: str, errors: ErrorsMode, options: dict[str, Any],
                 keep_cases: bool) -> None:
        self.label = label
        self.errors = errors
        self.options = options
        self.keep_cases = keep_cases
        # A metric reads more than names: each call's arguments get an id too.
        self.decoder = LineDecoder(argument_table() if keep_cases else None)
        self.fast_lines = 0
        self.slow_lines = 0

    def batch(self, pieces: list[tuple[_Block, int, int]]) -> ToolCallBatch:
        """The cases of these ranges of lines, in order."""
        if self.decoder.item_count() > TABLE_ITEMS:  # memory stays flat on distinct calls
            self.decoder.use_arguments(argument_table())
        reader = Reader(_no_reference, keep_records=self.keep_cases,
                        parse=_records_of if self.keep_cases else None,
                        keep_arguments=self.keep_cases, item_fields=self.decoder.item_fields)
        self.decoder.begin(reader)
        with paused_gc():  # no cycle among what is decoded: nothing for a collection to find
            for block, start, stop in pieces:
                for at in range(start, stop, GROUP):
                    end = min(at + GROUP, stop)
                    if self.slow_lines > max(self.fast_lines, SWITCH_AFTER):
                        self._reference_group(reader, block, at, end)
                    else:
                        self._runs(reader, block, at, end)
            self.decoder.finish(reader)
            return ToolCallBatch.from_ingested(reader.result(), keep_cases=self.keep_cases)

    def _runs(self, reader: Reader, block: _Block, start: int, stop: int) -> None:
        """Runs of braced lines decoded together; any other line alone."""
        braced = block.braced
        if bool(braced[start:stop].all()):
            self._group(reader, block, start, stop)
            return
        at = start
        while at < stop:
            if not braced[at]:
                self._line(reader, block, at)
                at += 1
                continue
            end = at
            while end < stop and braced[end]:
                end += 1
            self._group(reader, block, at, end)
            at = end

    def _group(self, reader: Reader, block: _Block, start: int, stop: int) -> None:
        data = block.body[int(block.starts[start]):int(block.ends[stop - 1])]
        longest = int((block.ends[start:stop] - block.starts[start:stop]).max())
        decoded = self.decoder.decode(data, stop - start, longest)
        if decoded is not None:
            self.fast_lines += stop - start
            self.decoder.add(reader, decoded, lambda: block.lines(start, stop))
            return
        if stop - start > SMALL_GROUP:
            middle = (start + stop) // 2
            self._group(reader, block, start, middle)
            self._group(reader, block, middle, stop)
            return
        for row in range(start, stop):
            self._line(reader, block, row)

    def _line(self, reader: Reader, block: _Block, row: int) -> None:
        line = block.line(row)
        one = self.decoder.decode_one(line)
        if one is not None:
            self.fast_lines += 1
            self.decoder.add(reader, one, lambda: [line])
        else:
            self.slow_lines += 1
            self._reference_line(reader, line, int(block.numbers[row]))

    def _reference_line(self, reader: Reader, line: bytes, number: int) -> None:
        case = case_of_line(decode_line(number, line), self.label, self.errors, self.options)
        assert case is not None  # blank lines were dropped before
        # An unreadable line's row keeps its UnreadableCase, as a list of cases does.
        reader.add_case(case, case if isinstance(case, UnreadableCase) else line)

    def _reference_group(self, reader: Reader, block: _Block, start: int, stop: int) -> None:
        """Lines read the reference way, parsed a group at a time when they all
        parse (then read column by column where plain), else one by one."""
        lines = block.lines(start, stop)
        numbers = block.numbers[start:stop].tolist()
        self.slow_lines += len(lines)
        try:
            texts: list[str] | None = [line.decode("utf-8") for line in lines]
        except UnicodeDecodeError:
            texts = None
        records = None
        if texts is not None:
            texts = [text[:-1] if text.endswith("\r") else text for text in texts]
            records = parse_json_lines(texts, "\n".join(texts))
        if records is None:
            for line, number in zip(lines, numbers):
                self._reference_line(reader, line, number)
            return
        offset = reader.rows
        # The reader names rows by their place in the chunk; ``numbers`` starts at ``offset``.
        reader.reference = lambda row, record: case_of_parsed_line(
            numbers[row - offset], record, self.label, self.errors, self.options)
        try:
            reader.add(records)
        finally:
            reader.reference = _no_reference


def _no_reference(row: int, record: Any) -> Any:  # pragma: no cover - always replaced first
    raise AssertionError("the fast reader reads no record without its line number")


def _blocks(path: str) -> Iterator[_Block]:
    """The file's blocks of whole lines, in order."""
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
            elif rest:
                body, rest = rest, b""
            else:
                return
            block = _block(body, number + 1)
            number += block.lines_read
            yield block


def fast_chunks(path: str, chunk_size: int, *, errors: ErrorsMode = "raise",
                options: dict[str, Any] | None = None,
                keep_cases: bool = False) -> Iterator[Chunk]:
    """The cases of a JSONL file, ``chunk_size`` at a time (as the line reader
    counts them: blank lines are not cases), each chunk one ToolCallBatch with
    the line number of each of its rows. ``errors`` and ``options`` are the
    line reader's (see :func:`agentmetrics.read_cases`); with ``errors="raise"``
    the first unreadable line raises InvalidCaseError naming ``file:line``.
    ``keep_cases``: the batches hold their cases (built when first read)."""
    chunks = _Chunks(path, errors, dict(options or {}), keep_cases)
    pending: list[tuple[_Block, int, int]] = []  # ranges of lines not yet in a chunk
    count = 0
    for block in _blocks(path):
        if len(block.starts):
            pending.append((block, 0, len(block.starts)))
            count += len(block.starts)
        while count >= chunk_size:
            taken, wanted = [], chunk_size
            while wanted:
                block_of, start, stop = pending[0]
                end = min(stop, start + wanted)
                taken.append((block_of, start, end))
                wanted -= end - start
                if end == stop:
                    pending.pop(0)
                else:
                    pending[0] = (block_of, end, stop)
            count -= chunk_size
            yield _chunk(chunks, taken)
    if count:
        yield _chunk(chunks, pending)


def _chunk(chunks: _Chunks, pieces: list[tuple[_Block, int, int]]) -> Chunk:
    numbers = [number for block, start, stop in pieces
               for number in block.numbers[start:stop].tolist()]
    return Chunk(chunks.batch(pieces), numbers)
