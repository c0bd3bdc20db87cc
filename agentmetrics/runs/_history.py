"""A history of runs in one SQLite file: each saved run's summary and
provenance, and where its file is; no server. Read by ``agentmetrics runs
list``, ``agentmetrics compare --against last`` and the report's trend."""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics.errors import InvalidParameterError
from agentmetrics.runs._provenance import Provenance

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._results import EvaluationResult

__all__ = ["ENV_VAR", "MetricSummary", "Run", "RunStore", "default_store_path"]

#: The environment variable naming the default history file.
ENV_VAR = "AGENTMETRICS_HISTORY"
SCHEMA_VERSION = 1
_SUMMARY = ("n", "mean", "mean_low", "mean_high", "pass_rate", "pass_low", "pass_high",
            "errors", "threshold")


def default_store_path() -> Path:
    """``$AGENTMETRICS_HISTORY``, else ``.agentmetrics/runs.sqlite`` in the
    current directory."""
    named = os.environ.get(ENV_VAR)
    return Path(named) if named else Path(".agentmetrics") / "runs.sqlite"


@attrs.frozen(slots=True)
class MetricSummary:
    """One metric's summary row in a recorded run (NaN where there was none)."""

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
class Run:
    """A recorded run: its number in the history, when it ran, its label, the
    saved file (None if none was kept), its cases and fingerprint, and each
    metric's summary."""

    id: int
    created: str
    label: str | None
    path: str | None
    cases: int
    fingerprint: str
    agentmetrics_version: str
    provenance: Provenance
    metrics: tuple[MetricSummary, ...]

    def summary(self, metric: str) -> MetricSummary | None:
        return next((m for m in self.metrics if m.metric == metric), None)


def _number(value: Any) -> float:
    return math.nan if value is None else float(value)


def _stored(value: Any) -> Any:
    return None if isinstance(value, float) and math.isnan(value) else value


_REF = re.compile(r"^last(?:~(\d+))?$")


class RunStore:
    """The run history at ``path`` (default: :func:`default_store_path`),
    created on the first write."""

    __slots__ = ("path",)

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_store_path()

    def __repr__(self) -> str:
        return f"RunStore({os.fspath(self.path)!r})"

    def _connect(self, write: bool) -> sqlite3.Connection:
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        elif not self.path.exists():
            raise InvalidParameterError(
                f"{os.fspath(self.path)}: expected a run history, but there is none yet. "
                f"Fix: save a run (result.save(path) or `agentmetrics evaluate --save PATH`), "
                f"or name another history.")
        try:
            connection = sqlite3.connect(self.path, timeout=30)
            self._schema(connection)
        except sqlite3.DatabaseError as error:
            raise InvalidParameterError(
                f"{os.fspath(self.path)}: expected a run history (SQLite), but it cannot be "
                f"read: {error}.") from None
        return connection

    def _schema(self, connection: sqlite3.Connection) -> None:
        with connection:
            connection.execute("CREATE TABLE IF NOT EXISTS schema (version INTEGER NOT NULL)")
            row = connection.execute("SELECT version FROM schema").fetchone()
            if row is None:
                connection.execute("INSERT INTO schema VALUES (?)", (SCHEMA_VERSION,))
            elif row[0] > SCHEMA_VERSION:
                raise InvalidParameterError(
                    f"{os.fspath(self.path)}: this history was written by a later agentmetrics "
                    f"(schema {row[0]}; this version knows {SCHEMA_VERSION}). Fix: upgrade.")
            connection.execute(
                "CREATE TABLE IF NOT EXISTS runs (id INTEGER PRIMARY KEY AUTOINCREMENT, "
                "created TEXT NOT NULL, label TEXT, path TEXT, cases INTEGER NOT NULL, "
                "fingerprint TEXT NOT NULL, version TEXT NOT NULL, provenance TEXT NOT NULL)")
            connection.execute(
                "CREATE TABLE IF NOT EXISTS metrics (run INTEGER NOT NULL REFERENCES runs(id), "
                "position INTEGER NOT NULL, metric TEXT NOT NULL, n INTEGER, mean REAL, "
                "mean_low REAL, mean_high REAL, pass_rate REAL, pass_low REAL, "
                "pass_high REAL, errors INTEGER, threshold REAL)")

    # -- writing ------------------------------------------------------------------

    def record(self, result: EvaluationResult, path: str | os.PathLike[str] | None = None,
               *, label: str | None = None) -> Run:
        """Record ``result`` (saved at ``path``, if it was) and return its run."""
        provenance = result.provenance
        summary = list(result.summary())
        connection = self._connect(write=True)
        try:
            with connection:
                cursor = connection.execute(
                    "INSERT INTO runs (created, label, path, cases, fingerprint, version, "
                    "provenance) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (provenance.created, label,
                     None if path is None else os.fspath(Path(path).resolve()),
                     provenance.cases, provenance.fingerprint,
                     provenance.agentmetrics_version, json.dumps(provenance.to_json())))
                run = cursor.lastrowid
                connection.executemany(
                    "INSERT INTO metrics VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(run, position, row["metric"], *(_stored(row[key]) for key in _SUMMARY))
                     for position, row in enumerate(summary)])
        finally:
            connection.close()
        assert run is not None
        return self.get(run)

    # -- reading ------------------------------------------------------------------

    def _runs(self, where: str = "", parameters: tuple[Any, ...] = (),
              limit: int | None = None) -> list[Run]:
        connection = self._connect(write=False)
        try:
            query = ("SELECT id, created, label, path, cases, fingerprint, version, provenance "
                     f"FROM runs {where} ORDER BY id DESC")
            if limit is not None:
                query += f" LIMIT {int(limit)}"
            rows = connection.execute(query, parameters).fetchall()
            runs = []
            for row in rows:
                metrics = tuple(
                    MetricSummary(m[0], int(m[1] or 0), *map(_number, m[2:8]), int(m[8] or 0),
                                  _number(m[9]))
                    for m in connection.execute(
                        "SELECT metric, n, mean, mean_low, mean_high, pass_rate, pass_low, "
                        "pass_high, errors, threshold FROM metrics WHERE run = ? "
                        "ORDER BY position", (row[0],)))
                runs.append(Run(id=row[0], created=row[1], label=row[2], path=row[3],
                                cases=row[4], fingerprint=row[5], agentmetrics_version=row[6],
                                provenance=Provenance.from_json(json.loads(row[7])),
                                metrics=metrics))
            return runs
        finally:
            connection.close()

    def list(self, limit: int | None = None) -> list[Run]:
        """The recorded runs, newest first (at most ``limit``)."""
        if not self.path.exists():
            return []
        return self._runs(limit=limit)

    def get(self, ref: int | str) -> Run:
        """A run by its id, ``"last"``, or ``"last~N"`` (N runs before the last)."""
        if isinstance(ref, str) and ref.isdigit():
            ref = int(ref)
        if isinstance(ref, int) and not isinstance(ref, bool):
            found = self._runs("WHERE id = ?", (ref,))
        else:
            match = _REF.match(ref) if isinstance(ref, str) else None
            if match is None:
                raise InvalidParameterError(
                    f"run: expected a run id, 'last' or 'last~N', got {ref!r}.")
            back = int(match.group(1) or 0)
            found = self._runs(limit=back + 1)[back:]
        if not found:
            raise InvalidParameterError(
                f"{os.fspath(self.path)}: no run {ref!r} in this history. Fix: see the runs "
                f"it has with `agentmetrics runs list --history {os.fspath(self.path)}`.")
        return found[0]

    def trend(self, metric: str, last: int = 20) -> list[tuple[Run, MetricSummary]]:
        """The last ``last`` runs that have ``metric``, oldest first, each with
        that metric's summary."""
        if not self.path.exists() or last <= 0:
            return []
        points = [(run, summary) for run in self._runs(
            "WHERE id IN (SELECT run FROM metrics WHERE metric = ?)", (metric,), limit=last)
            for summary in [run.summary(metric)] if summary is not None]
        return points[::-1]
