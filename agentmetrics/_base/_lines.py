"""Physical lines of a JSONL source, decoded one line at a time, and their JSON.

:func:`lines` streams a path, a text handle or a binary handle (``sys.stdin.buffer``
included) as :class:`Line` records; a line that cannot be decoded becomes a Line
with an ``error`` and the lines after it are still read. The encoding is taken
from the first bytes: gzip data (``1f 8b``) is decompressed as it is read, a UTF-8
BOM is skipped, a UTF-16 or UTF-32 BOM selects that encoding, anything else is
UTF-8. Text handles are read as they are: their encoding is the caller's.

:func:`parse_json_line` turns every way :func:`json.loads` can fail on a line
into one :class:`LineError` (a ValueError) with a message and, where it can be
found, the column.
"""

from __future__ import annotations

import codecs
import contextlib
import gzip
import io
import json
import math
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import IO, Any

import attrs

from agentmetrics.errors import InvalidCaseError

__all__ = [
    "BOMS", "Line", "LineError", "MAX_DEPTH", "SourceError", "check_depth", "decode_line", "lines",
    "parse_json_line", "parse_json_lines",
]

_CHUNK = 1 << 16
_FIX = "Fix: save the file as UTF-8."

#: Byte-order marks, longest first (the UTF-32 LE mark begins with the UTF-16 LE one):
#: (mark, codec, the encoded newline, the name messages use).
BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le", "\n".encode("utf-32-le"), "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32-be", "\n".encode("utf-32-be"), "UTF-32"),
    (codecs.BOM_UTF8, "utf-8", b"\n", "UTF-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le", "\n".encode("utf-16-le"), "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16-be", "\n".encode("utf-16-be"), "UTF-16"),
)


@attrs.frozen(slots=True)
class Line:
    """One physical line: ``number`` counts from 1, blank lines included, as editors do.

    Exactly one of ``text`` (the line without its ``\\n`` or ``\\r\\n``) and
    ``error`` (why the line could not be decoded, with a fix) is set.
    """

    number: int
    text: str | None = None
    error: str | None = None

    def __attrs_post_init__(self) -> None:
        if (self.text is None) == (self.error is None):
            raise ValueError("a Line has exactly one of text and error")


class LineError(ValueError):
    """A line is not one JSON value; ``column`` (1-based) is where, when known."""

    def __init__(self, message: str, column: int | None = None) -> None:
        super().__init__(message)
        self.column = column

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (str(self), self.column))


class SourceError(OSError, ValueError):
    """The source cannot be read at all: missing, a directory, closed, not a file."""


def lines(source: str | os.PathLike[str] | IO[str] | IO[bytes] | None) -> Iterator[Line]:
    """Yield every physical line of ``source``, blank lines included (the caller skips them).

    ``source`` is a path, or an open handle read from where it stands and not
    closed here: a binary handle has its encoding detected (see the module),
    a text handle is decoded by its own encoding. A line ends at ``\\n`` or
    ``\\r\\n``; a last line without one is still a line, an empty file has none.
    Only one line is held in memory at a time. A line that is not valid in
    the detected encoding, and corrupt or truncated gzip data (the last line
    then, nothing after it), give a Line with ``error``. SourceError is raised,
    at the first ``next()``, when the source cannot be read at all.
    """
    if source is None:  # sys.stdin when the process has no standard input
        raise SourceError("the input is closed (there is no standard input).")
    if isinstance(source, (str, os.PathLike)):
        try:
            handle = open(source, "rb")
        except OSError as error:
            raise SourceError(
                f"cannot read {os.fspath(source)!r}: {error.strerror or error}."
            ) from error
        with handle:
            yield from _binary(handle)
        return
    if not callable(getattr(source, "read", None)):
        raise SourceError(f"expected a path or an open file, got {type(source).__name__}.")
    if getattr(source, "closed", False):
        raise SourceError("the input is closed.")
    try:
        probe = source.read(0)
    except (OSError, ValueError) as error:  # io.UnsupportedOperation: opened for writing
        raise SourceError(f"cannot read the input: {_sentence(error)}") from error
    if isinstance(probe, (bytes, bytearray)):
        yield from _binary(source)  # type: ignore[arg-type]  # IO[str] reading bytes
    else:
        yield from _text(source)  # type: ignore[arg-type]


def _binary(handle: IO[bytes]) -> Iterator[Line]:
    read: Callable[[int], bytes] = getattr(handle, "read1", handle.read)
    number = 0
    try:
        with contextlib.ExitStack() as stack:
            head = _head(read)
            if head.startswith(b"\x1f\x8b"):
                unzipped = gzip.GzipFile(fileobj=_Prefixed(head, read), mode="rb")
                read = stack.enter_context(unzipped).read1
                head = _head(read)
            for line in _decode(head, read):
                number = line.number
                yield line
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        # Raised by the decompressor only; the lines before stay read.
        state = "truncated" if isinstance(error, EOFError) else "corrupt"
        yield Line(number + 1, error=f"the gzip data is {state} ({error}); nothing after line "
                                     f"{number} could be read. Fix: compress the file again.")
    except ValueError as error:  # e.g. the handle was closed while it was read
        raise SourceError(f"cannot read the input: {_sentence(error)}") from error
    except OSError as error:
        raise SourceError(f"reading the input failed after line {number}: {_sentence(error)}") from error


def _sentence(error: Exception) -> str:
    if isinstance(error, io.UnsupportedOperation):
        return "it is not open for reading."
    return f"{str(error).rstrip('.') or type(error).__name__}."


def _decode(head: bytes, read: Callable[[int], bytes]) -> Iterator[Line]:
    codec, newline, name, skip = "utf-8", b"\n", "UTF-8", 0
    for bom, bom_codec, bom_newline, bom_name in BOMS:
        if head.startswith(bom):
            codec, newline, name, skip = bom_codec, bom_newline, bom_name, len(bom)
            break
    for number, raw in enumerate(_split(_Prefixed(head[skip:], read).read, newline), start=1):
        yield decode_line(number, raw, codec, name)


def decode_line(number: int, raw: bytes, codec: str = "utf-8", name: str = "UTF-8") -> Line:
    """One physical line's bytes (without its newline) as a Line: its text
    without a final ``\r``, or the error saying why it is not ``codec``."""
    try:
        text = raw.decode(codec)
    except UnicodeDecodeError as error:
        return Line(number, error=_undecodable(raw, error, codec, name))
    return Line(number, text[:-1] if text.endswith("\r") else text)


def _undecodable(raw: bytes, error: UnicodeDecodeError, codec: str, name: str) -> str:
    column = len(raw[: error.start].decode(codec, "replace")) + 1
    if codec != "utf-8":
        bad = raw[error.start:error.end].hex(" ")
        return f"not valid {name}: {error.reason} (bytes {bad}) at column {column}. {_FIX}"
    try:
        raw.decode("cp1252")
        hint = " (looks like Latin-1 or Windows-1252)"
    except UnicodeDecodeError:
        hint = ""
    return f"not UTF-8: byte 0x{raw[error.start]:02x} at column {column}{hint}. {_FIX}"


def _text(handle: IO[str]) -> Iterator[Line]:
    number = 0
    try:
        for number, text in enumerate(handle, start=1):
            text = text[:-1] if text.endswith("\n") else text
            text = text[:-1] if text.endswith("\r") else text
            if number == 1 and text.startswith("\ufeff"):
                text = text[1:]
            yield _checked(number, text)
    except UnicodeDecodeError as error:  # the handle's own decoding: it cannot go on
        encoding = getattr(handle, "encoding", None) or "text"
        yield Line(number + 1, error=(
            f"cannot decode the input as {encoding} after line {number} (byte "
            f"0x{error.object[error.start]:02x}); the rest is not read. {_FIX} Or read it as "
            f"bytes (a path, or a binary handle such as sys.stdin.buffer) to lose only the bad "
            f"lines."))
    except ValueError as error:  # e.g. the handle was closed while it was read
        raise SourceError(f"cannot read the input: {_sentence(error)}") from error
    except OSError as error:
        raise SourceError(f"reading the input failed after line {number}: {_sentence(error)}") from error


def _checked(number: int, text: str) -> Line:
    """A text line holding lone surrogates (``errors="surrogateescape"`` stdin) is an error."""
    if text.isascii():
        return Line(number, text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        try:
            raw = text.encode("utf-8", "surrogateescape")  # the bytes it was decoded from
            raw.decode("utf-8")
        except UnicodeEncodeError:
            return Line(number, error=f"unpaired surrogate U+{ord(text[error.start]):04X} at "
                                      f"column {error.start + 1}. {_FIX}")
        except UnicodeDecodeError as bad:
            return Line(number, error=_undecodable(raw, bad, "utf-8", "UTF-8"))
    return Line(number, text)


def _head(read: Callable[[int], bytes]) -> bytes:
    """The first four bytes (fewer at the end of the data): enough for any BOM."""
    head = b""
    while len(head) < 4:
        more = read(4 - len(head))
        if not more:
            break
        head += more
    return head


@attrs.define(slots=True)
class _Prefixed:
    """A ``read`` that gives back the bytes already taken before the rest of the source."""

    head: bytes
    rest: Callable[[int], bytes]

    def read(self, size: int = -1) -> bytes:
        if not self.head:
            return self.rest(size)
        if size < 0:
            head, self.head = self.head, b""
            return head + self.rest(size)
        data, self.head = self.head[:size], self.head[size:]
        return data

    def seek(self, offset: int) -> int:  # the gzip module's protocol; reading never seeks
        raise OSError("the input cannot be rewound")


def _split(read: Callable[[int], bytes], newline: bytes) -> Iterator[bytes]:
    """Lines without their newline; a newline counts only on a character boundary."""
    width = len(newline)
    if width == 1:  # UTF-8: every b"\n" ends a line, and bytes.split finds them fastest
        parts: list[bytes] = []  # of the line not yet ended: joined once, however long
        while chunk := read(_CHUNK):
            pieces = chunk.split(newline)
            if len(pieces) > 1:
                parts.append(pieces[0])
                yield b"".join(parts)
                yield from pieces[1:-1]
                parts = []
            parts.append(pieces[-1])
        if tail := b"".join(parts):
            yield tail
        return
    pending = bytearray()
    search = 0
    while chunk := read(_CHUNK):
        pending += chunk
        start = 0
        while (end := pending.find(newline, search)) >= 0:
            if (end - start) % width:  # e.g. the second byte of U+0A0A and a NUL
                search = end + 1
                continue
            yield bytes(pending[start:end])
            start = search = end + width
        del pending[:start]
        search = max(0, len(pending) - width + 1)
    if pending:
        yield bytes(pending)


# A JSON string, skipped whole; NaN or Infinity; an integer (not part of a float).
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)|(?<![\w.+-])(-?\d+)(?![.eE\d])')


class _Constant(Exception):
    pass


def _refuse(name: str) -> object:
    raise _Constant(name)


class _Overflow(Exception):
    pass


def _finite(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):  # 1e400: JSON allows it, a float cannot hold it
        raise _Overflow(text)
    return value


# json.loads(**options) would build a decoder a call.
_DECODER = json.JSONDecoder(parse_constant=_refuse, parse_float=_finite)
# Without the float hook (a Python call a float): for text that holds no number
# a float could overflow on, where the two give the same values.
_PLAIN_FLOATS = json.JSONDecoder(parse_constant=_refuse)
#: What a number that overflows a float needs: an exponent of three digits or
#: more, or 200 digits in a row (below both, a value is under 1e300). Matched
#: anywhere, strings included: a match only sends the text to the float hook.
_BIG_NUMBER = re.compile(r"[eE][+-]?\d{3}|\d{200}")


def parse_json_lines(texts: list[str], joined: str) -> list[object] | None:
    """Each text's JSON value as :func:`parse_json_line` gives it, or None when
    any text is not valid for it (the caller then reads them one by one, for the
    message). ``joined`` is all the texts in one string, searched once for
    numbers that need the float hook."""
    decoder = _DECODER if _BIG_NUMBER.search(joined) else _PLAIN_FLOATS
    try:
        return list(map(decoder.decode, texts))
    except (ValueError, _Constant, _Overflow, RecursionError):  # JSONDecodeError is a ValueError
        return None


def parse_json_line(text: str) -> object:
    """The JSON value of one line, or LineError saying why there is none.

    Refused besides malformed JSON: ``NaN``, ``Infinity`` and ``-Infinity``
    (Python's json reads them, JSON has none), integers of more digits than
    the interpreter converts (``sys.get_int_max_str_digits()``, 4300 by
    default) and nesting deeper than the parser goes (about a thousand levels).
    """
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError as error:
        hint = ""
        if "\x00" in text:
            hint = " The line holds NUL characters: the file looks like UTF-16 without a BOM."
        raise LineError(f"not valid JSON ({error.msg} at column {error.colno}). Fix: each line "
                        f"must be one complete JSON object.{hint}", error.colno) from None
    except _Constant as constant:
        name = str(constant)
        column = _column(text, lambda match: match[1] == name)
        raise LineError(f"{name} is not JSON{_at(column)}. Fix: write null, or the value as "
                        f"a string (\"{name}\").", column) from None
    except _Overflow as overflow:
        number = str(overflow)
        column = text.find(number) + 1 or None
        raise LineError(f"the number {number[:24]} is too large for a float{_at(column)}. "
                        f"Fix: write it as a string.", column) from None
    except RecursionError:
        raise LineError("not valid JSON: nested too deeply (too many [ and { inside each "
                        "other) for the JSON reader. Fix: flatten the data.") from None
    except ValueError as error:  # int() of more than sys.get_int_max_str_digits() digits
        limit: int = getattr(sys, "get_int_max_str_digits", lambda: 0)()
        column = _column(text, lambda match: bool(match[2]) and len(match[2].lstrip("-")) > limit)
        if not limit or column is None:
            raise LineError(f"not valid JSON ({error}).") from None
        raise LineError(f"an integer of more than {limit} digits{_at(column)}, more than "
                        f"Python reads. Fix: write it as a string.", column) from None


def _column(text: str, wanted: Callable[[re.Match[str]], bool]) -> int | None:
    """The 1-based column of the first token outside strings that is ``wanted``."""
    return next((match.start() + 1 for match in _TOKENS.finditer(text) if wanted(match)), None)


def _at(column: int | None) -> str:
    return f" (at column {column})" if column else ""


#: How deep a value read from a user's file may nest (objects and lists inside
#: each other) before the readers that walk it recursively (expectations, a
#: benchmark's entries, a saved run's header) refuse it. Real data nests a dozen
#: levels; Python's recursion limit is about a thousand frames.
MAX_DEPTH = 100


def check_depth(value: Any, where: str, *, limit: int = MAX_DEPTH,
                fix: str = "flatten the data.") -> None:
    """Refuse (InvalidCaseError) a value that nests mappings and lists more than
    ``limit`` deep, naming the path to the first place it does (``where``, then
    ``.key`` and ``[index]`` steps). Read without recursion, so a value nested a
    million deep, or one that holds itself, is refused the same way."""
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(value, 0, ())]
    while stack:
        node, depth, path = stack.pop()
        if isinstance(node, Mapping):
            items: Iterable[tuple[Any, Any]] = node.items()
        elif isinstance(node, (list, tuple)):
            items = enumerate(node)
        else:
            continue
        if depth >= limit:
            raise InvalidCaseError(
                f"{where}{_path(path)}: nested more than {limit} levels deep (objects and "
                f"lists inside each other); expected at most {limit}. Fix: {fix}")
        stack.extend((item, depth + 1, (*path, key)) for key, item in items)


def _path(path: tuple[Any, ...]) -> str:
    """The steps of ``path`` as text; a long one as its first 4 and last 8
    steps, each step whole."""
    steps = [f"[{key}]" if isinstance(key, int) else f".{str(key)[:40]}" for key in path]
    if len(steps) > 12:
        steps = [*steps[:4], f" ... ({len(steps) - 12} more) ... ", *steps[-8:]]
    return "".join(steps)
