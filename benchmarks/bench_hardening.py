"""Issue 24: what the hardening costs and what it bounds, against baselines in the same run.

    python benchmarks/bench_hardening.py [--cases 20000] [--repeats 5]

  (a) cache keys: the canonical, type-tagged encoding (agentmetrics.engine._cache.case_keys)
      against the JSON keying it replaced (reproduced below: json.dumps with
      sort_keys and repr() for what JSON cannot hold), on the case shape of
      bench_concurrency.py; microseconds a case.
  (b) scoring a case with the secret scrubbing on the metric's exception
      paths and of its reason: ToolSelectionAccuracy().evaluate(case) per case
      (no exception: what every case pays), against calling its measure() and
      building the score without the wrapper and without scrubbing the reason.
  (c) a judge server dripping one byte every 0.2 s: seconds until the judge
      metric (timeout=1) gives up, against a plain httpx client with the same
      timeout (per read: the drip never trips it; capped here at --drip-cap s).
  (d) a 64 MB answer without Content-Length: the peak memory the judge metric
      (max_response_bytes 8 MiB) allocates, against httpx's response.read().

Everything runs in this process against tests/judge_server.py on 127.0.0.1.
Medians of --repeats (2 noisy cores).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from agentmetrics import AgentTestCase, ToolCall, ToolSelectionAccuracy  # noqa: E402
from agentmetrics.engine._cache import case_keys  # noqa: E402
from judge_server import JudgeServer  # noqa: E402


def bench_cases(n: int) -> list[AgentTestCase]:
    tools = ["GetOrder", "CancelOrder", "IssueRefund", "DeleteOrder", "Search"]
    return [AgentTestCase(
        input=f"Please handle order {i}: cancel it and refund me.",
        tool_calls=[{"name": tools[(i + k) % len(tools)], "arguments": {"order_id": i}}
                    for k in range(1 + i % 3)],
        expected_tool_calls=["GetOrder"], metadata={"id": f"case-{i}"}) for i in range(n)]


def _plain(value: Any) -> Any:  # the baseline's stand-in for what JSON cannot hold
    if isinstance(value, ToolCall):
        return {"name": value.name, "arguments": value.arguments, "id": value.id,
                "output": value.output, "raw_arguments": value.raw_arguments}
    return repr(value)


def json_keys(metric: Any, cases: list[AgentTestCase]) -> list[str]:
    """The keying before issue 24 (not injective: it is the baseline)."""
    identity = hashlib.sha256(json.dumps([type(metric).__qualname__, metric.version],
                                         sort_keys=True).encode()).hexdigest().encode()
    fields = type(metric).cache_fields
    encode = json.JSONEncoder(sort_keys=True, default=_plain, separators=(",", ":")).encode
    keys = []
    for case in cases:
        digest = hashlib.sha256(identity)
        digest.update(encode([getattr(case, field) for field in fields]).encode())
        keys.append(digest.hexdigest())
    return keys


def median_seconds(function: Any, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_keys(n: int, repeats: int) -> None:
    cases = bench_cases(n)
    metric = ToolSelectionAccuracy()
    new = median_seconds(lambda: case_keys(metric, cases), repeats) / n * 1e6
    old = median_seconds(lambda: json_keys(metric, cases), repeats) / n * 1e6
    print(f"(a) cache keys: canonical {new:.2f} us a case, JSON baseline {old:.2f} us "
          f"({new / old:.2f}x)")


def bench_scoring(n: int, repeats: int) -> None:
    cases = [AgentTestCase(tool_calls=["GetOrder", "CancelOrder"][: 1 + i % 2],
                           expected_tool_calls=["GetOrder", "CancelOrder"]) for i in range(n)]
    metric = ToolSelectionAccuracy()

    def wrapped() -> None:
        for case in cases:
            metric.evaluate(case)

    import agentmetrics.metric._metric as contract
    from agentmetrics.metric._metric import _async_only

    def unscrubbed(metric: Any, reason: str) -> str:
        return reason

    def bare() -> None:  # Metric.evaluate's steps without the scrubbing around measure
        scrub_reason, contract.scrub_reason = contract.scrub_reason, unscrubbed
        try:
            for case in cases:
                if _async_only(type(metric)):
                    raise AssertionError("a sync metric")
                metric._check_case(case)
                metric._score(metric.measure(case))
        finally:
            contract.scrub_reason = scrub_reason

    times: dict[Any, list[float]] = {wrapped: [], bare: []}
    for _ in range(repeats):  # interleaved: the two share whatever noise there is
        for function, seen in times.items():
            start = time.perf_counter()
            function()
            seen.append(time.perf_counter() - start)
    new = statistics.median(times[wrapped]) / n * 1e6
    old = statistics.median(times[bare]) / n * 1e6
    print(f"(b) evaluate(case): {new:.2f} us a case with scrubbing, {old:.2f} us without "
          f"({new / old:.2f}x)")


def bench_drip(cap: float) -> None:
    import httpx

    from agentmetrics.errors import TransientMetricError
    from agentmetrics_judge import ToolCallAppropriateness

    with JudgeServer() as server:
        metric = ToolCallAppropriateness(model="judge", base_url=server.url, timeout=1.0)
        case = AgentTestCase(input="[[case:d1]][[fault:drip=0.2]] Cancel order 1",
                             tool_calls=["GetOrder"])
        start = time.perf_counter()
        try:
            metric.evaluate(case)
        except TransientMetricError:
            pass
        ours = time.perf_counter() - start

        async def plain() -> float:
            body = {"model": "judge", "messages": [
                {"role": "user", "content": "[[case:d2]][[fault:drip=0.2]] Cancel order 1\n"
                                            "The agent made 1 tool calls:\n"
                                            '1. {"name": "GetOrder", "arguments": {}}'}]}
            began = time.perf_counter()
            async with httpx.AsyncClient(timeout=httpx.Timeout(1.0)) as client:
                try:
                    await asyncio.wait_for(client.post(server.url + "/chat/completions",
                                                       json=body), cap)
                except asyncio.TimeoutError:
                    pass
            return time.perf_counter() - began

        baseline = asyncio.run(plain())
    print(f"(c) drip (1 byte / 0.2 s), timeout=1: the judge gives up after {ours:.2f} s; "
          f"a plain httpx client still reading after {baseline:.2f} s "
          f"(stopped at the {cap:g} s cap) ({baseline / ours:.1f}x)")


def bench_huge(size: int) -> None:
    import httpx

    from agentmetrics.errors import MetricServiceError
    from agentmetrics_judge import ToolCallAppropriateness

    with JudgeServer() as server:
        metric = ToolCallAppropriateness(model="judge", base_url=server.url, timeout=60)
        case = AgentTestCase(input=f"[[case:h1]][[fault:huge={size}:chunked]] Cancel order 1",
                             tool_calls=["GetOrder"])
        tracemalloc.start()
        try:
            metric.evaluate(case)
        except MetricServiceError:
            pass
        ours = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()

        body = {"model": "judge", "messages": [
            {"role": "user", "content": f"[[case:h2]][[fault:huge={size}:chunked]] hi"}]}
        tracemalloc.start()
        with httpx.Client(timeout=60) as client:
            client.post(server.url + "/chat/completions", json=body).read()
        baseline = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    print(f"(d) a {size / 2**20:.0f} MiB answer, chunked: the judge peaks at "
          f"{ours / 2**20:.1f} MiB and refuses it; httpx's read() at {baseline / 2**20:.1f} MiB "
          f"({baseline / ours:.1f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--drip-cap", type=float, default=8.0)
    parser.add_argument("--huge-mib", type=int, default=64)
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}, median of {args.repeats}")
    bench_keys(args.cases, args.repeats)
    bench_scoring(args.cases, args.repeats)
    bench_drip(args.drip_cap)
    bench_huge(args.huge_mib * 2**20)


if __name__ == "__main__":
    main()
