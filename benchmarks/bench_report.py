"""Writing the HTML report of a large run (issue 29).

    .venv/bin/python benchmarks/bench_report.py [--cases 1000000] [--repeats 3]

A seeded run of ``--cases`` cases (3 called and 3 expected names out of 40
tools, case ids), scored by tool_selection_accuracy and tool_call_f1. Timed
side by side, interleaved, medians:

  (s) result.summary() plus result.failures(): the tables a user would print
  (h) result.to_html(path): the whole report (summary, clustered intervals
      absent: no tasks; histograms, per-tool table, the 100 worst failing
      cases per metric with both sequences, errors, provenance with the data's
      fingerprint)

and the report's size in bytes, for this run and for one of 100,000 cases.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time

import numpy as np

from agentmetrics import ToolCallBatch, ToolSelectionAccuracy, evaluate


def make_result(n: int, seed: int = 5):
    rng = np.random.default_rng(seed)
    vocabulary = tuple(f"tool_{i}" for i in range(40))
    called = rng.integers(0, 40, size=3 * n).astype(np.int32)
    expected = rng.integers(0, 40, size=3 * n).astype(np.int32)
    # A third of the cases call exactly what is expected.
    same = np.repeat(rng.random(n) < 0.33, 3)
    called[same] = expected[same]
    offsets = np.arange(0, 3 * n + 1, 3, dtype=np.int64)
    given = np.ones(n, dtype=bool)
    batch = ToolCallBatch(vocabulary=vocabulary, called_ids=called, called_offsets=offsets,
                          expected_ids=expected, expected_offsets=offsets.copy(),
                          called_given=given, expected_given=given.copy(),
                          case_ids=tuple(f"case-{i}" for i in range(n)))
    return evaluate(batch, [ToolSelectionAccuracy(threshold=0.8), "tool_call_f1"],
                    progress=False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    result = make_result(args.cases)
    failing = sum(int((~result[m].passed).sum()) for m in result.metrics)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "report.html")
        tables, report, alone = [], [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            result.summary()
            alone.append(time.perf_counter() - start)
            result.failures()
            tables.append(time.perf_counter() - start)
            result._provenance = None  # the data's fingerprint is taken in every repeat
            start = time.perf_counter()
            result.to_html(path)
            report.append(time.perf_counter() - start)
        size = os.path.getsize(path)
        small = make_result(100_000)
        small.to_html(path)
        small_size = os.path.getsize(path)
    s, h = statistics.median(tables), statistics.median(report)
    print(f"{args.cases:,} cases, 2 metrics, {failing:,} failing case-metric pairs; "
          f"medians of {args.repeats}")
    print(f"  (s) summary() + failures()   {s:8.3f} s  (summary() alone "
          f"{statistics.median(alone):.3f} s)")
    print(f"  (h) to_html(path)            {h:8.3f} s  {h / s:5.2f}x (s)  [goal <= 2x]")
    print(f"  report size: {size:,} bytes for {args.cases:,} cases; {small_size:,} bytes for "
          f"100,000 cases [goal < 5 MB]")


if __name__ == "__main__":
    main()
