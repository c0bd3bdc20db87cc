"""Saved runs and their history.

``result.save(path)`` writes a run (JSON lines or Parquet, with its
provenance) whole or not at all, and :func:`load_result` reads it back
exactly: the same values to the bit, pass flags, reasons, errors, ids,
tool names and metadata, and what the run was made with (its
:class:`RunConfig`). :class:`RunStore` keeps each saved run's summary,
provenance, configuration and path in a local SQLite file, read by ``agentmetrics runs
list``, ``agentmetrics compare --against last`` and the report's trend.
"""

from agentmetrics.results._config import NOT_SET, WELL_KNOWN, RunConfig
from agentmetrics.runs._format import is_saved_run
from agentmetrics.runs._history import (
    MetricSummary,
    RunRecord,
    RunStore,
    default_store_path,
    open_store,
)
from agentmetrics.runs._load import load_result, load_run
from agentmetrics.runs._provenance import MetricSpec, Provenance
from agentmetrics.runs._saved_metric import SavedMetric

__all__ = ["MetricSpec", "MetricSummary", "NOT_SET", "Provenance", "RunConfig", "RunRecord",
           "RunStore", "SavedMetric", "WELL_KNOWN", "default_store_path", "is_saved_run",
           "load_result", "load_run", "open_store"]

# Pickles and reprs name the public path, not the private modules.
for _public in (MetricSpec, MetricSummary, Provenance, RunConfig, RunRecord, RunStore,
                SavedMetric):
    _public.__module__ = "agentmetrics.runs"
del _public

#: The name a history's run had before it was told from ``agentmetrics.capture.Run``
#: (a captured run): still importable from here, where the API page named it.
Run = RunRecord
