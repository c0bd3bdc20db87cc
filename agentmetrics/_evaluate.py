"""evaluate(): score many cases with many metrics, vectorized where metrics allow."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from typing import Any

import numpy as np

from agentmetrics._batch import ToolCallBatch, check_errors_mode
from agentmetrics._metric import Metric, metric_labels
from agentmetrics._model import AgentTestCase, _describe
from agentmetrics._progress import AUTO_PROGRESS_MIN_CASES, Progress
from agentmetrics._results import (
    EvaluationResult,
    MetricResult,
    check_result,
    metric_failure,
    note_metric_bug,
)
from agentmetrics.errors import CaseEvaluationError, InvalidCaseError, InvalidParameterError

__all__ = ["CHUNK_CASES", "evaluate"]

#: Cases scored per evaluate_batch call: bounds temporary memory and paces
#: the progress bar.
CHUNK_CASES = 1 << 17

MetricSpec = Metric | str | type[Metric] | tuple[str, Mapping[str, Any]]


def _resolve_metric(spec: object) -> Metric:
    from agentmetrics.registry import resolve_metric

    if (
        isinstance(spec, tuple)
        and len(spec) == 2
        and isinstance(spec[0], str)
        and isinstance(spec[1], Mapping)
    ):
        return resolve_metric(spec[0], **spec[1])
    if isinstance(spec, (Metric, str)) or (isinstance(spec, type) and issubclass(spec, Metric)):
        return resolve_metric(spec)
    raise InvalidParameterError(
        f"metrics: expected Metric instances, registry names, Metric classes or "
        f"(name, {{params}}) pairs, got {_describe(spec)}."
    )


def _to_batch(cases: Any, errors: str, progress: Progress) -> ToolCallBatch:
    if isinstance(cases, ToolCallBatch):
        return cases
    module = type(cases).__module__
    if module.startswith("pandas") and type(cases).__name__ == "DataFrame":
        return ToolCallBatch.from_pandas(cases, errors=errors)
    if module.startswith("pyarrow") and type(cases).__name__ == "Table":
        missing = [name for name in ("tool_calls", "expected_tool_calls")
                   if name not in cases.column_names]
        if missing:
            raise InvalidCaseError(
                f"cases: the Arrow table has no column {missing[0]!r}; it has "
                f"{cases.column_names}. Fix: rename the columns, or use "
                f"ToolCallBatch.from_arrow(tool_calls=..., expected_tool_calls=...)."
            )
        return ToolCallBatch.from_arrow(
            tool_calls=cases.column("tool_calls"),
            expected_tool_calls=cases.column("expected_tool_calls"),
            ids=cases.column("id") if "id" in cases.column_names else None,
            errors=errors,
        )
    if isinstance(cases, (AgentTestCase, str, bytes, Mapping)) or not isinstance(cases, Iterable):
        raise InvalidParameterError(
            f"cases: expected a list or iterable of AgentTestCase, a ToolCallBatch or a "
            f"pandas DataFrame, got {_describe(cases)}. Fix: wrap a single case in a list."
        )
    return ToolCallBatch.from_cases(cases, errors=errors, on_progress=progress.update)


def _failed(metric: Metric, batch: ToolCallBatch, message: str) -> MetricResult:
    """Every row of ``batch`` as an error row: the metric could not score any."""
    n = len(batch)
    return MetricResult(metric, np.full(n, np.nan), np.zeros(n, dtype=bool),
                        dict.fromkeys(range(n), message), _no_reason)


def _no_reason(index: int) -> str:  # pragma: no cover - error rows show their message
    raise AssertionError("an error row has its message as its reason")


def _score(metric: Metric, batch: ToolCallBatch, errors: str, progress: Progress) -> MetricResult:
    """One metric over the batch, chunk by chunk, every part validated.

    A metric that fails as a whole (its evaluate_batch raises, or returns a
    result that breaks the contract) never takes another metric's results
    down: with ``errors="record"`` its rows become error rows that say so."""
    parts = []
    for start in range(0, max(len(batch), 1), CHUNK_CASES):
        stop = min(start + CHUNK_CASES, len(batch))
        chunk = batch if (start, stop) == (0, len(batch)) else batch.slice(start, stop)
        try:
            part = check_result(metric, chunk, metric.evaluate_batch(chunk, errors=errors))
        except CaseEvaluationError as error:
            if start == 0:
                raise
            row = start + error.index
            raise CaseEvaluationError(
                row, batch.case_id(row), error.metric, error.message
            ) from error.__cause__
        except Exception as error:
            if errors == "raise":
                note_metric_bug(error, metric, chunk, start)
                raise
            part = _failed(metric, chunk, metric_failure(metric, error))
        parts.append(part)
        progress.update(stop - start)
    return MetricResult.concat(parts)


def evaluate(
    cases: Iterable[AgentTestCase] | ToolCallBatch | Any,
    metrics: MetricSpec | Iterable[MetricSpec],
    *,
    errors: str = "raise",
    progress: bool | None = None,
) -> EvaluationResult:
    """Score many cases with one or more metrics.

    ``cases``: AgentTestCase objects (any iterable), a ToolCallBatch, a pandas
    DataFrame with ``tool_calls`` and ``expected_tool_calls`` columns (use
    ``ToolCallBatch.from_pandas`` for other names) or a pyarrow Table with
    those columns. ``metrics``: Metric instances, registry names, Metric
    classes or ``(name, {params})`` pairs, or one of these alone.

    ``errors="raise"`` stops at the first case that cannot be scored with a
    CaseEvaluationError naming its position and id; ``errors="record"`` gives
    it NaN, passed False and the message, and goes on. No row is ever dropped.

    ``progress``: True or False to show a bar on stderr or not; None shows it
    for runs of at least 200,000 cases.
    """
    check_errors_mode(errors)
    if isinstance(metrics, (Metric, str, type, tuple)):
        metric_list = [_resolve_metric(metrics)]
    else:
        metric_list = [_resolve_metric(spec) for spec in metrics]
    if not metric_list:
        raise InvalidParameterError("metrics: expected at least one metric, got none.")
    labels = metric_labels(metric_list)

    size = len(cases) if isinstance(cases, Sized) else None
    enabled = progress if progress is not None else (size or 0) >= AUTO_PROGRESS_MIN_CASES
    encode_work = 0 if isinstance(cases, ToolCallBatch) else (size or 0)
    total = encode_work + (size or 0) * len(metric_list)
    with Progress(total, bool(enabled) and size is not None) as bar:
        batch = _to_batch(cases, errors, bar)
        bar.update(max(0, encode_work - bar.done))
        results = {
            label: _score(metric, batch, errors, bar)
            for label, metric in zip(labels, metric_list)
        }
    from agentmetrics.registry import source_of

    sources = {label: source_of(type(metric)) for label, metric in zip(labels, metric_list)}
    return EvaluationResult(batch, results, sources)
