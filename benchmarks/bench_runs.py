"""Saving and loading a 1M-case run (issue 29, saved runs), and what a saved
run's identity costs (issue 48).

    .venv/bin/python benchmarks/bench_runs.py [--cases 1000000] [--repeats 3]
    .venv/bin/python benchmarks/bench_runs.py --before REV [--cases 1000000] [--repeats 3]

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

``--before REV``: the same run saved and loaded by agentmetrics at git
revision REV (its ``agentmetrics/`` extracted with ``git archive`` into a
temporary folder) and by this checkout, side by side: each of ``--repeats``
rounds runs one fresh process per version (their order alternating), each
building the run and timing, once each:

  (sj)  ``save("run.jsonl", history=False)``      (sp)  the same, ``run.parquet``
  (lj)  ``load_result("run.jsonl")``              (lp)  the same, ``run.parquet``
  (hsj) ``save("h.jsonl", history=store)``        (hsp) the same, ``h.parquet``
  (hlj) ``store.load(run)`` of ``h.jsonl``        (hlp) the same, ``h.parquet``

The identity adds hashing to every save (the bytes as they are written; a
Parquet file read back) and to loading a run of the history (the bytes read
once, hashed, then parsed); ``load_result`` of a file does not hash. Printed:
each version's median and their ratio (after / before).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


IDENTITY_STEPS = ("sj", "lj", "hsj", "hlj", "sp", "lp", "hsp", "hlp")


def child(cases: int) -> None:
    """One version's timings of the identity steps, printed as JSON."""
    import agentmetrics
    import pyarrow.parquet  # noqa: F401  (imported before anything is timed)

    result = make_result(cases)
    label = result.metrics[0]
    times: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(os.path.join(folder, "runs.sqlite"))
        for form in ("jsonl", "parquet"):
            key = form[0]
            plain, recorded = (os.path.join(folder, f"{name}.{form}") for name in ("run", "h"))
            steps = {
                f"s{key}": lambda: result.save(plain, history=False),
                f"l{key}": lambda: load_result(plain),
                f"hs{key}": lambda: result.save(recorded, history=store),
                f"hl{key}": lambda: store.load("last"),
            }
            for step, action in steps.items():
                start = time.perf_counter()
                value = action()
                times[step] = time.perf_counter() - start
                if step.startswith(("l", "hl")):
                    got = value[label].values.view(np.uint64)
                    assert np.array_equal(got, result[label].values.view(np.uint64)), step
                del value
    print(json.dumps({"module": agentmetrics.__file__, "times": times}))


def before_and_after(args: argparse.Namespace) -> None:
    """``--before REV``: this checkout against REV, one process a version a round."""
    root = Path(__file__).resolve().parents[1]
    runs: dict[str, dict[str, list[float]]] = {
        version: {step: [] for step in IDENTITY_STEPS} for version in ("before", "after")}
    with tempfile.TemporaryDirectory() as old:
        archive = subprocess.run(["git", "-C", str(root), "archive", args.before, "agentmetrics"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", old], input=archive, check=True)
        trees = {"before": old, "after": str(root)}
        for round_ in range(args.repeats):
            order = ("before", "after") if round_ % 2 == 0 else ("after", "before")
            for version in order:
                environment = dict(os.environ, PYTHONPATH=trees[version])
                out = subprocess.run([sys.executable, __file__, "--child", "--cases",
                                      str(args.cases)], check=True, capture_output=True,
                                     text=True, env=environment).stdout
                report = json.loads(out.splitlines()[-1])
                assert report["module"].startswith(trees[version]), report["module"]
                for step, seconds in report["times"].items():
                    runs[version][step].append(seconds)
    print(f"{args.cases:,} cases, 1 metric; {args.before} (before) against this checkout "
          f"(after), {args.repeats} rounds of one process each, medians")
    print(f"  {'step':<5}{'before':>10}{'after':>10}{'after/before':>14}")
    for step in IDENTITY_STEPS:
        before = statistics.median(runs["before"][step])
        after = statistics.median(runs["after"][step])
        print(f"  {step:<5}{before:>9.2f}s{after:>9.2f}s{after / before:>13.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", metavar="REV", default=None,
                        help="time this checkout's save and load against git revision REV's")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.cases)
        return
    if args.before is not None:
        before_and_after(args)
        return
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
