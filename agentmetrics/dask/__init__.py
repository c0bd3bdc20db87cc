"""The same evaluation on a Dask cluster, out of core, with identical numbers.

Needs the ``dask`` extra (``pip install 'agent-tool-metrics[dask]'``: dask[dataframe]
and distributed); importing this module imports neither until it is used.

>>> import agentmetrics.dask as amd
>>> run = amd.evaluate("traces/*.parquet", ["tool_selection_accuracy"])  # doctest: +SKIP
>>> run.summary()                                                        # doctest: +SKIP

Each partition is scored on a worker by the vectorized evaluator (the code
of :mod:`agentmetrics.partition`, which Ray or Spark can call the same way);
the summary, the per-tool table and the first failures come from a tree
reduction of exact partial aggregates, so they equal what
``agentmetrics.evaluate`` gives on all the cases in one process, and no
per-case row travels to the client unless asked for.
"""

from __future__ import annotations

from agentmetrics.dask._evaluation import DaskEvaluation, evaluate
from agentmetrics.dask._pieces import PARTITION_ROWS

__all__ = [
    "DaskEvaluation",
    "PARTITION_ROWS",
    "evaluate",
]
