"""A saved file's identity: the digest of what it holds, and which files this
process has just written.

A saved run is known by two things. Its provenance's ``uid`` (random, made
with the result's provenance) says which run it is; the digest says what the
file holds: a SHA-256 of the text of a JSON form (before any gzip, so that
gzipping a file again keeps it) or of a Parquet file's bytes. The run history
records both when a run is saved, and checks both when it loads the run back:
a file saved over since holds another uid, a file edited since another digest.

``save`` hashes the bytes as it writes them and remembers them here (by the
file's path, inode, size and modification time, and the result saved), so that
recording the run right after reads nothing back. A file this process did not
just write is read and hashed, and its provenance must be the result's.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import threading
import zlib
from pathlib import Path
from typing import Any

import attrs

from agentmetrics._base._optional import require
from agentmetrics.errors import InvalidCaseError
from agentmetrics.runs._format import (
    FORMAT_KEY,
    check_header,
    decode_json,
    looks_like_parquet,
    split_text,
)
from agentmetrics.runs._provenance import Provenance

__all__ = ["digest_of", "new_hash", "read_bytes", "read_identity", "recall",
           "remember"]

#: The files remembered at most (the newest).
_KEEP = 256


def new_hash() -> Any:
    """A running digest (``update(bytes)``; :func:`digest_of` its text)."""
    return hashlib.sha256()


def digest_of(running: Any) -> str:
    """A running digest's text, ``sha256:`` and 64 hexadecimal digits."""
    return f"sha256:{running.hexdigest()}"


def read_bytes(path: Path) -> bytes:
    """What a saved run file holds: its bytes, gunzipped when gzipped."""
    name = os.fspath(path)
    try:
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except (OSError, EOFError, zlib.error) as error:
        raise InvalidCaseError(f"{name}: cannot read the saved run ({error}). It may be cut "
                               f"short; save the run again.") from None
    return data


@attrs.frozen(slots=True)
class _Written:
    result: int  # id() of the result saved
    uid: str
    digest: str


_WRITTEN: dict[str, _Written] = {}
_LOCK = threading.Lock()


def remember(path: Path, result: object, uid: str, digest: str) -> None:
    """Note that ``result`` (of provenance ``uid``) was just saved at
    ``path``, as a file of ``digest``."""
    key = os.path.abspath(path)
    with _LOCK:
        _WRITTEN.pop(key, None)
        _WRITTEN[key] = _Written(id(result), uid, digest)
        while len(_WRITTEN) > _KEEP:
            del _WRITTEN[next(iter(_WRITTEN))]


def recall(path: str, result: object, uid: str) -> str | None:
    """The digest of the file this process last saved at ``path``, if that was
    ``result``; None otherwise. The file may have been saved over since (by
    another process): what the history records is the file this run was
    saved as, so loading it then finds another file and refuses it."""
    with _LOCK:
        written = _WRITTEN.get(path)
    if written is None or written.result != id(result) or written.uid != uid:
        return None
    return written.digest


def read_identity(path: Path) -> tuple[Provenance, str]:
    """The provenance and the digest of the saved run at ``path``, read (the
    header checked as loading checks it; the cases are not read)."""
    name = os.fspath(path)
    running = new_hash()
    if looks_like_parquet(path):

        pa = require("pyarrow", "arrow")
        pq = require("pyarrow.parquet", "arrow")
        try:
            data = path.read_bytes()
            running.update(data)
            metadata = pq.read_schema(pa.BufferReader(data)).metadata or {}
        except Exception as error:  # pyarrow's own errors: not a Parquet file
            raise InvalidCaseError(f"{name}: expected a saved run in Parquet, but it cannot be "
                                   f"read ({type(error).__name__}: {error}).") from None
        raw = metadata.get(FORMAT_KEY.encode())
        where = f"{name} (Parquet schema metadata)"
        try:
            text = None if raw is None else raw.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidCaseError(f"{where}: not UTF-8; the file is damaged.") from None
        header = check_header(None if text is None else decode_json(text, where), where)
        return header.provenance, digest_of(running)
    data = read_bytes(path)
    running.update(data)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InvalidCaseError(f"{name}: not UTF-8 ({error.reason}); expected a saved run.") \
            from None
    split = split_text(text, name)
    return check_header(split.header, split.where).provenance, digest_of(running)
