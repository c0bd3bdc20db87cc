"""Where a run's numbers come from: the library, each metric (name, version,
parameters with secrets masked), the data's fingerprint, when and where it
ran, and the run's random identity (``uid``). Shown by reports, kept by saved
runs and the run history.

Read back from JSON (a saved run's header, the history), every field is
checked for its JSON type and never converted: ``"false"`` (a string) is not
false, ``"0.8"`` is not a number, ``true`` is not 1. A wrong field is refused
with its path (``provenance.metrics[0].higher_is_better``), what was expected
and what was found."""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import math
import platform
import re
import socket
import sys
import uuid
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics._base._display import range_text
from agentmetrics._base._lines import MAX_DEPTH
from agentmetrics._base._version import __version__
from agentmetrics.corpus._state import reducer_from_state, reducer_state
from agentmetrics.errors import AgentMetricsError, InvalidCaseError
from agentmetrics.metric._metric import UNIT_LENGTH, declared_name
from agentmetrics.model._canonical import Unencodable, encode

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.results._results import EvaluationResult

__all__ = ["FINGERPRINT_FIELDS", "FLAG", "MAX_DEPTH", "OBJECT", "WHOLE", "FieldError",
           "MetricSpec", "Provenance", "deeper_than", "describe", "field_values", "fields_of",
           "fingerprint", "flag", "json_safe", "parse_provenance", "provenance_of", "whole"]

# MAX_DEPTH (agentmetrics._base._lines, the one limit of every reader of nested input):
# how deeply a saved run's values (metadata, ids, a metric's parameters) may
# nest; saving refuses deeper ones, reading refuses them with their place
# (Python's own limit would otherwise end the read with a RecursionError).

_UID = re.compile(r"[0-9a-f]{32}")


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` as JSON can hold it: mappings, sequences, strings, finite
    numbers, booleans and None as they are; anything else by its repr (and
    what nests deeper than :data:`MAX_DEPTH`, by a note saying so)."""
    if value is None or isinstance(value, (bool, str, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, (Mapping, list, tuple)) and depth >= MAX_DEPTH:
        return f"<{type(value).__name__} nested deeper than {MAX_DEPTH} levels, not shown>"
    if isinstance(value, Mapping):
        return {str(key): json_safe(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(item, depth + 1) for item in value]
    return repr(value)


def deeper_than(value: Any, limit: int) -> bool:
    """Whether a JSON value (lists and dicts) nests more than ``limit`` levels
    (a list or an object is one level); without recursion."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            if depth >= limit:
                return True
            stack.extend((inner, depth + 1) for inner in (
                item.values() if isinstance(item, dict) else item))
    return False


# -- reading provenance back from JSON, field by field ---------------------------


class FieldError(Exception):
    """A field of a provenance (or a saved run's header) that is missing or not
    of its type: ``path`` (``provenance.metrics[0].threshold``), what was
    ``expected``, what was ``found``. Raised inside agentmetrics.runs, which
    turns it into an InvalidCaseError naming the file (or the history)."""

    def __init__(self, path: str, expected: str, found: str, unknown: bool = False) -> None:
        super().__init__(f"{path}: expected {expected}, found {found}")
        self.path, self.expected, self.found = path, expected, found
        #: A field that should not be there (the fix is to remove it).
        self.unknown = unknown


def describe(value: Any) -> str:
    """A JSON value as a message shows it, with its JSON type."""
    if value is None:
        return "null"
    if value is True or value is False:
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, str):
        shown = json.dumps(value if len(value) <= 60 else value[:57] + "...", ensure_ascii=False)
        return f"the string {shown}"
    if isinstance(value, (int, float)):
        text = repr(value) if not isinstance(value, int) or abs(value) < 10**30 else (
            f"an integer of {len(str(abs(value)))} digits")
        return f"the number {text}"
    if isinstance(value, list):
        shown = json.dumps(value) if not deeper_than(value, 3) else ""
        if shown and len(shown) <= 60:
            return f"the list {shown}"
        return f"a list of {len(value)} item{'s' if len(value) != 1 else ''}"
    if isinstance(value, dict):
        return f"an object with the keys {sorted(value)[:8]}"
    return f"a {type(value).__name__}"


#: What each kind of field holds, as messages say it.
STRING = "a string"
WHOLE = "a whole number, 0 or more (not a string, a fraction or a boolean)"
FLAG = "true or false (a JSON boolean, not a string or a number)"
OBJECT = "an object"

_SPEC_FIELDS = {"label": STRING, "name": STRING, "version": STRING, "source": STRING,
                "params": "an object (the parameters by name)",
                "threshold": "a finite number in the metric's value_range (not a string or "
                             "a boolean)",
                "higher_is_better": FLAG,
                "value_range": "a list [low, high] of two numbers, low below high (null for an "
                               "infinite end)"}
#: Fields a metric's record may lack (written before agentmetrics kept them).
_SPEC_OPTIONAL = ("unit", "statistics", "aggregates")
_STATISTICS_EXPECTED = "a list of the names of the metric's per-case statistics, each once"
_AGGREGATES_EXPECTED = ("an object of the metric's corpus aggregates, each a reducer as "
                        "agentmetrics wrote it (e.g. {\"kind\": \"Quantile\", \"q\": 0.95, "
                        "\"of\": \"value\"})")
_PROVENANCE_FIELDS = {"agentmetrics_version": STRING, "created": STRING, "host": STRING,
                      "platform": STRING, "python": STRING, "cases": WHOLE,
                      "fingerprint": STRING, "metrics": "a list of metrics (objects)"}
_UID_EXPECTED = "the run's identity, 32 hexadecimal digits (0-9, a-f)"


def fields_of(data: Any, path: str, expected: Mapping[str, str], optional: tuple[str, ...] = ()
              ) -> dict[str, Any]:
    """``data``, an object with each of the ``expected`` fields (and maybe
    the ``optional`` ones), no other; :class:`FieldError` for the first
    missing or unknown field. ``path``: where ``data`` is ("" at the top)."""
    def inside(key: str) -> str:
        return f"{path}.{key}" if path else key

    if not isinstance(data, dict):
        raise FieldError(path, OBJECT, describe(data))
    for key, kind in expected.items():
        if key not in data:
            raise FieldError(inside(key), kind, "nothing (the field is missing)")
    unknown = sorted(set(data) - set(expected) - set(optional))
    if unknown:
        raise FieldError(inside(unknown[0]), f"no such field (the fields are "
                         f"{', '.join([*expected, *optional])})",
                         f"{describe(data[unknown[0]])}, in a field this agentmetrics does "
                         f"not know (written by another program, or edited)", unknown=True)
    return data


def _string(data: Mapping[str, Any], key: str, path: str) -> str:
    value = data[key]
    if type(value) is not str:
        raise FieldError(f"{path}.{key}", STRING, describe(value))
    return value


def whole(value: Any, path: str) -> int:
    """A whole number, 0 or more (never a bool, a float or a string)."""
    if type(value) is not int or value < 0:
        raise FieldError(path, WHOLE, describe(value))
    return value


def flag(value: Any, path: str) -> bool:
    """A JSON boolean (never a string, a number or null)."""
    if type(value) is not bool:
        raise FieldError(path, FLAG, describe(value))
    return bool(value)  # a bool already: its type was checked


def _bound(value: Any, path: str, infinite: float) -> float:
    """One end of a value range: a JSON number, or null for an infinite end."""
    if value is None:
        return infinite
    if type(value) not in (int, float) or not math.isfinite(value):
        raise FieldError(path, "a number, or null for an infinite end", describe(value))
    return float(value)


def _value_range(bounds: Any, path: str) -> tuple[float, float]:
    """A metric's saved ``value_range``: ``[low, high]``, low below high, an
    infinite end written as null."""
    if type(bounds) is not list or len(bounds) != 2:
        raise FieldError(f"{path}.value_range", _SPEC_FIELDS["value_range"], describe(bounds))
    low = _bound(bounds[0], f"{path}.value_range[0]", -math.inf)
    high = _bound(bounds[1], f"{path}.value_range[1]", math.inf)
    if not low < high:
        raise FieldError(f"{path}.value_range", "[low, high] with low below high",
                         describe(bounds))
    return low, high


def _threshold_kind(value_range: tuple[float, float]) -> str:
    """What a threshold in ``value_range`` is, as messages say it: a number
    from 0 to 1 for a share or score, else a number in the metric's range."""
    if value_range == (0.0, 1.0):
        return "a number from 0 to 1 (not a string or a boolean)"
    return (f"a finite number in the metric's value_range {range_text(value_range)} (not a "
            f"string or a boolean)")


def _spec_fields(data: Any) -> Mapping[str, str]:
    """The fields of a metric's record, the threshold said for the record's
    own value_range where that range is readable (missing, it is said so)."""
    if not isinstance(data, dict):
        return _SPEC_FIELDS
    try:
        value_range = _value_range(data.get("value_range"), "")
    except FieldError:
        return _SPEC_FIELDS
    return {**_SPEC_FIELDS, "threshold": _threshold_kind(value_range)}


def _unit(value: Any, path: str) -> str | None:
    """A metric's saved unit: null (a share or score) or a name as a metric
    class may declare it (1 to UNIT_LENGTH printable characters, unpadded)."""
    if value is None:
        return None
    if type(value) is not str or not 0 < len(value) <= UNIT_LENGTH \
            or not value.isprintable() or value != value.strip():
        raise FieldError(path, f"null (no unit) or the values' unit, a string of 1 to "
                         f"{UNIT_LENGTH} printable characters (e.g. \"s\")", describe(value))
    return value


def _spec(data: Any, path: str) -> MetricSpec:
    fields = fields_of(data, path, _spec_fields(data), _SPEC_OPTIONAL)
    params = fields["params"]
    if not isinstance(params, dict):
        raise FieldError(f"{path}.params", _SPEC_FIELDS["params"], describe(params))
    if deeper_than(params, MAX_DEPTH):
        raise FieldError(f"{path}.params", f"an object nested at most {MAX_DEPTH} levels",
                         f"an object nested deeper than {MAX_DEPTH} levels")
    low, high = _value_range(fields["value_range"], path)
    threshold = fields["threshold"]
    if type(threshold) not in (int, float) or not math.isfinite(threshold) \
            or not low <= threshold <= high:
        raise FieldError(f"{path}.threshold", _threshold_kind((low, high)), describe(threshold))
    unit = _unit(fields.get("unit"), f"{path}.unit")
    statistics = fields.get("statistics", [])
    if type(statistics) is not list or not all(type(name) is str and name.isidentifier()
                                               for name in statistics) \
            or len(set(statistics)) != len(statistics):
        raise FieldError(f"{path}.statistics", _STATISTICS_EXPECTED, describe(statistics))
    aggregates = fields.get("aggregates", {})
    if type(aggregates) is not dict:
        raise FieldError(f"{path}.aggregates", _AGGREGATES_EXPECTED, describe(aggregates))
    for key, state in aggregates.items():
        try:
            if type(state) is not dict:
                raise TypeError
            reducer_from_state(state)
        except (AgentMetricsError, TypeError, ValueError):
            raise FieldError(f"{path}.aggregates.{key}", _AGGREGATES_EXPECTED,
                             describe(state)) from None
    return MetricSpec(
        label=_string(fields, "label", path), name=_string(fields, "name", path),
        version=_string(fields, "version", path), source=_string(fields, "source", path),
        params=dict(params), threshold=float(threshold),
        higher_is_better=flag(fields["higher_is_better"], f"{path}.higher_is_better"),
        value_range=(low, high), unit=unit, statistics=tuple(statistics),
        aggregates={str(key): dict(state) for key, state in aggregates.items()})


def parse_provenance(data: Any, path: str = "provenance") -> Provenance:
    """The provenance ``data`` (what :meth:`Provenance.to_json` wrote) holds,
    every field checked for its type (:class:`FieldError` names the first
    that is not); ``uid`` may be missing (a run saved before it was kept)."""
    fields = fields_of(data, path, _PROVENANCE_FIELDS, ("uid",))
    uid = fields.get("uid", "")
    if "uid" in fields and (type(uid) is not str or not _UID.fullmatch(uid)):
        raise FieldError(f"{path}.uid", _UID_EXPECTED, describe(uid))
    metrics = fields["metrics"]
    if type(metrics) is not list:
        raise FieldError(f"{path}.metrics", _PROVENANCE_FIELDS["metrics"], describe(metrics))
    return Provenance(
        agentmetrics_version=_string(fields, "agentmetrics_version", path),
        created=_string(fields, "created", path), host=_string(fields, "host", path),
        platform=_string(fields, "platform", path), python=_string(fields, "python", path),
        cases=whole(fields["cases"], f"{path}.cases"),
        fingerprint=_string(fields, "fingerprint", path),
        metrics=tuple(_spec(spec, f"{path}.metrics[{k}]") for k, spec in enumerate(metrics)),
        uid=uid)


def _checked(parse: Callable[[], Any], where: str) -> Any:
    try:
        return parse()
    except FieldError as error:
        raise InvalidCaseError(
            f"{where}: {error.path} is {error.found}; expected {error.expected}. Nothing "
            f"is converted (the string \"false\" is not false). Fix: "
            f"{'remove the field' if error.unknown else 'write the field as expected'}.") \
            from None


@attrs.frozen(slots=True)
class MetricSpec:
    """One metric of a run as it is kept: its label in the result, registry
    name, version, the class's origin, its parameters as they may be shown
    (secrets masked), threshold, direction, the range of its values (an
    infinite end written as null) and their unit (None for a share or score)."""

    label: str
    name: str
    version: str
    source: str
    params: Mapping[str, Any]
    threshold: float
    higher_is_better: bool
    value_range: tuple[float, float]
    unit: str | None = None
    #: The per-case statistics the metric declares (their columns are kept
    #: with the run) and its corpus aggregates, each as its reducer's JSON.
    statistics: tuple[str, ...] = ()
    aggregates: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)

    def to_json(self) -> dict[str, Any]:
        written = {"label": self.label, "name": self.name, "version": self.version,
                   "source": self.source, "params": dict(self.params),
                   "threshold": self.threshold, "higher_is_better": self.higher_is_better,
                   "value_range": [bound if math.isfinite(bound) else None
                                   for bound in self.value_range], "unit": self.unit}
        if self.statistics:
            written["statistics"] = list(self.statistics)
        if self.aggregates:
            written["aggregates"] = {name: dict(state) for name, state in self.aggregates.items()}
        return written

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "metric") -> MetricSpec:
        """What :meth:`to_json` wrote, every field checked for its type
        (InvalidCaseError naming the field otherwise; ``where`` starts it)."""
        return _checked(lambda: _spec(data, "metric"), where)  # type: ignore[no-any-return]


@attrs.frozen(slots=True)
class Provenance:
    """Where a run comes from. ``created`` is an ISO 8601 UTC time; ``host``
    the machine's name, ``platform`` and ``python`` what ran it; ``fingerprint``
    a SHA-256 of the cases' ids and call sequences (see :func:`fingerprint`);
    ``uid`` the run's identity, 32 random hexadecimal digits made with the
    provenance (empty for a run saved before agentmetrics kept one): two
    evaluations of the same cases in the same second still differ by it, and
    the run history checks it when it loads a run back."""

    agentmetrics_version: str
    created: str
    host: str
    platform: str
    python: str
    cases: int
    fingerprint: str
    metrics: tuple[MetricSpec, ...]
    uid: str = ""

    def to_json(self) -> dict[str, Any]:
        data = {"agentmetrics_version": self.agentmetrics_version, "created": self.created,
                "host": self.host, "platform": self.platform, "python": self.python,
                "cases": self.cases, "fingerprint": self.fingerprint,
                "metrics": [spec.to_json() for spec in self.metrics]}
        if self.uid:
            data["uid"] = self.uid
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str = "provenance") -> Provenance:
        """What :meth:`to_json` wrote, every field checked for its type
        (InvalidCaseError naming the field otherwise; ``where`` starts it)."""
        return _checked(lambda: parse_provenance(data), where)  # type: ignore[no-any-return]


#: The case fields a fingerprint covers beyond the calls and the ids, in order.
FINGERPRINT_FIELDS = ("input", "actual_output", "expected_output", "latency", "cost", "usage",
                      "metadata")
#: The fields held as float64 columns (NaN where a row has none).
_NUMBERS = ("latency", "cost")


def fingerprint(batch: ToolCallBatch) -> str:
    """A SHA-256 of what was scored: each case's id, its called and expected
    tool names in order, which sides were given, and every other case field
    (:data:`FINGERPRINT_FIELDS`: input, actual_output, expected_output,
    latency, cost, usage, metadata), each by its canonical encoding (type and
    value). Equal for the same data however it was read (cases, records, a
    DataFrame, Arrow); not of the calls' arguments."""
    import numpy as np

    # Names by a canonical id (their sorted order), so the same names read in
    # another order fingerprint the same.
    order = np.argsort(np.array(batch.vocabulary, dtype=object), kind="stable") if len(
        batch.vocabulary) else np.zeros(0, dtype=np.int64)
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    names = json.dumps(sorted(batch.vocabulary), ensure_ascii=False).encode("utf-8",
                                                                            "surrogatepass")
    digest = hashlib.sha256(b"agentmetrics-cases-2\0" + len(names).to_bytes(8, "little")
                            + names)
    for ids, offsets, given in ((batch.called_ids, batch.called_offsets, batch.called_given),
                                (batch.expected_ids, batch.expected_offsets,
                                 batch.expected_given)):
        digest.update(rank[ids].astype("<i8").tobytes() if len(ids) else b"")
        digest.update(np.asarray(offsets, dtype="<i8").tobytes())
        digest.update(np.asarray(given, dtype=np.uint8).tobytes())
    if batch.case_ids is not None and batch.cases is None:  # else in the cases' metadata
        digest.update(json.dumps(json_safe(list(batch.case_ids)),
                                 ensure_ascii=False).encode("utf-8", "surrogatepass"))
    for name in FINGERPRINT_FIELDS:
        part = _field_bytes(batch, name)
        if part is not None:  # a field no row has adds nothing: the calls alone as before
            digest.update(name.encode("ascii") + b"\0" + len(part).to_bytes(8, "little")
                          + part)
    return digest.hexdigest()


def field_values(batch: ToolCallBatch, name: str) -> list[Any] | None:
    """The case field ``name`` of every row (None where a row has none, as
    for a row that could not be read), from the batch's field columns or its
    cases; None when no row has it. What the fingerprint covers and a saved
    run keeps."""
    if name in batch.fields:
        values: list[Any] = batch.field(name).tolist()
    elif batch.cases is None:
        return None  # nothing but the calls and ids
    else:  # a row that could not be read (an UnreadableCase) has no fields
        invalid = batch.invalid
        values = [None if row in invalid else getattr(case, name, None)
                  for row, case in enumerate(batch.cases)]
    if name in _NUMBERS:  # float64 columns hold NaN for "none"
        values = [None if value is None or math.isnan(value) else value for value in values]
    elif name == "metadata":
        values = [value or None for value in values]  # {} and no metadata alike
    return None if all(value is None for value in values) else values


def _field_bytes(batch: ToolCallBatch, name: str) -> bytes | None:
    """The case field ``name`` of every row as canonical bytes (numbers as
    float64, whatever type they were read as), None when no row has it."""
    import numpy as np

    values = field_values(batch, name)
    if values is None:
        return None
    if name in _NUMBERS:
        numbers = np.array([math.nan if value is None else value for value in values],
                           dtype="<f8")
        return numbers.tobytes() + np.packbits(np.isnan(numbers)).tobytes()
    try:
        return encode(values, fallback=repr)
    except Unencodable:  # nested too deeply to encode: by what JSON can hold of it
        return encode([json.dumps(json_safe(value), ensure_ascii=False, default=repr)
                       for value in values])


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def stamp(epoch: float) -> str:
    """``epoch`` (seconds) as an ISO 8601 UTC time."""
    return _dt.datetime.fromtimestamp(epoch, _dt.timezone.utc).isoformat(timespec="seconds")


def provenance_of(result: EvaluationResult, created: float | None = None) -> Provenance:
    """The provenance of a live result: this process, its metrics, its data."""

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
            value_range=(float(cls.value_range[0]), float(cls.value_range[1])),
            unit=getattr(cls, "unit", None), statistics=tuple(cls.statistics),
            aggregates={name: reducer_state(reducer)
                        for name, reducer in cls.aggregates.items()}))
    return Provenance(
        agentmetrics_version=__version__,
        created=_now() if created is None else stamp(created),
        host=socket.gethostname(), platform=platform.platform(),
        python=f"{platform.python_implementation()} {sys.version.split()[0]}",
        cases=len(result), fingerprint=fingerprint(result.batch), metrics=tuple(specs),
        uid=uuid.uuid4().hex)
