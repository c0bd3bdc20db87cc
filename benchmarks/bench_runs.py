"""Saving and loading a 1M-case run (issue 29, saved runs).

    .venv/bin/python benchmarks/bench_runs.py [--cases 1000000] [--repeats 3]

A seeded run of ``--cases`` cases (3 called and 3 expected names out of 40
tools, string case ids; a third call exactly what is expected), built with
ToolCallBatch.from_columns and scored by tool_selection_accuracy. Timed side
by side, interleaved, medians of ``--repeats``:

  (bj) baseline JSONL: ``result.to_dicts()`` written one ``json.dumps`` a line
  (sj) ``result.save("run.jsonl", history=False)``
  (lj) ``agentmetrics.load_result("run.jsonl")``
  (bp) baseline Parquet: ``result.to_pandas().to_parquet(path)``
  (sp) ``result.save("run.parquet", history=False)``
  (lp) ``agentmetrics.load_result("run.parquet")``
  (rp) ``pandas.read_parquet`` of the baseline's file (a DataFrame, not a result)
  (h)  ``RunStore(path).record(result, ...)``: what ``save(history=True)`` adds

Every save and baseline computes the reasons of every case (the metric's
reason for each row is part of what is written), and each save takes the
data's fingerprint afresh. Sizes of the files are printed, and the load is
checked to give back the values bit for bit.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

import numpy as np

from agentmetrics import ToolCallBatch, ToolSelectionAccuracy, evaluate, load_result
from agentmetrics.runs import RunStore


def make_result(n: int, seed: int = 5):
    rng = np.random.default_rng(seed)
    names = np.array([f"tool_{i}" for i in range(40)], dtype=object)
    called = names[rng.integers(0, 40, size=(n, 3))]
    expected = names[rng.integers(0, 40, size=(n, 3))]
    same = rng.random(n) < 0.33
    called[same] = expected[same]
    batch = ToolCallBatch.from_columns(tool_calls=called.tolist(),
                                       expected_tool_calls=expected.tolist(),
                                       ids=[f"case-{i}" for i in range(n)])
    return evaluate(batch, [ToolSelectionAccuracy(threshold=0.8)], progress=False)


def _jsonl_baseline(result, path: str) -> None:
    with open(path, "w", encoding="utf-8") as out:
        out.writelines(json.dumps(row) + "\n" for row in result.to_dicts())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    import pandas as pd

    start = time.perf_counter()
    result = make_result(args.cases)
    built = time.perf_counter() - start
    times: dict[str, list[float]] = {key: [] for key in ("bj", "sj", "lj", "bp", "sp", "lp",
                                                         "rp", "h")}
    with tempfile.TemporaryDirectory() as folder:
        paths = {key: os.path.join(folder, name) for key, name in (
            ("bj", "baseline.jsonl"), ("sj", "run.jsonl"), ("bp", "baseline.parquet"),
            ("sp", "run.parquet"))}
        store = RunStore(os.path.join(folder, "runs.sqlite"))
        steps = {
            "bj": lambda: _jsonl_baseline(result, paths["bj"]),
            "sj": lambda: result.save(paths["sj"], history=False),
            "lj": lambda: load_result(paths["sj"]),
            "bp": lambda: result.to_pandas().to_parquet(paths["bp"]),
            "sp": lambda: result.save(paths["sp"], history=False),
            "lp": lambda: load_result(paths["sp"]),
            "rp": lambda: pd.read_parquet(paths["bp"]),
            "h": lambda: store.record(result, paths["sp"]),
        }
        loaded = {}
        for _ in range(args.repeats):
            for key, step in steps.items():
                if key in ("sj", "sp"):
                    result._provenance = None  # the fingerprint is taken in every save
                start = time.perf_counter()
                value = step()
                times[key].append(time.perf_counter() - start)
                loaded[key] = value
                del value
        sizes = {key: os.path.getsize(path) for key, path in paths.items()}
    label = result.metrics[0]
    for key in ("lj", "lp"):
        got = loaded[key][label].values
        assert np.array_equal(got.view(np.uint64), result[label].values.view(np.uint64)), key
    m = {key: statistics.median(values) for key, values in times.items()}
    print(f"{args.cases:,} cases, 1 metric (built and scored in {built:.1f} s); medians of "
          f"{args.repeats}")
    print(f"  (bj) baseline to_dicts() as JSON lines {m['bj']:7.2f} s  {sizes['bj'] / 1e6:7.1f} MB")
    print(f"  (sj) save('run.jsonl')                {m['sj']:7.2f} s  {sizes['sj'] / 1e6:7.1f} MB"
          f"  {m['sj'] / m['bj']:5.2f}x (bj)")
    print(f"  (lj) load_result('run.jsonl')         {m['lj']:7.2f} s")
    print(f"  (bp) baseline to_pandas().to_parquet  {m['bp']:7.2f} s  {sizes['bp'] / 1e6:7.1f} MB")
    print(f"  (sp) save('run.parquet')              {m['sp']:7.2f} s  {sizes['sp'] / 1e6:7.1f} MB"
          f"  {m['sp'] / m['bp']:5.2f}x (bp)")
    print(f"  (lp) load_result('run.parquet')       {m['lp']:7.2f} s  {m['lp'] / m['rp']:5.2f}x (rp)")
    print(f"  (rp) pandas.read_parquet(baseline)    {m['rp']:7.2f} s")
    print(f"  (h)  RunStore.record (summary + SQLite) {m['h']:5.2f} s")


if __name__ == "__main__":
    main()
