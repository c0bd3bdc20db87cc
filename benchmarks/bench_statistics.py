"""Statistics: the bootstrap against the usual ways to write one; summaries and comparisons.

    python benchmarks/bench_statistics.py [--cases 100000] [--resamples 10000] [--repeats 3]

(a) Bootstrap of the mean, --resamples resamples of --cases cases, on the
    scores a real metric gives (ToolSelectionAccuracy on synthetic runs: a few
    dozen distinct values) and on its pass/fail flags. Goal (issue 13): about
    a second. Side by side, on the same data:
      - ours: agentmetrics.stats.mean_interval(method="bootstrap");
      - numpy blocks: the vectorized textbook bootstrap (a block of resamples
        as a matrix of random indices, gathered and averaged);
      - scipy: scipy.stats.bootstrap(method="percentile", vectorized);
      - loop: one resample at a time (rng.choice(values).mean());
    the slow baselines on fewer resamples, scaled linearly (their cost is
    linear in the resamples).
(b) The same on continuous scores (every value distinct, as an LLM judge's
    scores may be): ours falls back to drawing case by case, on threads.
(c) summary() with intervals, plain and clustered, on --cases cases; and
    compare() of two runs of --cases cases.

Medians of --repeats (2 noisy cores).
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any
from collections.abc import Callable

import numpy as np

import agentmetrics as am
from agentmetrics.stats import mean_interval

TOOLS = ["GetOrder", "CancelOrder", "IssueRefund", "Search", "UpdateAddress", "Escalate"]


def cases(n: int, seed: int) -> list[am.AgentTestCase]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        expected = list(rng.choice(TOOLS, size=int(rng.integers(1, 5)), replace=False))
        called = [t for t in expected if rng.random() < 0.85]
        called += list(rng.choice(TOOLS, size=int(rng.integers(0, 2))))
        out.append(am.AgentTestCase(tool_calls=called, expected_tool_calls=expected,
                                    metadata={"id": i, "task_id": i // 4}))
    return out


def median_seconds(function: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def numpy_blocks(values: np.ndarray, resamples: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = len(values)
    rows = max(1, (1 << 22) // n)
    means = np.empty(resamples)
    for start in range(0, resamples, rows):
        stop = min(resamples, start + rows)
        means[start:stop] = values[rng.integers(0, n, size=(stop - start, n))].mean(axis=1)
    return np.quantile(means, [0.025, 0.975])


def loop(values: np.ndarray, resamples: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    means = [rng.choice(values, size=len(values)).mean() for _ in range(resamples)]
    return np.quantile(means, [0.025, 0.975])


def scipy_bootstrap(values: np.ndarray, resamples: int) -> Any:
    import scipy.stats

    return scipy.stats.bootstrap((values,), np.mean, n_resamples=resamples, vectorized=True,
                                 method="percentile", random_state=0, batch=max(1, (1 << 22)
                                                                               // len(values)))


def bootstrap_rows(label: str, values: np.ndarray, resamples: int, repeats: int,
                   fractions: dict[str, int]) -> None:
    ours = median_seconds(lambda: mean_interval(values, method="bootstrap",
                                                resamples=resamples), repeats)
    distinct = len(np.unique(values))
    print(f"\n{label}: {len(values):,} cases, {distinct:,} distinct values, "
          f"{resamples:,} resamples")
    print(f"  {'method':<34} {'seconds':>9} {'x ours':>8}")
    print(f"  {'ours (agentmetrics.stats)':<34} {ours:>9.3f} {1.0:>8.2f}")
    baselines: dict[str, Callable[[int], Any]] = {
        "numpy blocks (index matrix)": lambda r: numpy_blocks(values, r),
        "loop (rng.choice per resample)": lambda r: loop(values, r),
    }
    try:
        import scipy  # noqa: F401

        baselines["scipy.stats.bootstrap"] = lambda r: scipy_bootstrap(values, r)
    except ImportError:  # pragma: no cover - scipy is in the bench extra
        print("  (scipy not installed: its row is skipped)")
    for name, run in baselines.items():
        share = fractions.get(name, resamples)
        seconds = median_seconds(lambda: run(share), repeats) * resamples / share
        scaled = "" if share == resamples else f"  (from {share:,} resamples)"
        print(f"  {name:<34} {seconds:>9.3f} {seconds / ours:>8.2f}{scaled}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    runs = cases(args.cases, seed=1)
    result = am.evaluate(runs, "tool_selection_accuracy", progress=False)
    scores = result["tool_selection_accuracy"].values
    passed = result["tool_selection_accuracy"].passed.astype(np.float64)
    slow = {"loop (rng.choice per resample)": 100,
            "scipy.stats.bootstrap": 1_000, "numpy blocks (index matrix)": 1_000}
    bootstrap_rows("(a) ToolSelectionAccuracy scores", scores, args.resamples, args.repeats,
                   slow)
    bootstrap_rows("(a) pass/fail flags", passed, args.resamples, args.repeats, slow)
    continuous = np.random.default_rng(2).beta(2, 5, size=args.cases)
    bootstrap_rows("(b) continuous scores", continuous, args.resamples, args.repeats, slow)

    print(f"\n(c) summaries and comparisons, {args.cases:,} cases")
    for label, function in (
        ("summary(ci=None) (no intervals)", lambda: result.summary(ci=None)),
        ("summary() (t and Wilson)", lambda: result.summary()),
        ("summary(cluster='task_id')", lambda: result.summary(cluster="task_id")),
        ("summary(method='bootstrap')", lambda: result.summary(method="bootstrap")),
    ):
        print(f"  {label:<40} {median_seconds(function, args.repeats):>8.3f} s")
    other = am.evaluate(cases(args.cases, seed=2), "tool_selection_accuracy", progress=False)
    seconds = median_seconds(lambda: am.compare(result, other), args.repeats)
    print(f"  {'compare() of two runs':<40} {seconds:>8.3f} s")
    seconds = median_seconds(lambda: am.compare(result, other, method="permutation"),
                             args.repeats)
    print(f"  {'compare(method=permutation)':<40} {seconds:>8.3f} s")


if __name__ == "__main__":
    main()
