"""The mergeable state of a metric's corpus-level aggregates, and their values.

:class:`CorpusState` holds, for the cases it has seen, exactly what the
metric's declared reducers need and nothing that depends on how the cases
were split: exact sums (:class:`~agentmetrics._base._exact.ExactSum`) of the
values and statistics a ``Total`` or ``Ratio`` reads, with the exact sums of
the squares and cross products a ratio's interval needs; minima and maxima;
and, for a ``Quantile``, the sorted multiset of the scored values. Merging
two states is exact, so an aggregate is the same float, bit for bit, from one
batch, from the CLI's chunks, from Dask or from partitions merged in any tree.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from agentmetrics._base._arrays import BoolArray, FloatArray
from agentmetrics._base._exact import ExactSum, exact_products, exact_squares
from agentmetrics.errors import InvalidParameterError
from agentmetrics.metric._aggregates import (
    VALUE,
    Maximum,
    Minimum,
    Quantile,
    Ratio,
    Reducer,
    Total,
    terms,
)
from agentmetrics.stats._distributions import binom_cdf, norm_ppf

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.model._metric_result import MetricResult

__all__ = ["AGGREGATE_COLUMNS", "CorpusState", "reducer_from_state", "reducer_state",
           "states_of"]

#: The columns of every aggregates table.
AGGREGATE_COLUMNS = ("metric", "aggregate", "value", "low", "high", "n", "note")


def _column(result: MetricResult, name: str) -> FloatArray:
    return result.values if name == VALUE else result.statistics[name]


def _summed(result: MetricResult, names: tuple[str, ...], scored: BoolArray) -> FloatArray:
    """Per scored case, the sum of the named columns (added in declaration order)."""
    total: FloatArray = _column(result, names[0])[scored].astype(np.float64, copy=True)
    for name in names[1:]:
        total += _column(result, name)[scored]
    return total


def _sum(values: FloatArray) -> ExactSum:
    return ExactSum().add(values)


def _sum_of_products(a: FloatArray, b: FloatArray) -> ExactSum:
    head, tail = exact_products(a, b) if a is not b else exact_squares(a)
    return ExactSum().add(head).add(tail)


@attrs.frozen(slots=True, eq=False)
class CorpusState:
    """One metric's corpus aggregates over some cases (see the module docstring).

    ``sums`` are keyed ``"total:NAME"`` (a column's exact sum) and, for each
    ratio aggregate ``A``, ``"A:num"``, ``"A:den"``, ``"A:nn"``, ``"A:dd"`` and
    ``"A:nd"``; ``lows``/``highs`` by column; ``values`` holds the sorted scored
    values when a quantile is declared (else None)."""

    label: str
    reducers: Mapping[str, Reducer]
    scored: int
    sums: Mapping[str, ExactSum]
    lows: Mapping[str, float]
    highs: Mapping[str, float]
    values: FloatArray | None

    @classmethod
    def from_result(cls, label: str, result: MetricResult) -> CorpusState:
        """The state of one result's scored cases (its error rows left out)."""
        reducers = dict(type(result.metric).aggregates)
        scored = ~np.isnan(result.values)
        sums: dict[str, ExactSum] = {}
        lows: dict[str, float] = {}
        highs: dict[str, float] = {}
        values = None
        for name, reducer in reducers.items():
            if isinstance(reducer, Total):
                sums.setdefault(f"total:{reducer.of}",
                                _sum(_column(result, reducer.of)[scored]))
            elif isinstance(reducer, (Minimum, Maximum)):
                column = _column(result, reducer.of)[scored]
                lows[reducer.of] = float(column.min()) if len(column) else math.nan
                highs[reducer.of] = float(column.max()) if len(column) else math.nan
            elif isinstance(reducer, Quantile):
                if values is None:
                    values = np.sort(result.values[scored])
            elif isinstance(reducer, Ratio):
                top = _summed(result, terms(reducer.numerator), scored)
                bottom = _summed(result, terms(reducer.denominator), scored)
                sums[f"{name}:num"] = _sum(top)
                sums[f"{name}:den"] = _sum(bottom)
                sums[f"{name}:nn"] = _sum_of_products(top, top)
                sums[f"{name}:dd"] = _sum_of_products(bottom, bottom)
                sums[f"{name}:nd"] = _sum_of_products(top, bottom)
        return cls(label, reducers, int(scored.sum()), sums, lows, highs, values)

    def merge(self, other: CorpusState) -> CorpusState:
        """This state and ``other``'s, exactly (the cases of both)."""
        if self.label != other.label or dict(self.reducers) != dict(other.reducers):
            raise InvalidParameterError(
                f"merge: the corpus aggregates of {self.label!r} disagree ({dict(self.reducers)} "
                f"against {other.label!r}: {dict(other.reducers)}); expected parts of one "
                f"evaluation. Fix: merge only the parts of one run.")
        sums = {key: ExactSum().merge(total).merge(other.sums[key])
                for key, total in self.sums.items()}
        lows = {key: _extreme(min, low, other.lows[key]) for key, low in self.lows.items()}
        highs = {key: _extreme(max, high, other.highs[key]) for key, high in self.highs.items()}
        values = None
        if self.values is not None and other.values is not None:
            values = np.sort(np.concatenate([self.values, other.values]), kind="stable")
        return CorpusState(self.label, self.reducers, self.scored + other.scored, sums, lows,
                           highs, values)

    # -- values ----------------------------------------------------------------

    def rows(self, ci: float | None = 0.95) -> list[tuple[Any, ...]]:
        """One row per aggregate: :data:`AGGREGATE_COLUMNS`."""
        out = []
        for name, reducer in self.reducers.items():
            value, low, high, note = self._value(name, reducer, ci)
            out.append((self.label, name, value, low, high, self.scored, note))
        return out

    def _value(self, name: str, reducer: Reducer, ci: float | None
               ) -> tuple[float, float, float, str]:
        nan = math.nan
        if not self.scored:
            return nan, nan, nan, "no case was scored"
        if isinstance(reducer, Total):
            return self.sums[f"total:{reducer.of}"].value, nan, nan, ""
        if isinstance(reducer, Minimum):
            return self.lows[reducer.of], nan, nan, ""
        if isinstance(reducer, Maximum):
            return self.highs[reducer.of], nan, nan, ""
        if isinstance(reducer, Quantile):
            assert self.values is not None
            value = _quantile(self.values, float(reducer.q))
            low, high = (nan, nan) if ci is None else _quantile_interval(
                self.values, float(reducer.q), ci)
            return value, low, high, ""
        assert isinstance(reducer, Ratio)
        top = self.sums[f"{name}:num"].fraction()
        bottom = self.sums[f"{name}:den"].fraction()
        if bottom == 0:
            return nan, nan, nan, f"the sum of {' + '.join(terms(reducer.denominator))} is 0"
        scale = Fraction(float(reducer.scale))
        ratio = top / bottom
        value = float(scale * ratio)
        if ci is None or self.scored < 2:
            return value, nan, nan, ""
        # Delta method: the residuals n_i - r d_i have sum 0; their sum of squares, exactly.
        residual = (self.sums[f"{name}:nn"].fraction() - 2 * ratio * self.sums[f"{name}:nd"]
                    .fraction() + ratio * ratio * self.sums[f"{name}:dd"].fraction())
        n = self.scored
        variance = float(residual) / (n - 1)
        se = math.sqrt(max(variance, 0.0) * n) / float(bottom) * abs(float(reducer.scale))
        half = norm_ppf(0.5 + ci / 2) * se
        return value, value - half, value + half, ""

    # -- the JSON form ---------------------------------------------------------

    def to_state(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "reducers": {name: reducer_state(reducer) for name, reducer in self.reducers.items()},
            "scored": self.scored,
            "sums": {key: total.__getstate__() for key, total in self.sums.items()},
            "lows": {key: _out(value) for key, value in self.lows.items()},
            "highs": {key: _out(value) for key, value in self.highs.items()},
            "values": None if self.values is None else self.values.tolist(),
        }

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> CorpusState:
        sums = {}
        for key, saved in state["sums"].items():
            total = ExactSum.__new__(ExactSum)
            total.__setstate__(saved)
            sums[str(key)] = total
        values = state.get("values")
        return cls(
            str(state["label"]),
            {str(name): reducer_from_state(saved) for name, saved in state["reducers"].items()},
            int(state["scored"]), sums,
            {str(key): _in(value) for key, value in state["lows"].items()},
            {str(key): _in(value) for key, value in state["highs"].items()},
            None if values is None else np.array(values, dtype=np.float64))


def _extreme(pick: Any, a: float, b: float) -> float:
    found = [x for x in (a, b) if not math.isnan(x)]
    return float(pick(found)) if found else math.nan


def _out(value: float) -> float | None:
    return None if math.isnan(value) else value


def _in(value: object) -> float:
    return math.nan if value is None else float(value)  # type: ignore[arg-type]


def _quantile(ordered: FloatArray, q: float) -> float:
    """numpy's default ('linear') quantile of sorted values, computed the same
    way from the same multiset whatever produced it."""
    n = len(ordered)
    position = Fraction(q) * (n - 1)  # exact: no rounding picks the neighbours
    below = math.floor(position)
    above = min(below + 1, n - 1)
    fraction = float(position - below)
    low, high = float(ordered[below]), float(ordered[above])
    return low + (high - low) * fraction if fraction else low


def _quantile_interval(ordered: FloatArray, q: float, ci: float) -> tuple[float, float]:
    """A distribution-free interval for the ``q``-quantile: the order
    statistics ``x_(l) <= x_(u)`` (1-based) with ``P(l <= B < u) >= ci`` for
    ``B ~ Binomial(n, q)``, each tail at most ``(1 - ci) / 2``; an end the
    data cannot bound at that level is NaN."""
    n = len(ordered)
    tail = (1.0 - ci) / 2.0
    # l: the largest rank with P(B <= l - 1) <= tail.
    lo, hi = 0, n  # binom_cdf(k - 1) is increasing in k
    while lo < hi:
        middle = (lo + hi + 1) // 2
        if binom_cdf(middle - 1, n, q) <= tail:
            lo = middle
        else:
            hi = middle - 1
    rank_low = lo
    # u: the smallest rank with P(B <= u - 1) >= 1 - tail.
    lo, hi = 1, n + 1
    while lo < hi:
        middle = (lo + hi) // 2
        if binom_cdf(middle - 1, n, q) >= 1.0 - tail:
            hi = middle
        else:
            lo = middle + 1
    rank_high = lo
    low = float(ordered[rank_low - 1]) if rank_low >= 1 else math.nan
    high = float(ordered[rank_high - 1]) if rank_high <= n else math.nan
    return low, high


def reducer_state(reducer: Reducer) -> dict[str, Any]:
    """A reducer as JSON: its kind and fields."""
    return {"kind": type(reducer).__name__, **attrs.asdict(reducer)}


_KINDS: Mapping[str, type[Reducer]] = {kind.__name__: kind for kind in
                                       (Total, Minimum, Maximum, Quantile, Ratio)}


def reducer_from_state(state: Mapping[str, Any]) -> Reducer:
    """The reducer :func:`reducer_state` wrote."""
    fields = dict(state)
    kind = _KINDS.get(str(fields.pop("kind", None)))
    if kind is None:
        raise InvalidParameterError(
            f"a saved aggregate names the reducer {state.get('kind')!r}; expected one of "
            f"{sorted(_KINDS)}.")
    for key in ("numerator", "denominator"):
        if isinstance(fields.get(key), list):
            fields[key] = tuple(fields[key])
    return kind(**fields)


def states_of(labels: Sequence[str], results: Mapping[str, MetricResult]) -> dict[str, CorpusState]:
    """The corpus states of the results whose metrics declare aggregates."""
    return {label: CorpusState.from_result(label, results[label]) for label in labels
            if type(results[label].metric).aggregates}
