"""evaluate(): score many cases with many metrics, vectorized where metrics allow."""

from __future__ import annotations

import asyncio
import os
import sys
import warnings
from collections.abc import Iterable, Mapping, Sized
from typing import Any

import numpy as np

from agentmetrics._base._aio import run_sync
from agentmetrics._base._progress import AUTO_PROGRESS_MIN_CASES, Progress
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.engine._cache import ScoreCache
from agentmetrics.engine._concurrent import MetricRun, RunSettings, needs_runner, score_concurrently
from agentmetrics.errors import (
    CaseEvaluationError,
    EmptyEvaluationWarning,
    EvaluationInterrupted,
    InvalidParameterError,
)
from agentmetrics.io._input import read_batch
from agentmetrics.metric._metric import Metric, metric_labels
from agentmetrics.model._metric_result import MetricResult, check_result, metric_failure, note_metric_bug
from agentmetrics.model._model import AgentTestCase, describe
from agentmetrics.registry import resolve_metric, source_of
from agentmetrics.results._config import CAPTURED_MODEL, RunConfig, run_config
from agentmetrics.results._results import EvaluationResult

__all__ = ["SLICE_CASES", "aevaluate", "evaluate", "evaluation_settings", "metric_of", "score_cases"]

#: Cases per evaluate_batch call inside evaluate() (not the CLI's reading
#: chunk, _streaming.CHUNK_CASES): bounds temporary memory and paces
#: the progress bar.
SLICE_CASES = 1 << 17

MetricLike = Metric | str | type[Metric] | tuple[str, Mapping[str, Any]]


def metric_of(spec: object) -> Metric:

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
        f"(name, {{params}}) pairs, got {describe(spec)}."
    )


def _failed(metric: Metric, batch: ToolCallBatch, message: str) -> MetricResult:
    """Every row of ``batch`` as an error row: the metric could not score any."""
    n = len(batch)
    return MetricResult(metric, np.full(n, np.nan), np.zeros(n, dtype=bool),
                        dict.fromkeys(range(n), message), _no_reason,
                        statistics={name: np.full(n, np.nan)
                                    for name in type(metric).statistics})


def _no_reason(index: int) -> str:  # pragma: no cover - error rows show their message
    raise AssertionError("an error row has its message as its reason")


def _score(metric: Metric, batch: ToolCallBatch, errors: ErrorsMode, progress: Progress) -> MetricResult:
    """One metric over the batch, chunk by chunk, every part validated.

    A metric that fails as a whole (its evaluate_batch raises, or returns a
    result that breaks the contract) never takes another metric's results
    down: with ``errors="record"`` its rows become error rows that say so."""
    parts = []
    for start in range(0, max(len(batch), 1), SLICE_CASES):
        stop = min(start + SLICE_CASES, len(batch))
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


def evaluation_settings(errors: ErrorsMode, concurrency: int | None, timeout: float | None, retries: int,
              max_rate: float | None, cache: Any) -> RunSettings:
    check_errors_mode(errors)
    if concurrency is not None and (isinstance(concurrency, bool)
                                    or not isinstance(concurrency, int) or concurrency < 1):
        raise InvalidParameterError(
            f"concurrency: expected a whole number of cases in flight, at least 1, got "
            f"{describe(concurrency)}.")
    for name, value in (("timeout", timeout), ("max_rate", max_rate)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))
                                  or not 0 < value < float("inf")):
            raise InvalidParameterError(
                f"{name}: expected a positive number of seconds{' per case' if name == 'timeout' else ''}"
                f" or None, got {describe(value)}." if name == "timeout" else
                f"{name}: expected a positive number of attempts per second or None, got "
                f"{describe(value)}.")
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidParameterError(
            f"retries: expected a whole number of retries, 0 or more, got {describe(retries)}.")
    store = None
    if cache is not None:

        if isinstance(cache, ScoreCache):
            store = cache
        elif isinstance(cache, (str, os.PathLike)):
            store = ScoreCache(cache)
        else:
            raise InvalidParameterError(
                f"cache: expected the path of a cache file or None, got {describe(cache)}.")
    return RunSettings(concurrency=concurrency, timeout=timeout, retries=retries,
                       max_rate=max_rate, cache=store, errors=errors,
                       owns_cache=store is not None and store is not cache)


class _Evaluation:
    """One call of evaluate or aevaluate: the metrics, the batch, the results so far."""

    def __init__(self, cases: Any, metrics: Any, settings: RunSettings,
                 progress: bool | None, config: RunConfig) -> None:
        self.config = config
        if isinstance(metrics, (Metric, str, type, tuple)):
            self.metrics = [metric_of(metrics)]
        else:
            self.metrics = [metric_of(spec) for spec in metrics]
        if not self.metrics:
            raise InvalidParameterError("metrics: expected at least one metric, got none.")
        self.labels = metric_labels(self.metrics)
        self.settings = settings
        waiting = [needs_runner(metric, settings) for metric in self.metrics]
        size = len(cases) if isinstance(cases, Sized) else None
        if progress is None:
            enabled = (size or 0) >= AUTO_PROGRESS_MIN_CASES or (
                any(waiting) and sys.stderr is not None and sys.stderr.isatty())
        else:
            enabled = progress
        encode_work = 0 if isinstance(cases, ToolCallBatch) else (size or 0)
        self.bar = Progress(encode_work + (size or 0) * len(self.metrics),
                            bool(enabled) and size is not None)
        try:
            self.batch = read_batch(cases, settings.errors, self.bar.update)
            self.bar.update(max(0, encode_work - self.bar.done))
            self.results: dict[str, MetricResult] = {}
            self.runs: dict[str, MetricRun] = {}
            for label, metric, waits in zip(self.labels, self.metrics, waiting):
                if waits:
                    self.runs[label] = MetricRun(metric, self.batch)
                else:
                    self.results[label] = _score(metric, self.batch, settings.errors, self.bar)
        except BaseException:
            self.bar.close()
            raise

    async def run(self) -> None:
        """Score the waiting metrics, all at once; the progress bar ends here."""
        with self.bar:
            if self.runs:
                scored = await asyncio.gather(*(
                    score_concurrently(run, self.settings, self.bar)
                    for run in self.runs.values()))
                self.results.update(zip(self.runs, scored))

    def result(self) -> EvaluationResult:
        """The result: in an interrupted run, the cases not scored are error rows."""

        results = {label: self.results[label] if label in self.results
                   else self.runs[label].result() for label in self.labels}
        sources = {label: source_of(type(metric))
                   for label, metric in zip(self.labels, self.metrics)}
        stats = {label: run.cache_stats for label, run in self.runs.items()
                 if self.settings.cache is not None}
        return EvaluationResult(self.batch, results, sources, stats,
                                config=_with_captured_model(self.config, self.batch))


def _metadata_of(item: Any) -> Any:
    """A case's metadata, or a record's (a dict before it became a case)."""
    if isinstance(item, dict):
        return item.get("metadata")
    return getattr(item, "metadata", None)


def _captured_model(batch: ToolCallBatch) -> str | None:
    """The model every case names under ``metadata["captured_model"]`` (what
    ``agentmetrics.capture`` notes when every response of a run came from
    one model), when they all name the same one; else None. Looks at the
    first case alone unless it names one, and reads records that are not
    cases yet without building them."""
    cases = batch.cases
    if cases is None or not len(cases):
        return None
    plain = getattr(cases, "plain_records", None)
    found = plain() if plain is not None else None
    if found is not None:
        records, built = found
        items: Any = (built.get(row, record) for row, record in enumerate(records))
        first = built.get(0, records[0])
    else:
        items, first = cases, cases[0]
    metadata = _metadata_of(first)
    if not isinstance(metadata, Mapping) or type(metadata.get(CAPTURED_MODEL)) is not str:
        return None
    models: set[str] = set()
    for item in items:
        metadata = _metadata_of(item)
        model = metadata.get(CAPTURED_MODEL) if isinstance(metadata, Mapping) else None
        if type(model) is not str or (models and model not in models):
            return None
        models.add(model)
    return models.pop()


def _with_captured_model(config: RunConfig, batch: ToolCallBatch) -> RunConfig:
    """``config`` with ``model`` set to the one model captured cases name,
    unless it says its own model."""
    if "model" in config:
        return config
    model = _captured_model(batch)
    if model is None:
        return config
    try:
        return run_config({**config, "model": model})
    except InvalidParameterError:  # a name no configuration keeps (too long): left out
        return config


def evaluate(
    cases: Iterable[AgentTestCase] | ToolCallBatch | Any,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    errors: ErrorsMode = "raise",
    progress: bool | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    retries: int = 0,
    max_rate: float | None = None,
    cache: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
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
    for runs of at least 200,000 cases, and for metrics that wait when stderr
    is a terminal.

    Metrics that wait (an LLM judge: ``ameasure``, or ``concurrency =
    "threads"``) run their cases at once: ``concurrency`` cases in flight per
    metric (default 16), ``timeout`` seconds per attempt, ``retries`` more
    attempts after a timeout or a TransientMetricError (exponential backoff
    with jitter, honouring ``retry_after``), at most ``max_rate`` attempts a
    second. ``cache`` (a file path) keeps every score computed and reuses it
    in later runs. Results are in input order; vectorized metrics are scored
    as always. Inside a running event loop (a Jupyter cell) this works as
    anywhere; ``await aevaluate(...)`` is the async form.

    Ctrl-C stops the run with EvaluationInterrupted, whose ``result`` holds
    the cases scored so far (the others are error rows that say so).

    ``config``: what the run was made with, kept with the result
    (``result.config``), its saved file and the run history, shown on its
    pages and compared: a mapping of names to str, int, float, bool or None,
    such as ``{"model": "gpt-4o", "agent_version": "2.1", "prompt_version":
    "p7", "commit": "a1b2c3d"}`` (at most 64 names; each value's text at most
    2,000 characters; secrets masked). Cases captured by
    :func:`agentmetrics.capture` whose runs all used one model give it as
    ``config["model"]`` unless ``config`` names a model.

    No case at all gives an empty result (its summary's means and rates are
    NaN, not 0 or 1) and an :class:`~agentmetrics.EmptyEvaluationWarning`.
    """
    result = score_cases(cases, metrics, errors=errors, progress=progress,
                         concurrency=concurrency, timeout=timeout, retries=retries,
                         max_rate=max_rate, cache=cache, config=config)
    _warn_if_empty(result, "evaluate")
    return result


def _warn_if_empty(result: EvaluationResult, name: str) -> None:
    if not len(result):
        warnings.warn(EmptyEvaluationWarning(
            f"{name}() was given 0 cases: the result has no row, and its summary's means and "
            f"pass rates are NaN (unknown), not 0 or 1. Check the input (an empty file, a "
            f"filter or a query that kept nothing)."), stacklevel=3)


def score_cases(
    cases: Iterable[AgentTestCase] | ToolCallBatch | Any,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    errors: ErrorsMode = "raise",
    progress: bool | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    retries: int = 0,
    max_rate: float | None = None,
    cache: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
) -> EvaluationResult:
    """:func:`evaluate`, without its warning for no case: for the package's
    own callers, to which an empty piece is normal (a partition of a Spark
    table, the run a command checks for emptiness itself)."""
    checked = run_config(config, "evaluate: config")  # said before any work
    settings = evaluation_settings(errors, concurrency, timeout, retries, max_rate, cache)
    try:
        evaluation = _Evaluation(cases, metrics, settings, progress, checked)
        if not evaluation.runs:  # vectorized and plain metrics only: no event loop needed
            evaluation.bar.close()
            return evaluation.result()
        try:
            run_sync(evaluation.run())
        except KeyboardInterrupt:
            raise EvaluationInterrupted(evaluation.result()) from None
        return evaluation.result()
    finally:
        if settings.owns_cache and settings.cache is not None:
            settings.cache.close()


async def aevaluate(
    cases: Iterable[AgentTestCase] | ToolCallBatch | Any,
    metrics: MetricLike | Iterable[MetricLike],
    *,
    errors: ErrorsMode = "raise",
    progress: bool | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    retries: int = 0,
    max_rate: float | None = None,
    cache: str | os.PathLike[str] | None = None,
    config: Mapping[str, Any] | None = None,
) -> EvaluationResult:
    """:func:`evaluate`, awaitable: the metrics that wait run on the caller's
    event loop. If the task is cancelled, the CancelledError carries
    ``partial_result``: the cases scored so far."""
    checked = run_config(config, "aevaluate: config")  # said before any work
    settings = evaluation_settings(errors, concurrency, timeout, retries, max_rate, cache)
    try:
        evaluation = _Evaluation(cases, metrics, settings, progress, checked)
        try:
            await evaluation.run()
        except asyncio.CancelledError as cancelled:
            cancelled.partial_result = evaluation.result()  # type: ignore[attr-defined]
            raise
        result = evaluation.result()
        _warn_if_empty(result, "aevaluate")
        return result
    finally:
        if settings.owns_cache and settings.cache is not None:
            settings.cache.close()
