"""What a saved run file is: its version, the suffixes that choose its form,
the exact JSON encoding of ids, metadata and scores, its header (every field
checked for its type when read), and how a file is recognised as one.

All forms hold the same header (``{"agentmetrics_run": 1, ...}``): the first
line of a JSON lines file, the document itself (less its ``rows``) of a JSON
file, the ``agentmetrics_run`` key of a Parquet file's schema metadata. Values
JSON has no form for are tagged, never approximated: ``{"tuple": [...]}`` for
a tuple, ``{"float": "nan"}`` (or ``"inf"``, ``"-inf"``, ``"bits:<16 hex
digits>"`` for a NaN of other bits) for a float that is not finite,
``{"dict": {...}}`` for a mapping whose one key is a tag. Values nest at most
:data:`~agentmetrics.runs._provenance.MAX_DEPTH` levels.
"""

from __future__ import annotations

import json
import math
import os
import struct
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

import attrs
import numpy as np

from agentmetrics._base._arrays import FloatArray
from agentmetrics._base._lines import SourceError, lines
from agentmetrics._base._version import __version__
from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.results._config import RunConfig, run_config
from agentmetrics.runs._provenance import (
    FLAG,
    MAX_DEPTH,
    OBJECT,
    WHOLE,
    FieldError,
    Provenance,
    describe,
    fields_of,
    flag,
    parse_provenance,
    whole,
)

__all__ = ["CASE_FIELDS", "DECODER", "FIELDS", "FORMAT_KEY", "FORMAT_VERSION", "PLAIN_VERSION",
           "ROWS_KEY", "SUFFIXES", "Header",
           "check_header", "decode_json", "decode_score", "decode_value",
           "encode_field", "encode_id", "encode_metadata", "encode_score", "form_of", "is_saved_run",
           "looks_like_parquet", "split_text"]

#: The header key that marks a saved run; its value is the format's version.
FORMAT_KEY = "agentmetrics_run"
#: The newest version this agentmetrics writes and reads. Format 2 added the
#: header's ``case_fields`` and those fields in each row; format 1 is read as a
#: run that kept none. Format 3 added the header's ``config`` (what the run was
#: made with); a run without a configuration is written as format 2, which
#: agentmetrics before it reads too, and a run of format 1 or 2 reads as one
#: with an empty configuration.
FORMAT_VERSION = 3
#: The format of a run without a configuration: the oldest that holds it.
PLAIN_VERSION = 2

#: The case fields a saved run keeps (beyond the calls and the metadata),
#: each where any case has it, in this order: what a run needs to be audited
#: and scored again.
CASE_FIELDS = ("input", "actual_output", "expected_output", "latency", "cost", "usage")

#: The key of a JSON file's document that holds its rows (the rest is the header).
ROWS_KEY = "rows"
#: What each metric's entry of a row holds, in order (the header's ``fields``).
FIELDS = ["value", "passed", "reason", "error"]

RunFormat = Literal["jsonl", "json", "parquet"]

#: The suffixes that choose a form when ``format`` is not given (any case;
#: ``.gz`` gzips the JSON forms).
SUFFIXES: dict[str, RunFormat] = {".jsonl": "jsonl", ".jsonl.gz": "jsonl", ".json": "json",
                                  ".json.gz": "json", ".parquet": "parquet"}
_FORMS = ("jsonl", "json", "parquet")

_TAGS = frozenset({"tuple", "float", "dict"})
_CANONICAL_NAN = struct.unpack("<Q", struct.pack("<d", math.nan))[0]


def form_of(path: str | os.PathLike[str], format: str | None) -> RunFormat:
    """The form ``path`` is written in: ``format`` when given, else its suffix."""
    if format is not None:
        if format not in _FORMS:
            raise InvalidParameterError(
                f"format: expected 'jsonl', 'json' or 'parquet' (or None to go by the "
                f"suffix), got {format!r}.")
        return format  # type: ignore[return-value]
    name = Path(path).name.lower()
    for suffix, form in SUFFIXES.items():
        if name.endswith(suffix):
            return form
    raise InvalidParameterError(
        f"{os.fspath(path)}: cannot tell the form of a saved run from the name; expected a "
        f"name ending in {', '.join(SUFFIXES)} (the accepted suffixes). Fix: name the file "
        f"e.g. run.jsonl, run.json or run.parquet, or pass format='jsonl', 'json' or "
        f"'parquet'.")


# -- values --------------------------------------------------------------------


def _float(value: float) -> Any:
    if math.isfinite(value):
        return value
    if value == math.inf:
        return {"float": "inf"}
    if value == -math.inf:
        return {"float": "-inf"}
    bits = struct.unpack("<Q", struct.pack("<d", value))[0]
    return {"float": "nan" if bits == _CANONICAL_NAN else f"bits:{bits:016x}"}


def _encode(value: Any, where: Callable[[], str], containers: bool, depth: int = 1) -> Any:
    """``value`` as JSON that :func:`decode_value` gives back exactly, with
    its type: None, bool, int, float, str and tuples of them (and, with
    ``containers``, lists and mappings with str keys). Subclasses (numpy's
    scalars among them) are refused: they would come back as their base; so
    is a value nested deeper than MAX_DEPTH (it could not be read back).
    ``depth``: the levels of JSON around ``value``."""
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value
    if kind is float:
        return _float(value)
    tagged = kind is dict and len(value) == 1 and next(iter(value)) in _TAGS
    if kind in (tuple, list, dict) and depth + (kind is tuple or tagged) > MAX_DEPTH:
        raise InvalidParameterError(
            f"{where()}: a value nested deeper than {MAX_DEPTH} levels (lists, tuples and "
            f"dicts inside one another); a saved run keeps at most {MAX_DEPTH}, so that every "
            f"file saved can be read back. Fix: flatten it before evaluating (or save with "
            f"metadata=False to leave the metadata out).")
    if kind is tuple:
        return {"tuple": [_encode(item, where, containers, depth + 2) for item in value]}
    if containers and kind is list:
        return [_encode(item, where, containers, depth + 1) for item in value]
    if containers and kind is dict and all(type(key) is str for key in value):
        encoded = {key: _encode(item, where, containers, depth + 1 + tagged)
                   for key, item in value.items()}
        return {"dict": encoded} if tagged else encoded
    allowed = ("None, bool, int, float, str, or tuples, lists and dicts (str keys) of them"
               if containers else "None, bool, int, float, str, or a tuple of them")
    shown = kind.__qualname__ if kind.__module__ == "builtins" else (
        f"{kind.__module__}.{kind.__qualname__}")
    raise InvalidParameterError(
        f"{where()}: a value of type {shown} ({value!r:.60}) "
        f"cannot be saved so that it reads back as it is; a saved run keeps {allowed}, "
        f"each with its exact type. Fix: convert it to one of those (e.g. str(...) or "
        f"int(...)) before evaluating.")


def encode_id(value: Any, row: int) -> Any:
    """A case id as JSON (see :func:`_encode`)."""
    return _encode(value, lambda: f"case {row}: its id", containers=False)


def encode_metadata(metadata: Mapping[str, Any], row: int) -> Any:
    """A case's metadata as a JSON object."""
    if type(metadata) is not dict or not all(type(key) is str for key in metadata):
        raise InvalidParameterError(
            f"case {row}: its metadata is {type(metadata).__name__} with keys "
            f"{list(metadata)[:5]!r}; a saved run keeps a dict with str keys. Fix: give the "
            f"case a plain dict, or save with metadata=False.")
    return {key: _encode(item, lambda key=key: f"case {row}: metadata[{key!r}]",  # type: ignore[misc]
                         containers=True, depth=2) for key, item in metadata.items()}


def encode_field(value: Any, name: str, row: int) -> Any:
    """A case field's value as JSON (see :func:`_encode`; lists and mappings
    with str keys are kept, each value with its type)."""
    return _encode(value, lambda: f"case {row}: its {name}", containers=True)


def decode_value(value: Any, depth: int = 1) -> Any:
    """What :func:`_encode` encoded. Raises ValueError for what it never
    writes, a value nested deeper than MAX_DEPTH among them (``depth``: the
    levels of JSON ``value`` is, counting itself)."""
    kind = type(value)
    if value is None or kind in (bool, str, int, float):
        return value
    if depth > MAX_DEPTH:
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels (what save never writes)")
    if kind is list:
        return [decode_value(item, depth + 1) for item in value]
    if kind is dict:
        if len(value) == 1:
            (tag, inner), = value.items()
            if tag in ("tuple", "dict") and depth + 1 > MAX_DEPTH:
                raise ValueError(f"nested deeper than {MAX_DEPTH} levels (what save never "
                                 f"writes)")
            if tag == "tuple":
                if type(inner) is not list:
                    raise ValueError(f"a tuple tag holds {type(inner).__name__}, not a list")
                return tuple(decode_value(item, depth + 2) for item in inner)
            if tag == "float":
                return _decode_float(inner)
            if tag == "dict":
                if type(inner) is not dict:
                    raise ValueError(f"a dict tag holds {type(inner).__name__}, not an object")
                return {key: decode_value(item, depth + 2) for key, item in inner.items()}
        return {key: decode_value(item, depth + 1) for key, item in value.items()}
    raise ValueError(f"unexpected {kind.__name__}")


def _decode_float(text: Any) -> float:
    if text == "nan":
        return math.nan
    if text == "inf":
        return math.inf
    if text == "-inf":
        return -math.inf
    if isinstance(text, str) and text.startswith("bits:") and len(text) == 21:
        value: float = struct.unpack("<d", struct.pack("<Q", int(text[5:], 16)))[0]
        if math.isnan(value):
            return value
    raise ValueError(f"a float tag holds {text!r}; expected 'nan', 'inf', '-inf' or 'bits:<hex>'")


def encode_score(value: float) -> Any:
    """A metric's value: the number, null for NaN, or a float tag (infinities,
    NaNs of other bits)."""
    if math.isfinite(value):
        return value
    encoded = _float(value)
    return None if encoded == {"float": "nan"} else encoded


def decode_score(value: Any) -> float:
    """What :func:`encode_score` wrote; ValueError for anything else."""
    kind = type(value)
    if kind is float:
        return value  # type: ignore[no-any-return]
    if kind is int:
        return float(value)
    if value is None:
        return math.nan
    if kind is dict and len(value) == 1 and "float" in value:
        return _decode_float(value["float"])
    raise ValueError(f"expected a number or null, got {value!r:.40}")


# -- the header ----------------------------------------------------------------


@attrs.frozen(slots=True)
class Header:
    """A saved run's header, every field checked: the number of ``cases``,
    whether the rows hold ``ids`` and ``metadata``, the provenance, and the
    ``case_fields`` each row holds (none in a run of format 1)."""

    cases: int
    ids: bool
    metadata: bool
    provenance: Provenance
    case_fields: tuple[str, ...] = ()
    #: Per metric that declares per-case statistics, each column (float64).
    statistics: Mapping[str, Mapping[str, FloatArray]] = attrs.field(factory=dict)
    #: What the run was made with (empty before format 3).
    config: RunConfig = attrs.field(factory=RunConfig)


#: The header's fields (the version is checked before them).
_HEADER_FIELDS = {FORMAT_KEY: "a format version, a whole number from 1",
                  "cases": f"the number of cases, {WHOLE}", "ids": FLAG, "metadata": FLAG,
                  "fields": f"the list {json.dumps(FIELDS)} (format {FORMAT_VERSION})",
                  "provenance": f"{OBJECT} (where the run comes from)"}
_CASE_FIELDS_EXPECTED = (f"a list of case fields the rows hold, each once, in the order "
                         f"{json.dumps(list(CASE_FIELDS))}")
_CONFIG_EXPECTED = ("an object of what the run was made with: at most 64 names, each value a "
                    "string, a number, true, false or null")


def check_header(header: Any, where: str) -> Header:
    """The header of a saved run, checked: its version is one this
    agentmetrics reads, and every field (the provenance's too) has its JSON
    type, never converted; InvalidCaseError names the first that has not.
    ``where`` is the file and the header's place in it."""
    if not isinstance(header, dict) or FORMAT_KEY not in header:
        raise InvalidCaseError(
            f"{where}: not a saved run; expected a header with {FORMAT_KEY!r} (what "
            f"EvaluationResult.save and `agentmetrics evaluate --save` write), got "
            f"{_shape(header)}. Fix: pass a file written by save(); a cases file is scored "
            f"with agentmetrics.evaluate or `agentmetrics evaluate`.")
    version = header[FORMAT_KEY]
    if type(version) is not int or version < 1:
        raise InvalidCaseError(
            f"{where}: {FORMAT_KEY!r} is {describe(version)}; expected a format version, a "
            f"whole number from 1 (not a string or a boolean). The file is damaged or was "
            f"edited. Fix: write it as {FORMAT_VERSION}, or save the run again.")
    if version > FORMAT_VERSION:
        raise InvalidCaseError(
            f"{where}: a saved run of format {version}, written by a newer agentmetrics; "
            f"this one ({_version()}) reads format {FORMAT_VERSION} and older. Fix: upgrade "
            f"agentmetrics (pip install -U agent-tool-metrics).")
    try:
        return _header(header, version)
    except FieldError as error:
        action = "remove" if error.unknown else "write"
        raise InvalidCaseError(
            f"{where}: the header field {error.path} is {error.found}; expected "
            f"{error.expected}. A saved run's fields are read as what they are, never "
            f"converted (the string \"false\" is not false, \"0.8\" is not a number). Fix: "
            f"the file was edited or damaged: {action} {error.path}"
            f"{'' if error.unknown else ' as expected'}, or save the run again from its "
            f"result.") from None


def _header(header: dict[str, Any], version: int) -> Header:
    fields_of(header, "", _HEADER_FIELDS, ("case_fields", "statistics")
              + (("config",) if version >= 3 else ()))
    case_fields = header.get("case_fields", [])
    if type(case_fields) is not list or not all(
            type(field) is str and field in CASE_FIELDS for field in case_fields) or (
            case_fields != [field for field in CASE_FIELDS if field in case_fields]):
        raise FieldError("case_fields", _CASE_FIELDS_EXPECTED, describe(case_fields))
    cases = whole(header["cases"], "cases")
    ids, metadata = flag(header["ids"], "ids"), flag(header["metadata"], "metadata")
    written = header["fields"]
    if type(written) is not list or written != FIELDS or not all(
            type(field) is str for field in written):
        shown = f" {json.dumps(written)[:80]}" if type(written) is list else ""
        raise FieldError("fields", _HEADER_FIELDS["fields"], describe(written) + shown)
    if not isinstance(header["provenance"], dict):
        raise FieldError("provenance", _HEADER_FIELDS["provenance"],
                         describe(header["provenance"]))
    provenance = parse_provenance(header["provenance"])
    if provenance.cases != cases:
        raise FieldError("provenance.cases", f"{cases}, the header's cases",
                         describe(provenance.cases))
    labels: set[str] = set()
    for k, spec in enumerate(provenance.metrics):
        if spec.label in labels:
            raise FieldError(f"provenance.metrics[{k}].label", "a label no other metric of the "
                             "run has", describe(spec.label) + ", there twice")
        labels.add(spec.label)
    statistics = _statistics(header.get("statistics", _NONE_WRITTEN), provenance, cases)
    return Header(cases, ids, metadata, provenance, tuple(case_fields), statistics,
                  _config(header.get("config", {})))


def _config(written: Any) -> RunConfig:
    """The header's ``config``: an object of JSON scalars, checked as
    ``evaluate(config=...)`` checks it (and masked as it masks it)."""
    if type(written) is not dict:
        raise FieldError("config", _CONFIG_EXPECTED, describe(written))
    try:
        return run_config(written, "config")
    except InvalidParameterError as error:  # "config['k']: what; got found. Fix: ..."
        path, _, rest = str(error).partition(": ")
        what, _, found = rest.partition("; got ")
        raise FieldError(path, f"{_CONFIG_EXPECTED} ({what})",
                         found.split(". Fix:", 1)[0]) from None


_NONE_WRITTEN = object()


def _statistics(written: Any, provenance: Provenance, cases: int
                ) -> dict[str, dict[str, FloatArray]]:
    """The per-case statistics columns of the metrics that declare them:
    exactly those metrics, each with exactly its declared names, each a list
    of ``cases`` numbers (null for a case that was not scored)."""
    declared = {spec.label: spec.statistics for spec in provenance.metrics if spec.statistics}
    expected = (f"an object with, for each metric that declares per-case statistics "
                f"({sorted(declared) or 'none here'}), an object of their columns, each a "
                f"list of {cases} numbers or nulls")
    if written is _NONE_WRITTEN:
        if not declared:
            return {}
        raise FieldError("statistics", expected, "nothing (the field is missing)")
    if type(written) is not dict or set(written) != set(declared):
        raise FieldError("statistics", expected, describe(written))
    columns: dict[str, dict[str, FloatArray]] = {}
    for label, names in declared.items():
        found = written[label]
        if type(found) is not dict or set(found) != set(names):
            raise FieldError(f"statistics.{label}", f"an object of the columns {list(names)}",
                             describe(found))
        columns[label] = {}
        for name in names:
            column = found[name]
            if type(column) is not list or len(column) != cases:
                raise FieldError(f"statistics.{label}.{name}",
                                 f"a list of {cases} numbers or nulls", describe(column))
            try:
                columns[label][name] = np.array([decode_score(value) for value in column],
                                                dtype=np.float64)
            except ValueError as error:
                raise FieldError(f"statistics.{label}.{name}", "numbers or nulls",
                                 str(error)) from None
    return columns


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object with the keys {sorted(value)[:8]}"
    return f"{type(value).__name__} {value!r:.60}"


def _version() -> str:

    return __version__


# -- the JSON forms' text --------------------------------------------------------


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: JSON as save writes it: NaN and Infinity (which JSON has not) are refused.
DECODER = json.JSONDecoder(parse_constant=_refuse)


def decode_json(text: str, where: str, lines_of: str | None = None) -> Any:
    """The one JSON value of ``text``; InvalidCaseError naming ``where`` when
    it is not one, or nests deeper than Python can read. ``lines_of``: the
    file ``text`` is the whole of, so that the message names the line
    (``file:7``) rather than ``where``."""
    try:
        return DECODER.decode(text)
    except RecursionError:
        if lines_of is not None:
            where = f"{lines_of}:{_deep_line(text)}"
        raise InvalidCaseError(
            f"{where}: nested too deeply to read (lists and objects inside one another, far "
            f"more than the {MAX_DEPTH} levels save writes). The file was edited or is not a "
            f"saved run; save the run again.") from None
    except ValueError as error:
        line = getattr(error, "lineno", None)
        place = f"{lines_of}:{line}" if lines_of is not None and line is not None else where
        raise InvalidCaseError(f"{place}: expected one JSON object of a saved run, got "
                               f"invalid JSON ({error}). The file may be cut short or edited; "
                               f"save the run again.") from None


def _deep_line(text: str) -> int:
    """The line where ``text`` first nests deeper than MAX_DEPTH (outside
    strings); the last line if it never does."""
    depth, line, quoted, escaped = 0, 1, False, False
    for char in text:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in "[{":
            depth += 1
            if depth > MAX_DEPTH + 1:  # the document itself is a level
                return line
        elif char in "]}":
            depth -= 1
        if char == "\n":
            line += 1
    return line


@attrs.frozen(slots=True)
class TextRun:
    """A saved run in a JSON form, split: its ``header`` (not yet checked),
    the ``where`` of the header for messages, its ``rows`` (the lines after
    the header, text, for JSON lines; the parsed rows for a JSON document) and
    whether it is a ``document``."""

    header: Any
    where: str
    rows: list[Any]
    document: bool


def split_text(text: str, name: str) -> TextRun:
    """JSON lines (a header line, then a line per case) or one JSON document
    (the header's fields and ``rows``), told apart by the first line: a whole
    JSON object without ``rows`` is a JSON lines header."""
    lines = text.split("\n")
    first = lines[0]
    header: Any = None
    if first.strip():
        try:
            header = DECODER.decode(first)
        except (ValueError, RecursionError):
            if first.rstrip().endswith(("[", "{")):  # a document's first line opens it
                return _document(text, name)
            header = decode_json(first, f"{name}:1")  # a broken header: said with its line
    elif text.strip():
        return _document(text, name)
    if isinstance(header, dict) and ROWS_KEY in header:
        return _document(text, name)
    if lines[-1] == "":
        lines.pop()
    return TextRun(header, f"{name}:1", lines[1:], False)


def _document(text: str, name: str) -> TextRun:
    document = decode_json(text, name, lines_of=name)
    where = f"{name} (the document's header)"
    if not isinstance(document, dict) or ROWS_KEY not in document:
        return TextRun(document, where, [], True)  # check_header says what it is not
    rows = document.pop(ROWS_KEY)
    if type(rows) is not list:
        raise InvalidCaseError(f"{name}: the document's {ROWS_KEY!r} is {describe(rows)}; "
                               f"expected a list of cases. The saved run is damaged (edited, "
                               f"or cut short); save the run again.")
    return TextRun(document, where, rows, True)


# -- recognising a saved run ---------------------------------------------------


def looks_like_parquet(path: str | os.PathLike[str]) -> bool:
    """A ``.parquet`` name, or a file that starts with Parquet's magic bytes."""
    if os.fspath(path).lower().endswith(".parquet"):
        return True
    try:
        with open(path, "rb") as handle:
            return handle.read(4) == b"PAR1"
    except OSError:
        return False


def is_saved_run(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a saved run (either form), from its first bytes
    and header; False for anything else (a cases file, saved rows, a file
    that is not there). A Parquet file counts as one when pyarrow, needed to
    read it, is not installed: loading it then says what to install."""
    if looks_like_parquet(path):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            return True
        try:
            metadata = pq.read_schema(path).metadata or {}
        except Exception:  # not a readable Parquet file: not ours to say more
            return False
        return FORMAT_KEY.encode() in metadata

    head = ""
    try:
        for number, line in enumerate(lines(path)):
            text = line.text
            if text is None or (not text.strip() and not head):
                return False
            head += text.strip()  # a document another program indented: its first lines
            if len(head) >= 64 or number >= 3:
                break
    except (SourceError, OSError):
        return False
    return head.startswith("{") and f'"{FORMAT_KEY}"' in head[:64]
