"""The bundled plugin's metrics: vectorized batch against loops, side by side.

    python benchmarks/bench_plugins.py [--sizes 100000 1000000] [--repeats 3]

For ToolCallF1 and TrajectoryMatch (arguments ignored, so the vectorized path
applies), on seeded synthetic cases (0 to 8 calls a side, 40 tool names):
(a) a loop of metric.evaluate over AgentTestCase objects, (b) a plain-Python
loop over name lists (collections.Counter), (f) evaluate_batch on a built
batch. Medians, ratios to (b). Also the cold-process cost of finding and
loading a plugin metric by name.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_batch import make_cases, make_columns  # noqa: E402

from agentmetrics import ToolCallBatch, get_metric  # noqa: E402


def python_f1(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    out = []
    for c, e in zip(called, expected):
        total = len(c) + len(e)
        out.append(2 * sum((Counter(c) & Counter(e)).values()) / total if total else 1.0)
    return out


def python_unordered_match(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    return [float(Counter(c) == Counter(e)) for c, e in zip(called, expected)]


def python_strict_match(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    return [float(c == e) for c, e in zip(called, expected)]


CONFIGS: list[tuple[str, str, dict[str, Any], Callable[..., list[float]]]] = [
    ("tool_call_f1", "tool_call_f1", {}, python_f1),
    ("trajectory_match unordered", "trajectory_match", {"mode": "unordered", "args": "ignore"},
     python_unordered_match),
    ("trajectory_match strict", "trajectory_match", {"mode": "strict", "args": "ignore"},
     python_strict_match),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, median of {args.repeats}\n")
    for n in args.sizes:
        called, expected = make_columns(n, 40)
        cases = make_cases(called, expected)
        batch = ToolCallBatch.from_cases(cases)
        for label, name, params, baseline in CONFIGS:
            metric = get_metric(name, **params)
            assert metric.evaluate_batch(batch).values.tolist() == baseline(called, expected)
            runs = {
                "(a) loop of metric.evaluate": lambda: [metric.evaluate(c) for c in cases],
                "(b) plain-Python loop": lambda: baseline(called, expected),
                "(f) evaluate_batch on a batch": lambda: metric.evaluate_batch(batch),
            }
            samples: dict[str, list[float]] = {key: [] for key in runs}
            for _ in range(args.repeats):
                for key, run in runs.items():
                    start = time.perf_counter()
                    run()
                    samples[key].append(time.perf_counter() - start)
            floor = statistics.median(samples["(b) plain-Python loop"])
            print(f"N={n:,}  {label}")
            for key, times in samples.items():
                median = statistics.median(times)
                print(f"  {key:<32}{median * 1e3:>9.1f} ms{floor / median:>8.1f}x vs (b)")
            print()

    code = "import agentmetrics; agentmetrics.get_metric('{}')"
    for label, name in (("built-in tool_selection_accuracy", "tool_selection_accuracy"),
                        ("plugin tool_call_f1", "tool_call_f1")):
        times = []
        for _ in range(10):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code.format(name)], check=True)
            times.append(time.perf_counter() - start)
        print(f"cold process, import + first get_metric of {label}: "
              f"{statistics.median(times) * 1e3:.1f} ms (median of 10)")


if __name__ == "__main__":
    main()
