"""The run history's SQLite file: its schema, transactions, and runs in and
out as :class:`RunRecord` records. Everything of :class:`~agentmetrics.runs.RunStore`
but loading a run's saved file, which lives above (``_history``): saving
records a run here without importing the reader of saved runs.

Two processes may record into one file at once: each write is one
``BEGIN IMMEDIATE`` transaction, and a writer waits up to 30 s for another's
lock. Reading never creates the file.

A run saved to a file is recorded with the file's digest (table
``run_files``; its uid is in its provenance): loading the run back checks
both. The table was added to schema 1 in place: a history without it reads
as one whose runs were recorded without digests, and the first write adds it
(an agentmetrics that does not know it reads and writes the history as
before, recording its runs without digests).

What a run was made with (its configuration, :attr:`RunRecord.config`) is
kept the same way, in table ``run_configs`` (one JSON object a run that has
one), added to schema 1 in place by the first write that needs it: a history
without it reads as one whose runs have no configuration, and an
agentmetrics that does not know it reads the history as before (it never
sees the configurations) and records its runs without one.
"""

from __future__ import annotations

import builtins
import json
import math
import os
import re
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.results._config import RunConfig, run_config
from agentmetrics.runs._identity import read_identity, recall
from agentmetrics.runs._provenance import Provenance

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.results._results import EvaluationResult

__all__ = ["ENV_VAR", "MetricSummary", "RunRecord", "StoreFile", "default_store_path"]

#: The environment variable naming the default run history.
ENV_VAR = "AGENTMETRICS_HISTORY"
#: The schema this agentmetrics writes, and the newest it reads.
SCHEMA_VERSION = 1
#: How long a writer waits for another process's transaction (seconds).
_BUSY_TIMEOUT = 30.0

#: The digest of each run's saved file, when it was recorded with one.
_RUN_FILES = ("CREATE TABLE IF NOT EXISTS run_files ("
              " run INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
              " digest TEXT NOT NULL)")

#: What each run was made with, when it was recorded with a configuration.
_RUN_CONFIGS = ("CREATE TABLE IF NOT EXISTS run_configs ("
                " run INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
                " config TEXT NOT NULL)")

_SCHEMA = (
    "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)",
    "CREATE TABLE IF NOT EXISTS runs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " created TEXT NOT NULL,"
    " label TEXT,"
    " path TEXT,"
    " cases INTEGER NOT NULL,"
    " fingerprint TEXT NOT NULL,"
    " agentmetrics_version TEXT NOT NULL,"
    " provenance TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS run_metrics ("
    " run INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
    " position INTEGER NOT NULL,"
    " metric TEXT NOT NULL,"
    " n INTEGER NOT NULL,"
    " mean REAL, mean_low REAL, mean_high REAL,"
    " pass_rate REAL, pass_low REAL, pass_high REAL,"
    " errors INTEGER NOT NULL,"
    " threshold REAL NOT NULL,"
    " PRIMARY KEY (run, position))",
    "CREATE INDEX IF NOT EXISTS run_metrics_by_metric ON run_metrics (metric, run)",
    _RUN_FILES,
    _RUN_CONFIGS,
)

def default_store_path() -> Path:
    """The run history used when none is named: ``$AGENTMETRICS_HISTORY`` when
    set, else ``.agentmetrics/runs.sqlite`` under the current directory
    (created on the first write)."""
    named = os.environ.get(ENV_VAR)
    if named:
        return Path(named)
    return Path.cwd() / ".agentmetrics" / "runs.sqlite"


@attrs.frozen(slots=True)
class MetricSummary:
    """One metric of a recorded run: the columns of ``result.summary()`` a
    history keeps (NaN where the summary has none, e.g. a mean with no case
    scored)."""

    metric: str
    n: int
    mean: float
    mean_low: float
    mean_high: float
    pass_rate: float
    pass_low: float
    pass_high: float
    errors: int
    threshold: float


@attrs.frozen(slots=True)
class RunRecord:
    """A run in the history: its ``id`` (1, 2, ... in the order recorded),
    ``created`` (the provenance's ISO 8601 UTC time), the ``label`` it was
    given, the absolute ``path`` of its saved file (None when recorded
    without one), its number of ``cases``, the data's ``fingerprint``, the
    agentmetrics version that scored it, its :class:`Provenance` (whose
    ``uid`` names the run), one :class:`MetricSummary` per metric, in the
    run's order, the ``digest`` of its saved file when recorded (None
    without a file, or when the file was not there yet), and its ``config``
    (what it was made with; empty when recorded without one)."""

    id: int
    created: str
    label: str | None
    path: str | None
    cases: int
    fingerprint: str
    agentmetrics_version: str
    provenance: Provenance
    metrics: tuple[MetricSummary, ...]
    digest: str | None = None
    config: RunConfig = attrs.field(factory=RunConfig)

    def summary(self, metric: str) -> MetricSummary | None:
        """The summary of the metric labelled ``metric`` (None if the run has none)."""
        return next((m for m in self.metrics if m.metric == metric), None)


def _real(value: Any) -> float | None:
    """A summary number as SQLite keeps it: NaN (and infinities) as NULL."""
    number = float(value)
    return number if math.isfinite(number) else None


def _number(value: Any) -> float:
    """A number SQLite gave back: NULL is NaN."""
    return math.nan if value is None else float(value)


def _kept(value: Any) -> float:
    """A summary number as the history gives it back (what is not finite, NaN)."""
    return _number(_real(value))


_REF = re.compile(r"^last(?:~(\d+))?$")


class StoreFile:
    """A run history in one SQLite file (see :class:`~agentmetrics.runs.RunStore`)."""

    __slots__ = ("path",)

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        if path is not None and not isinstance(path, (str, os.PathLike)):
            raise InvalidParameterError(
                f"RunStore: expected the path of a run history (a .sqlite file) or None for "
                f"the default one, got {type(path).__name__}.")
        #: The SQLite file (it need not exist yet).
        self.path = Path(path) if path is not None else default_store_path()

    def __repr__(self) -> str:
        return f"RunStore({os.fspath(self.path)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StoreFile) and other.path == self.path

    def __hash__(self) -> int:
        return hash(self.path)

    # -- the file ----------------------------------------------------------------

    def _where(self) -> str:
        return f"run history {os.fspath(self.path)}"

    def _how_to_list(self) -> str:
        """The command that lists this history's runs, for messages."""
        default = self.path == default_store_path()
        return ("`agentmetrics runs list`" if default
                else f"`agentmetrics runs list --history {os.fspath(self.path)}`")

    def _fail(self, error: sqlite3.Error) -> InvalidParameterError:
        return InvalidParameterError(
            f"{self._where()}: not a readable run history ({error}). Fix: name a file that "
            f"RunStore (or `agentmetrics evaluate --save`) wrote, or a new path.")

    @contextmanager
    def _connect(self, write: bool) -> Iterator[sqlite3.Connection | None]:
        """A connection in a transaction (``BEGIN IMMEDIATE`` for a write), with
        the schema checked (and made, for a write); None for a read of a file
        that is not there yet."""
        if not write and not self.path.exists():
            yield None
            return
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            if write:
                connection = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT,
                                             isolation_level=None)
            else:
                connection = sqlite3.connect(f"{self.path.absolute().as_uri()}?mode=ro", uri=True,
                                             timeout=_BUSY_TIMEOUT, isolation_level=None)
        except sqlite3.Error as error:
            raise self._fail(error) from None
        try:
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                fresh = self._check_schema(connection, write)
                yield None if fresh and not write else connection
                connection.execute("COMMIT")
            except BaseException:
                connection.execute("ROLLBACK")
                raise
        except sqlite3.Error as error:
            raise self._fail(error) from None
        finally:
            connection.close()

    def _check_schema(self, connection: sqlite3.Connection, write: bool) -> bool:
        """Refuse a newer schema or another program's database; make the
        tables on a first write. True when the file holds no history yet."""
        tables = {row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "schema_version" not in tables:
            if tables - {"sqlite_sequence"}:
                raise InvalidParameterError(
                    f"{self._where()}: an SQLite file that is not a run history (it has the "
                    f"tables {sorted(tables)}). Fix: name another file for the history.")
            if not write:
                return True
            for statement in _SCHEMA:
                connection.execute(statement)
            connection.execute("INSERT INTO schema_version (version) VALUES (?)",
                               (SCHEMA_VERSION,))
            return False
        versions = [row[0] for row in connection.execute("SELECT version FROM schema_version")]
        if len(versions) != 1 or type(versions[0]) is not int:
            raise InvalidParameterError(
                f"{self._where()}: its schema_version table holds {versions!r}; expected one "
                f"version number. The file is damaged.")
        if versions[0] > SCHEMA_VERSION:
            raise InvalidParameterError(
                f"{self._where()}: a run history of schema {versions[0]}, written by a newer "
                f"agentmetrics; this one reads schema {SCHEMA_VERSION}. Fix: upgrade "
                f"agentmetrics (pip install -U agent-tool-metrics).")
        if write and "run_files" not in tables:
            connection.execute(_RUN_FILES)  # a history written before digests were kept
        if write and "run_configs" not in tables:
            connection.execute(_RUN_CONFIGS)  # ... or before configurations were
        return False

    # -- writing -----------------------------------------------------------------

    def record(self, result: EvaluationResult, path: str | os.PathLike[str] | None = None, *,
               label: str | None = None) -> RunRecord:
        """Record ``result`` as the newest run: its provenance, the absolute
        path of its saved file (``path``; None when it has none), ``label``,
        and per metric the main columns of ``result.summary()``. Returns the
        :class:`RunRecord` recorded.

        With a ``path``, the digest of the file is recorded too: the one
        ``result.save(path)`` just made in this process, else the file is read
        and must hold this result's run (its provenance, uid included); a path
        with no file yet is recorded without a digest."""
        if label is not None and not isinstance(label, str):
            raise InvalidParameterError(
                f"label: expected a str or None, got {type(label).__name__}.")
        provenance = result.provenance
        summary = result.summary()
        metrics = tuple(MetricSummary(
            metric=row["metric"], n=int(row["n"]), mean=_kept(row["mean"]),
            mean_low=_kept(row["mean_low"]), mean_high=_kept(row["mean_high"]),
            pass_rate=_kept(row["pass_rate"]), pass_low=_kept(row["pass_low"]),
            pass_high=_kept(row["pass_high"]), errors=int(row["errors"]),
            threshold=float(row["threshold"])) for row in summary)
        saved = None if path is None else os.path.abspath(os.fspath(path))
        digest = None if saved is None else self._digest(result, saved)
        text = json.dumps(provenance.to_json(), allow_nan=False)
        config = result.config
        with self._connect(write=True) as connection:
            assert connection is not None
            cursor = connection.execute(
                "INSERT INTO runs (created, label, path, cases, fingerprint, agentmetrics_version,"
                " provenance) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (provenance.created, label, saved, provenance.cases, provenance.fingerprint,
                 provenance.agentmetrics_version, text))
            run_id = cursor.lastrowid
            assert run_id is not None
            connection.executemany(
                "INSERT INTO run_metrics (run, position, metric, n, mean, mean_low, mean_high, "
                "pass_rate, pass_low, pass_high, errors, threshold) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(run_id, position, m.metric, m.n, _real(m.mean), _real(m.mean_low),
                  _real(m.mean_high), _real(m.pass_rate), _real(m.pass_low), _real(m.pass_high),
                  m.errors, m.threshold) for position, m in enumerate(metrics)])
            if digest is not None:
                connection.execute("INSERT INTO run_files (run, digest) VALUES (?, ?)",
                                   (run_id, digest))
            if config:
                connection.execute("INSERT INTO run_configs (run, config) VALUES (?, ?)",
                                   (run_id, json.dumps(dict(config), allow_nan=False)))
        return RunRecord(run_id, provenance.created, label, saved, provenance.cases,
                   provenance.fingerprint, provenance.agentmetrics_version, provenance, metrics,
                   digest, config)

    def _digest(self, result: EvaluationResult, path: str) -> str | None:
        """The digest of the saved file of ``result`` at ``path`` (see
        :meth:`record`)."""
        provenance = result.provenance
        known = recall(path, result, provenance.uid)
        if known is not None:
            return known
        if not os.path.lexists(path):
            return None
        fix = (f"Fix: save the result there (result.save({path!r}, history=...) records it), "
               f"or record it without a path.")
        try:
            found, digest = read_identity(Path(path))
        except InvalidCaseError as error:
            raise InvalidParameterError(
                f"{self._where()}: cannot record {path} as this run's file: {error} {fix}"
            ) from None
        if found != provenance:
            raise InvalidParameterError(
                f"{self._where()}: cannot record {path} as this run's file: it holds another "
                f"run (uid {found.uid or '(none)'}, created {found.created}), not this one "
                f"(uid {provenance.uid or '(none)'}, created {provenance.created}); saved over "
                f"since it was saved, or never this result's. {fix}")
        return digest

    # -- reading -----------------------------------------------------------------

    def _runs(self, connection: sqlite3.Connection, where: str, parameters: tuple[Any, ...]
              ) -> builtins.list[RunRecord]:
        tables = {row[0] for row in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN "
            "('run_files', 'run_configs')")}
        digest = ("(SELECT digest FROM run_files WHERE run_files.run = runs.id)"
                  if "run_files" in tables else "NULL")
        config = ("(SELECT config FROM run_configs WHERE run_configs.run = runs.id)"
                  if "run_configs" in tables else "NULL")
        rows = connection.execute(
            "SELECT id, created, label, path, cases, fingerprint, agentmetrics_version, "
            f"provenance, {digest}, {config} FROM runs {where}", parameters).fetchall()
        if not rows:
            return []
        ids = [row[0] for row in rows]
        metrics: dict[int, builtins.list[MetricSummary]] = {run_id: [] for run_id in ids}
        for start in range(0, len(ids), 500):
            part = ids[start:start + 500]
            for found in connection.execute(
                    "SELECT run, metric, n, mean, mean_low, mean_high, pass_rate, pass_low, "
                    "pass_high, errors, threshold FROM run_metrics WHERE run IN "
                    f"({', '.join('?' * len(part))}) ORDER BY run, position", part):
                (run, metric, n, mean, mean_low, mean_high, pass_rate, pass_low, pass_high,
                 errors, threshold) = found
                metrics[run].append(MetricSummary(
                    metric=metric, n=int(n), mean=_number(mean), mean_low=_number(mean_low),
                    mean_high=_number(mean_high), pass_rate=_number(pass_rate),
                    pass_low=_number(pass_low), pass_high=_number(pass_high),
                    errors=int(errors), threshold=float(threshold)))
        runs = []
        for (run_id, created, label, path, cases, fingerprint, version, provenance,
             digest, config) in rows:
            try:
                parsed = Provenance.from_json(json.loads(provenance),
                                              f"{self._where()}: run {run_id}")
            except InvalidCaseError as error:
                raise InvalidParameterError(f"{error} The history is damaged.") from None
            except (ValueError, TypeError, RecursionError) as error:
                raise InvalidParameterError(
                    f"{self._where()}: run {run_id}'s provenance cannot be read ({error!r}). "
                    f"The file is damaged.") from None
            runs.append(RunRecord(run_id, created, label, path, cases, fingerprint, version, parsed,
                            tuple(metrics[run_id]), digest, self._config(run_id, config)))
        return runs

    def _config(self, run_id: int, text: Any) -> RunConfig:
        """A run's configuration as the history keeps it (NULL: none)."""
        if text is None:
            return RunConfig()
        try:
            return run_config(json.loads(text) if type(text) is str else text,
                              f"{self._where()}: run {run_id}'s config")
        except InvalidParameterError as error:
            raise InvalidParameterError(f"{str(error).split(' Fix:')[0]} The history is "
                                        f"damaged.") from None
        except (ValueError, RecursionError) as error:
            raise InvalidParameterError(
                f"{self._where()}: run {run_id}'s config cannot be read ({error!r}). The file "
                f"is damaged.") from None

    def list(self, limit: int | None = None) -> builtins.list[RunRecord]:
        """The runs recorded, newest first (the ``limit`` newest, when given)."""
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                                  or limit < 0):
            raise InvalidParameterError(f"limit: expected a whole number, 0 or more, or None, "
                                        f"got {limit!r}.")
        with self._connect(write=False) as connection:
            if connection is None:
                return []
            return self._runs(connection, "ORDER BY id DESC LIMIT ?",
                              (-1 if limit is None else limit,))

    def get(self, ref: int | str) -> RunRecord:
        """One run: by its id (``3``, or ``"3"``), ``"last"`` (the newest), or
        ``"last~N"`` (N runs before the newest)."""
        run_id, offset = self._parse_ref(ref)
        with self._connect(write=False) as connection:
            found: builtins.list[RunRecord] = []
            count = 0
            if connection is not None:
                if run_id is not None:
                    found = self._runs(connection, "WHERE id = ?", (run_id,))
                else:
                    found = self._runs(connection, "ORDER BY id DESC LIMIT 1 OFFSET ?", (offset,))
                if not found:
                    count = connection.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        if found:
            return found[0]
        held = ("has no runs yet" if not count else f"has {count} run{'s' if count != 1 else ''}")
        shown = run_id if run_id is not None else repr(ref)
        raise InvalidParameterError(
            f"{self._where()}: no run {shown}; the history {held}. Fix: "
            f"{self._how_to_list()} shows the runs recorded (`agentmetrics evaluate FILE --save "
            f"run.jsonl`, or result.save(path), records one).")

    def _parse_ref(self, ref: int | str) -> tuple[int | None, int]:
        """(id, None) or (None, offset from the newest)."""
        if isinstance(ref, int) and not isinstance(ref, bool):
            return ref, 0
        if isinstance(ref, str):
            text = ref.strip()
            if text.isdigit() and text.isascii():
                return int(text), 0
            match = _REF.match(text)
            if match:
                return None, int(match[1] or 0)
        raise InvalidParameterError(
            f"run: expected a run's id (3), 'last' or 'last~N' (N runs before the last), got "
            f"{ref!r}. Fix: {self._how_to_list()} shows the ids.")

    def trend(self, metric: str, last: int = 20) -> builtins.list[tuple[RunRecord, MetricSummary]]:
        """The ``last`` newest runs that have a metric labelled ``metric``, oldest
        first, each with that metric's summary."""
        if isinstance(last, bool) or not isinstance(last, int) or last < 0:
            raise InvalidParameterError(f"last: expected a whole number, 0 or more, got "
                                        f"{last!r}.")
        with self._connect(write=False) as connection:
            if connection is None or not last:
                return []
            runs = self._runs(connection, "WHERE id IN (SELECT run FROM run_metrics WHERE "
                              "metric = ?) ORDER BY id DESC LIMIT ?", (metric, last))
        return [(run, summary) for run in reversed(runs)
                for summary in [run.summary(metric)] if summary is not None]
