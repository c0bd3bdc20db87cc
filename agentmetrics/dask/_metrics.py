"""Metrics on their way to the workers: by name (resolved there through entry points)
or pickled; loaded once per process, and a failure to load names the worker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from agentmetrics._secrets import scrub, shown_items
from agentmetrics.dask._common import module, where
from agentmetrics.errors import MetricLoadError
from agentmetrics.metric._metric import Metric
from agentmetrics.registry import get_metric_class, resolve_metric

__all__ = ["Shipped", "load", "ship"]


@attrs.frozen(slots=True)
class Shipped:
    """A metric as it travels: by name (resolved on the worker through entry
    points) or pickled (a class defined in a notebook travels by value)."""

    label: str
    name: str | None = None
    # Shown as they may be (the metric's secret_params and credential-named ones as '***',
    # URL credentials masked): a repr of a task reaches logs and dashboards.
    params: tuple[tuple[str, Any], ...] = attrs.field(default=(), repr=False)
    pickled: bytes | None = None
    #: The parameters the metric declares secret (its class's ``secret_params``;
    #: by default, those of the class the registry has under ``name``).
    secret: tuple[str, ...] = attrs.field(
        default=attrs.Factory(lambda self: _declared_secrets(self.name), takes_self=True))

    def __repr__(self) -> str:
        return (f"Shipped(label={self.label!r}, name={self.name!r}, params=("
                f"{', '.join(shown_items(self.params, self.secret)[0])}), "
                f"pickled={'None' if self.pickled is None else f'<{len(self.pickled):,} bytes>'})")


def _declared_secrets(name: str | None) -> tuple[str, ...]:
    if name is None:
        return ()

    try:
        return tuple(get_metric_class(name).secret_params)
    except Exception:  # not registered here: the names alone decide what is masked
        return ()


def ship(spec: Any, metric: Metric, label: str) -> Shipped:
    if isinstance(spec, str):
        return Shipped(label, name=spec, secret=tuple(type(metric).secret_params))
    if (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[0], str)
            and isinstance(spec[1], Mapping)):
        return Shipped(label, name=spec[0], params=tuple(sorted(spec[1].items())),
                       secret=tuple(type(metric).secret_params))
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
        said = scrub(str(error), shown_items(shipped.params, shipped.secret)[1])
        raise MetricLoadError(
            f"{what} could not be loaded on {where()}: {type(error).__name__}: {said}. "
            f"Expected the metric to exist on every worker. Fix: {fix}.") from None
    if not isinstance(metric, Metric):
        raise MetricLoadError(f"the pickled metric {shipped.label!r} is a "
                              f"{type(metric).__name__} on {where()}, not a Metric.")
    return metric
