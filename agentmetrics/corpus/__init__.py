"""Corpus-level aggregates: reducers a metric declares, and their exact state.

A metric declares ``aggregates = {"p95": Quantile(0.95)}`` (and, for a ratio
of sums, the per-case ``statistics`` it gives); ``EvaluationResult.aggregates()``
and ``partition.merge(...).aggregates()`` give their values, equal bit for bit
however the cases were split. The reducers are importable from here without
numpy; the state (:class:`agentmetrics.corpus._state.CorpusState`) is loaded
with the first result.
"""

from agentmetrics.metric._aggregates import Maximum, Minimum, Quantile, Ratio, Reducer, Total

__all__ = ["Maximum", "Minimum", "Quantile", "Ratio", "Reducer", "Total"]
