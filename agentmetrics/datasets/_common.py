"""What the loaders share: reading JSON and JSONL sources, and naming where a
bad entry is."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from agentmetrics._model import ToolCall
from agentmetrics.errors import InvalidCaseError
from agentmetrics.expectations import Call, Equals

__all__ = ["Source", "entries", "exact_call", "fail", "load_json", "read_calls"]

Source = str | os.PathLike[str] | Iterable[Any]


def fail(where: str, expected: str, got: Any, fix: str) -> InvalidCaseError:
    shown = repr(got)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return InvalidCaseError(f"{where}: expected {expected}, got {shown}. Fix: {fix}")


def load_json(path: str | os.PathLike[str], loader: str) -> Any:
    """One JSON document from a file, refused with the file's name."""
    file = Path(path)
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except OSError as error:
        raise InvalidCaseError(f"{loader}: cannot read {file}: {error.strerror or error}. "
                               f"Fix: pass the path of the file.") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise InvalidCaseError(f"{loader}: {file} is not JSON ({error}). Fix: pass the file as "
                               f"the benchmark ships it.") from None


def entries(source: Source, loader: str) -> Iterator[tuple[str, Any]]:
    """``(where, entry)`` for each entry of a JSONL file (one JSON object a
    line; a file holding one JSON list is read as that list) or of an
    iterable of entries; ``where`` names the file and line, or the index."""
    if isinstance(source, (str, os.PathLike)):
        file = Path(source)
        try:
            text = file.read_text(encoding="utf-8")
        except OSError as error:
            raise InvalidCaseError(f"{loader}: cannot read {file}: {error.strerror or error}. "
                                   f"Fix: pass the path of the file.") from None
        stripped = text.lstrip()
        if stripped.startswith("["):
            try:
                items = json.loads(text)
            except json.JSONDecodeError as error:
                raise InvalidCaseError(f"{loader}: {file} is not JSON ({error}).") from None
            for k, item in enumerate(items):
                yield f"{file}[{k}]", item
            return
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                yield f"{file}:{number}", json.loads(line)
            except json.JSONDecodeError as error:
                raise InvalidCaseError(f"{loader}: {file}:{number}: not a JSON line ({error}). "
                                       f"Fix: one JSON object a line, as the benchmark ships it.") from None
        return
    if isinstance(source, (bytes, dict)) or not isinstance(source, Iterable):
        raise InvalidCaseError(f"{loader}: expected a path or an iterable of entries, got "
                               f"{type(source).__name__}. Fix: pass the file's path or a list.")
    for k, item in enumerate(source):
        yield f"entry {k}", item


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
