"""What a saved run file is: its version, the suffixes that choose its form,
the exact JSON encoding of ids, metadata and scores, and how a file is
recognised as one.

Both forms hold the same header (``{"agentmetrics_run": 1, ...}``): the first
line of a JSONL file, the ``agentmetrics_run`` key of a Parquet file's schema
metadata. Values JSON has no form for are tagged, never approximated:
``{"tuple": [...]}`` for a tuple, ``{"float": "nan"}`` (or ``"inf"``,
``"-inf"``, ``"bits:<16 hex digits>"`` for a NaN of other bits) for a float
that is not finite, ``{"dict": {...}}`` for a mapping whose one key is a tag.
"""

from __future__ import annotations

import math
import os
import struct
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from agentmetrics.errors import InvalidCaseError, InvalidParameterError

__all__ = ["FORMAT_KEY", "FORMAT_VERSION", "check_header", "decode_score", "decode_value",
           "encode_id", "encode_metadata", "encode_score", "form_of", "is_saved_run",
           "looks_like_parquet"]

#: The header key that marks a saved run; its value is the format's version.
FORMAT_KEY = "agentmetrics_run"
#: The version this agentmetrics writes and the newest it reads.
FORMAT_VERSION = 1

RunFormat = Literal["jsonl", "parquet"]

#: The suffixes that choose a form when ``format`` is not given.
SUFFIXES: dict[str, RunFormat] = {".jsonl": "jsonl", ".jsonl.gz": "jsonl", ".parquet": "parquet"}

_TAGS = frozenset({"tuple", "float", "dict"})
_CANONICAL_NAN = struct.unpack("<Q", struct.pack("<d", math.nan))[0]


def form_of(path: str | os.PathLike[str], format: str | None) -> RunFormat:
    """The form ``path`` is written in: ``format`` when given, else its suffix."""
    if format is not None:
        if format not in ("jsonl", "parquet"):
            raise InvalidParameterError(
                f"format: expected 'jsonl' or 'parquet' (or None to go by the suffix), got "
                f"{format!r}.")
        return format  # type: ignore[return-value]
    name = Path(path).name.lower()
    for suffix, form in SUFFIXES.items():
        if name.endswith(suffix):
            return form
    raise InvalidParameterError(
        f"{os.fspath(path)}: cannot tell the form of a saved run from the name; expected a "
        f"name ending in {', '.join(SUFFIXES)}. Fix: name the file e.g. run.jsonl or "
        f"run.parquet, or pass format='jsonl' or format='parquet'.")


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


def _encode(value: Any, where: Callable[[], str], containers: bool) -> Any:
    """``value`` as JSON that :func:`decode_value` gives back exactly, with
    its type: None, bool, int, float, str and tuples of them (and, with
    ``containers``, lists and mappings with str keys). Subclasses (numpy's
    scalars among them) are refused: they would come back as their base."""
    kind = type(value)
    if value is None or kind is bool or kind is str:
        return value
    if kind is int:
        return value
    if kind is float:
        return _float(value)
    if kind is tuple:
        return {"tuple": [_encode(item, where, containers) for item in value]}
    if containers and kind is list:
        return [_encode(item, where, containers) for item in value]
    if containers and kind is dict and all(type(key) is str for key in value):
        encoded = {key: _encode(item, where, containers) for key, item in value.items()}
        return {"dict": encoded} if len(encoded) == 1 and next(iter(encoded)) in _TAGS else encoded
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
                         containers=True) for key, item in metadata.items()}


def decode_value(value: Any) -> Any:
    """What :func:`_encode` encoded. Raises ValueError for what it never writes."""
    kind = type(value)
    if value is None or kind in (bool, str, int, float):
        return value
    if kind is list:
        return [decode_value(item) for item in value]
    if kind is dict:
        if len(value) == 1:
            (tag, inner), = value.items()
            if tag == "tuple":
                if type(inner) is not list:
                    raise ValueError(f"a tuple tag holds {type(inner).__name__}, not a list")
                return tuple(decode_value(item) for item in inner)
            if tag == "float":
                return _decode_float(inner)
            if tag == "dict":
                if type(inner) is not dict:
                    raise ValueError(f"a dict tag holds {type(inner).__name__}, not an object")
                return {key: decode_value(item) for key, item in inner.items()}
        return {key: decode_value(item) for key, item in value.items()}
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


def check_header(header: Any, where: str) -> dict[str, Any]:
    """The header of a saved run, checked: its version is one this
    agentmetrics reads."""
    if not isinstance(header, dict) or FORMAT_KEY not in header:
        raise InvalidCaseError(
            f"{where}: not a saved run; expected a header with {FORMAT_KEY!r} (what "
            f"EvaluationResult.save and `agentmetrics evaluate --save` write), got "
            f"{_shape(header)}. Fix: pass a file written by save(); a cases file is scored "
            f"with agentmetrics.evaluate or `agentmetrics evaluate`.")
    version = header[FORMAT_KEY]
    if type(version) is not int or version < 1:
        raise InvalidCaseError(
            f"{where}: {FORMAT_KEY!r} is {version!r}; expected a format version, a whole "
            f"number from 1. The file is damaged.")
    if version > FORMAT_VERSION:
        raise InvalidCaseError(
            f"{where}: a saved run of format {version}, written by a newer agentmetrics; "
            f"this one ({_version()}) reads format {FORMAT_VERSION} and older. Fix: upgrade "
            f"agentmetrics (pip install -U agent-tool-metrics).")
    for key, kind in (("provenance", dict), ("ids", bool), ("metadata", bool)):
        if type(header.get(key)) is not kind:
            raise InvalidCaseError(
                f"{where}: the header's {key!r} is {_shape(header.get(key))}; expected "
                f"{'an object' if kind is dict else 'true or false'}. The file is damaged.")
    return header


def _shape(value: Any) -> str:
    if isinstance(value, dict):
        return f"an object with the keys {sorted(value)[:8]}"
    return f"{type(value).__name__} {value!r:.60}"


def _version() -> str:
    from agentmetrics._version import __version__

    return __version__


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
    from agentmetrics._lines import SourceError, lines

    try:
        for line in lines(path):
            text = line.text
            if text is None or not text.strip():
                return False
            head = text.lstrip()[:64]
            return head.startswith("{") and f'"{FORMAT_KEY}"' in head
    except (SourceError, OSError):
        return False
    return False
