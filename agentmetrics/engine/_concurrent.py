"""Scoring the cases of a metric that waits: many at once, with timeouts,
retries, a rate limit and a cache.

Metrics that call something (an LLM judge, an embedding model, a policy
service) spend their time waiting. Their cases run here as workers on one
event loop: ``async`` metrics (``ameasure``/``aevaluate``) as coroutines,
``threads`` metrics on a thread pool of the same size, ``serial`` ones
(pure computation, when a cache or retries are asked for) one at a time.
Results land in input order whatever order they finish in; each is checked
by the same validator as every other score.

- ``timeout``: seconds per attempt; a case that takes longer is abandoned (a
  thread cannot be stopped: its late result is ignored) and counts as a
  transient failure.
- ``retries``: further attempts after a timeout or a TransientMetricError,
  after an exponential backoff with full jitter, never shorter than the
  ``retry_after`` the service asked for, up to MAX_RETRY_AFTER seconds (a
  server asking for a day's wait is waited on for five minutes at most).
- ``max_rate``: at most this many attempts start per second, across workers.
- ``cache``: scores found are not computed again; scores computed are stored
  as they finish, so an interrupted run loses nothing it scored. A case the
  cache cannot key is scored and counted ``uncacheable``; a lookup that fails
  scores the cases instead, and a write that fails keeps the scores in the
  result and counts them ``unwritten``: each with a CacheWarning, never a
  lost run.
"""

from __future__ import annotations

import asyncio
import random
import time
import warnings
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from agentmetrics._base._types import ErrorsMode
from agentmetrics.engine._cache import (
    CacheReadError,
    CacheStats,
    CacheWriteError,
    ScoreCache,
    case_keys,
    metric_name,
    uncacheable_reason,
)
from agentmetrics.errors import (
    CacheWarning,
    CaseEvaluationError,
    InvalidCaseError,
    MetricServiceError,
    MissingFieldError,
    TransientMetricError,
)
from agentmetrics.metric._metric import Metric as Base
from agentmetrics.model._metric_result import (
    CASE_ERRORS,
    MetricResult,
    StoredReasons,
    check_result,
    describe_error,
    metric_failure,
)
from agentmetrics.model._model import AgentTestCase, EvalScore

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics._base._progress import Progress
    from agentmetrics.cases._tool_call_batch import ToolCallBatch
    from agentmetrics.metric._metric import Metric

__all__ = ["DEFAULT_CONCURRENCY", "MetricRun", "RunSettings", "needs_runner", "score_concurrently"]

#: Cases of one waiting metric in flight at once when ``concurrency`` is not given.
DEFAULT_CONCURRENCY = 16
#: Backoff before retry k (0-based): a random share of min(CAP, BASE * 2**k) seconds.
BACKOFF_BASE = 0.25
BACKOFF_CAP = 30.0
#: The longest wait a metric's ``retry_after`` can impose before a retry, in
#: seconds: a ceiling for any metric (the judge plugin caps its own lower, at
#: its ``max_retry_wait``).
MAX_RETRY_AFTER = 300.0
#: Scores are written to the cache this many at a time (and when the run ends).
_CACHE_BATCH = 256
INTERRUPTED = "not scored: the evaluation was interrupted before this case finished"


class RunSettings:
    """The knobs of one evaluation, checked once."""

    __slots__ = ("cache", "concurrency", "errors", "max_rate", "owns_cache", "retries", "timeout")

    def __init__(self, *, concurrency: int | None, timeout: float | None, retries: int,
                 max_rate: float | None, cache: ScoreCache | None, errors: ErrorsMode,
                 owns_cache: bool = False) -> None:
        self.owns_cache = owns_cache  # opened from a path: closed when the evaluation ends
        self.concurrency = concurrency
        self.timeout = timeout
        self.retries = retries
        self.max_rate = max_rate
        self.cache = cache
        self.errors = errors


class _RateLimit:
    """At most ``rate`` starts a second, spaced evenly, shared by the workers."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self.next = 0.0

    async def wait(self) -> None:
        now = time.monotonic()
        start = max(now, self.next)
        self.next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)


class MetricRun:
    """One metric's cases as they finish: filled in place, so an interrupted
    run can still hand over what it scored."""

    def __init__(self, metric: Metric, batch: ToolCallBatch) -> None:
        n = len(batch)
        self.metric = metric
        self.batch = batch
        self.values = np.full(n, np.nan)
        self.passed = np.zeros(n, dtype=bool)
        self.reasons: list[str] = [""] * n
        self.failed: dict[int, str] = {}
        self.finished = np.zeros(n, dtype=bool)
        self.statistics = {name: np.full(n, np.nan) for name in type(metric).statistics}
        self.hits = 0
        self.misses = 0
        self.uncacheable = 0
        self.unwritten = 0
        self.retrying = 0

    def score(self, row: int, value: float, reason: str,
              statistics: Mapping[str, float] | None = None) -> None:
        if statistics is not None:
            for name, number in statistics.items():
                self.statistics[name][row] = number
        self.values[row] = value
        self.passed[row] = self.metric.passes(value)
        self.reasons[row] = reason
        self.finished[row] = True

    def fail(self, row: int, message: str) -> None:
        self.failed[row] = message
        self.finished[row] = True

    def result(self) -> MetricResult:
        """The result so far; a case not finished is an error row that says so."""
        failed = dict(self.failed)
        for row in np.flatnonzero(~self.finished).tolist():
            failed[row] = INTERRUPTED
        values = self.values.copy()
        values[list(failed)] = np.nan
        passed = self.passed & ~np.isin(np.arange(len(values)), list(failed))
        return MetricResult(self.metric, values, passed, dict(sorted(failed.items())),
                            StoredReasons(self.reasons), statistics=self.statistics)

    @property
    def cache_stats(self) -> CacheStats:
        return CacheStats(self.hits, self.misses, uncacheable=self.uncacheable,
                          unwritten=self.unwritten)


def _backoff(attempt: int, error: BaseException) -> float:
    delay = random.uniform(0.0, min(BACKOFF_CAP, BACKOFF_BASE * 2 ** attempt))
    retry_after = getattr(error, "retry_after", None)
    if isinstance(retry_after, bool) or not isinstance(retry_after, (int, float)) or not (
            retry_after > 0):  # also NaN
        return delay
    return max(delay, min(float(retry_after), MAX_RETRY_AFTER))


def _where(batch: ToolCallBatch, row: int) -> str:
    case_id = batch.case_id(row)
    return f"case {row}" + ("" if case_id is None else f" (id {case_id!r})")


def _note(error: BaseException, text: str) -> None:
    add_note = getattr(error, "add_note", None)
    if add_note is not None:
        add_note(text)


def _caller(metric: Metric, pool: ThreadPoolExecutor | None
            ) -> Callable[[AgentTestCase], Awaitable[EvalScore]]:
    if metric.execution == "threads":
        assert pool is not None

        def run_in_thread(case: AgentTestCase) -> Awaitable[EvalScore]:
            return asyncio.get_running_loop().run_in_executor(pool, metric.evaluate, case)

        return run_in_thread
    if metric.execution == "async":
        return metric.aevaluate

    async def run_inline(case: AgentTestCase) -> EvalScore:
        return metric.evaluate(case)

    return run_inline


async def score_concurrently(
    run: MetricRun, settings: RunSettings, progress: Progress
) -> MetricResult:
    """Score every case of ``run.batch`` with ``run.metric``; see the module's docstring."""
    metric, batch = run.metric, run.batch
    raising = settings.errors == "raise"
    todo: list[int] = []
    for row in range(len(batch)):
        if row in batch.invalid:
            if raising:
                raise CaseEvaluationError(row, batch.case_id(row), metric.name, batch.invalid[row])
            run.fail(row, batch.invalid[row])
            continue
        try:
            metric.check_required_fields(batch.case(row))
        except (MissingFieldError, InvalidCaseError) as error:
            if raising:
                raise CaseEvaluationError(row, batch.case_id(row), metric.name,
                                          str(error)) from error
            run.fail(row, str(error))
            continue
        todo.append(row)
    progress.update(len(batch) - len(todo))

    cache, keys = settings.cache, {}
    if cache is not None and todo:
        computed = case_keys(metric, [batch.case(row) for row in todo])
        keys = {row: key for row, key in zip(todo, computed) if key is not None}
        run.uncacheable = len(todo) - len(keys)
        if run.uncacheable == len(todo):
            why = uncacheable_reason(metric)
            if why is not None:
                warnings.warn(CacheWarning(
                    f"cache: {metric.name}'s scores are not cached: {why}. Its {len(todo)} "
                    f"cases are scored."), stacklevel=2)
        try:
            found = cache.get_many(list(keys.values()), metric_name(metric),
                                   type(metric).version)
        except CacheReadError as error:
            warnings.warn(CacheWarning(f"{error}; {metric.name} scores its {len(keys)} cases "
                                       f"instead."), stacklevel=2)
            found = {}
        missing = []
        for row in todo:
            hit = found.get(keys[row]) if row in keys else None
            if hit is None:
                missing.append(row)
            else:
                run.score(row, *hit)
        run.hits, todo = len(todo) - len(missing), missing
        progress.update(run.hits)
    run.misses = len(todo) - run.uncacheable

    queue = deque(todo)
    limit = _RateLimit(settings.max_rate) if settings.max_rate else None
    width = settings.concurrency or (1 if metric.execution == "serial" else DEFAULT_CONCURRENCY)
    if metric.execution == "serial":
        width = 1  # pure computation on the loop's thread: nothing to overlap
    pool = (ThreadPoolExecutor(width, thread_name_prefix="agentmetrics-metric")
            if metric.execution == "threads" else None)
    call = _caller(metric, pool)
    unsaved: list[tuple[str, str, str, float, str]] = []
    identity = metric_name(metric)
    started = time.monotonic()
    done = 0

    write_failure: list[str] = []

    def save(force: bool = False) -> None:
        if cache is not None and unsaved and (force or len(unsaved) >= _CACHE_BATCH):
            try:
                cache.put_many(unsaved)
            except CacheWriteError as error:  # the scores stay in the result
                run.unwritten += len(unsaved)
                write_failure[:] = [str(error)]
            unsaved.clear()

    def report() -> None:
        nonlocal done
        done += 1
        rate = done / max(time.monotonic() - started, 1e-9)
        progress.update(1, status=f"failed {len(run.failed)}, retrying {run.retrying}, "
                                  f"{rate:,.1f} cases/s")

    async def attempt(row: int) -> None:
        case = batch.case(row)
        for attempt_number in range(settings.retries + 1):
            if limit is not None:
                await limit.wait()
            try:
                pending = call(case)
                if settings.timeout is not None:
                    score = await asyncio.wait_for(pending, settings.timeout)
                else:
                    score = await pending
            except (TransientMetricError, asyncio.TimeoutError) as error:
                if attempt_number < settings.retries:
                    run.retrying += 1
                    try:
                        await asyncio.sleep(_backoff(attempt_number, error))
                    finally:
                        run.retrying -= 1
                    continue
                if isinstance(error, asyncio.TimeoutError):
                    message = (f"{metric.name}: no answer within the timeout of "
                               f"{settings.timeout:g} s"
                               + (f", after {settings.retries + 1} attempts"
                                  if settings.retries else ""))
                else:
                    message = f"{metric.name}: {describe_error(error)}" + (
                        f" (after {settings.retries + 1} attempts)" if settings.retries else "")
                if raising:
                    _note(error, f"agentmetrics: {metric.name} could not score "
                                 f"{_where(batch, row)}: {message}")
                    raise
                run.fail(row, message)
                return
            except CASE_ERRORS as error:
                if raising:
                    raise CaseEvaluationError(row, batch.case_id(row), metric.name,
                                              describe_error(error)) from error
                run.fail(row, describe_error(error))
                return
            except MetricServiceError as error:
                if raising:
                    _note(error, f"agentmetrics: {metric.name} could not score "
                                 f"{_where(batch, row)}; errors='record' scores the rest.")
                    raise
                run.fail(row, f"{metric.name}: {describe_error(error)}")
                return
            except Exception as error:
                if raising:
                    _note(error, f"agentmetrics: metric bug in {type(metric).__name__} while "
                                 f"scoring {_where(batch, row)}; the case is not at fault. "
                                 f"errors='record' scores the rest.")
                    raise
                run.fail(row, metric_failure(metric, error))
                return
            run.score(row, score.value, score.reason, score.statistics)
            if cache is not None and row in keys:
                unsaved.append((keys[row], identity, type(metric).version, score.value,
                                score.reason))
                save()
            return

    async def worker() -> None:
        while queue:
            row = queue.popleft()
            await attempt(row)
            report()

    workers = [asyncio.ensure_future(worker()) for _ in range(min(width, len(queue)))]
    try:
        await asyncio.gather(*workers)
    except BaseException:
        for task in workers:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        raise
    finally:
        save(force=True)
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        if run.unwritten:
            warnings.warn(CacheWarning(
                f"{write_failure[0]}: {run.unwritten} of {metric.name}'s scores were not "
                f"saved. They are in the result; a later run scores them again. Fix: make "
                f"the file writable, or pass cache= a path no other process holds locked."),
                stacklevel=2)
    return check_result(metric, batch, run.result())


def needs_runner(metric: Metric, settings: RunSettings) -> bool:
    """Whether ``metric`` is scored here rather than by its own evaluate_batch."""

    own = type(metric).evaluate_batch
    if getattr(own, "__wrapped__", own) is not Base.evaluate_batch:
        return False  # vectorized, or a batch path of the metric's own
    return metric.execution != "serial" or settings.cache is not None or bool(
        settings.retries) or settings.timeout is not None
