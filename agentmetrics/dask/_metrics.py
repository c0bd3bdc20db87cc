"""Metrics on their way to the workers: by name (resolved there through entry points)
or pickled; loaded once per process, and a failure to load names the worker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from agentmetrics._metric import Metric
from agentmetrics._secrets import scrub, shown_items
from agentmetrics.dask._common import module, where
from agentmetrics.errors import MetricLoadError

__all__ = ["Shipped", "load", "ship"]


@attrs.frozen(slots=True)
class Shipped:
    """A metric as it travels: by name (resolved on the worker through entry
    points) or pickled (a class defined in a notebook travels by value)."""

    label: str
    name: str | None = None
    # Shown as they may be (a key as '***'): a repr of a task reaches logs and dashboards.
    params: tuple[tuple[str, Any], ...] = attrs.field(default=(), repr=lambda params: (
        f"({', '.join(shown_items(params)[0])})"))
    pickled: bytes | None = attrs.field(default=None, repr=lambda data: (
        "None" if data is None else f"<{len(data):,} bytes>"))


def ship(spec: Any, metric: Metric, label: str) -> Shipped:
    if isinstance(spec, str):
        return Shipped(label, name=spec)
    if (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str)
            and isinstance(spec[1], Mapping)):
        return Shipped(label, name=spec[0], params=tuple(sorted(spec[1].items())))
    pickled: bytes = module("cloudpickle").dumps(metric)
    return Shipped(label, pickled=pickled)


_loaded: dict[tuple[Any, ...], Metric] = {}


def load(shipped: Shipped) -> Metric:
    """The metric on this process: loaded once per process and metric."""
    key = (shipped.label, shipped.name, repr(shipped.params), shipped.pickled)
    metric = _loaded.get(key)
    if metric is None:
        metric = _loaded[key] = _load_now(shipped)
    return metric


def _load_now(shipped: Shipped) -> Metric:
    from agentmetrics.registry import resolve_metric

    try:
        if shipped.name is not None:
            return resolve_metric(shipped.name, **dict(shipped.params))
        import pickle

        assert shipped.pickled is not None
        metric = pickle.loads(shipped.pickled)
    except Exception as error:
        what = (f"metric {shipped.name!r}" if shipped.name is not None
                else f"the pickled metric {shipped.label!r}")
        fix = ("install the distribution that provides it on every worker (the same "
               "environment as the client; distributed's PipInstall plugin can do it)"
               if shipped.name is not None or isinstance(error, ImportError) else
               "make the metric picklable, or register it in a package installed on every worker")
        said = scrub(str(error), shown_items(shipped.params)[1])
        raise MetricLoadError(
            f"{what} could not be loaded on {where()}: {type(error).__name__}: {said}. "
            f"Expected the metric to exist on every worker. Fix: {fix}.") from None
    if not isinstance(metric, Metric):
        raise MetricLoadError(f"the pickled metric {shipped.label!r} is a "
                              f"{type(metric).__name__} on {where()}, not a Metric.")
    return metric
