"""Argument metrics on call keys, before and after, beside Google ADK itself.

    .venv-peers/bin/python benchmarks/bench_call_keys.py [--cases 100000] [--repeats 3]
        [--before /work/main] [--after .]

Each side runs in its own process, in interleaved rounds (ADK, before, after,
ADK, before, after, ...), and reports the CPU seconds (process_time) of its
timed part alone; the table gives the median of --repeats rounds in
microseconds a case. The records are bench_peers.records (0 to 6 calls a side,
arguments from a small pool, many near misses), renamed to our fields; the
JSONL file holds the same records, one a line.

- ``adk``: Google ADK's TrajectoryEvaluator IN_ORDER (tests/peers/drive.py's
  scorer: its FunctionCall/Invocation objects built from each dict, then
  scored), from the dicts; and ``adk file``: ``json.loads`` of each line first.
- ``evaluate``: ``agentmetrics.evaluate(records, metrics=[...])`` of the dicts.
- ``cli``: ``python -m agentmetrics evaluate FILE --metric ... --format
  summary``, the child's CPU time, start-up included.

``before`` and ``after`` are the checkouts put first on PYTHONPATH (with their
bundled compat and tooluse plugins), so the same script times both codes.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
METRICS = {"adk_in_order": "adk_tool_trajectory:match_type=IN_ORDER",
           "argument_accuracy": "argument_accuracy"}


def _records(n: int) -> list[dict[str, Any]]:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_peers import records

    return [{"tool_calls": r["called"], "expected_tool_calls": r["expected"]} for r in records(n)]


def _worker(kind: str, metric: str, path: str, n: int) -> None:
    """Run one side once; print its CPU seconds."""
    if kind.startswith("adk"):
        sys.path.insert(0, str(ROOT / "tests" / "peers"))
        import drive

        score = drive.PEERS["adk"][1]({"match_type": "IN_ORDER"})
        lines = Path(path).read_text().splitlines()[:n]
        if kind == "adk":
            cases = [json.loads(line) for line in lines]
            start = time.process_time()
            for case in cases:
                score({"called": case["tool_calls"], "expected": case["expected_tool_calls"]})
        else:
            start = time.process_time()
            for line in lines:
                case = json.loads(line)
                score({"called": case["tool_calls"], "expected": case["expected_tool_calls"]})
        print(time.process_time() - start)
        return
    from agentmetrics import evaluate, get_metric

    lines = Path(path).read_text().splitlines()[:n]
    records = [json.loads(line) for line in lines]
    spec, _, option = METRICS[metric].partition(":")
    params = dict([option.split("=")]) if option else {}
    chosen = get_metric(spec, **params)
    start = time.process_time()
    evaluate(records, metrics=[chosen])
    print(time.process_time() - start)


def _run(args: list[str], pythonpath: str | None) -> float:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True,
                         check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _cli(path: str, metric: str, pythonpath: str) -> float:
    env = dict(os.environ, PYTHONPATH=pythonpath)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "agentmetrics", "evaluate", path, "--metric",
                    METRICS[metric], "--format", "summary"], env=env, check=True,
                   capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _path_of(checkout: Path) -> str:
    return os.pathsep.join(str(checkout / part) for part in (
        ".", "plugins/agent-tool-metrics-compat", "plugins/agent-tool-metrics-tooluse"))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", type=Path, default=Path("/work/main"))
    parser.add_argument("--after", type=Path, default=ROOT)
    parser.add_argument("--metrics", default="adk_in_order,argument_accuracy")
    parser.add_argument("--no-cli", action="store_true")
    parser.add_argument("--worker", nargs=4)
    args = parser.parse_args()
    if args.worker:
        kind, metric, path, n = args.worker
        _worker(kind, metric, path, int(n))
        return
    n = args.cases
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "cases.jsonl")
        with open(path, "w") as out:
            for record in _records(n):
                out.write(json.dumps(record) + "\n")
        sides: list[tuple[str, Any]] = []
        try:
            _run([__file__, "--worker", "adk", "-", path, "10"], None)
            sides += [("ADK from dicts", lambda: _run(
                          [__file__, "--worker", "adk", "-", path, str(n)], None)),
                      ("ADK from the file (json.loads a line)", lambda: _run(
                          [__file__, "--worker", "adk file", "-", path, str(n)], None))]
        except subprocess.CalledProcessError:
            print("(google-adk not importable here: ADK rows left out)")
        for metric in args.metrics.split(","):
            for label, checkout in (("before", args.before), ("after", args.after)):
                where = _path_of(checkout)
                sides.append((f"evaluate(records) {metric} {label}",
                              lambda m=metric, w=where: _run(
                                  [__file__, "--worker", "evaluate", m, path, str(n)], w)))
                if not args.no_cli:
                    sides.append((f"CLI {metric} {label}",
                                  lambda m=metric, w=where: _cli(path, m, w)))
        times: dict[str, list[float]] = {label: [] for label, _ in sides}
        for _ in range(args.repeats):
            for label, side in sides:
                times[label].append(side())
    print(f"{n} cases, CPU microseconds a case, median of {args.repeats} interleaved rounds")
    print(f"{'side':62} {'us/case':>9}  rounds (s)")
    adk = statistics.median(times["ADK from dicts"]) if "ADK from dicts" in times else None
    for label, found in times.items():
        median = statistics.median(found)
        ratio = f"  ADK/this {adk / median:5.1f}x" if adk else ""
        print(f"{label:62} {median / n * 1e6:9.2f}  {', '.join(f'{t:.2f}' for t in found)}{ratio}")


if __name__ == "__main__":
    main()
