"""Scores kept on disk: a re-run never pays twice for a slow metric's work.

The cache is one SQLite file (standard library, no server). A score is keyed
by the metric's class, its version, its parameters (less those it declares in
``cache_exclude``, and the threshold: ``passed`` is decided again with the
threshold in use) and a fingerprint of the case fields it reads
(``cache_fields``). So a changed metric version, a changed parameter or a
changed case never reuses an old score. What is stored is the value and the
reason; errors are never stored, so a failure is tried again next time.

SQLite's write-ahead log makes the file safe to share between threads (one
connection each) and processes (its own locking); writes are batched in
transactions and ``INSERT OR REPLACE`` makes a write that races another a
no-op.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics._model import AgentTestCase, ToolCall
from agentmetrics.errors import InvalidParameterError

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._metric import Metric

__all__ = ["CacheStats", "ScoreCache", "case_keys", "metric_identity"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scores (
    key TEXT PRIMARY KEY,
    metric TEXT NOT NULL,
    version TEXT NOT NULL,
    value REAL NOT NULL,
    reason TEXT NOT NULL,
    created REAL NOT NULL
)
"""
#: Keys asked for in one SELECT (SQLite allows 32,766 parameters).
_LOOKUP = 900


@attrs.frozen(slots=True)
class CacheStats:
    """How many of a metric's cases were found in the cache and how many were scored."""

    hits: int
    misses: int


class ScoreCache:
    """Scores in a SQLite file at ``path`` (created if missing)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []  # every thread's, for close()
        self._lock = threading.Lock()
        self._connection()  # fail now, with the path, if the file cannot be used

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            try:
                # One connection a thread; close() may close them from any thread.
                connection = sqlite3.connect(self.path, timeout=60.0, isolation_level=None,
                                             check_same_thread=False)
                connection.execute("PRAGMA journal_mode=WAL")
                connection.execute("PRAGMA synchronous=NORMAL")
                connection.execute(_SCHEMA)
            except sqlite3.Error as error:
                raise InvalidParameterError(
                    f"cache: cannot use {self.path!r} as a score cache ({error}). Fix: pass the "
                    f"path of a new file, or of a cache agentmetrics wrote."
                ) from None
            self._local.connection = connection
            with self._lock:
                self._opened.append(connection)
        return connection

    def get_many(self, keys: Sequence[str]) -> dict[str, tuple[float, str]]:
        """The cached ``(value, reason)`` of each key that has one."""
        found: dict[str, tuple[float, str]] = {}
        connection = self._connection()
        for start in range(0, len(keys), _LOOKUP):
            part = keys[start:start + _LOOKUP]
            marks = ",".join("?" * len(part))
            for key, value, reason in connection.execute(
                    f"SELECT key, value, reason FROM scores WHERE key IN ({marks})", part):
                found[key] = (value, reason)
        return found

    def put_many(self, rows: Iterable[tuple[str, str, str, float, str]]) -> None:
        """Store ``(key, metric, version, value, reason)`` rows in one transaction."""
        rows = list(rows)
        if not rows:
            return
        now = time.time()
        connection = self._connection()
        connection.execute("BEGIN IMMEDIATE")
        try:
            connection.executemany(
                "INSERT OR REPLACE INTO scores (key, metric, version, value, reason, created) "
                "VALUES (?, ?, ?, ?, ?, ?)", [(*row, now) for row in rows])
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def __len__(self) -> int:
        return int(self._connection().execute("SELECT count(*) FROM scores").fetchone()[0])

    def close(self) -> None:
        """Close every thread's connection (a later use opens new ones)."""
        with self._lock:
            opened, self._opened = self._opened, []
        for connection in opened:
            connection.close()
        self._local = threading.local()

    def __enter__(self) -> ScoreCache:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ScoreCache({self.path!r})"


def _plain(value: Any) -> Any:
    if isinstance(value, ToolCall):
        return {"name": value.name, "arguments": value.arguments, "id": value.id,
                "output": value.output, "raw_arguments": value.raw_arguments}
    return repr(value)  # anything else JSON cannot hold: its repr stands for it


def metric_identity(metric: Metric) -> str:
    """What a cached score depends on in the metric: class, version, parameters."""
    cls = type(metric)
    params = {key: value for key, value in metric.get_params().items()
              if key != "threshold" and key not in cls.cache_exclude}
    text = json.dumps([f"{cls.__module__}:{cls.__qualname__}", cls.version, params],
                      sort_keys=True, default=_plain, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def case_keys(metric: Metric, cases: Sequence[AgentTestCase]) -> list[str]:
    """One cache key per case: the metric's identity and the fields it reads."""
    identity = metric_identity(metric).encode()
    fields = type(metric).cache_fields
    encode = json.JSONEncoder(sort_keys=True, default=_plain, separators=(",", ":")).encode
    keys = []
    for case in cases:
        digest = hashlib.sha256(identity)
        digest.update(encode([getattr(case, field) for field in fields]).encode())
        keys.append(digest.hexdigest())
    return keys
