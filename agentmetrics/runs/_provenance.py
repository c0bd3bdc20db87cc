"""Where a run's numbers come from: the library, each metric (name, version,
parameters with secrets masked), the data's fingerprint, and when and where
it ran. Shown by reports, kept by saved runs and the run history."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import platform
import socket
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._results import EvaluationResult
    from agentmetrics._tool_call_batch import ToolCallBatch

__all__ = ["MetricSpec", "Provenance", "fingerprint", "json_safe", "provenance_of"]


def json_safe(value: Any) -> Any:
    """``value`` as JSON can hold it: mappings, sequences, strings, finite
    numbers, booleans and None as they are; anything else by its repr."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, Mapping):
        return {str(key): json_safe(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item) for item in value]
    return repr(value)


@attrs.frozen(slots=True)
class MetricSpec:
    """One metric of a run as it is kept: its label in the result, registry
    name, version, the class's origin, its parameters as they may be shown
    (secrets masked), threshold, direction and the range of its values."""

    label: str
    name: str
    version: str
    source: str
    params: Mapping[str, Any]
    threshold: float
    higher_is_better: bool
    value_range: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        return {"label": self.label, "name": self.name, "version": self.version,
                "source": self.source, "params": dict(self.params),
                "threshold": self.threshold, "higher_is_better": self.higher_is_better,
                "value_range": list(self.value_range)}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MetricSpec:
        low, high = data["value_range"]
        return cls(label=str(data["label"]), name=str(data["name"]),
                   version=str(data["version"]), source=str(data.get("source", "")),
                   params=dict(data.get("params") or {}), threshold=float(data["threshold"]),
                   higher_is_better=bool(data["higher_is_better"]),
                   value_range=(float(low), float(high)))


@attrs.frozen(slots=True)
class Provenance:
    """Where a run comes from. ``created`` is an ISO 8601 UTC time; ``host``
    the machine's name, ``platform`` and ``python`` what ran it; ``fingerprint``
    a SHA-256 of the cases' ids and call sequences (see :func:`fingerprint`)."""

    agentmetrics_version: str
    created: str
    host: str
    platform: str
    python: str
    cases: int
    fingerprint: str
    metrics: tuple[MetricSpec, ...]

    def to_json(self) -> dict[str, Any]:
        return {"agentmetrics_version": self.agentmetrics_version, "created": self.created,
                "host": self.host, "platform": self.platform, "python": self.python,
                "cases": self.cases, "fingerprint": self.fingerprint,
                "metrics": [spec.to_json() for spec in self.metrics]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Provenance:
        return cls(agentmetrics_version=str(data["agentmetrics_version"]),
                   created=str(data["created"]), host=str(data.get("host", "")),
                   platform=str(data.get("platform", "")), python=str(data.get("python", "")),
                   cases=int(data["cases"]), fingerprint=str(data["fingerprint"]),
                   metrics=tuple(MetricSpec.from_json(m) for m in data["metrics"]))


def fingerprint(batch: ToolCallBatch) -> str:
    """A SHA-256 of what was scored: each case's id, its called and expected
    tool names in order, and which sides were given. Equal for the same data
    however it was read (cases, records, a DataFrame); not of the arguments."""
    import numpy as np

    # Names by a canonical id (their sorted order), so the same names read in
    # another order fingerprint the same.
    order = np.argsort(np.array(batch.vocabulary, dtype=object), kind="stable") if len(
        batch.vocabulary) else np.zeros(0, dtype=np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    names = json.dumps(sorted(batch.vocabulary), ensure_ascii=False).encode("utf-8",
                                                                            "surrogatepass")
    digest = hashlib.sha256(b"agentmetrics-cases-1\0" + len(names).to_bytes(8, "little")
                            + names)
    for ids, offsets, given in ((batch.called_ids, batch.called_offsets, batch.called_given),
                                (batch.expected_ids, batch.expected_offsets,
                                 batch.expected_given)):
        digest.update(rank[ids].astype("<i8").tobytes() if len(ids) else b"")
        digest.update(np.asarray(offsets, dtype="<i8").tobytes())
        digest.update(np.asarray(given, dtype=np.uint8).tobytes())
    if batch.case_ids is not None:
        digest.update(json.dumps(json_safe(list(batch.case_ids)),
                                 ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def stamp(epoch: float) -> str:
    """``epoch`` (seconds) as an ISO 8601 UTC time."""
    return _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc).isoformat(timespec="seconds")


def provenance_of(result: EvaluationResult, created: float | None = None) -> Provenance:
    """The provenance of a live result: this process, its metrics, its data."""
    from agentmetrics._version import __version__
    from agentmetrics._metric import declared_name

    specs = []
    for label, scores in result.results.items():
        metric = scores.metric
        cls = type(metric)
        try:
            params = json_safe(metric.shown_params())
        except Exception:  # parameters that cannot be read are not shown
            params = {}
        specs.append(MetricSpec(
            label=label, name=str(getattr(metric, "saved_name", None) or declared_name(cls)),
            version=str(cls.version), source=result.sources.get(label, ""),
            params=params, threshold=float(metric.threshold),
            higher_is_better=bool(cls.higher_is_better),
            value_range=(float(cls.value_range[0]), float(cls.value_range[1]))))
    return Provenance(
        agentmetrics_version=__version__,
        created=_now() if created is None else stamp(created),
        host=socket.gethostname(), platform=platform.platform(),
        python=f"{platform.python_implementation()} {sys.version.split()[0]}",
        cases=len(result), fingerprint=fingerprint(result.batch), metrics=tuple(specs))
