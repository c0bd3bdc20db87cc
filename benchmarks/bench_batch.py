"""Batch evaluation against one-case-at-a-time baselines, measured side by side.

    python benchmarks/bench_batch.py [--sizes 10000 100000 1000000] [--repeats 3]

For each N, vocabulary size (40 and 2,000 distinct tool names) and mode
(unordered, ordered), seeded synthetic cases with 0 to 8 calls a side are
scored by:

  (a) a loop of metric.evaluate over AgentTestCase objects
  (b) a plain-Python set loop over name lists: the floor for any
      one-case-at-a-time code (ordered: first-call order and an LIS)
  (c) sklearn.metrics.jaccard_score(average="samples") on sparse multilabel
      indicator matrices (unordered only; when scikit-learn is installed)
  (d) agentmetrics.evaluate() from AgentTestCase objects
  (e) ToolCallBatch.from_columns on name lists + evaluate_batch
  (f) evaluate_batch on a built ToolCallBatch (the default kernel threads);
      (f1) and (f2) the same with AGENTMETRICS_NUM_THREADS=1 and 2
  (g) ToolCallBatch.from_arrow on list<string> columns + evaluate_batch
      (when pyarrow is installed)
  (h) the same on list<dictionary<string>> columns, as Parquet stores
      strings (read with read_dictionary=): no name is hashed
  (p) the numpy-only reference prototype (../shared/reference/kernels, when
      it is beside the repository: values only, no reasons or error rows),
      one thread, as a yardstick for (f)

Two data sets: "random" (tools drawn at random: few rows share two or more
tools) and "overlap" (agents that mostly call the expected tools, in and out
of order: most rows need the ordered LCS). Speed-ups are printed against (b)
and, for the ordered mode, against the plain-Python *set* loop too (the
issue's yardstick: the floor for any one-case-at-a-time code).

Each is timed `--repeats` times, interleaved, and the median is printed with
its speed-up over (b). Then the peak memory that evaluate() allocates on the
largest N, beyond its input, is traced in a fresh process.

With --inputs N, the data users have instead (issue 27): N seeded records of
0 to 8 calls a side from 40 tools, the calls as names or as
``{"name", "arguments"}`` dicts (two arguments each), timed side by side:

  (b0) the plain-Python set loop over the records (names read out of the dicts)
  (r)  evaluate(records): the records read column by column
  (rb) ToolCallBatch.from_records alone
  (df) evaluate(DataFrame) of the same calls (needs pandas), against (b0)
       written over the DataFrame's two columns
  (j)  json.loads of each record's JSON line: the floor of building cases
  (cb) the cases built from the records: from_records, then batch.cases read
  (cr) case_from_record, record by record (as read_cases builds them)
  (ca) AgentTestCase(tool_calls=..., expected_tool_calls=...), record by record
The cyclic GC is paused while (j), (cr) and (ca) run, as timeit does: the
columnar paths pause it themselves.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from bisect import bisect_left
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agentmetrics import AgentTestCase, ToolCall, ToolCallBatch, ToolSelectionAccuracy, evaluate


def make_columns(n: int, vocabulary: int, seed: int = 0) -> tuple[list[list[str]], list[list[str]]]:
    rng = np.random.default_rng(seed)
    names = [f"tool_{i:04d}" for i in range(vocabulary)]
    columns = []
    for _ in range(2):
        lengths = rng.integers(0, 9, n)
        ids = rng.integers(0, vocabulary, int(lengths.sum())).tolist()
        flat = [names[i] for i in ids]
        offsets = np.concatenate([[0], np.cumsum(lengths)]).tolist()
        columns.append([flat[offsets[i] : offsets[i + 1]] for i in range(n)])
    return columns[0], columns[1]


def make_overlap_columns(n: int, vocabulary: int, seed: int = 0
                         ) -> tuple[list[list[str]], list[list[str]]]:
    """Agents that mostly call what is expected: each called list is the
    expected one with some calls swapped, dropped, repeated or added."""
    rng = np.random.default_rng(seed)
    names = [f"tool_{i:04d}" for i in range(vocabulary)]
    lengths = rng.integers(0, 9, n)
    flat = rng.integers(0, vocabulary, int(lengths.sum())).tolist()
    noise = rng.random((n, 4)).tolist()
    extra = rng.integers(0, vocabulary, n).tolist()
    called, expected = [], []
    start = 0
    for row, length in enumerate(lengths.tolist()):
        wanted = [names[i] for i in flat[start : start + length]]
        start += length
        calls = list(wanted)
        swap, drop, repeat, add = noise[row]
        if len(calls) >= 2 and swap < 0.4:
            k = int(swap * 10) % (len(calls) - 1)
            calls[k], calls[k + 1] = calls[k + 1], calls[k]
        if calls and drop < 0.2:
            del calls[int(drop * 100) % len(calls)]
        if calls and repeat < 0.2:
            calls.append(calls[int(repeat * 100) % len(calls)])
        if add < 0.2:
            calls.insert(int(add * 100) % (len(calls) + 1), names[extra[row]])
        called.append(calls)
        expected.append(wanted)
    return called, expected


def make_cases(called: list[list[str]], expected: list[list[str]]) -> list[AgentTestCase]:
    shared: dict[str, ToolCall] = {}  # ToolCall is immutable: one object per name

    def calls(names: list[str]) -> list[ToolCall]:
        return [shared.get(n) or shared.setdefault(n, ToolCall(n)) for n in names]

    return [AgentTestCase(tool_calls=calls(c), expected_tool_calls=calls(e)) for c, e in zip(called, expected)]


def python_unordered(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    out = []
    for c, e in zip(called, expected):
        a, b = set(c), set(e)
        union = len(a | b)
        out.append(len(a & b) / union if union else 1.0)
    return out


def python_ordered(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    out = []
    for c, e in zip(called, expected):
        first_c, first_e = list(dict.fromkeys(c)), {n: i for i, n in enumerate(dict.fromkeys(e))}
        union = len(first_e.keys() | first_c)
        tails: list[int] = []
        for name in first_c:
            if name in first_e:
                p = first_e[name]
                k = bisect_left(tails, p)
                tails[k : k + 1] = [p]
        out.append(len(tails) / union if union else 1.0)
    return out


def sklearn_jaccard(batch: ToolCallBatch) -> Callable[[], Any] | None:
    try:
        from scipy.sparse import csr_matrix
        from sklearn.metrics import jaccard_score
    except ImportError:
        return None
    shape = (len(batch), max(len(batch.vocabulary), 1))

    def indicator(ids: np.ndarray, offsets: np.ndarray) -> Any:
        matrix = csr_matrix((np.ones(len(ids), dtype=np.int8), ids, offsets), shape=shape)
        matrix.sum_duplicates()
        matrix.data[:] = 1
        return matrix

    y_pred = indicator(batch.called_ids, batch.called_offsets)
    y_true = indicator(batch.expected_ids, batch.expected_offsets)
    return lambda: jaccard_score(y_true, y_pred, average="samples", zero_division=1.0)


def arrow_columns(
    called: list[list[str]], expected: list[list[str]], dictionary: bool = False
) -> tuple[Any, Any] | None:
    try:
        import pyarrow as pa
    except ImportError:
        return None
    kind = pa.list_(pa.string())
    columns = pa.array(called, type=kind), pa.array(expected, type=kind)
    if dictionary:
        coded = pa.list_(pa.dictionary(pa.int32(), pa.string()))
        return columns[0].cast(coded), columns[1].cast(coded)
    return columns


def with_threads(threads: int, run: Callable[[], Any]) -> Any:
    """``run()`` with AGENTMETRICS_NUM_THREADS=threads, the setting restored after."""
    saved = os.environ.get("AGENTMETRICS_NUM_THREADS")
    os.environ["AGENTMETRICS_NUM_THREADS"] = str(threads)
    try:
        return run()
    finally:
        if saved is None:
            del os.environ["AGENTMETRICS_NUM_THREADS"]
        else:
            os.environ["AGENTMETRICS_NUM_THREADS"] = saved


def prototype(path: str | None) -> Any:
    """The reference prototype's module, or None when it is not there."""
    import importlib.util
    from pathlib import Path

    if not path or not (Path(path) / "fastkern.py").exists():
        return None
    spec = importlib.util.spec_from_file_location("fastkern", Path(path) / "fastkern.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not hasattr(np, "bitwise_count"):  # it needs numpy >= 2
        return None
    return module


def run_config(n: int, vocabulary: int, order_matters: bool, repeats: int, data: str = "random",
               reference_kernels: Any = None) -> list[tuple[str, float]]:
    make = make_overlap_columns if data == "overlap" else make_columns
    called, expected = make(n, vocabulary)
    cases = make_cases(called, expected)
    metric = ToolSelectionAccuracy(order_matters=order_matters)
    batch = ToolCallBatch.from_cases(cases)
    arrow = arrow_columns(called, expected)
    coded = arrow_columns(called, expected, dictionary=True)
    baseline = python_ordered if order_matters else python_unordered
    # Same numbers from every path before anything is timed.
    reference = np.array(baseline(called, expected))
    assert np.array_equal(metric.evaluate_batch(batch).values, reference)

    candidates: dict[str, Callable[[], Any]] = {
        "(a) loop of metric.evaluate": lambda: [metric.evaluate(case) for case in cases],
        "(b) plain-Python set loop": lambda: baseline(called, expected),
    }
    if order_matters:
        candidates["(b0) the unordered set loop"] = lambda: python_unordered(called, expected)
    jaccard = None if order_matters else sklearn_jaccard(batch)
    if jaccard is not None:
        candidates["(c) sklearn jaccard_score"] = jaccard
    candidates["(d) evaluate() from cases"] = lambda: evaluate(cases, metric, progress=False)
    candidates["(e) from_columns + evaluate_batch"] = lambda: metric.evaluate_batch(
        ToolCallBatch.from_columns(tool_calls=called, expected_tool_calls=expected))
    candidates["(f) evaluate_batch on a batch"] = lambda: metric.evaluate_batch(batch)
    candidates["(f1) the same, one kernel thread"] = lambda: with_threads(
        1, lambda: metric.evaluate_batch(batch))
    candidates["(f2) the same, two kernel threads"] = lambda: with_threads(
        2, lambda: metric.evaluate_batch(batch))
    if arrow is not None:
        candidates["(g) from_arrow + evaluate_batch"] = lambda: metric.evaluate_batch(
            ToolCallBatch.from_arrow(tool_calls=arrow[0], expected_tool_calls=arrow[1]))
    if coded is not None:
        candidates["(h) from_arrow, dictionary columns"] = lambda: metric.evaluate_batch(
            ToolCallBatch.from_arrow(tool_calls=coded[0], expected_tool_calls=coded[1]))
    if reference_kernels is not None:
        arrays = (batch.called_ids, batch.called_offsets, batch.expected_ids,
                  batch.expected_offsets, len(batch.vocabulary))
        assert np.array_equal(reference_kernels.tool_selection(*arrays, order_matters, threads=1),
                              reference)
        candidates["(p) reference prototype, one thread"] = lambda: (
            reference_kernels.tool_selection(*arrays, order_matters, threads=1))

    samples: dict[str, list[float]] = {label: [] for label in candidates}
    for _ in range(repeats):
        for label, run in candidates.items():
            start = time.perf_counter()
            run()
            samples[label].append(time.perf_counter() - start)
    return [(label, statistics.median(times)) for label, times in samples.items()]


MEMORY_PROBE = """
import sys, tracemalloc
sys.path.insert(0, {bench_dir!r})
from bench_batch import make_columns, make_cases
from agentmetrics import evaluate, ToolSelectionAccuracy
import numpy, agentmetrics.engine._evaluate, agentmetrics._kernels  # imports are not the result's cost

called, expected = make_columns({n}, {vocabulary})
cases = make_cases(called, expected)
tracemalloc.start()  # numpy reports its buffers to tracemalloc too
result = evaluate(cases, ToolSelectionAccuracy(order_matters={order_matters}), progress=False)
kept, peak = tracemalloc.get_traced_memory()
print(f"{{peak / 2**20:.0f}} {{kept / 2**20:.0f}}")
"""


def measure_memory(n: int, vocabulary: int, order_matters: bool) -> tuple[float, float] | None:
    from pathlib import Path

    code = MEMORY_PROBE.format(bench_dir=str(Path(__file__).parent), n=n, vocabulary=vocabulary,
                               order_matters=order_matters)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return None
    peak, kept = done.stdout.split()
    return float(peak), float(kept)


def input_records(n: int, objects: bool, seed: int = 5) -> list[dict[str, Any]]:
    import random

    rng = random.Random(seed)
    tools = [f"tool_{i:02d}" for i in range(40)]

    def call() -> Any:
        name = rng.choice(tools)
        if not objects:
            return name
        return {"name": name, "arguments": {"order_id": rng.randrange(10**6),
                                            "reason": rng.choice(["late", "damaged", "other"])}}

    return [{"id": f"case-{i}", "tool_calls": [call() for _ in range(rng.randint(0, 8))],
             "expected_tool_calls": [call() for _ in range(rng.randint(0, 8))]}
            for i in range(n)]


def record_set_loop(records: list[dict[str, Any]], objects: bool) -> list[float]:
    out = []
    for record in records:
        if objects:
            called = {call["name"] for call in record["tool_calls"]}
            expected = {call["name"] for call in record["expected_tool_calls"]}
        else:
            called, expected = set(record["tool_calls"]), set(record["expected_tool_calls"])
        union = called | expected
        out.append(len(called & expected) / len(union) if union else 1.0)
    return out


def frame_set_loop(frame: Any, objects: bool) -> list[float]:
    out = []
    for calls, expected_calls in zip(frame["tool_calls"], frame["expected_tool_calls"]):
        if objects:
            called = {call["name"] for call in calls}
            expected = {call["name"] for call in expected_calls}
        else:
            called, expected = set(calls), set(expected_calls)
        union = called | expected
        out.append(len(called & expected) / len(union) if union else 1.0)
    return out


def without_gc(function: Callable[[], Any]) -> Callable[[], Any]:
    import gc

    def run() -> Any:
        gc.disable()
        try:
            return function()
        finally:
            gc.enable()

    return run


def run_inputs(n: int, repeats: int) -> None:
    import json

    from agentmetrics.io._dataset import case_from_record

    metric = ToolSelectionAccuracy()
    for objects in (False, True):
        records = input_records(n, objects)
        lines = [json.dumps(record) for record in records]
        shape = "call objects with arguments" if objects else "tool names"
        want = np.array(record_set_loop(records, objects))
        got = evaluate(records, metric, progress=False)[metric.name].values
        assert np.allclose(got, want), "evaluate(records) differs from the set loop"
        timings: dict[str, Callable[[], Any]] = {
            "(b0) set loop over the records": lambda: record_set_loop(records, objects),
            "(r)  evaluate(records)": lambda: evaluate(records, metric, progress=False),
            "(rb) ToolCallBatch.from_records": lambda: ToolCallBatch.from_records(records),
        }
        frame = None
        try:
            import pandas as pd

            frame = pd.DataFrame({"tool_calls": [r["tool_calls"] for r in records],
                                  "expected_tool_calls": [r["expected_tool_calls"] for r in records]})
            timings["(b0) set loop over the DataFrame"] = lambda: frame_set_loop(frame, objects)
            timings["(df) evaluate(DataFrame)"] = lambda: evaluate(frame, metric, progress=False)
        except ImportError:
            pass
        timings.update({
            "(j)  json.loads of the lines": without_gc(lambda: [json.loads(line) for line in lines]),
            "(cb) cases from from_records": lambda: list(ToolCallBatch.from_records(records).cases),
            "(cr) case_from_record each": without_gc(lambda: [case_from_record(r) for r in records]),
            "(ca) AgentTestCase(...) each": without_gc(lambda: [AgentTestCase(
                tool_calls=r["tool_calls"], expected_tool_calls=r["expected_tool_calls"],
                metadata={"id": r["id"]}) for r in records]),
        })
        samples: dict[str, list[float]] = {label: [] for label in timings}
        for _ in range(repeats):
            for label, function in timings.items():
                start = time.perf_counter()
                function()
                samples[label].append(time.perf_counter() - start)
        medians = {label: statistics.median(values) for label, values in samples.items()}
        print(f"inputs: {n:,} records, calls as {shape}, median of {repeats}")
        for label, seconds in medians.items():
            if label.startswith(("(r)", "(rb)")):
                against = f"{medians['(b0) set loop over the records'] / seconds:>6.2f}x the loop's speed"
            elif label.startswith("(df)"):
                against = f"{medians['(b0) set loop over the DataFrame'] / seconds:>6.2f}x the loop's speed"
            elif label.startswith("(c"):
                against = f"{seconds / medians['(j)  json.loads of the lines']:>6.2f}x json.loads"
            else:
                against = ""
            print(f"  {label:<36}{seconds * 1e3:>10.1f} ms{seconds / n * 1e6:>8.2f} us/case  {against}")
        print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--vocabularies", type=int, nargs="+", default=[40, 2000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--data", nargs="+", default=["random", "overlap"],
                        choices=["random", "overlap"])
    parser.add_argument("--reference", default=str(Path(__file__).resolve().parents[2] / "shared"
                                                   / "reference" / "kernels"),
                        help="the reference prototype's folder (skipped when absent)")
    parser.add_argument("--memory-only", action="store_true", help="skip the timings")
    parser.add_argument("--inputs", type=int, metavar="N",
                        help="time records, DataFrames and case building on N records instead")
    args = parser.parse_args()
    if args.inputs:
        run_inputs(args.inputs, args.repeats)
        return

    reference_kernels = prototype(args.reference)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, median of {args.repeats}, "
          f"{os.cpu_count()} CPUs, prototype {'found' if reference_kernels else 'not found'}\n")
    for n in [] if args.memory_only else args.sizes:
        for data in args.data:
            for vocabulary in args.vocabularies:
                for order_matters in (False, True):
                    mode = "ordered" if order_matters else "unordered"
                    print(f"N={n:,}  tools={vocabulary:,}  {mode}  data={data}")
                    rows = run_config(n, vocabulary, order_matters, args.repeats, data,
                                      reference_kernels)
                    floor = dict(rows)["(b) plain-Python set loop"]
                    sets = dict(rows).get("(b0) the unordered set loop", floor)
                    for label, seconds in rows:
                        print(f"  {label:<36}{seconds * 1e3:>10.1f} ms"
                              f"{seconds / n * 1e9:>9.0f} ns/case{floor / seconds:>8.1f}x vs (b)"
                              + (f"{sets / seconds:>8.1f}x vs (b0)" if order_matters else ""))
                    print()
    n = max(args.sizes)
    for order_matters in (False, True):
        memory = measure_memory(n, 2000, order_matters)
        if memory:
            print(f"memory, evaluate() on {n:,} cases (2,000 tools, order_matters={order_matters}): "
                  f"peak {memory[0]:.0f} MB allocated beyond the input, {memory[1]:.0f} MB kept "
                  f"by the result (tracemalloc)")


if __name__ == "__main__":
    main()
