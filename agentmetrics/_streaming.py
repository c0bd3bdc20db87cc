"""Scoring a stream of cases chunk by chunk, in constant memory.

Importing this module imports no numpy; scoring does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from itertools import islice
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics._exact import ExactSum
from agentmetrics._metric import Metric, metric_labels
from agentmetrics.errors import CaseEvaluationError, EvaluationInterrupted

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._results import EvaluationResult, MetricResult

__all__ = ["CHUNK_CASES", "RunningSummary", "score_chunks", "score_stream"]

#: Cases read and scored at a time: memory stays bounded by this, not by the file.
CHUNK_CASES = 50_000


@attrs.define(slots=True)
class RunningSummary:
    """One metric's totals over everything scored so far.

    The sum of the values is exact (:class:`agentmetrics._exact.ExactSum`), so
    the mean is the same whatever the chunk size: counts are integers, and the
    sum is the correctly rounded exact sum."""

    label: str
    metric: Metric
    n: int = 0
    total: ExactSum = attrs.Factory(ExactSum)
    low: float = math.inf
    high: float = -math.inf
    passed: int = 0
    errors: int = 0

    @property
    def scored(self) -> int:
        return self.total.count

    @property
    def mean(self) -> float:
        return self.total.mean

    @property
    def pass_rate(self) -> float:
        return self.passed / self.n if self.n else math.nan

    def add(self, result: MetricResult) -> None:
        import numpy as np  # only once scoring runs: the CLI's list and describe stay light

        values = result.values
        finite = values[~np.isnan(values)]
        self.n += len(values)
        self.total.add(finite)
        if len(finite):
            self.low = min(self.low, float(finite.min()))
            self.high = max(self.high, float(finite.max()))
        self.passed += int(result.passed.sum())
        self.errors += len(result.errors)


def _chunks(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk


def score_stream(
    cases: Iterable[Any],
    metrics: list[Metric],
    *,
    errors: str = "raise",
    chunk_size: int = CHUNK_CASES,
    on_chunk: Callable[[int, EvaluationResult], None] | None = None,
    **options: Any,
) -> list[RunningSummary]:
    """Score ``cases`` (AgentTestCase, or UnreadableCase rows to report) with
    ``metrics``, ``chunk_size`` at a time. ``on_chunk(offset, result)`` sees
    each chunk's result, ``offset`` being the position of its first case.
    ``options`` go to :func:`agentmetrics.evaluate` (concurrency, timeout,
    retries, max_rate, cache). Interrupted (Ctrl-C), the chunk in progress is
    still handed to ``on_chunk`` and counted, its unfinished cases as error
    rows, before EvaluationInterrupted is raised again with the totals."""
    return score_chunks(_chunks(cases, chunk_size), metrics, errors=errors,
                        on_chunk=on_chunk, **options)


def score_chunks(
    chunks: Iterable[Any],
    metrics: list[Metric],
    *,
    errors: str = "raise",
    on_chunk: Callable[[int, EvaluationResult], None] | None = None,
    **options: Any,
) -> list[RunningSummary]:
    """:func:`score_stream` over chunks made by the caller: each anything
    :func:`agentmetrics.evaluate` takes (a list of cases, a ToolCallBatch)."""
    from agentmetrics._evaluate import evaluate

    labels = metric_labels(metrics)
    summaries = [RunningSummary(label, metric) for label, metric in zip(labels, metrics)]
    offset = 0
    for chunk in chunks:
        interrupted = None
        try:
            result = evaluate(chunk, metrics, errors=errors, progress=False, **options)
        except CaseEvaluationError as error:
            raise CaseEvaluationError(
                offset + error.index, error.case_id, error.metric, error.message
            ) from error.__cause__
        except EvaluationInterrupted as stop:
            interrupted, result = stop, stop.result  # type: ignore[assignment]
        for summary in summaries:
            summary.add(result[summary.label])
        if on_chunk is not None:
            on_chunk(offset, result)
        offset += len(chunk)
        if interrupted is not None:
            raise EvaluationInterrupted(summaries) from None
    return summaries
