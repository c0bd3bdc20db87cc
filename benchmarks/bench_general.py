"""The general built-ins on a table, against a plain Python loop, side by side.

    python benchmarks/bench_general.py [--rows 1000000] [--repeats 3] [--profile]

Seeded rows (an answer and its reference, half of them equal, a quarter equal
but for case and spaces; a latency; 0 to 6 calls a side from 40 tools) as a
pandas DataFrame and as a pyarrow Table. For each of answer_match (exact),
latency and tool_call_micro_f1, timed in interleaved rounds, medians printed:

  (loop)  a plain Python loop over the same rows: an AgentTestCase per row
          from the table's columns, then the metric's single-case evaluate
  (eval)  that loop's evaluate alone, over AgentTestCases built beforehand
  (value) for information: a loop computing just the value from the columns
  (batch) the metric's evaluate_batch alone, on a ToolCallBatch of those
          AgentTestCases built beforehand: the metric's own share of (df)
  (df)    agentmetrics.evaluate(DataFrame, [metric])
  (pa)    agentmetrics.evaluate(Arrow Table, [metric])
  (all)   agentmetrics.evaluate(DataFrame, [the three]): one read shared

Speed-ups are printed against (loop). With --profile, where evaluate(DataFrame)
spends its time for answer_match (cProfile, top functions by own time).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import pstats
import statistics
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np

import agentmetrics
from agentmetrics import AgentTestCase, get_metric

METRICS = ("answer_match", "latency", "tool_call_micro_f1")


def make_columns(rows: int, seed: int = 0) -> dict[str, list[Any]]:
    rng = np.random.default_rng(seed)
    words = ["paris", "rome", "berlin", "madrid", "the answer is 42", "no refund is due"]
    expected = [words[i] for i in rng.integers(0, len(words), rows).tolist()]
    pick = rng.random(rows).tolist()
    other = [words[i] for i in rng.integers(0, len(words), rows).tolist()]
    actual = [e if p < 0.5 else (f" {e.upper()} " if p < 0.75 else o)
              for e, p, o in zip(expected, pick, other)]
    names = [f"tool_{i:02d}" for i in range(40)]
    sides = []
    for _ in range(2):
        lengths = rng.integers(0, 7, rows).tolist()
        flat = [names[i] for i in rng.integers(0, 40, sum(lengths)).tolist()]
        starts = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        sides.append([flat[starts[i]:starts[i + 1]] for i in range(rows)])
    return {"actual_output": actual, "expected_output": expected,
            "latency": rng.gamma(2.0, 1.5, rows).tolist(),
            "tool_calls": sides[0], "expected_tool_calls": sides[1]}


def cases_of(columns: dict[str, list[Any]]) -> list[AgentTestCase]:
    return [AgentTestCase(actual_output=a, expected_output=e, latency=s, tool_calls=c,
                          expected_tool_calls=x)
            for a, e, s, c, x in zip(columns["actual_output"], columns["expected_output"],
                                     columns["latency"], columns["tool_calls"],
                                     columns["expected_tool_calls"])]


def loop(metric_name: str, frame: Any) -> Callable[[], Any]:
    """Per row of the DataFrame: its AgentTestCase, then evaluate."""
    metric = get_metric(metric_name)

    def run() -> list[float]:
        columns = {name: frame[name].tolist() for name in frame.columns}
        return [metric.evaluate(case).value for case in cases_of(columns)]
    return run


def evaluate_only(metric_name: str, cases: list[AgentTestCase]) -> Callable[[], Any]:
    metric = get_metric(metric_name)
    return lambda: [metric.evaluate(case).value for case in cases]


def value_only(metric_name: str, columns: dict[str, list[Any]]) -> Callable[[], Any]:
    if metric_name == "answer_match":
        return lambda: [float(a == e) for a, e in zip(columns["actual_output"],
                                                      columns["expected_output"])]
    if metric_name == "latency":
        return lambda: [float(s) for s in columns["latency"]]

    def f1() -> list[float]:
        out = []
        for called, wanted in zip(columns["tool_calls"], columns["expected_tool_calls"]):
            total = len(called) + len(wanted)
            matched = sum((Counter(called) & Counter(wanted)).values())
            out.append(2 * matched / total if total else 1.0)
        return out
    return f1


def batch_only(metric_name: str, batch: Any) -> Callable[[], Any]:
    metric = get_metric(metric_name)
    return lambda: metric.evaluate_batch(batch)


def scored(data: Any, names: tuple[str, ...]) -> Callable[[], Any]:
    return lambda: agentmetrics.evaluate(data, list(names), progress=False)


def timed(function: Callable[[], Any]) -> float:
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    import pandas as pd
    import pyarrow as pa

    columns = make_columns(args.rows)
    frame = pd.DataFrame(columns)
    table = pa.table(columns)
    cases = cases_of(columns)
    batch = agentmetrics.ToolCallBatch.from_cases(cases)
    # The same values on every path, checked once before timing.
    for name in METRICS:
        want = np.array(evaluate_only(name, cases)())
        for data in (frame, table):
            got = agentmetrics.evaluate(data, [name], progress=False)[name].values
            assert np.array_equal(got, want), name
    runs: dict[str, Callable[[], Any]] = {}
    for name in METRICS:
        runs[f"{name} loop"] = loop(name, frame)
        runs[f"{name} eval"] = evaluate_only(name, cases)
        runs[f"{name} value"] = value_only(name, columns)
        runs[f"{name} batch"] = batch_only(name, batch)
        runs[f"{name} df"] = scored(frame, (name,))
        runs[f"{name} pa"] = scored(table, (name,))
    runs["all three df"] = scored(frame, METRICS)
    times: dict[str, list[float]] = {key: [] for key in runs}
    for _ in range(args.repeats):  # interleaved: every run once a round
        for key, run in runs.items():
            times[key].append(timed(run))
    median = {key: statistics.median(found) for key, found in times.items()}
    print(f"{args.rows:,} rows, median of {args.repeats} interleaved rounds")
    print(f"{'metric':20} {'path':6} {'seconds':>9} {'us/row':>8} {'vs loop':>8}")
    for name in METRICS:
        base = median[f"{name} loop"]
        for path in ("loop", "eval", "value", "batch", "df", "pa"):
            seconds = median[f"{name} {path}"]
            print(f"{name:20} {path:6} {seconds:9.3f} {seconds / args.rows * 1e6:8.2f} "
                  f"{base / seconds:7.1f}x")
    loops = sum(median[f"{name} loop"] for name in METRICS)
    seconds = median["all three df"]
    print(f"{'all three':20} {'df':6} {seconds:9.3f} {seconds / args.rows * 1e6:8.2f} "
          f"{loops / seconds:7.1f}x (against the three loops)")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(scored(frame, ("answer_match",)))
        out = io.StringIO()
        pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(12)
        print(out.getvalue())


if __name__ == "__main__":
    main()
