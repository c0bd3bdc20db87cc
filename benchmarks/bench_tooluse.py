"""Issue 17's metrics: each batch path against a plain-Python loop, side by side.

    python benchmarks/bench_tooluse.py [--sizes 100000 1000000] [--repeats 3]

Names-only metrics (vectorized: trajectory_lcs, call_budget, redundant_calls
by name, trajectory_match in_order) on seeded synthetic cases (0 to 8 calls a
side, 40 tool names): (b) a plain-Python loop over name lists, written here,
against (f) evaluate_batch on a built batch. Argument metrics (case by case:
argument_accuracy, tool_output_match, redundant_calls by call, loop_detected,
per_turn) on cases with arguments and outputs, at a tenth of the size: (b) a
plain-Python loop against evaluate_batch. Medians of --repeats, ratio (b)/(f).

Against the peer libraries themselves: benchmarks/bench_peers.py (it runs in
the peers' own environment, .venv-peers).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from bench_batch import make_columns

from agentmetrics import AgentTestCase, ToolCall, ToolCallBatch, get_metric, per_turn


def py_lcs_over_expected(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    out = []
    for c, e in zip(called, expected):
        if not e:
            out.append(1.0)
            continue
        previous = [0] * (len(e) + 1)
        for name in c:
            current = [0]
            for j, want in enumerate(e):
                current.append(previous[j] + 1 if name == want else max(previous[j + 1], current[j]))
            previous = current
        out.append(previous[-1] / len(e))
    return out


def py_in_order(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    out = []
    for c, e in zip(called, expected):
        it = iter(c)
        out.append(float(all(name in it for name in e)))
    return out


def py_budget(called: list[list[str]], expected: list[list[str]], budget: int = 5) -> list[float]:
    return [1.0 if len(c) <= budget else budget / len(c) for c in called]


def py_redundant_by_name(called: list[list[str]], expected: list[list[str]]) -> list[float]:
    return [(len(c) - len(set(c))) / len(c) if c else 0.0 for c in called]


NAMES: list[tuple[str, Any, Callable[..., list[float]]]] = [
    ("trajectory_lcs", lambda: get_metric("trajectory_lcs"), py_lcs_over_expected),
    ("trajectory_match in_order", lambda: get_metric("trajectory_match", mode="in_order", args="ignore"),
     py_in_order),
    ("call_budget (budget=5)", lambda: get_metric("call_budget", budget=5), py_budget),
    ("redundant_calls by name", lambda: get_metric("redundant_calls", by="name"), py_redundant_by_name),
]


def make_argument_cases(n: int, seed: int = 0) -> list[AgentTestCase]:
    rng = random.Random(seed)
    names = [f"tool_{i:02d}" for i in range(20)]

    def call() -> ToolCall:
        arguments = {f"a{k}": rng.choice([1, 2, "x", "y"]) for k in range(rng.randint(0, 3))}
        return ToolCall(rng.choice(names), arguments, output=rng.choice(["ok", "fail", {"n": 1}]))

    cases = []
    for _ in range(n):
        expected = [call() for _ in range(rng.randint(0, 5))]
        called = [c if rng.random() < 0.6 else call() for c in expected] + [call() for _ in range(rng.randint(0, 2))]
        rng.shuffle(called)
        turns = [{"tool_calls": [c.name for c in called], "expected_tool_calls": [c.name for c in expected]}]
        cases.append(AgentTestCase(tool_calls=called, expected_tool_calls=expected, turns=turns * 2))
    return cases


def py_argument_accuracy(cases: list[AgentTestCase]) -> list[float]:
    """Greedy, flat, exact: what a hand-written loop does (cheaper than optimal pairing)."""
    out = []
    for case in cases:
        if not case.expected_tool_calls:
            out.append(1.0)
            continue
        free = list(case.tool_calls)
        total = 0.0
        for want in case.expected_tool_calls:
            for k, got in enumerate(free):
                if got.name == want.name:
                    keys = want.arguments
                    total += sum(got.arguments.get(a) == v for a, v in keys.items()) / len(keys) if keys else 1.0
                    del free[k]
                    break
        out.append(total / len(case.expected_tool_calls))
    return out


def py_output_match(cases: list[AgentTestCase]) -> list[float]:
    out = []
    for case in cases:
        checked = [c for c in case.expected_tool_calls if c.output is not None]
        if not checked:
            out.append(1.0)
            continue
        free = list(case.tool_calls)
        hits = 0
        for want in checked:
            for k, got in enumerate(free):
                if got.name == want.name and got.output == want.output:
                    hits += 1
                    del free[k]
                    break
        out.append(hits / len(checked))
    return out


def py_redundant_by_call(cases: list[AgentTestCase]) -> list[float]:
    out = []
    for case in cases:
        keys = [(c.name, tuple(sorted(c.arguments.items(), key=lambda kv: kv[0]))) for c in case.tool_calls]
        out.append((len(keys) - len(set(map(repr, keys)))) / len(keys) if keys else 0.0)
    return out


def py_loop(cases: list[AgentTestCase]) -> list[float]:
    out = []
    for case in cases:
        names = [c.name for c in case.tool_calls]
        found = any(names[i:i + p] == names[i + p:i + 2 * p] == names[i + 2 * p:i + 3 * p]
                    for p in range(1, 5) for i in range(len(names) - 3 * p + 1))
        out.append(float(found))
    return out


def py_per_turn_tsa(cases: list[AgentTestCase]) -> list[float]:
    out = []
    for case in cases:
        values = []
        for turn in case.turns:
            a, b = set(turn.tool_names), set(turn.expected_tool_names)
            values.append(len(a & b) / len(a | b) if a | b else 1.0)
        out.append(sum(values) / len(values))
    return out


ARGUMENTS: list[tuple[str, Any, Callable[[list[AgentTestCase]], list[float]]]] = [
    ("argument_accuracy (optimal pairing)", lambda: get_metric("argument_accuracy"), py_argument_accuracy),
    ("tool_output_match", lambda: get_metric("tool_output_match", missing_calls="zero"), py_output_match),
    ("redundant_calls by call", lambda: get_metric("redundant_calls"), py_redundant_by_call),
    ("loop_detected by name", lambda: get_metric("loop_detected", by="name"), py_loop),
    ("per_turn(tool_selection_accuracy)", lambda: per_turn("tool_selection_accuracy"), py_per_turn_tsa),
]


def median_time(function: Callable[[], Any], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}; medians of {args.repeats}")
    for n in args.sizes:
        called, expected = make_columns(n, 40)
        batch = ToolCallBatch.from_columns(tool_calls=called, expected_tool_calls=expected)
        print(f"\n(names) {n:,} cases, 40 tools: (b) plain-Python loop, (f) evaluate_batch")
        print(f"{'metric':<36}{'(b) loop':>12}{'(f) batch':>12}{'(b)/(f)':>10}")
        for label, build, loop in NAMES:
            metric = build()
            result = metric.evaluate_batch(batch)
            reference = loop(called, expected)
            assert result.values.tolist() == reference, label  # the loop is a reference too
            b = median_time(lambda: loop(called, expected), args.repeats)
            f = median_time(lambda: metric.evaluate_batch(batch), args.repeats)
            print(f"{label:<36}{b * 1e3:>10.0f}ms{f * 1e3:>10.0f}ms{b / f:>9.1f}x")
        m = max(n // 10, 1)
        cases = make_argument_cases(m)
        case_batch = ToolCallBatch.from_cases(cases)
        print(f"\n(arguments) {m:,} cases with arguments and outputs: (b) plain-Python loop, (f) evaluate_batch")
        print(f"{'metric':<36}{'(b) loop':>12}{'(f) batch':>12}{'(b)/(f)':>10}")
        for label, build, loop in ARGUMENTS:
            metric = build()
            b = median_time(lambda: loop(cases), args.repeats)
            f = median_time(lambda: metric.evaluate_batch(case_batch, errors="record"), args.repeats)
            print(f"{label:<36}{b * 1e3:>10.0f}ms{f * 1e3:>10.0f}ms{b / f:>9.2f}x")


if __name__ == "__main__":
    main()
