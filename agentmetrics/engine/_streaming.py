"""Scoring a stream of cases chunk by chunk, in constant memory.

Importing this module imports no numpy; scoring does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import attrs

from agentmetrics._base._types import ErrorsMode
from agentmetrics.errors import CaseEvaluationError, EvaluationInterrupted
from agentmetrics.metric._metric import Metric, metric_labels

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.model._metric_result import MetricResult
    from agentmetrics.corpus._state import CorpusState
    from agentmetrics.results._aggregate import MetricMoments
    from agentmetrics.results._results import EvaluationResult

__all__ = ["CHUNK_CASES", "RunningSummary", "score_chunks"]

#: Cases read and scored at a time: memory stays bounded by this, not by the file.
CHUNK_CASES = 50_000


@attrs.define(slots=True)
class RunningSummary:
    """One metric's totals over everything scored so far: the metric's
    :class:`~agentmetrics.results._aggregate.MetricMoments`, merged chunk by chunk, so
    that the mean (of the exact sum) is the same whatever the chunk size, and
    the same as ``evaluate(...).summary()`` gives on all the cases."""

    label: str
    metric: Metric
    moments: MetricMoments
    #: The state of the metric's corpus-level aggregates, merged chunk by chunk
    #: (None for a metric that declares none).
    corpus: CorpusState | None = None

    @classmethod
    def start(cls, label: str, metric: Metric) -> RunningSummary:
        """Totals of nothing yet (needs numpy: call it once scoring runs)."""
        from agentmetrics.results._aggregate import MetricMoments

        return cls(label, metric, MetricMoments.empty(label, metric))

    @property
    def n(self) -> int:
        return self.moments.n

    @property
    def scored(self) -> int:
        return self.moments.scored

    @property
    def mean(self) -> float:
        return self.moments.mean

    @property
    def low(self) -> float:
        return self.moments.low

    @property
    def high(self) -> float:
        return self.moments.high

    @property
    def passed(self) -> int:
        return self.moments.passed

    @property
    def errors(self) -> int:
        return self.moments.errors

    @property
    def pass_rate(self) -> float:
        return self.passed / self.n if self.n else math.nan

    def add(self, result: MetricResult) -> None:
        from agentmetrics.results._aggregate import MetricMoments

        self.moments = self.moments.merge(MetricMoments.from_result(self.label, result))
        if type(self.metric).aggregates:
            from agentmetrics.corpus._state import CorpusState

            state = CorpusState.from_result(self.label, result)
            self.corpus = state if self.corpus is None else self.corpus.merge(state)


def score_chunks(
    chunks: Iterable[Any],
    metrics: list[Metric],
    *,
    errors: ErrorsMode = "raise",
    on_chunk: Callable[[int, EvaluationResult], None] | None = None,
    **options: Any,
) -> list[RunningSummary]:
    """Score ``chunks`` (each anything :func:`agentmetrics.evaluate` takes: a list
    of cases, a ToolCallBatch) with ``metrics``, one after another, in constant
    memory. ``on_chunk(offset, result)`` sees each chunk's result, ``offset``
    being the position of its first case. ``options`` go to
    :func:`agentmetrics.evaluate` (concurrency, timeout, retries, max_rate,
    cache). Interrupted (Ctrl-C), the chunk in progress is still handed to
    ``on_chunk`` and counted, its unfinished cases as error rows, before
    EvaluationInterrupted is raised again with the totals."""
    from agentmetrics.engine._evaluate import score_cases

    labels = metric_labels(metrics)
    summaries = [RunningSummary.start(label, metric) for label, metric in zip(labels, metrics)]
    offset = 0
    for chunk in chunks:
        interrupted = None
        try:
            result = score_cases(chunk, metrics, errors=errors, progress=False, **options)
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
