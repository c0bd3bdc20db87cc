"""expectation_match against argument_accuracy on the same cases (issue 28).

    .venv/bin/python benchmarks/bench_expectations.py [--cases 100000] [--repeats 3]

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
import statistics
import time
from typing import Any

from agentmetrics import AgentTestCase, ToolCallBatch, get_metric
from agentmetrics.expectations import AnyOrder, Call, Expectation, MayOmit, OneOf, OptionalStep

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
