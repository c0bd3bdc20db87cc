"""Metrics that wait: the concurrent runner against a serial loop, its overhead, the cache.

    python benchmarks/bench_concurrency.py [--cases 2000] [--serial-cases 200]
                                           [--latency 0.05] [--repeats 3]

Everything runs in this process against the real loopback judge server of the
test suite (tests/judge_server.py: asyncio, HTTP/1.1 keep-alive) with the
judge plugin (agent-tool-metrics-judge, httpx), so both sides pay real HTTP:

  (a) serial: the plain loop a metric without a runner gets (evaluate with
      concurrency=1: one judge call at a time), on --serial-cases cases;
      extrapolated to --cases (it is linear: one request after another);
  (b) concurrent: evaluate(..., concurrency=64) on --cases cases.
  Goal (issue 12): (b) at least 30x faster than (a) per case.

  (c) overhead: an async metric that answers at once, 20,000 cases with
      concurrency=64: wall time per case. Goal: under 20 us.
  (d) warm cache: the judge run of (b) again with cache=PATH (every case a
      hit): cases per second. Goal: at least 50,000.

Medians of --repeats (2 noisy cores).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

import agentmetrics  # noqa: E402
from agentmetrics import AgentTestCase, Metric  # noqa: E402
from judge_server import JudgeServer  # noqa: E402


def judge_cases(n: int) -> list[AgentTestCase]:
    tools = ["GetOrder", "CancelOrder", "IssueRefund", "DeleteOrder", "Search"]
    return [AgentTestCase(
        input=f"Please handle order {i}: cancel it and refund me.",
        tool_calls=[{"name": tools[(i + k) % len(tools)], "arguments": {"order_id": i}}
                    for k in range(1 + i % 3)],
        expected_tool_calls=["GetOrder"],
        metadata={"id": f"case-{i}"}) for i in range(n)]


class Instant(Metric):
    name = "instant"
    description = "Answers at once: what the runner itself costs."

    async def ameasure(self, case: AgentTestCase) -> tuple[float, str]:
        return 1.0, "at once"


def seconds(function: object, repeats: int) -> float:
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()  # type: ignore[operator]
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--serial-cases", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    from agentmetrics_judge import ToolCallAppropriateness

    cases = judge_cases(args.cases)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, judge latency "
          f"{args.latency * 1000:.0f} ms, median of {args.repeats}\n")
    with JudgeServer(latency=args.latency) as server:
        judge = ToolCallAppropriateness(model="judge", base_url=server.url)

        def serial() -> None:
            agentmetrics.evaluate(cases[: args.serial_cases], judge, concurrency=1)

        def concurrent() -> None:
            agentmetrics.evaluate(cases, judge, concurrency=args.concurrency)

        serial_s = seconds(serial, args.repeats)
        concurrent_s = seconds(concurrent, args.repeats)
        peak = server.max_in_flight
        per_serial = serial_s / args.serial_cases
        per_concurrent = concurrent_s / args.cases
        print(f"{'run':<44}{'cases':>8}{'s':>9}{'ms/case':>10}{'cases/s':>10}")
        print(f"{'(a) serial loop (concurrency=1)':<44}{args.serial_cases:>8}{serial_s:>9.2f}"
              f"{per_serial * 1000:>10.2f}{1 / per_serial:>10.1f}")
        print(f"{f'(b) concurrency={args.concurrency}':<44}{args.cases:>8}{concurrent_s:>9.2f}"
              f"{per_concurrent * 1000:>10.2f}{1 / per_concurrent:>10.1f}")
        print(f"\n(b) is {per_serial / per_concurrent:.1f}x faster per case than (a) "
              f"(goal 30x); the server saw at most {peak} requests in flight.")

        path = Path(tempfile.mkdtemp()) / "judge.sqlite"
        agentmetrics.evaluate(cases, judge, concurrency=args.concurrency, cache=path)
        before = server.total
        warm_s = seconds(lambda: agentmetrics.evaluate(cases, judge, cache=path), args.repeats)
        assert server.total == before, "a warm cache must not call the judge"
        print(f"(d) warm cache: {args.cases / warm_s:,.0f} cases/s "
              f"({warm_s * 1000:.1f} ms for {args.cases} cases; goal 50,000 cases/s)")

    instant_cases = judge_cases(20_000)
    instant_s = seconds(lambda: agentmetrics.evaluate(instant_cases, Instant(),
                                                      concurrency=args.concurrency), args.repeats)
    print(f"(c) instant async metric: {instant_s / len(instant_cases) * 1e6:.1f} us a case "
          f"over 20,000 cases, encoding and validation included (goal under 20 us)")


if __name__ == "__main__":
    main()
