"""Corpus-level aggregates a metric declares: what is computed over all of a
run's cases, beyond the mean and pass rate every metric has.

A metric names its aggregates with reducers over its values or over
per-case *statistics* it declares and gives with each case::

    class Latency(Metric):
        aggregates = {"p50": Quantile(0.5), "p95": Quantile(0.95), "max": Maximum()}

    class MicroF1(Metric):
        statistics = ("matched", "called", "expected")
        aggregates = {
            "micro_precision": Ratio("matched", "called"),
            "micro_recall": Ratio("matched", "expected"),
            "micro_f1": Ratio("matched", ("called", "expected"), scale=2.0),
        }

Every reducer is computed from a state that merges exactly (exact sums, the
sorted multiset of values, minima and maxima), so an aggregate is the same
bit for bit however the cases were split: one batch, the CLI's chunks, Dask,
or Spark and Ray partitions merged with ``partition.merge``. The state and its
arithmetic live in :mod:`agentmetrics.corpus`; this module is only the
declaration, part of the metric contract.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from agentmetrics.errors import InvalidMetricError
from agentmetrics.model._model import describe

__all__ = ["AGGREGATE_NAME", "VALUE", "Maximum", "Minimum", "Quantile", "Ratio", "Reducer", "Total",
           "check_aggregates", "terms"]

#: What an aggregate's name, and a statistic's, must look like.
AGGREGATE_NAME = re.compile(r"^[a-z][a-z0-9_]*$")

#: The name that stands for the metric's own per-case values.
VALUE = "value"


def terms(given: str | tuple[str, ...]) -> tuple[str, ...]:
    """A statistic's name, or a tuple of them summed, as a tuple."""
    return (given,) if isinstance(given, str) else tuple(given)


def _names(given: str | Iterable[str]) -> str | tuple[str, ...]:
    return given if isinstance(given, str) else tuple(given)


@attrs.frozen(slots=True)
class Reducer:
    """The base of every reducer: what it reads (``value``, the metric's own
    values, or a declared statistic) and how it is shown."""

    def reads(self) -> tuple[str, ...]:
        """The per-case columns the reducer needs (``"value"`` or statistics)."""
        raise NotImplementedError

    def describe(self) -> str:
        """A short text for ``describe`` and the docs."""
        raise NotImplementedError


@attrs.frozen(slots=True)
class Total(Reducer):
    """The exact sum over the scored cases of ``of`` (the values by default)."""

    of: str = VALUE

    def reads(self) -> tuple[str, ...]:
        return (self.of,)

    def describe(self) -> str:
        return f"total of {self.of}"


@attrs.frozen(slots=True)
class Minimum(Reducer):
    """The smallest ``of`` (the values by default) over the scored cases."""

    of: str = VALUE

    def reads(self) -> tuple[str, ...]:
        return (self.of,)

    def describe(self) -> str:
        return f"minimum of {self.of}"


@attrs.frozen(slots=True)
class Maximum(Reducer):
    """The largest ``of`` (the values by default) over the scored cases."""

    of: str = VALUE

    def reads(self) -> tuple[str, ...]:
        return (self.of,)

    def describe(self) -> str:
        return f"maximum of {self.of}"


@attrs.frozen(slots=True)
class Quantile(Reducer):
    """The exact ``q``-quantile of the scored values: linear interpolation
    between the order statistics (numpy's default method), from the whole
    multiset of values, with a distribution-free interval (order statistics
    whose ranks the binomial distribution bounds)."""

    q: float

    def reads(self) -> tuple[str, ...]:
        return (VALUE,)

    def describe(self) -> str:
        return f"{self.q:g}-quantile of value"


@attrs.frozen(slots=True)
class Ratio(Reducer):
    """``scale * sum(numerator) / sum(denominator)`` over the scored cases: a
    ratio of sums (micro-averaged precision: matched calls over called ones),
    exact, with a delta-method interval. ``numerator`` and ``denominator`` are
    each a statistic's name or a tuple of names summed per case."""

    numerator: str | tuple[str, ...] = attrs.field(converter=_names)
    denominator: str | tuple[str, ...] = attrs.field(converter=_names)
    scale: float = 1.0

    def reads(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(terms(self.numerator) + terms(self.denominator)))

    def describe(self) -> str:
        top = " + ".join(terms(self.numerator))
        bottom = " + ".join(terms(self.denominator))
        factor = "" if self.scale == 1.0 else f"{self.scale:g} * "
        return f"{factor}sum({top}) / sum({bottom})"


def check_aggregates(cls: type) -> None:
    """InvalidMetricError naming the attribute if ``cls`` declares unusable
    ``statistics`` or ``aggregates``."""
    owner = cls.__qualname__
    statistics: Any = getattr(cls, "statistics", ())
    if (not isinstance(statistics, tuple)
            or not all(isinstance(name, str) and AGGREGATE_NAME.match(name)
                       and name != VALUE for name in statistics)
            or len(set(statistics)) != len(statistics)):
        raise InvalidMetricError(
            f"{owner}.statistics must be a tuple of distinct names matching "
            f"{AGGREGATE_NAME.pattern} (not 'value', which names the metric's own values), "
            f"got {describe(statistics)}. Fix: declare e.g. statistics = ('matched', 'called').")
    aggregates: Any = getattr(cls, "aggregates", {})
    if not isinstance(aggregates, Mapping):
        raise InvalidMetricError(
            f"{owner}.aggregates must be a mapping of names to reducers, got "
            f"{describe(aggregates)}. Fix: declare e.g. aggregates = {{'p95': Quantile(0.95)}}.")
    for name, reducer in aggregates.items():
        where = f"{owner}.aggregates[{name!r}]"
        if not isinstance(name, str) or not AGGREGATE_NAME.match(name):
            raise InvalidMetricError(
                f"{owner}.aggregates names {name!r}; expected names matching "
                f"{AGGREGATE_NAME.pattern}, e.g. 'p95' or 'micro_f1'.")
        if not isinstance(reducer, Reducer) or type(reducer) is Reducer:
            raise InvalidMetricError(
                f"{where} is {describe(reducer)}; expected a reducer: Total(), Minimum(), "
                f"Maximum(), Quantile(q) or Ratio(numerator, denominator).")
        unknown = [used for used in reducer.reads()
                   if used != VALUE and used not in statistics]
        if unknown or any(not isinstance(used, str) for used in reducer.reads()):
            raise InvalidMetricError(
                f"{where} reads {unknown or list(reducer.reads())}, which {owner}.statistics "
                f"({list(statistics)}) does not declare. Fix: add them to statistics, and "
                f"give them with each case (see docs/plugins.md, 'Corpus-level aggregates').")
        if isinstance(reducer, Quantile) and (
                isinstance(reducer.q, bool) or not isinstance(reducer.q, numbers.Real)
                or not 0.0 <= float(reducer.q) <= 1.0):
            raise InvalidMetricError(f"{where}: Quantile's q must be a number from 0 to 1, "
                                     f"got {describe(reducer.q)}. Fix: e.g. Quantile(0.95).")
        if isinstance(reducer, Ratio) and (
                isinstance(reducer.scale, bool) or not isinstance(reducer.scale, numbers.Real)
                or not math.isfinite(float(reducer.scale)) or reducer.scale == 0):
            raise InvalidMetricError(f"{where}: Ratio's scale must be a finite number other "
                                     f"than 0, got {describe(reducer.scale)}.")
