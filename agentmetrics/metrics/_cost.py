"""Cost: what the run cost, read from the case or priced from its token usage."""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar


from agentmetrics.batch import MetricResult, case_values, require_cases
from agentmetrics.corpus import Reducer, Total
from agentmetrics.errors import InvalidCaseError, InvalidParameterError
from agentmetrics.metric._inputs import Input
from agentmetrics.metric._metric import Metric
from agentmetrics.metrics._values import field_values
from agentmetrics.model._model import AgentTestCase, describe

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._base._types import ErrorsMode
    from agentmetrics.cases._tool_call_batch import ToolCallBatch

__all__ = ["Cost"]

Prices = tuple[tuple[str, float], ...]


def _prices(given: object) -> Prices | None:
    """``prices`` checked: a mapping (or pairs) of token kind to a finite price
    per token at or above 0, kept as pairs (which cannot change in place)."""
    if given is None:
        return None
    pairs: Any = list(given.items()) if isinstance(given, Mapping) else given
    try:
        checked = tuple((kind, price) for kind, price in pairs)
    except (TypeError, ValueError):
        checked = None
    if checked is None or not checked:
        raise InvalidParameterError(
            f"cost: prices must be a non-empty mapping of token kind to price per token, got "
            f"{describe(given)}. Fix: pass e.g. prices={{'input_tokens': 2.5e-06, "
            f"'output_tokens': 1e-05}}.")
    for kind, price in checked:
        if (not isinstance(kind, str) or isinstance(price, bool)
                or not isinstance(price, numbers.Real) or not math.isfinite(float(price))
                or float(price) < 0):
            raise InvalidParameterError(
                f"cost: prices[{kind!r}] must be a finite price per token at or above 0 under "
                f"a str key, got {describe(price)}. Fix: pass the price of one token in USD, "
                f"e.g. 2.5e-06 for $2.50 per million tokens.")
    return tuple((kind, float(price)) for kind, price in checked)


class Cost(Metric):
    """What a run cost, in US dollars; lower is better: a case passes when
    ``value <= threshold`` (1 USD by default). Over a run: the total.

    Without ``prices``, the value is the case's ``cost``. With ``prices``, a
    mapping of token kind to price per token (in USD), it is the case's
    ``usage`` priced: ``sum(count * prices[kind])`` over its token kinds (each
    product rounded, their sum exact). A kind the usage has and the prices do
    not is an error naming it, never counted as free. Prices in another
    currency: subclass with ``unit = "EUR"`` and a name of its own.
    """

    name: ClassVar[str] = "cost"
    inputs: ClassVar[tuple[str | Input, ...]] = (
        Input("cost", doc="what the run cost, in USD (with prices=, usage is read instead)"),
    )
    requires_llm_judge: ClassVar[bool] = False
    higher_is_better: ClassVar[bool] = False
    description: ClassVar[str] = (
        "The run's cost in USD, or its token usage priced (lower is better); total."
    )
    default_threshold: ClassVar[float] = 1.0
    value_range: ClassVar[tuple[float, float]] = (0.0, math.inf)
    unit: ClassVar[str | None] = "USD"
    cache_fields: ClassVar[tuple[str, ...]] = ("cost",)
    aggregates: ClassVar[Mapping[str, Reducer]] = {"total": Total()}

    def __new__(cls, threshold: float | None = None, prices: object = None) -> Cost:
        # With prices, the metric reads usage, not cost: an instance of the
        # class that declares that input, so every check and key sees it.
        if cls is Cost and prices is not None:
            return object.__new__(_PricedCost)
        return object.__new__(cls)

    def __init__(self, threshold: float | None = None,
                 prices: Mapping[str, float] | Prices | None = None) -> None:
        super().__init__(threshold)
        self.prices = _prices(prices)

    def __reduce__(self) -> tuple[Any, ...]:
        return (functools.partial(Cost, **self.get_params()), ())

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        if self.prices is None:
            assert case.cost is not None
            return case.cost, self.reason_of(case.cost)
        value = self.priced(case)
        assert case.usage is not None
        counts = ", ".join(f"{count} {kind}" for kind, count in case.usage.items())
        return value, f"{self.reason_of(value)} (usage {counts or 'empty'})"

    def priced(self, case: AgentTestCase) -> float:
        """The case's usage times the prices; InvalidCaseError naming a token
        kind the prices lack."""
        usage = case.usage
        assert usage is not None and self.prices is not None
        prices = dict(self.prices)
        unpriced = [kind for kind in usage if kind not in prices]
        if unpriced:
            raise InvalidCaseError(
                f"{self.name}: usage has {unpriced[0]!r} tokens, which prices has no price for "
                f"(prices has {', '.join(map(repr, prices))}); an unpriced kind is never counted "
                f"as free. Fix: add prices[{unpriced[0]!r}] (0.0 if those tokens cost nothing).")
        return math.fsum(count * prices[kind] for kind, count in usage.items())

    def reason_of(self, cost: float) -> str:
        """The reason of a case that cost ``cost``."""
        within = "within" if cost <= self.threshold else "over"
        return f"{cost:g} USD, {within} the {self.threshold:g} USD threshold"

    def evaluate_batch(self, batch: ToolCallBatch, *, errors: ErrorsMode = "raise") -> MetricResult:
        """The cost column itself (float64, NaN where a case has none), reasons
        made from the values when asked for; with ``prices``, each case's usage
        priced in one tight loop."""
        if self.prices is not None:
            require_cases(self, batch, "prices each case's usage")
            return case_values(self, batch, errors, self.priced)
        return field_values(self, batch, errors, "cost", self.reason_of)


class _PricedCost(Cost):
    """A :class:`Cost` given ``prices``: it reads ``usage`` instead of ``cost``."""

    required_fields: ClassVar[tuple[str, ...]] = ()
    inputs: ClassVar[tuple[str | Input, ...]] = (
        Input("usage", doc="token counts by kind, priced by prices="),
    )
    cache_fields: ClassVar[tuple[str, ...]] = ("usage",)


_PricedCost.__name__ = _PricedCost.__qualname__ = "Cost"  # as shown: Cost(prices=...)
