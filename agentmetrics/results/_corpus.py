"""The aggregates table: every metric's corpus-level aggregates, one row each."""

from __future__ import annotations

from collections.abc import Iterable

from agentmetrics.corpus._state import AGGREGATE_COLUMNS, CorpusState
from agentmetrics.errors import InvalidParameterError
from agentmetrics.results._table import Table

__all__ = ["aggregates_table"]


def aggregates_table(states: Iterable[CorpusState], ci: float | None = 0.95) -> Table:
    """A Table with the columns ``metric``, ``aggregate``, ``value``, ``low``,
    ``high`` (a ``ci`` interval where one is defined: quantiles and ratios;
    NaN elsewhere), ``n`` (the scored cases it is computed from) and ``note``
    (why a value is NaN: no case scored, a denominator of 0)."""
    if ci is not None and (isinstance(ci, bool) or not isinstance(ci, float | int)
                           or not 0 < ci < 1):
        raise InvalidParameterError(f"ci: expected a level between 0 and 1, e.g. 0.95, or "
                                    f"None, got {ci!r}.")
    rows = [row for state in states for row in state.rows(None if ci is None else float(ci))]
    shown = "" if ci is None else f" ({ci:.0%} intervals where defined)"
    return Table(AGGREGATE_COLUMNS, rows, f"Corpus aggregates{shown}")
