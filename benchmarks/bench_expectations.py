"""expectation_match against argument_accuracy on the same cases (issue 28), and
the bounded ``$regex`` matcher against re.fullmatch (issue 48).

    .venv/bin/python benchmarks/bench_expectations.py [--cases 100000] [--repeats 3]
    .venv/bin/python benchmarks/bench_expectations.py --regex [--repeats 5]

Seeded cases of 2 to 4 calls with arguments, near misses included; each case
holds an expectation of 2 or 3 steps (a call with one of several acceptable
values, then two calls in any order, one with an argument that may be
omitted, sometimes a forbidden call and an optional step) and the plain list
of expected calls it stands for. Timed side by side, interleaved, medians:

  (a) argument_accuracy.evaluate_batch (the agentmetrics-tooluse plugin) on the
      expected_tool_calls
  (e) expectation_match.evaluate_batch on the expectations
  (b) the batch built from the cases (not in either time)
"""

from __future__ import annotations

import argparse
import random
import re
import statistics
import time
from typing import Any

from agentmetrics import AgentTestCase, ToolCallBatch, get_metric
from agentmetrics.expectations import AnyOrder, Call, Expectation, MayOmit, OneOf, OptionalStep, Regex
from agentmetrics.expectations._regex import BoundedPattern, RegexRefused, bounded

TOOLS = ["search", "hold", "rules", "book", "notify", "cancel"]


def make_cases(n: int, seed: int = 11) -> list[AgentTestCase]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        city = rng.choice(["NYC", "Paris", "Rome"])
        steps: list[Any] = [Call("search", {"city": OneOf([city, city.lower()])}),
                            AnyOrder([Call("hold", {"seat": MayOmit("12A")}), Call("rules")])]
        expected = [{"name": "search", "arguments": {"city": city}}, {"name": "hold", "arguments": {"seat": "12A"}},
                    {"name": "rules", "arguments": {}}]
        if rng.random() < 0.5:
            steps.append(OptionalStep(Call("notify")))
        never = [Call("cancel")] if rng.random() < 0.5 else []
        called = [dict(c) for c in expected]
        if rng.random() < 0.5:
            called[1], called[2] = called[2], called[1]
        r = rng.random()
        if r < 0.2:
            called[0] = {"name": "search", "arguments": {"city": rng.choice(["NYC", "Paris", "Rome", "rome"])}}
        elif r < 0.35:
            called.pop(rng.randrange(len(called)))
        elif r < 0.5:
            called.insert(rng.randrange(len(called) + 1), {"name": rng.choice(TOOLS), "arguments": {}})
        elif r < 0.6:
            called[1] = {"name": called[1]["name"], "arguments": {}}
        out.append(AgentTestCase(tool_calls=called, expected_tool_calls=expected,
                                 expectation=Expectation(steps, never=never)))
    return out


def _timed(run: Any, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_regex(repeats: int) -> None:
    """Regex.matches against re.fullmatch, side by side: per value on values
    both answer at once, then on values where re backtracks (a pattern that
    re takes polynomial time on, and one it takes exponential time on)."""
    rng = random.Random(5)
    dates = [f"{rng.randrange(1900, 2100)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}"
             + ("" if rng.random() < 0.8 else "x") for _ in range(100_000)]
    emails = [f"{'ab' * rng.randrange(1, 8)}@{'cd' * rng.randrange(1, 5)}.com" for _ in range(100_000)]
    print(f"Regex.matches against re.fullmatch, medians of {repeats}")
    for pattern, values, label in [(r"\d{4}-\d{2}-\d{2}", dates, "100,000 dates"),
                                   (r".*@.*\..*", emails, "100,000 e-mail addresses")]:
        ours, theirs = Regex(pattern), re.compile(pattern)
        mine_runs, re_runs = [], []
        for _ in range(repeats):  # interleaved
            mine_runs.append(_timed(lambda: [ours.matches(v) for v in values], 1))
            re_runs.append(_timed(lambda: [theirs.fullmatch(v) for v in values], 1))
        mine, re_time = statistics.median(mine_runs), statistics.median(re_runs)
        print(f"  {pattern:<22} {label:<26} ours {mine * 1e3:7.1f} ms  re {re_time * 1e3:7.1f} ms"
              f"  ours/re {mine / re_time:5.2f}x  ({bounded(pattern).strategy})")
    polynomial = r"\s*\s*\s*\s*x"
    ours = Regex(polynomial)
    print(f"  {polynomial!r} against n spaces (re takes n^4 steps; ours: one pass):")
    for n in (50, 100, 200, 400, 100_000):
        text = " " * n
        mine = _timed(lambda: ours.matches(text), repeats)
        re_time = _timed(lambda: re.fullmatch(polynomial, text), 1) if n <= 200 else float("nan")
        print(f"    n={n:>7,}  ours {mine * 1e3:9.3f} ms  re {re_time * 1e3:10.1f} ms")
    exponential = "(a+)+"
    print(f"  {exponential!r} against n a's and a '!' (re doubles per a; ours refuses the "
          f"pattern when it is built):")
    for n in (16, 18, 20, 22):
        re_time = _timed(lambda: re.fullmatch(exponential, "a" * n + "!"), 1)
        print(f"    n={n}  re {re_time * 1e3:9.1f} ms")
    refusing = _timed(lambda: _refused(exponential), repeats)
    print(f"    ours: refused in {refusing * 1e3:.2f} ms, whatever the value")


def _refused(pattern: str) -> None:
    try:
        BoundedPattern(pattern)
    except RegexRefused:
        return
    raise AssertionError(f"{pattern!r} was not refused")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--regex", action="store_true", help="only the $regex matcher against re")
    args = parser.parse_args()
    if args.regex:
        bench_regex(args.repeats)
        return
    cases = make_cases(args.cases)
    batch = ToolCallBatch.from_cases(cases)
    arguments, expectation = get_metric("argument_accuracy"), get_metric("expectation_match")
    sides = {"(a) argument_accuracy": lambda: arguments.evaluate_batch(batch, errors="record"),
             "(e) expectation_match": lambda: expectation.evaluate_batch(batch, errors="record")}
    samples: dict[str, list[float]] = {label: [] for label in sides}
    for _ in range(args.repeats):
        for label, run in sides.items():
            start = time.perf_counter()
            result = run()
            samples[label].append(time.perf_counter() - start)
            assert not result.errors, "no case may be refused"
    medians = {label: statistics.median(times) for label, times in samples.items()}
    print(f"{args.cases:,} cases, medians of {args.repeats}")
    for label, seconds in medians.items():
        print(f"  {label:<26}{seconds * 1e3:>10.1f} ms{seconds / args.cases * 1e6:>8.2f} us/case")
    ratio = medians["(e) expectation_match"] / medians["(a) argument_accuracy"]
    print(f"  (e)/(a): {ratio:.2f}x (goal <= 2x)")
    bench_regex(args.repeats)


if __name__ == "__main__":
    main()
