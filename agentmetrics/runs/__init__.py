"""Saved runs and their history: ``result.save(path)`` writes a run (Parquet
or JSON lines, with its provenance), :func:`load_result` reads it back
exactly, and :class:`RunStore` keeps each saved run's summary and provenance
in a local SQLite file, for ``agentmetrics runs list``, ``agentmetrics compare
--against last`` and the report's trend."""

from agentmetrics.runs._history import MetricSummary, Run, RunStore, default_store_path
from agentmetrics.runs._load import is_saved_run, load_result, load_run
from agentmetrics.runs._provenance import MetricSpec, Provenance
from agentmetrics.runs._saved_metric import SavedMetric

__all__ = ["MetricSpec", "MetricSummary", "Provenance", "Run", "RunStore", "SavedMetric",
           "default_store_path", "is_saved_run", "load_result", "load_run"]
