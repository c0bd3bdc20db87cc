"""The metric of a saved run: what the run kept of it (name, version,
threshold, direction, value range, parameters as shown) standing in for a
class that may not be installed where the run is read."""

from __future__ import annotations

import abc
import json
from typing import Any, cast

from agentmetrics.corpus._state import reducer_from_state
from agentmetrics.errors import InvalidMetricError
from agentmetrics.metric._metric import METRIC_NAME_PATTERN, Metric
from agentmetrics.model._model import AgentTestCase
from agentmetrics.runs._provenance import MetricSpec

__all__ = ["SavedMetric", "saved_metric"]


class SavedMetric(Metric):
    """A metric as a saved run recorded it: each is an instance of a subclass
    made for its name, version, direction and value range (never
    registered). It reports its threshold and (masked) parameters
    (``get_params()`` and ``shown_params()`` are the saved ones, secrets still
    masked); it cannot score a new case: get the metric itself with
    ``agentmetrics.get_metric(name, ...)``."""

    name = "saved_metric"
    spec: MetricSpec

    def __init__(self, spec: MetricSpec) -> None:
        self.spec = spec
        super().__init__(spec.threshold)

    def measure(self, case: AgentTestCase) -> tuple[float, str]:
        raise InvalidMetricError(
            f"{self.spec.name!r} here is the metric of a saved run: it holds what the run "
            f"recorded, not the metric's code, so it cannot score new cases. Fix: "
            f"agentmetrics.get_metric({self.spec.name!r}, ...) with its parameters.")

    def get_params(self) -> dict[str, Any]:
        return dict(self.spec.params)

    def shown_params(self) -> dict[str, Any]:
        return dict(self.spec.params)

    def secret_variants(self) -> tuple[str, ...]:
        return ()

    def __repr__(self) -> str:
        args = ", ".join(f"{key}={value!r}" for key, value in self.spec.params.items())
        return f"saved {self.spec.name}({args})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SavedMetric) and other.spec == self.spec

    def __hash__(self) -> int:
        return hash((self.spec.name, self.spec.threshold))

    @property
    def saved_name(self) -> str:
        """The registry name the run saved (kept even where it is no valid name here)."""
        return self.spec.name

    @classmethod
    def from_spec(cls, spec: MetricSpec) -> SavedMetric:
        """The stand-in for the metric ``spec`` describes (see :func:`saved_metric`)."""
        return saved_metric(spec)

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt from its spec; the pickle names agentmetrics.runs.SavedMetric.
        return (SavedMetric.from_spec, (self.spec,))


_CLASSES: dict[str, type[SavedMetric]] = {}


def saved_metric(spec: MetricSpec) -> SavedMetric:
    """The stand-in for the metric ``spec`` describes: an instance of a
    subclass of :class:`SavedMetric` with the metric's name, version,
    direction and value range as class attributes (what summaries and
    comparisons read) and its per-case statistics and corpus aggregates (so
    the run's aggregates are computed again, exactly, from what it kept),
    never registered."""
    name = spec.name if METRIC_NAME_PATTERN.match(spec.name) else "saved_metric"
    key = json.dumps([name, spec.version, spec.higher_is_better, repr(spec.value_range),
                      spec.unit, list(spec.statistics), spec.aggregates], sort_keys=True)
    cls = _CLASSES.get(key)
    if cls is None:
        cls = cast("type[SavedMetric]", abc.ABCMeta(f"Saved_{name}", (SavedMetric,), {
            "name": name, "version": spec.version, "higher_is_better": spec.higher_is_better,
            "value_range": spec.value_range, "unit": spec.unit, "__module__": __name__,
            "statistics": spec.statistics,
            "aggregates": {label: reducer_from_state(state)
                           for label, state in spec.aggregates.items()},
            "__doc__": SavedMetric.__doc__}))
        _CLASSES[key] = cls
    return cls(spec)
