"""Issue 12: metrics that wait run concurrently, with timeouts, retries, a rate
limit, a cache and interruption, without a wrong score or a lost row."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import sys
import threading
import time

import numpy as np
import pytest

import agentmetrics
from agentmetrics import (
    AgentTestCase,
    EvalScore,
    EvaluationInterrupted,
    InvalidParameterError,
    Metric,
    MetricServiceError,
    ToolSelectionAccuracy,
    TransientMetricError,
    aevaluate,
    evaluate,
)
from agentmetrics.engine import _concurrent
from agentmetrics.engine._cache import ScoreCache, case_keys


def stored(path):
    with ScoreCache(path) as cache:
        return len(cache)


def cases(n=40):
    return [AgentTestCase(input=f"request {i}", tool_calls=["A"] * (i % 3),
                          expected_tool_calls=["A"], metadata={"id": f"c{i}"}) for i in range(n)]


class Counting(Metric):
    """An async metric that records how many of its cases are in flight at once."""

    name = "counting"
    description = "Calls in flight."
    required_fields = ("tool_calls",)

    def __init__(self, threshold=None, delay=0.01):
        super().__init__(threshold)
        self.delay = delay
        self.in_flight = 0
        self.peak = 0
        self.calls = []

    async def ameasure(self, case):
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        self.calls.append(case.metadata["id"])
        try:
            await asyncio.sleep(self.delay)
        finally:
            self.in_flight -= 1
        return min(len(case.tool_calls), 2) / 2, f"{len(case.tool_calls)} calls"


def test_async_metrics_run_concurrently_and_results_keep_input_order():
    metric = Counting(delay=0.02)
    result = evaluate(cases(), [metric, "tool_selection_accuracy"], concurrency=8)
    assert 1 < metric.peak <= 8
    assert result["counting"].values.tolist() == [min(i % 3, 2) / 2 for i in range(40)]
    assert sorted(metric.calls) == sorted(f"c{i}" for i in range(40))  # each case once
    reference = evaluate(cases(), Counting(delay=0), concurrency=1)
    assert list(result["counting"].reasons) == list(reference["counting"].reasons)


def test_every_metric_can_be_awaited_and_aevaluate_matches_evaluate():
    case = cases()[1]
    assert asyncio.run(ToolSelectionAccuracy().aevaluate(case)) == ToolSelectionAccuracy().evaluate(case)
    assert asyncio.run(Counting().aevaluate(case)) == Counting().evaluate(case)  # sync call of an async metric
    awaited = asyncio.run(aevaluate(cases(), [Counting(), "tool_selection_accuracy"]))
    plain = evaluate(cases(), [Counting(), "tool_selection_accuracy"])
    for label in plain.metrics:
        assert np.array_equal(awaited[label].values, plain[label].values)


def test_evaluate_works_inside_a_running_event_loop():
    # A Jupyter cell runs inside a loop: asyncio.run would refuse ("already running").
    async def cell():
        return evaluate(cases(), Counting(), concurrency=4)

    assert asyncio.run(cell())["counting"].values.tolist() == [min(i % 3, 2) / 2 for i in range(40)]


class Blocking(Metric):
    name = "blocking"
    description = "Blocking I/O."
    concurrency = "threads"
    lock = threading.Lock()
    in_flight = 0
    peak = 0

    def measure(self, case):
        with Blocking.lock:
            Blocking.in_flight += 1
            Blocking.peak = max(Blocking.peak, Blocking.in_flight)
        time.sleep(0.01)
        with Blocking.lock:
            Blocking.in_flight -= 1
        return 1.0, "done"


def test_blocking_metrics_run_on_threads():
    Blocking.peak = 0
    result = evaluate(cases(), Blocking(), concurrency=6)
    assert 1 < Blocking.peak <= 6 and result["blocking"].values.tolist() == [1.0] * 40


class Flaky(Metric):
    """Fails transiently a given number of times per case, then answers."""

    name = "flaky"
    description = "Flaky service."

    def __init__(self, threshold=None, failures=1, retry_after=None, hang=False):
        super().__init__(threshold)
        self.failures, self.retry_after, self.hang = failures, retry_after, hang
        self.attempts: dict[str, int] = {}

    async def ameasure(self, case):
        key = case.metadata["id"]
        self.attempts[key] = self.attempts.get(key, 0) + 1
        if self.attempts[key] <= self.failures:
            if self.hang:
                await asyncio.sleep(60)
            raise TransientMetricError("HTTP 429 Too Many Requests", retry_after=self.retry_after)
        return 1.0, "answered"


@pytest.fixture
def no_wait(monkeypatch):
    """Backoff sleeps are recorded, not slept."""
    slept = []
    real_sleep = asyncio.sleep

    async def sleep(delay, *args, **kwargs):
        slept.append(delay)
        await real_sleep(0)

    monkeypatch.setattr(_concurrent.asyncio, "sleep", sleep)
    return slept


def test_transient_failures_are_retried_and_retry_after_is_honoured(no_wait, monkeypatch):
    monkeypatch.setattr(_concurrent.random, "uniform", lambda low, high: 0.0)
    metric = Flaky(failures=2, retry_after=1.5)
    result = evaluate(cases(10), metric, retries=2)
    assert result["flaky"].values.tolist() == [1.0] * 10
    assert set(metric.attempts.values()) == {3}
    assert no_wait == [1.5] * 20  # never shorter than Retry-After


def test_a_day_long_retry_after_waits_at_most_the_runners_ceiling(no_wait, monkeypatch):
    # Issue 24: a metric reporting retry_after=86400 once held the run for a day.
    monkeypatch.setattr(_concurrent.random, "uniform", lambda low, high: 0.0)
    metric = Flaky(failures=1, retry_after=86400.0)
    result = evaluate(cases(3), metric, retries=1, errors="record")
    assert result["flaky"].values.tolist() == [1.0] * 3
    assert no_wait == [_concurrent.MAX_RETRY_AFTER] * 3 and _concurrent.MAX_RETRY_AFTER == 300.0
    for odd in (float("nan"), -5.0, True, "60"):  # nothing to honour: the plain backoff
        assert _concurrent._backoff(0, TransientMetricError("x", retry_after=odd)) == 0.0


def test_backoff_grows_exponentially_with_jitter(monkeypatch):
    monkeypatch.setattr(_concurrent.random, "uniform", lambda low, high: high)
    error = TransientMetricError("busy")
    assert [_concurrent._backoff(k, error) for k in range(4)] == [0.25, 0.5, 1.0, 2.0]
    assert _concurrent._backoff(20, error) == _concurrent.BACKOFF_CAP


def test_the_final_failure_is_recorded_on_its_row_or_raised(no_wait):
    result = evaluate(cases(4), Flaky(failures=5), retries=2, errors="record")["flaky"]
    assert result.errors[0] == "flaky: TransientMetricError: HTTP 429 Too Many Requests (after 3 attempts)"
    assert np.isnan(result.values).all() and not result.passed.any()
    with pytest.raises(TransientMetricError) as info:
        evaluate(cases(4), Flaky(failures=5), retries=1)
    if sys.version_info >= (3, 11):
        assert "could not score case" in info.value.__notes__[0]


def test_a_timeout_is_transient_and_named():
    result = evaluate(cases(3), Flaky(failures=1, hang=True), timeout=0.05, retries=1)["flaky"]
    assert result.values.tolist() == [1.0] * 3  # the second attempt answered
    result = evaluate(cases(3), Flaky(failures=9, hang=True), timeout=0.05, errors="record")["flaky"]
    assert result.errors[0] == "flaky: no answer within the timeout of 0.05 s"


def test_the_rate_limit_spaces_attempts(monkeypatch):
    clock = [100.0]
    waits = []

    async def sleep(delay):
        waits.append(round(delay, 6))
        clock[0] += delay

    monkeypatch.setattr(_concurrent.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(_concurrent.asyncio, "sleep", sleep)
    limit = _concurrent._RateLimit(4.0)

    async def starts():
        for _ in range(5):
            await limit.wait()

    asyncio.run(starts())
    assert waits == [0.25, 0.25, 0.25, 0.25]


def test_max_rate_reaches_the_runner(monkeypatch):
    waited = []
    original = _concurrent._RateLimit.wait

    async def wait(self):
        waited.append(self.interval)
        await original(self)

    monkeypatch.setattr(_concurrent._RateLimit, "wait", wait)
    evaluate(cases(6), Counting(delay=0), max_rate=1000.0, concurrency=6)
    assert waited == [0.001] * 6  # every attempt waits its turn


class Judgy(Metric):
    name = "judgy"
    description = "A judge that answers badly or breaks."

    async def ameasure(self, case):
        if case.metadata["id"] == "c1":
            raise MetricServiceError("judge gave an invalid verdict: not JSON")
        if case.metadata["id"] == "c2":
            return 1.5, "too good"
        if case.metadata["id"] == "c3":
            raise KeyError("verdicts")
        return 1.0, "fine"


def test_service_errors_metric_bugs_and_case_errors_are_told_apart():
    broken = cases(5) + [AgentTestCase(tool_calls=None, expected_tool_calls=["A"], metadata={"id": "c5"})]

    class Needy(Judgy):
        name = "needy"
        required_fields = ("tool_calls",)

    result = evaluate(broken, Needy(), errors="record")["needy"]
    assert result.errors == {
        1: "needy: MetricServiceError: judge gave an invalid verdict: not JSON",
        2: "metric bug in Needy: measure returned 1.5; expected a float in [0, 1]. This is a bug in "
           "the metric, not in the case: report it to the metric's author.",
        3: "metric bug in Needy: KeyError: 'verdicts'. Report it to the metric's author.",
        5: "metric 'needy' requires the test case field 'tool_calls', but it is None. Fix: pass "
           "tool_calls=[...] to AgentTestCase (an empty list is allowed and means 'none').",
    }
    assert result.values[[0, 4]].tolist() == [1.0, 1.0]


def test_bad_settings_are_refused():
    for kwargs, message in [({"concurrency": 0}, "concurrency: expected a whole number"),
                            ({"timeout": -1}, "timeout: expected a positive number"),
                            ({"retries": -1}, "retries: expected a whole number"),
                            ({"max_rate": 0}, "max_rate: expected a positive number"),
                            ({"cache": 5}, "cache: expected the path")]:
        with pytest.raises(InvalidParameterError, match=message):
            evaluate(cases(2), Counting(), **kwargs)


# --- the cache -------------------------------------------------------------------------------

class Versioned(Counting):
    name = "versioned"
    cache_exclude = ("delay",)


def test_a_warm_cache_scores_nothing_again(tmp_path):
    path = tmp_path / "scores.sqlite"
    cold = Versioned()
    first = evaluate(cases(), cold, cache=path)
    assert first.cache_stats["versioned"] == agentmetrics.engine._cache.CacheStats(hits=0, misses=40)
    warm = Versioned(delay=0.5)  # an excluded parameter: the same scores
    second = evaluate(cases(), warm, cache=path)
    assert warm.calls == [] and second.cache_stats["versioned"].hits == 40
    assert np.array_equal(first["versioned"].values, second["versioned"].values)
    assert list(first["versioned"].reasons) == list(second["versioned"].reasons)
    stricter = evaluate(cases(), Versioned(threshold=0.9), cache=path)  # passed is decided anew
    assert stricter.cache_stats["versioned"].hits == 40
    assert stricter["versioned"].passed.sum() < second["versioned"].passed.sum()


class Bumped(Versioned):
    version = "2"


class Tuned(Counting):  # the same name, delay not excluded
    name = "versioned"


def test_a_changed_version_parameter_or_case_is_never_served_from_the_cache(tmp_path):
    path = tmp_path / "scores.sqlite"
    evaluate(cases(), Versioned(), cache=path)
    bumped = evaluate(cases(), Bumped(), cache=path).cache_stats["versioned"]
    assert bumped.hits == 0 and bumped.misses == 40  # keyed, under another version
    assert evaluate(cases(), Tuned(delay=0.02), cache=path).cache_stats["versioned"].hits == 0
    changed = cases()
    changed[0] = AgentTestCase(input="another request", tool_calls=[], expected_tool_calls=["A"],
                               metadata={"id": "c0"})
    assert evaluate(changed, Versioned(), cache=path).cache_stats["versioned"] == \
        agentmetrics.engine._cache.CacheStats(hits=39, misses=1)
    metric = Versioned()
    keys = case_keys(metric, cases(2))
    assert len(set(keys)) == 2 and keys == case_keys(Versioned(delay=9), cases(2))


def test_errors_are_not_cached(tmp_path, no_wait):
    path = tmp_path / "scores.sqlite"
    evaluate(cases(4), Flaky(failures=1), errors="record", cache=path)
    assert stored(path) == 0
    assert evaluate(cases(4), Flaky(failures=0), cache=path).cache_stats["flaky"].misses == 4


def _fill(path, start, stop):
    evaluate(cases(200)[start:stop], Versioned(delay=0), cache=path, concurrency=8)


def test_processes_share_one_cache(tmp_path):
    path = tmp_path / "shared.sqlite"
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_fill, args=(str(path), start, start + 120))
               for start in (0, 80)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
        assert worker.exitcode == 0
    assert stored(path) == 200
    assert evaluate(cases(200), Versioned(), cache=path).cache_stats["versioned"].hits == 200
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


# --- interruption -----------------------------------------------------------------------------

class Interrupting(Counting):
    """Presses Ctrl-C itself once enough cases have finished."""

    name = "interrupting"

    async def ameasure(self, case):
        value = await super().ameasure(case)
        if len(self.calls) == 12:
            import _thread

            _thread.interrupt_main()
            await asyncio.sleep(1)  # the interrupt lands while cases are in flight
        return value


@pytest.fixture
def ctrl_c_handled():
    """SIGINT handled as in a user's foreground process (KeyboardInterrupt). A
    pytest started in the background of a non-interactive shell (``&``, nohup)
    inherits SIGINT ignored, and an ignored signal makes ``_thread.interrupt_main()``
    a no-op (nor does asyncio's runner install its handler over SIG_IGN)."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_ctrl_c_returns_what_finished_and_the_cache_kept_it(tmp_path, ctrl_c_handled):
    path = tmp_path / "scores.sqlite"
    with pytest.raises(EvaluationInterrupted) as info:
        evaluate(cases(), [Interrupting(), "tool_selection_accuracy"], concurrency=4, cache=path)
    result = info.value.result["interrupting"]
    finished = np.flatnonzero(~np.isnan(result.values))
    assert 0 < len(finished) < 40
    assert all(result.errors[row] == _concurrent.INTERRUPTED
               for row in range(40) if row not in finished)
    assert len(info.value.result["tool_selection_accuracy"].errors) == 0  # vectorized: all done
    assert stored(path) == len(finished)  # every score finished was kept
    rerun = evaluate(cases(), Interrupting.__mro__[1](delay=0), cache=path)  # the file is sound
    assert rerun["counting"].values.tolist() == [min(i % 3, 2) / 2 for i in range(40)]


def test_cancelling_aevaluate_hands_over_the_partial_result():
    async def main():
        task = asyncio.ensure_future(aevaluate(cases(), Counting(delay=0.05), concurrency=2))
        await asyncio.sleep(0.2)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError as cancelled:
            return cancelled.partial_result

    partial = asyncio.run(main())["counting"]
    assert len(partial) == 40 and _concurrent.INTERRUPTED in partial.errors.values()


def test_progress_shows_failures_retries_and_rate(monkeypatch, capsys, no_wait):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    monkeypatch.setitem(sys.modules, "tqdm.auto", None)
    evaluate(cases(5), Flaky(failures=9), errors="record", retries=1, progress=True)
    err = capsys.readouterr().err
    assert "100% (10/10 cases), failed 5, retrying 0," in err and "cases/s" in err  # reading + scoring


def test_an_evaluate_only_async_metric_is_validated():
    class Liar(Metric):
        name = "async_liar"

        async def aevaluate(self, case):
            return EvalScore(0.3, True, "ok", self.name, self.threshold)

    result = evaluate(cases(2), Liar(), errors="record")["async_liar"]
    assert result.errors[0].startswith("metric bug in Liar: evaluate returned passed=True for value 0.3")


def test_the_command_line_runs_a_judge_concurrently_with_a_cache(tmp_path, capsys):
    pytest.importorskip("agentmetrics_judge")
    import json

    from agentmetrics.cli import main
    from judge_server import JudgeServer

    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps({"id": f"c{i}", "input": f"look up order {i}",
                                        "tool_calls": ["GetOrder"] + (["DeleteOrder"] if i % 2 else []),
                                        "expected_tool_calls": ["GetOrder"]}) + "\n"
                            for i in range(30)), encoding="utf-8")
    with JudgeServer() as server:
        argv = ["evaluate", str(path), "--metric",
                f"tool_call_appropriateness:model=judge,base_url={server.url}",
                "--concurrency", "8", "--retries", "2", "--timeout", "10",
                "--cache", str(tmp_path / "judge.sqlite"), "--format", "jsonl"]
        assert main(argv) == 0
        rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert [row["value"] for row in rows] == [1.0, 0.5] * 15
        assert main(argv) == 0 and server.total == 30  # the second run: all from the cache
