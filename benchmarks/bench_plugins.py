"""The bundled plugin's metrics: vectorized batch against loops, side by side.

    python benchmarks/bench_plugins.py [--sizes 100000 1000000] [--repeats 3]
        [--match-sizes 200 600 2000] [--match-repeats 5] [--match-only]
        [--baseline-recursion-limit N]

For ToolCallF1 and TrajectoryMatch (arguments ignored, so the vectorized path
applies), on seeded synthetic cases (0 to 8 calls a side, 40 tool names):
(a) a loop of metric.evaluate over AgentTestCase objects, (b) a plain-Python
loop over name lists (collections.Counter), (f) evaluate_batch on a built
batch. Medians, ratios to (b). Also the cold-process cost of finding and
loading a plugin metric by name.

Then TrajectoryMatch on one case with many calls (issue 11), against the
pairing of 0.1.0 kept below as a baseline (every pair of calls compared, then
recursive augmenting paths), side by side in one process: medians of
--match-repeats, interleaved, and the ratio. The baseline's recursion depth
grows with the calls; at the default recursion limit it raises RecursionError,
shown as such (--baseline-recursion-limit raises the limit for it).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_batch import make_cases, make_columns

from agentmetrics import AgentTestCase, ToolCall, ToolCallBatch, get_metric
from agentmetrics_trajectory import TrajectoryMatch


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


# -- TrajectoryMatch on one large case, against the pairing of 0.1.0 -----------------


def previous_maximum_matching(compatible: list[list[int]], right_size: int) -> list[int]:
    """maximum_matching of agent-tool-metrics-trajectory 0.1.0 (Kuhn, recursive), verbatim."""
    match = [-1] * right_size

    def augment(left: int, seen: list[bool]) -> bool:
        for right in compatible[left]:
            if not seen[right]:
                seen[right] = True
                if match[right] == -1 or augment(match[right], seen):
                    match[right] = left
                    return True
        return False

    for left in range(len(compatible)):
        augment(left, [False] * right_size)
    return match


class PreviousTrajectoryMatch(TrajectoryMatch):
    """TrajectoryMatch with the pairing of 0.1.0: every pair compared, then Kuhn."""

    def _pairing(self, actual: Any, expected: Any) -> tuple[set[int], set[int]]:
        compatible = [
            [j for j, want in enumerate(expected) if self._mismatch(call, want) is None]
            for call in actual
        ]
        match = previous_maximum_matching(compatible, len(expected))
        return {left for left in match if left != -1}, {j for j, left in enumerate(match) if left != -1}


def large_cases(n: int) -> list[tuple[str, dict[str, Any], AgentTestCase]]:
    """One case each, n calls a side, expected calls in a seeded shuffled order."""
    rng = random.Random(n)

    def shuffled(calls: list[ToolCall]) -> list[ToolCall]:
        return rng.sample(calls, len(calls))

    same = [ToolCall("Search", {"q": "shoes", "page": 1}) for _ in range(n)]
    mixed = [ToolCall("Search", {"q": "shoes", "page": 1} if i % 2 else {"q": f"q{i}", "page": 1})
             for i in range(n)]
    wide, narrow = ToolCall("Search", {"q": "shoes", "page": 1}), ToolCall("Search", {"q": "shoes"})
    overlap = [wide if i % 2 else narrow for i in range(n)]
    return [
        ("interchangeable", {"mode": "unordered"},
         AgentTestCase(tool_calls=same, expected_tool_calls=same)),
        ("mixed: half with own arguments", {"mode": "unordered"},
         AgentTestCase(tool_calls=mixed, expected_tool_calls=shuffled(mixed))),
        ("overlapping, args=superset", {"mode": "unordered", "args": "superset"},
         AgentTestCase(tool_calls=overlap, expected_tool_calls=shuffled(overlap))),
        ("overlapping, one call missing", {"mode": "unordered", "args": "superset"},
         AgentTestCase(tool_calls=overlap[:-1], expected_tool_calls=shuffled(overlap))),
    ]


def small_cases(count: int) -> list[AgentTestCase]:
    """Typical cases: 0 to 8 calls a side, 40 tools, an argument with 4 values;
    half of them expect the calls made, reordered."""
    rng = random.Random(0)
    names = [f"tool_{i:02d}" for i in range(40)]

    def calls() -> list[ToolCall]:
        return [ToolCall(rng.choice(names), {"id": rng.randint(0, 3)})
                for _ in range(rng.randint(0, 8))]

    cases = []
    for _ in range(count):
        made = calls()
        expected = rng.sample(made, len(made)) if rng.random() < 0.5 else calls()
        cases.append(AgentTestCase(tool_calls=made, expected_tool_calls=expected))
    return cases


def bench_large_cases(sizes: list[int], repeats: int, recursion_limit: int | None) -> None:
    print(f"trajectory_match on one case of n calls a side: new pairing against 0.1.0's, "
          f"median of {repeats}\n")
    cases = small_cases(20_000)
    for args in ("exact", "superset"):
        new = TrajectoryMatch(mode="unordered", args=args)
        old = PreviousTrajectoryMatch(mode="unordered", args=args)
        assert [new.measure(c) for c in cases] == [old.measure(c) for c in cases]
        times: dict[str, list[float]] = {"new": [], "old": []}
        for _ in range(repeats):
            for key, metric in (("new", new), ("old", old)):
                start = time.perf_counter()
                for c in cases:
                    metric.measure(c)
                times[key].append((time.perf_counter() - start) / len(cases))
        new_us, old_us = (statistics.median(times[key]) * 1e6 for key in ("new", "old"))
        print(f"20,000 cases of 0-8 calls, args={args}: {new_us:.1f} us a case, "
              f"0.1.0 {old_us:.1f} us ({old_us / new_us:.2f}x)")
    print()
    print(f"{'case':<34}{'n':>6}{'new ms':>11}{'0.1.0 ms':>12}{'0.1.0 / new':>13}  value, reason")
    for n in sizes:
        for label, params, case in large_cases(n):
            new, old = TrajectoryMatch(**params), PreviousTrajectoryMatch(**params)
            samples: dict[str, list[float]] = {"new": [], "old": []}
            outcome: dict[str, Any] = {}
            for _ in range(repeats):
                for key, metric in (("new", new), ("old", old)):
                    if outcome.get(key) == "RecursionError":
                        continue
                    limit = sys.getrecursionlimit()
                    if key == "old" and recursion_limit:
                        sys.setrecursionlimit(recursion_limit)
                    start = time.perf_counter()
                    try:
                        result = metric.evaluate(case)
                        outcome[key] = (result.value, result.reason)
                    except RecursionError:
                        outcome[key] = "RecursionError"
                    samples[key].append(time.perf_counter() - start)
                    sys.setrecursionlimit(limit)
            if outcome["old"] != "RecursionError":
                assert outcome["new"] == outcome["old"], (label, n, outcome)
            new_ms = statistics.median(samples["new"]) * 1e3
            old_ms = statistics.median(samples["old"]) * 1e3
            row = f"{label:<34}{n:>6,}{new_ms:>11.1f}"
            if outcome["old"] == "RecursionError":
                print(f"{row}  0.1.0: RecursionError after {old_ms:,.0f} ms")
            else:
                value, reason = outcome["new"]
                print(f"{row}{old_ms:>12.1f}{old_ms / new_ms:>12.1f}x  {value}, {reason[:36]}")
        print()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--match-sizes", type=int, nargs="+", default=[200, 600, 2000])
    parser.add_argument("--match-repeats", type=int, default=5)
    parser.add_argument("--match-only", action="store_true",
                        help="only TrajectoryMatch on large cases against 0.1.0")
    parser.add_argument("--baseline-recursion-limit", type=int, default=None,
                        help="recursion limit while the 0.1.0 baseline runs")
    args = parser.parse_args()
    if args.match_only:
        print(f"python {sys.version.split()[0]}\n")
        bench_large_cases(args.match_sizes, args.match_repeats, args.baseline_recursion_limit)
        return
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
    print()
    bench_large_cases(args.match_sizes, args.match_repeats, args.baseline_recursion_limit)


if __name__ == "__main__":
    main()
