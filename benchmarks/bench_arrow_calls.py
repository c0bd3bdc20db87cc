"""evaluate() of a pyarrow Table of call objects, before and after the columnar
reading (issue 52), side by side in one run.

    python benchmarks/bench_arrow_calls.py [--sizes 100000 1000000] [--after-only 10000000]
                                           [--repeats 3] [--metric tool_selection_accuracy]

The table: seeded rows (chunks of 1M) of 0 to 5 calls a side out of 40 tools, each call
``{name, arguments: {seat: int64, city: string}}`` (``list<struct<...>>``, as
Spark, Ray and Parquet files written from dicts hold them), and a string id
column. Two sides:

  (before) the reference reading every call-object table had until now:
           ``records_from_arrow`` (``to_pylist``), then the records' reading
           (forced here by making the columnar reading decline the table);
  (after)  the columnar reading: Arrow compute into the tool-id columns, the
           cases built only when a metric reads them.

Each measurement runs in a fresh process (so that one side's memory never
lands in the other's), rounds interleaved, median of ``--repeats``:

  * CPU seconds of ``evaluate(table, metric)`` alone (the table is built
    before, and a small table is scored first so that imports are not timed);
  * in another process, the peak memory ``evaluate`` allocates beyond its
    input: tracemalloc's peak (Python objects) plus the peak of a pyarrow
    memory pool set as the default for the call (Arrow buffers).

``--after-only`` sizes run the after side alone (the before side would need
about 4 KB a case): the linearity check to 10M cases.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

import numpy as np


def make_table(n: int, seed: int = 0, tools: int = 40, chunk: int = 1_000_000) -> Any:
    """``n`` rows, in chunks of ``chunk`` rows (as a Parquet file's row groups come)."""
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    return pa.concat_tables([_chunk(rng, start, min(chunk, n - start), tools)
                             for start in range(0, n, chunk)])


def _chunk(rng: Any, start: int, n: int, tools: int) -> Any:
    import pyarrow as pa

    names = pa.array([f"tool_{i}" for i in range(tools)])

    def side() -> Any:
        lengths = rng.integers(0, 6, n)
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
        count = int(offsets[-1])
        arguments = pa.StructArray.from_arrays(
            [pa.array(rng.integers(0, 3, count)),
             pa.array(np.where(rng.random(count) < 0.5, "Oslo", "Lima"))],
            names=["seat", "city"])
        values = pa.StructArray.from_arrays(
            [names.take(pa.array(rng.integers(0, tools, count))), arguments],
            names=["name", "arguments"])
        return pa.ListArray.from_arrays(pa.array(offsets), values)

    ids = pa.array(np.char.add("case-", np.arange(start, start + n).astype(str)))
    return pa.table({"id": ids, "tool_calls": side(), "expected_tool_calls": side()})


def worker(side: str, n: int, metric: str, what: str) -> None:
    import pyarrow as pa

    import agentmetrics
    from agentmetrics.cases import _tool_call_batch

    if side == "before":  # the columnar reading declines: the reference reads every table
        _tool_call_batch.read_arrow_calls = lambda *args: None  # type: ignore[assignment]
    agentmetrics.evaluate(make_table(1000, seed=1), metric, progress=False)  # imports, warm-up
    table = make_table(n)
    if what == "time":
        start = time.process_time()
        result = agentmetrics.evaluate(table, metric, progress=False)
        seconds = time.process_time() - start
        out = {"seconds": seconds, "mean": float(np.nanmean(result.results[metric].values))}
    else:
        import tracemalloc

        base = pa.default_memory_pool()
        pool = pa.proxy_memory_pool(base)
        pa.set_memory_pool(pool)
        tracemalloc.start()
        result = agentmetrics.evaluate(table, metric, progress=False)
        python_peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        out = {"python": python_peak, "arrow": pool.max_memory(),
               "mean": float(np.nanmean(result.results[metric].values))}
    print(json.dumps(out), flush=True)
    os._exit(0)  # no teardown: buffers of the proxy pool outlive it otherwise


def measure(side: str, n: int, metric: str, what: str) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
         os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, __file__, "--worker", side, str(n), metric, what],
                          capture_output=True, text=True, env=env, check=False)
    if done.returncode:
        raise SystemExit(f"{side} {n} {what} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--after-only", type=int, nargs="*", default=[10_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--metric", default="tool_selection_accuracy")
    parser.add_argument("--worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        side, n, metric, what = args.worker
        worker(side, int(n), metric, what)
        return
    print(f"evaluate(pyarrow Table of call objects), metric {args.metric}; "
          f"median of {args.repeats} (fresh process each, rounds interleaved)")
    print(f"{'cases':>11} {'side':>7} {'us/case':>8} {'speed-up':>8} {'python B/case':>13} "
          f"{'arrow B/case':>12} {'peak B/case':>11}  mean")
    plan = [(n, ("before", "after")) for n in args.sizes] + [(n, ("after",))
                                                            for n in args.after_only]
    for n, sides in plan:
        times: dict[str, list[float]] = {side: [] for side in sides}
        means: dict[str, float] = {}
        for _ in range(args.repeats):
            for side in sides:
                found = measure(side, n, args.metric, "time")
                times[side].append(found["seconds"])
                means[side] = found["mean"]
        memory = {side: measure(side, n, args.metric, "memory") for side in sides}
        if len(sides) == 2 and means["before"] != means["after"]:
            raise SystemExit(f"the sides disagree at {n}: {means}")
        for side in sides:
            us = statistics.median(times[side]) / n * 1e6
            speedup = (f"{statistics.median(times['before']) / statistics.median(times[side]):.1f}x"
                       if "before" in times else "")
            python, arrow = memory[side]["python"] / n, memory[side]["arrow"] / n
            print(f"{n:>11,} {side:>7} {us:>8.2f} {speedup:>8} {python:>13.0f} {arrow:>12.0f} "
                  f"{python + arrow:>11.0f}  {means[side]:.6f}", flush=True)


if __name__ == "__main__":
    main()
