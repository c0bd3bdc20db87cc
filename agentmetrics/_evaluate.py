"""evaluate(): score many cases with many metrics, vectorized where metrics allow."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sized
from typing import Any

from agentmetrics._batch import ToolCallBatch, check_errors_mode
from agentmetrics._metric import Metric, metric_labels
from agentmetrics._model import AgentTestCase, _describe
from agentmetrics._progress import AUTO_PROGRESS_MIN_CASES, Progress
from agentmetrics._results import EvaluationResult, MetricResult
from agentmetrics.errors import CaseEvaluationError, InvalidMetricError, InvalidParameterError

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


def _score(metric: Metric, batch: ToolCallBatch, errors: str, progress: Progress) -> MetricResult:
    parts = []
    for start in range(0, len(batch), CHUNK_CASES):
        stop = min(start + CHUNK_CASES, len(batch))
        chunk = batch if (start, stop) == (0, len(batch)) else batch.slice(start, stop)
        try:
            part = metric.evaluate_batch(chunk, errors=errors)
        except CaseEvaluationError as error:
            if start == 0:
                raise
            row = start + error.index
            raise CaseEvaluationError(
                row, batch.case_id(row), error.metric, error.message
            ) from error.__cause__
        if not isinstance(part, MetricResult) or len(part) != stop - start:
            raise InvalidMetricError(
                f"{type(metric).__qualname__}.evaluate_batch must return a MetricResult "
                f"with {stop - start} cases, got {_describe(part)}."
            )
        parts.append(part)
        progress.update(stop - start)
    if not parts:  # an empty batch
        return metric.evaluate_batch(batch, errors=errors)
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
    return EvaluationResult(batch, results)
