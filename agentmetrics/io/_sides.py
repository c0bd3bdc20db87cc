"""The two sides of a comparison: each metric's scores keyed by case, read from
an EvaluationResult, a saved run, the rows ``agentmetrics evaluate`` writes
(``--format jsonl`` or ``json``) or a pytest ``--agentmetrics-report``."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._display import range_text
from agentmetrics._base._lines import LineError, SourceError, lines, parse_json_line
from agentmetrics.errors import AgentMetricsError, InvalidCaseError, InvalidParameterError
from agentmetrics.model._metric_result import out_of_range
from agentmetrics.registry import get_metric_class
from agentmetrics.results._summary import case_labels
from agentmetrics.runs._format import is_saved_run
from agentmetrics.runs._load import load_result

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.results._results import EvaluationResult

__all__ = ["ComparisonSide", "Scores", "read_side", "registered_range", "registered_unit", "side_from_evaluations",
           "side_from_records", "side_from_result"]

#: The keys of a row that ``agentmetrics evaluate`` writes.
RESULT_ROW_KEYS = frozenset({"case", "id", "metric", "value", "passed", "threshold", "reason",
                             "error"})


@attrs.frozen(slots=True)
class Scores:
    """One metric's scores on one side: per case its pairing key, value (NaN
    when it could not be scored), pass flag, and how to get its reason or error
    (by row)."""

    keys: tuple[Any, ...]
    values: npt.NDArray[np.float64]
    passed: npt.NDArray[np.bool_]
    higher_is_better: bool
    reason: Callable[[int], str | None]
    error: Callable[[int], str | None]
    #: The values' unit ("s", "tokens"), when known; None for a share or score.
    unit: str | None = None


@attrs.frozen(slots=True)
class ComparisonSide:
    """Every metric's scores on one side, and a name for it (a path, say)."""

    name: str
    metrics: Mapping[str, Scores]
    #: Where the scores come from, when known (a Provenance: an evaluation's own).
    provenance: Any = None
    #: What the run was made with (empty when not known: saved rows keep none).
    config: Mapping[str, Any] = attrs.field(factory=dict)


def _check_unique(keys: Sequence[Any], where: Callable[[int], str], side: str,
                  metric: str, fix: str) -> None:
    first: dict[Any, int] = {}
    for row, key in enumerate(keys):
        try:
            seen = first.setdefault(key, row)
        except TypeError:
            raise InvalidParameterError(
                f"{side}: {where(row)} has the key {key!r}, which cannot be paired (it is "
                f"not hashable). {fix}") from None
        if seen != row:
            raise InvalidParameterError(
                f"{side}: the key {key!r} of {metric!r} is on {where(seen)} and "
                f"{where(row)}; expected each case once, so that it pairs with one case of "
                f"the other side. {fix}")


def side_from_result(result: EvaluationResult, on: str | None, name: str) -> ComparisonSide:
    """Each metric of ``result``, its cases keyed by ``on``: ``"id"`` (the case
    id), another metadata key, or ``None`` (the position)."""

    batch = result.batch
    if on is None:
        keys: tuple[Any, ...] = tuple(range(len(batch)))
        fix = ""
    else:
        if not isinstance(on, str):
            raise InvalidParameterError(
                f"on: expected a metadata key such as 'id', or None to pair by position, "
                f"got {type(on).__name__}.")
        if on == "id" and batch.case_ids is None and batch.cases is None:
            raise InvalidParameterError(
                f"on='id': the {name} cases have no ids. Fix: give each case an id "
                f"(metadata['id'], or an 'id' column), or pass on=None to pair cases by "
                f"position (both runs listing the same cases in the same order).")
        try:
            keys = tuple(case_labels(batch, on, f"on={on!r} ({name})"))
        except InvalidParameterError as error:
            raise InvalidParameterError(
                f"{error} Or pass on=None to pair cases by position.") from None
        fix = ("Fix: give cases unique ids, pair on another key (on=...), or by position "
               "(on=None).")

    if result.results:  # every metric has the same cases, so the same keys
        _check_unique(keys, lambda row: f"row {row}", name, next(iter(result.results)), fix)
    metrics = {
        label: Scores(keys=keys, values=scores.values, passed=scores.passed,
                      higher_is_better=bool(scores.metric.higher_is_better),
                      reason=_result_reason(scores), error=scores.errors.get,
                      unit=type(scores.metric).unit)
        for label, scores in result.results.items()
    }
    return ComparisonSide(name, metrics, result.provenance, result.config)


def _result_reason(scores: Any) -> Callable[[int], str | None]:
    def reason(row: int) -> str | None:
        return None if row in scores.errors else str(scores.reason(row))
    return reason


def read_side(path: str | os.PathLike[str], on: str | None) -> ComparisonSide:
    """Saved scores: a saved run (``EvaluationResult.save``, ``agentmetrics
    evaluate --save``), the rows of ``agentmetrics evaluate --format jsonl`` (or
    ``json``), or a pytest ``--agentmetrics-report``."""

    name = os.fspath(path)
    if is_saved_run(name):

        return side_from_result(load_result(name), on, name)
    texts: list[tuple[int, str]] = []
    try:
        for line in lines(name):
            if line.error is not None:
                raise InvalidCaseError(f"{name}:{line.number}: {line.error}")
            texts.append((line.number, line.text or ""))
    except SourceError as error:
        raise InvalidParameterError(f"{name}: {error}") from None
    try:
        document = parse_json_line("\n".join(text for _, text in texts))
    except LineError:
        document = None  # not one document: JSON lines, read line by line
    if isinstance(document, dict) and "agentmetrics_report" in document:
        return _side_from_report(document, name)
    if isinstance(document, dict) and isinstance(document.get("results"), list):
        rows = document["results"]
        return side_from_records(enumerate(rows), name, on, lambda i: f"{name}: results[{i}]")

    def records() -> Any:
        for number, text in texts:
            if not text.strip(" \t\r\n"):
                continue
            try:
                yield number, parse_json_line(text)
            except LineError as error:
                raise InvalidCaseError(f"{name}:{number}: expected a row that `agentmetrics "
                                       f"evaluate` writes, got {error}") from None

    return side_from_records(records(), name, on, lambda line: f"{name}:{line}")


def side_from_records(records: Any, name: str, on: str | None,
                      where_of: Callable[[Any], str]) -> ComparisonSide:
    """Rows as ``agentmetrics evaluate`` writes them: case, id, metric, value,
    passed, threshold, reason, error."""
    if on not in (None, "id"):
        raise InvalidParameterError(
            f"on={on!r}: saved results keep each case's id and position only; expected "
            f"on='id' or on=None (by position). Fix: evaluate the cases again and compare "
            f"the results, or pair by id.")
    columns: dict[str, dict[str, list[Any]]] = {}
    for location, row in records:
        where = where_of(location)
        if not isinstance(row, dict) or not {"case", "metric", "value", "passed"} <= set(row):
            got = sorted(row)[:8] if isinstance(row, dict) else type(row).__name__
            raise InvalidCaseError(
                f"{where}: expected a row that `agentmetrics evaluate --format jsonl` writes "
                f"(case, id, metric, value, passed, ...), got {got}. Fix: save results with "
                f"--format jsonl or json; to compare test cases, give the cases file itself "
                f"to `agentmetrics compare`, which scores it.")
        metric = row["metric"]
        if not isinstance(metric, str):
            raise InvalidCaseError(f"{where}: 'metric': expected a name, got {metric!r}.")
        key = row["case"] if on is None else row.get("id")
        if key is None:
            raise InvalidParameterError(
                f"{where}: the case has no id; expected one to pair on. Fix: pair by "
                f"position (on=None, --on position).")
        value = row["value"]
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise InvalidCaseError(f"{where}: 'value': expected a number or null, got {value!r}.")
        if not isinstance(row["passed"], bool):
            raise InvalidCaseError(f"{where}: 'passed': expected true or false, got "
                                   f"{row['passed']!r}.")
        if value is None and not row.get("error"):
            raise InvalidCaseError(f"{where}: 'value' is null but 'error' says nothing; "
                                   f"expected a score or an error message.")
        column = columns.setdefault(metric, {"keys": [], "values": [], "passed": [],
                                             "reasons": [], "errors": [], "where": [],
                                             "direction": [], "range": [], "unit": []})
        if isinstance(row.get("higher_is_better"), bool):
            column["direction"].append(row["higher_is_better"])
        declared = _declared_range(row.get("value_range"))
        if declared is not None:
            column["range"].append(declared)
        if isinstance(row.get("unit"), str):
            column["unit"].append(row["unit"])
        column["keys"].append(key)
        column["values"].append(float("nan") if value is None else float(value))
        column["passed"].append(row["passed"])
        column["reasons"].append(row.get("reason"))
        column["errors"].append(row.get("error") or None)
        column["where"].append(where)
    metrics = {}
    for metric, column in columns.items():
        wheres = column["where"]
        keys = tuple(column["keys"])
        _check_unique(keys, wheres.__getitem__, name, metric,
                      "Fix: save results of cases with unique ids, or pair by position.")
        values = np.array(column["values"], dtype=np.float64)
        low, high = (min(bounds[0] for bounds in column["range"]),
                     max(bounds[1] for bounds in column["range"])) if column["range"] else (
                         registered_range(metric))
        row = out_of_range(values, (low, high))
        if row is not None:
            raise InvalidCaseError(
                f"{wheres[row]}: 'value': {float(values[row])!r} is outside the value_range "
                f"{range_text((low, high))} of metric {metric!r}; expected a score it can take "
                f"(the file was edited, or written by another program). Fix: score the cases "
                f"again and save those results.")
        metrics[metric] = Scores(
            keys=keys, values=values,
            passed=np.array(column["passed"], dtype=bool),
            higher_is_better=_direction(set(column["direction"]), metric, name),
            reason=column["reasons"].__getitem__, error=column["errors"].__getitem__,
            unit=column["unit"][0] if column["unit"] else registered_unit(metric))
    return ComparisonSide(name, metrics)


def _declared_range(value: Any) -> tuple[float, float] | None:
    """A row's ``value_range`` (the pytest plugin's records keep one; JSON's
    null for an infinite end, a class's ``math.inf`` as is), if it is one."""
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(v is None or (isinstance(v, (int, float)) and not isinstance(v, bool))
                       for v in value)):
        return None
    low = -math.inf if value[0] is None else float(value[0])
    high = math.inf if value[1] is None else float(value[1])
    return (low, high) if low < high else None  # False with a NaN


def registered_unit(label: str) -> str | None:
    """The ``unit`` of the metric class the registry has under the name of
    ``label``, or None (a share or score, or no such class)."""
    try:
        unit = get_metric_class(label.split("(", 1)[0]).unit
    except AgentMetricsError:
        return None
    return unit if isinstance(unit, str) else None


def registered_range(label: str) -> tuple[float, float]:
    """The ``value_range`` of the metric class the registry has under the name
    of ``label`` (``name(params)``), or [0, 1]: what scores saved without
    their metric can take."""

    try:
        declared = get_metric_class(label.split("(", 1)[0]).value_range
    except AgentMetricsError:
        return 0.0, 1.0
    # A class's value_range is checked when it is instantiated; this one may never have been.
    return _declared_range(declared) or (0.0, 1.0)


def _side_from_report(document: Mapping[str, Any], name: str) -> ComparisonSide:
    return side_from_evaluations(document.get("evaluations"), name)


def side_from_evaluations(evaluations: Any, name: str) -> ComparisonSide:
    """The evaluations of the pytest plugin (a session's, or a saved report's):
    cases keyed by (test, case position in the test)."""
    if not isinstance(evaluations, list):
        raise InvalidCaseError(f"{name}: 'evaluations': expected a list, got "
                               f"{type(evaluations).__name__}.")
    rows = []
    for i, record in enumerate(evaluations):
        if not isinstance(record, dict) or not {"test", "metric", "case", "value",
                                                "passed"} <= set(record):
            raise InvalidCaseError(f"{name}: evaluations[{i}]: expected an evaluation of the "
                                   f"pytest plugin (test, metric, case, value, passed, ...).")
        rows.append((i, {**record, "case": (record["test"], record["case"]),
                         "metric": record.get("name") if record.get("metric") is None
                         else record["metric"]}))
    return side_from_records(iter(rows), name, None, lambda i: f"{name}: evaluations[{i}]")


def _direction(recorded: set[bool], label: str, side: str) -> bool:
    if len(recorded) > 1:
        raise InvalidCaseError(f"{side}: metric {label!r}: its rows disagree on whether "
                               f"higher scores are better; expected one metric a label.")
    return next(iter(recorded)) if recorded else _higher_is_better(label, side)


def _higher_is_better(label: str, side: str) -> bool:
    """Which way is better for a metric known by its label: its class says."""

    name = label.split("(", 1)[0]
    try:
        return bool(get_metric_class(name).higher_is_better)
    except AgentMetricsError as error:
        raise InvalidParameterError(
            f"{side}: metric {label!r}: cannot tell whether higher scores are better without "
            f"its class: {error}") from None
