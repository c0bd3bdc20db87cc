"""Scores kept on disk: a re-run never pays twice for a slow metric's work.

The cache is one SQLite file (standard library, no server). A score is keyed
by the metric's class, its version, its parameters (less its
``secret_params``, those it declares in ``cache_exclude``, the credentials
of the URLs in the others, and the threshold: ``passed`` is decided again
with the threshold in use) and the case fields it reads (``cache_fields``,
and its ``required_fields`` too: a field it needs is a field it reads), all
in the canonical, type-tagged encoding of :mod:`agentmetrics.model._canonical`,
hashed with SHA-256. Two cases that differ in any field the metric reads
never share a key; a case (or a metric parameter) with a value that has no
faithful encoding is scored and counted as ``uncacheable``, never keyed
approximately. So is every case of a metric whose class is defined inside
a function (``make.<locals>.Judge``): two such classes share a name but
may score differently (a factory's closure), and nothing the key could
hold tells them apart. What is stored is the value and the reason; errors
are never stored, so a failure is tried again next time.

The file says what it is (a ``meta`` table naming the format): a file of
another program, one with any schema object agentmetrics does not create (a
table, a view, an index, a trigger that would rewrite what is written), or
one whose rows do not hold what agentmetrics writes (a value out of [0, 1],
a reason that is not text, a row filed under another metric or version than
its key's) is refused with a :class:`~agentmetrics.errors.CacheError` naming
the file and the fix, never blamed on the metric. A write that fails (the
database locked past ``timeout``, a read-only file) raises
:class:`CacheWriteError`, which the runner turns into a warning with a count:
the scores are kept in the result, only not saved.

SQLite's write-ahead log makes the file safe to share between threads (one
connection each) and processes (its own locking); writes are batched in
transactions and ``INSERT OR REPLACE`` makes a write that races another a
no-op.
"""

from __future__ import annotations

import hashlib
import math
import os
import re
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics._secrets import strip_credentials
from agentmetrics.errors import CacheError
from agentmetrics.metric._metric import Metric
from agentmetrics.model._canonical import Unencodable, encode, encode_fields
from agentmetrics.model._model import AgentTestCase

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.metric._metric import Metric

__all__ = ["CacheReadError", "CacheStats", "CacheWriteError", "ScoreCache", "case_keys",
           "keyed_fields", "metric_identity", "metric_name", "uncacheable_reason"]

#: The format this module writes, kept in the file's ``meta`` table.
FORMAT = "agentmetrics-score-cache/2"
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
_META = "CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
#: Every schema object of a score cache: its two tables and their primary keys'
#: indexes. Anything else (a view, an index, a trigger) is not agentmetrics'.
_OBJECTS = {("table", "scores"), ("table", "meta"), ("index", "sqlite_autoindex_scores_1"),
            ("index", "sqlite_autoindex_meta_1")}
_COLUMNS = ("key", "metric", "version", "value", "reason", "created")
_KEY = re.compile(r"^[0-9a-f]{64}$")
#: Keys asked for in one SELECT (SQLite allows 32,766 parameters).
_LOOKUP = 900
_DELETE = "Fix: pass cache= the path of a new file, or delete {path} (its scores are computed again)."


class CacheReadError(CacheError):
    """The cache could not be read just now (locked, an I/O error): the runner
    scores the cases instead and warns."""


class CacheWriteError(CacheError):
    """Scores could not be written (locked past the timeout, a read-only
    file): the runner keeps them in the result, counts them and warns."""


@attrs.frozen(slots=True, repr=False)
class CacheStats:
    """How a metric's cases met the cache: ``hits`` found, ``misses`` scored
    (and saved), ``uncacheable`` scored but never looked up or saved (a field
    or parameter with no faithful encoding), ``unwritten`` scored but not
    saved because the write failed."""

    hits: int
    misses: int
    uncacheable: int = attrs.field(default=0, kw_only=True)
    unwritten: int = attrs.field(default=0, kw_only=True)

    def __repr__(self) -> str:
        extra = "".join(f", {name}={getattr(self, name)}" for name in ("uncacheable", "unwritten")
                        if getattr(self, name))
        return f"CacheStats(hits={self.hits}, misses={self.misses}{extra})"


class ScoreCache:
    """Scores in a SQLite file at ``path`` (created if missing).

    ``timeout`` is how long, in seconds, a read or a write waits for another
    connection's lock before it fails (a failed write is a warning, not a
    lost run)."""

    def __init__(self, path: str | os.PathLike[str], *, timeout: float = 60.0) -> None:
        if not isinstance(path, (str, os.PathLike)):
            raise CacheError(f"cache: expected the path of a cache file, got "
                             f"{type(path).__name__} {path!r}. Fix: pass e.g. "
                             f"cache='scores.sqlite'.")
        self.path = os.fspath(path)
        if isinstance(self.path, str) and "\0" in self.path:
            raise CacheError(
                f"cache: expected the path of a cache file, got {self.path!r}, which holds a "
                f"NUL character no file name can. Fix: pass e.g. cache='scores.sqlite'.")
        if not isinstance(self.path, str) or self.path.strip() in ("", ":memory:") or (
                self.path.startswith("file:")):
            raise CacheError(
                f"cache: expected the path of a cache file, got {self.path!r}, which SQLite "
                f"would take for a throwaway database that keeps nothing. Fix: pass e.g. "
                f"cache='scores.sqlite', or cache=None for no cache.")
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not (
                math.isfinite(timeout) and timeout >= 0):
            raise CacheError(f"cache: timeout must be a number of seconds >= 0, got "
                             f"{timeout!r}. Fix: pass e.g. timeout=60.")
        self.timeout = float(timeout)
        self._local = threading.local()
        self._opened: list[sqlite3.Connection] = []  # every thread's, for close()
        self._lock = threading.Lock()
        self._connection()  # fail now, with the path, if the file cannot be used

    def _connection(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = self._open()
            self._local.connection = connection
            with self._lock:
                self._opened.append(connection)
        return connection

    def _open(self) -> sqlite3.Connection:
        if os.path.isdir(self.path):
            raise CacheError(f"cache: {self.path!r} is a directory; expected the path of a "
                             f"file. Fix: pass e.g. cache={os.path.join(self.path, 'scores.sqlite')!r}.")
        try:
            # One connection a thread; close() may close them from any thread.
            connection = sqlite3.connect(self.path, timeout=self.timeout, isolation_level=None,
                                         check_same_thread=False)
        except (sqlite3.Error, ValueError) as error:  # ValueError: a name SQLite cannot take
            raise CacheError(f"cache: cannot open {self.path!r} ({error}). "
                             + _DELETE.format(path=self.path)) from None
        try:
            objects = {(kind, name) for kind, name in connection.execute(
                "SELECT type, name FROM sqlite_master")}
            tables = {name for kind, name in objects if kind == "table"}
            self._check_foreign(connection, tables)
            self._check_objects(objects)
            if "scores" not in tables or "meta" not in tables:
                self._create(connection)
            else:
                try:
                    connection.execute("PRAGMA journal_mode=WAL")
                except sqlite3.OperationalError:
                    pass  # read-only or locked: reads still work, writes warn
            connection.execute("PRAGMA synchronous=NORMAL")
        except CacheError:
            connection.close()
            raise
        except sqlite3.Error as error:
            connection.close()
            what = ("is not an SQLite database" if isinstance(error, sqlite3.DatabaseError)
                    and not isinstance(error, sqlite3.OperationalError) else "cannot be used")
            raise CacheError(f"cache: {self.path!r} {what} ({error}). "
                             + _DELETE.format(path=self.path)) from None
        return connection

    def _check_foreign(self, connection: sqlite3.Connection, tables: set[str]) -> None:
        where = f"cache: {self.path!r}"
        if tables - {"scores", "meta"} or (tables and "scores" not in tables):
            raise CacheError(
                f"{where} holds tables of another program ({', '.join(sorted(tables))}); "
                f"expected a score cache agentmetrics wrote. Fix: pass cache= the path of a "
                f"new file (agentmetrics never writes into another program's database).")
        if "scores" in tables:
            columns = tuple(row[1] for row in connection.execute("PRAGMA table_info(scores)"))
            if columns != _COLUMNS:
                raise CacheError(
                    f"{where} has a table 'scores' with the columns {list(columns)}; expected "
                    f"{list(_COLUMNS)} (a score cache agentmetrics wrote). "
                    + _DELETE.format(path=self.path))
        if "meta" in tables:
            found = dict(connection.execute("SELECT name, value FROM meta").fetchall())
            if found.get("format") != FORMAT:
                raise CacheError(
                    f"{where} is a cache of format {found.get('format')!r}; expected {FORMAT!r}. "
                    + _DELETE.format(path=self.path))

    def _check_objects(self, objects: set[tuple[str, str]]) -> None:
        """Refuse a file with a schema object agentmetrics never creates: a
        trigger could rewrite every score written, a view or an index is
        someone else's."""
        extra = sorted(objects - _OBJECTS)
        if extra:
            shown = ", ".join(f"{kind} {name!r}" for kind, name in extra[:5])
            more = f" and {len(extra) - 5} more" if len(extra) > 5 else ""
            raise CacheError(
                f"cache: {self.path!r} holds {shown}{more}, which agentmetrics never creates; "
                f"expected a score cache of only the tables 'scores' and 'meta' (a trigger "
                f"could rewrite the scores written). The file was changed by something else. "
                + _DELETE.format(path=self.path))

    def _create(self, connection: sqlite3.Connection) -> None:
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(_SCHEMA)
            connection.execute(_META)
            connection.execute("INSERT OR IGNORE INTO meta (name, value) VALUES ('format', ?)",
                               (FORMAT,))
            connection.execute("COMMIT")
        except sqlite3.OperationalError as error:
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise CacheError(f"cache: cannot create a score cache in {self.path!r} ({error}). "
                             f"Fix: pass cache= a path in a directory you can write to.") from None

    def get_many(self, keys: Sequence[str], metric: str | None = None,
                 version: str | None = None) -> dict[str, tuple[float, str]]:
        """The cached ``(value, reason)`` of each key that has one; the keys of
        ``metric`` (see :func:`metric_name`) at ``version``, when given.

        CacheError for a row agentmetrics could not have written (tampered: a
        value out of [0, 1], or filed under another metric or version than
        the one its key was made for); CacheReadError when the file cannot be
        read now."""
        found: dict[str, tuple[float, str]] = {}
        try:
            connection = self._connection()
            for start in range(0, len(keys), _LOOKUP):
                part = keys[start:start + _LOOKUP]
                marks = ",".join("?" * len(part))
                for key, filed, at, value, reason in connection.execute(
                        f"SELECT key, metric, version, value, reason FROM scores "
                        f"WHERE key IN ({marks})", part):
                    if (metric is not None and filed != metric) or (
                            version is not None and str(at) != str(version)):
                        raise CacheError(
                            f"cache: {self.path!r} holds a row agentmetrics did not write: key "
                            f"{str(key)[:64]!r} is filed under {str(filed)[:80]!r} version "
                            f"{str(at)[:20]!r}; expected {metric!r} version {version!r}, the "
                            f"metric that key is made for: the file was changed by something else. "
                            + _DELETE.format(path=self.path))
                    found[key] = self._checked(key, value, reason)
        except sqlite3.OperationalError as error:
            raise CacheReadError(f"cache: could not read {self.path!r} ({error})") from None
        except sqlite3.DatabaseError as error:
            raise CacheError(f"cache: {self.path!r} is damaged ({error}). "
                             + _DELETE.format(path=self.path)) from None
        return found

    def _checked(self, key: object, value: object, reason: object) -> tuple[float, str]:
        if not (type(value) is float and 0.0 <= value <= 1.0) or not (
                isinstance(reason, str) and reason) or not (
                isinstance(key, str) and _KEY.match(key)):
            raise CacheError(
                f"cache: {self.path!r} holds a row agentmetrics did not write (key {key!r}: "
                f"value {value!r}, reason {str(reason)[:60]!r}; expected a value in [0, 1] and "
                f"a reason): the file was changed by something else. "
                + _DELETE.format(path=self.path))
        return value, reason

    def put_many(self, rows: Iterable[tuple[str, str, str, float, str]]) -> None:
        """Store ``(key, metric, version, value, reason)`` rows in one
        transaction; CacheWriteError (nothing stored) if the write fails."""
        rows = list(rows)
        if not rows:
            return
        now = time.time()
        try:
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
        except (sqlite3.Error, CacheError) as error:
            raise CacheWriteError(f"cache: could not write to {self.path!r} ({error})") from None

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


def _metric_stand_in(value: Any) -> Any:
    """A metric given as a parameter (a wrapper's inner metric), as its identity."""

    if isinstance(value, Metric):
        return _identity_parts(value)
    raise Unencodable(f"a {type(value).__module__}.{type(value).__qualname__}")


def metric_name(metric: Metric) -> str:
    """The class a score is filed under in the cache: ``module:qualname``."""
    cls = type(metric)
    return f"{cls.__module__}:{cls.__qualname__}"


def _local_class(metric: Metric) -> str | None:
    """Why ``metric``'s class cannot be told from another of its name: it is
    defined inside a function (None when it is not)."""
    qualname = type(metric).__qualname__
    if "<locals>" not in qualname:
        return None
    return (f"its class {qualname} is defined inside a function, and two classes made "
            f"there share that name whatever each one scores (a factory's closure)")


def _without_credentials(value: Any) -> Any:
    """A parameter's value with the credentials of its URLs taken out (a
    credential never changes a score, and a key must not let one be guessed)."""
    if isinstance(value, str):
        return strip_credentials(value)
    if isinstance(value, list):
        return [_without_credentials(item) for item in value]
    if type(value) is tuple:
        return tuple(_without_credentials(item) for item in value)
    if type(value) is dict:
        return {_without_credentials(key): _without_credentials(item)
                for key, item in value.items()}
    return value


def _identity_parts(metric: Metric) -> list[Any]:
    cls = type(metric)
    local = _local_class(metric)
    if local is not None:
        raise Unencodable(local)
    hidden = {"threshold", *cls.cache_exclude, *cls.secret_params}
    params = {key: _without_credentials(value) for key, value in metric.get_params().items()
              if key not in hidden}
    return [metric_name(metric), cls.version, params]


def metric_identity(metric: Metric) -> str | None:
    """What a cached score depends on in the metric: class, version, parameters
    (never its secrets, nor the credentials of its URLs); None when a
    parameter has no faithful encoding, or the class cannot be told apart
    from another of its name."""
    try:
        encoded = encode(_identity_parts(metric), _metric_stand_in)
    except Unencodable:
        return None
    return hashlib.sha256(FORMAT.encode() + b"\0" + encoded).hexdigest()


def uncacheable_reason(metric: Metric) -> str | None:
    """Why none of ``metric``'s scores can be cached, and the fix (a class
    defined inside a function, a parameter with no faithful encoding), or
    None when they can."""
    if type(metric).statistics:
        return ("it gives per-case statistics for its corpus-level aggregates "
                f"({', '.join(type(metric).statistics)}), which a cached score does not keep")
    local = _local_class(metric)
    if local is not None:
        return (f"{local}. Fix: define the class at module level, and pass what varies "
                f"between its metrics as a constructor parameter (parameters are keyed)")
    try:
        params = _identity_parts(metric)[2]
    except Unencodable as error:  # pragma: no cover - only the class is checked there
        return str(error)
    for key, value in params.items():
        try:
            encode(value, _metric_stand_in)
        except Unencodable as error:
            return (f"its parameter {key!r}{''.join(error.path)} is {error.what}, which has "
                    f"no faithful encoding in a cache key. Fix: give the parameter a plain "
                    f"value (str, number, list, dict), or list it in the metric's "
                    f"cache_exclude if it never changes a score")
    return None


def keyed_fields(cls: type[Metric]) -> tuple[str, ...]:
    """The case fields a score is keyed by: ``cache_fields``, then any of the
    declared inputs' fields they leave out (a field the metric needs, it reads;
    ``metadata`` for a value the metric reads from it)."""
    fields = tuple(cls.cache_fields)
    read = dict.fromkeys(item.field for item in cls.declared_inputs())
    return fields + tuple(field for field in read if field not in fields)


def case_keys(metric: Metric, cases: Sequence[AgentTestCase]) -> list[str | None]:
    """One cache key per case: the metric's identity and the fields it reads;
    None for a case with a field that has no faithful encoding (and for every
    case, if a parameter of the metric has none)."""
    identity = metric_identity(metric)
    if identity is None or type(metric).statistics:
        return [None] * len(cases)
    prefix = identity.encode()
    fields = keyed_fields(type(metric))
    keys: list[str | None] = []
    for case in cases:
        try:
            encoded = encode_fields(fields, [getattr(case, field) for field in fields])
        except Unencodable:
            keys.append(None)
            continue
        keys.append(hashlib.sha256(prefix + encoded).hexdigest())
    return keys
