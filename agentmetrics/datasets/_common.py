"""What the loaders share: reading JSON and JSONL sources entry by entry,
naming where a bad entry is, and keeping the rest when one is bad
(``errors="record"``)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, TypeVar

import attrs

from agentmetrics._base._lines import MAX_DEPTH, LineError, parse_json_line
from agentmetrics._base._lines import check_depth as nested
from agentmetrics._base._types import ErrorsMode
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import Call, Equals
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase

__all__ = ["MAX_DEPTH", "Case", "Entry", "Source", "build", "check_depth", "entries", "entry_id",
           "exact_call", "fail", "items_of", "load_json", "read_calls", "record_hint"]

Source = str | os.PathLike[str] | Iterable[Any]

T = TypeVar("T")


def fail(where: str, expected: str, got: Any, fix: str) -> InvalidCaseError:
    shown = _shown(got)
    return InvalidCaseError(f"{where}: expected {expected}, got {shown}. Fix: {fix}")


def _shown(value: Any) -> str:
    try:
        shown = repr(value)
    except RecursionError:  # a value nested deeper than repr goes
        shown = f"a {type(value).__name__} nested too deeply to show"
    return shown if len(shown) <= 80 else shown[:77] + "..."


def record_hint() -> str:
    return (' Or pass errors="record": the other entries load, and this one becomes an error row '
            '(scored NaN with this message).')


@attrs.frozen(slots=True)
class Entry:
    """One entry of a source: where it is (``source`` a file's path or
    ``"<entries>"``; ``line`` the line it begins on, or its index in an
    iterable; ``where`` both as text) and its value, or the ``problem`` that
    keeps it from being read (then ``value`` is None, or the value as parsed
    when it nests too deep: read for its id alone)."""

    source: str
    line: int
    where: str
    value: Any = None
    problem: str | None = None

    def unreadable(self, message: str, entry_id: Any = None) -> UnreadableCase:
        return UnreadableCase(self.source, self.line, message, id=entry_id)


def check_depth(value: Any, where: str, limit: int = MAX_DEPTH) -> None:
    """Refuse an entry that nests lists and objects more than ``limit`` deep,
    naming the path to the first place it does (see :func:`agentmetrics._base._lines.check_depth`)."""
    nested(value, where, limit=limit, fix="flatten the entry; no benchmark's data nests this deep.")


def _parsed(text: str) -> Any:
    """One JSON value, or InvalidCaseError saying why not."""
    try:
        return parse_json_line(text)
    except LineError as error:
        raise InvalidCaseError(str(error)) from None


def load_json(path: str | os.PathLike[str], loader: str) -> Any:
    """One JSON document from a file, refused with the file's name."""
    file = Path(path)
    try:
        return _parsed(_read_text(file, loader))
    except InvalidCaseError as error:
        raise InvalidCaseError(f"{loader}: {file} is not JSON: {error} Fix: pass the file as the "
                               f"benchmark ships it.") from None


def _read_text(file: Path, loader: str) -> str:
    if "\x00" in str(file):  # open() raises ValueError, not OSError, for such a path
        raise InvalidCaseError(f"{loader}: cannot read {str(file)!r}: a path holds no NUL "
                               f"character. Fix: pass the path of the file, or the entries "
                               f"themselves as a list.")
    try:
        return file.read_text(encoding="utf-8-sig")
    except OSError as error:
        raise InvalidCaseError(f"{loader}: cannot read {file}: {error.strerror or error}. "
                               f"Fix: pass the path of the file.") from None
    except UnicodeDecodeError as error:
        raise InvalidCaseError(f"{loader}: {file} is not UTF-8 text ({error.reason} at byte "
                               f"{error.start}). Fix: pass the file as the benchmark ships it.") from None


def _list_lines(text: str, count: int) -> list[int]:
    """The line each of the ``count`` items of a valid JSON list begins on."""
    decoder = json.JSONDecoder()
    index = text.index("[") + 1
    starts, line, counted = [], 1, 0
    for _ in range(count):
        while text[index] in " \t\r\n,":
            index += 1
        line += text.count("\n", counted, index)
        counted = index
        starts.append(line)
        index = decoder.raw_decode(text, index)[1]
    return starts


def entries(source: Source, loader: str) -> Iterator[Entry]:
    """Each entry of a JSONL file (one JSON value a line; a file holding one
    JSON list is read as that list) or of an iterable of entries. An entry
    that cannot be read (not JSON, nested too deep) comes with its
    ``problem``; the entries after it are still read. A source that cannot be
    read at all is refused."""
    if isinstance(source, (str, os.PathLike)):
        file = Path(source)
        text = _read_text(file, loader)
        if text.lstrip().startswith("["):
            try:
                items = _parsed(text)
            except InvalidCaseError as error:
                raise InvalidCaseError(f"{loader}: {file} is not JSON: {error} Fix: pass the file as "
                                       f"the benchmark ships it.") from None
            if not isinstance(items, list):  # pragma: no cover - text starting with [ is a list
                raise fail(f"{loader}: {file}", "a JSON list", items, "pass the benchmark's file.")
            for k, (item, number) in enumerate(zip(items, _list_lines(text, len(items)))):
                yield _entry(str(file), number, f"{file}:{number} (item {k})", item)
            return
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip(" \t\r\n"):
                continue
            where = f"{file}:{number}"
            try:
                value = _parsed(line)
            except InvalidCaseError as error:
                yield Entry(str(file), number, where, problem=f"not a JSON line: {error}")
                continue
            yield _entry(str(file), number, where, value)
        return
    if isinstance(source, (bytes, Mapping)) or not isinstance(source, Iterable):
        raise InvalidCaseError(f"{loader}: expected a path or an iterable of entries, got "
                               f"{type(source).__name__}. Fix: pass the file's path or a list.")
    for k, item in enumerate(source):
        yield _entry("<entries>", k, f"entry {k}", item)


def items_of(values: Iterable[Any], loader: str, source: str, prefix: str) -> Iterator[Entry]:
    """The entries of a list found inside a document (``prefix`` names it,
    such as ``"file: eval_cases"``): each named ``prefix[k]``, its line its index."""
    for entry in entries(values, loader):
        yield attrs.evolve(entry, source=source, where=f"{prefix}[{entry.line}]")


def _entry(source: str, line: int, where: str, value: Any) -> Entry:
    try:
        check_depth(value, "")
    except InvalidCaseError as error:  # the value is kept for its id alone
        return Entry(source, line, where, value, problem=str(error).lstrip(".:").lstrip())
    return Entry(source, line, where, value)


def build(loader: str, errors: ErrorsMode, entry: Entry, entry_id: Any,
          make: Callable[[Any], T], where: str | None = None) -> T | UnreadableCase:
    """``make(entry.value)``, the case(s) of one entry; when it is refused, with
    ``errors="raise"`` an InvalidCaseError naming the loader, where the entry
    is (``where``, else the entry's), its id and what is wrong, with the fix
    and the hint that ``errors="record"`` keeps the rest; with ``"record"``,
    an UnreadableCase carrying that message."""
    try:
        if entry.problem is not None:
            raise InvalidCaseError(entry.problem)
        return make(entry.value)
    except InvalidCaseError as error:
        detail = str(error)
    except RecursionError:  # check_depth refuses deep entries first; a reader may still go deep
        detail = (f"nested too deeply to read. Fix: flatten the entry (at most {MAX_DEPTH} levels "
                  f"of lists and objects).")
    named = f" (id {entry_id!r})" if entry_id is not None else ""
    message = f"{loader}: {where or entry.where}{named}: {detail}"
    if errors == "raise":
        raise InvalidCaseError(message + record_hint())
    return entry.unreadable(message, entry_id)


def entry_id(value: Any, key: str = "id") -> Any:
    """An entry's id when it is an object that has one, else None."""
    return value.get(key) if isinstance(value, Mapping) else None


def exact_call(call: ToolCall) -> Call:
    """The pattern of exactly this call: its name, each argument equal (as
    JSON values), no other argument."""
    return Call(call.name, {key: Equals(value) for key, value in call.arguments.items()})


def read_calls(items: Any, where: str, kind: str, name_key: str, args_key: str, fix: str) -> list[ToolCall]:
    """A benchmark's list of calls, each an object with the tool's name under
    ``name_key`` and its arguments (an object; missing or null: none) under
    ``args_key``, as ToolCalls in order; None reads as no calls. Refused with
    the path of the first bad item."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise fail(where, f"a list of {kind}s", items, fix)
    out = []
    for k, item in enumerate(items):
        if not isinstance(item, Mapping) or not isinstance(item.get(name_key), str):
            raise fail(f"{where}[{k}]", f"a {kind} with {name_key!r}", item, fix)
        arguments = item.get(args_key)
        if arguments is not None and not isinstance(arguments, Mapping):
            raise fail(f"{where}[{k}].{args_key}", "an object", arguments, fix)
        # missing or null: no arguments given (ToolCall.arguments_given is False)
        out.append(ToolCall(item[name_key], None if arguments is None else dict(arguments)))
    return out


Case = AgentTestCase | UnreadableCase
