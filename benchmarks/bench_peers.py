"""The compatibility metrics and their closest agentmetrics metrics against the
peer libraries themselves (deepeval, ragas, agentevals, Google ADK, MLflow), side by
side in one process, from the same plain records to scores.

    .venv-peers/bin/python benchmarks/bench_peers.py [--cases 10000] [--repeats 3]

It runs in the peers' own environment (``make bench`` builds it and installs
agentmetrics and the bundled plugins into it), offline: the peers are driven
by tests/peers/drive.py's scorers, which block the network and turn telemetry
off. Seeded records of 0 to 6 calls a side with arguments and outputs, many
near misses.

- (p) the peer: its own objects built from the records and scored one case at
  a time, as the peer runs (its scorer is set up once, outside the timing).
- (s) agentmetrics one case at a time: AgentTestCase from the records, then
  ``metric.evaluate(case)`` (a refused case counts as a row error).
- (f) agentmetrics in batch: AgentTestCase from the records,
  ``ToolCallBatch.from_cases``, then ``metric.evaluate_batch(errors="record")``.

- (r) agentmetrics from records: the same records with our field names
  (``tool_calls``, ``expected_tool_calls``: renamed once, outside the timing),
  ``ToolCallBatch.from_records`` (read column by column, the cases built in
  bulk when the metric reads them), then ``metric.evaluate_batch``: the path
  ``evaluate(records)`` takes.

- (c) of (s) and (f): building the AgentTestCases from the records alone.

With ``--file LINES`` it measures instead from a file to scores (issue 52),
on LINES seeded records written once as JSONL (``tool_calls`` and
``expected_tool_calls``, call objects with arguments), CPU time of each side
(user + system, children included), rounds interleaved, medians of
--repeats:

- each peer of ``--file-peers`` (ADK IN_ORDER, deepeval's ToolCorrectness,
  ragas' ToolCallF1, agentevals superset with exact arguments) from the file:
  each line ``json.loads``-ed, then the peer's own objects and scorer, one
  case at a time (as (p) above), and right below it ``agentmetrics evaluate
  FILE --format summary --metric`` its compat metric, as a subprocess
  (start-up included), with the reader ``auto`` picks (the fast decoder
  when msgspec is installed) and with ``--reader lines`` (the line reader,
  left out with ``--no-line-reader``);
- ``agentmetrics evaluate FILE --format summary`` (tool_selection_accuracy)
  and ``evaluate(records)`` of the dicts already in memory
  (tool_selection_accuracy and ADK's metric), against the first peer.

Each of ours is printed with its ratio to its peer's time per case.

MLflow scores traces: the driver writes one MLflow trace per record once (when
the values are checked; about 50 ms a trace) and its timed runs reuse them,
so (p) for MLflow is the scoring alone, without writing traces; its rows use
the first 1,000 records (their times are marked as such).

Medians of --repeats, the cyclic GC paused while a side runs (as timeit
does); ratios (p)/(s), (p)/(f) and (p)/(r). For the compat metrics the
values are checked equal to the peer's (deepeval's argument credit to 1e-12)
before timing; the native metrics measure something else and are timed only.
"""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import math
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "peers"))
import drive  # noqa: E402  (the network guard and telemetry switches first)
from _peer_records import peer_records  # noqa: E402

from agentmetrics import (  # noqa: E402
    AgentMetricsError,
    AgentTestCase,
    Metric,
    ToolCall,
    ToolCallBatch,
    get_metric,
)

MLFLOW_CASES = 1000


def records(n: int, seed: int = 17) -> list[dict[str, Any]]:
    return list(peer_records(n, seed))


def to_case(record: dict[str, Any]) -> AgentTestCase:
    def calls(items: list[dict[str, Any]]) -> list[ToolCall]:
        return [ToolCall(c["name"], c["arguments"], output=c.get("output")) for c in items]
    return AgentTestCase(tool_calls=calls(record["called"]), expected_tool_calls=calls(record["expected"]))


# label, peer, peer options, our metric, compare values
ROWS: list[tuple[str, str, dict[str, Any], Callable[[], Metric], bool]] = [
    ("deepeval_tool_correctness", "deepeval", {}, lambda: get_metric("deepeval_tool_correctness"), True),
    ("  evaluation_params=input_parameters", "deepeval", {"evaluation_params": ["input_parameters"]},
     lambda: get_metric("deepeval_tool_correctness", evaluation_params=["input_parameters"]), True),
    ("  should_consider_ordering", "deepeval", {"should_consider_ordering": True},
     lambda: get_metric("deepeval_tool_correctness", should_consider_ordering=True), True),
    ("  evaluation_params=output", "deepeval", {"evaluation_params": ["output"]},
     lambda: get_metric("deepeval_tool_correctness", evaluation_params=["output"]), True),
    ("argument_accuracy (native)", "deepeval", {"evaluation_params": ["input_parameters"]},
     lambda: get_metric("argument_accuracy"), False),
    ("tool_output_match (native)", "deepeval", {"evaluation_params": ["output"]},
     lambda: get_metric("tool_output_match"), False),
    ("trajectory_lcs (native)", "deepeval", {"should_consider_ordering": True},
     lambda: get_metric("trajectory_lcs"), False),
    ("ragas_tool_call_f1", "ragas_f1", {}, lambda: get_metric("ragas_tool_call_f1"), True),
    ("tool_call_f1 (native)", "ragas_f1", {}, lambda: get_metric("tool_call_f1"), False),
    ("ragas_tool_call_accuracy", "ragas_accuracy", {"strict_order": True},
     lambda: get_metric("ragas_tool_call_accuracy"), True),
    ("agentevals_trajectory superset", "agentevals",
     {"trajectory_match_mode": "superset", "tool_args_match_mode": "exact"},
     lambda: get_metric("agentevals_trajectory", trajectory_match_mode="superset"), True),
    ("  tool_args_match_mode=ignore", "agentevals",
     {"trajectory_match_mode": "superset", "tool_args_match_mode": "ignore"},
     lambda: get_metric("agentevals_trajectory", trajectory_match_mode="superset",
                        tool_args_match_mode="ignore"), True),
    ("trajectory_match superset (native)", "agentevals",
     {"trajectory_match_mode": "superset", "tool_args_match_mode": "exact"},
     lambda: get_metric("trajectory_match", mode="superset"), False),
    ("adk_tool_trajectory IN_ORDER", "adk", {"match_type": "IN_ORDER"},
     lambda: get_metric("adk_tool_trajectory", match_type="IN_ORDER"), True),
    ("  ignore_args", "adk", {"match_type": "IN_ORDER", "ignore_args": True},
     lambda: get_metric("adk_tool_trajectory", match_type="IN_ORDER", ignore_args=True), True),
    ("trajectory_match in_order (native)", "adk", {"match_type": "IN_ORDER"},
     lambda: get_metric("trajectory_match", mode="in_order"), False),
    ("mlflow_tool_call_correctness", "mlflow", {"should_consider_ordering": True},
     lambda: get_metric("mlflow_tool_call_correctness", should_consider_ordering=True), True),
    ("trajectory_match strict (native)", "mlflow", {"should_consider_ordering": True},
     lambda: get_metric("trajectory_match"), False),
]


def peer_each(scorer: Callable[[dict[str, Any]], dict[str, Any]], data: list[dict[str, Any]]
              ) -> list[dict[str, Any]]:
    """The peer one case at a time; a case it refuses (MLflow: no expected
    calls) gives its error, as the driver records it."""
    out = []
    for record in data:
        try:
            out.append(scorer(record))
        except Exception as error:
            out.append({"error": f"{type(error).__name__}: {error}"})
    return out


def score_each(metric: Metric, data: list[dict[str, Any]]) -> list[Any]:
    """One case at a time; a case the metric refuses (tool_output_match: no
    expected output) gives None, as errors="record" gives a row error."""
    out: list[Any] = []
    for record in data:
        try:
            out.append(metric.evaluate(to_case(record)))
        except AgentMetricsError:
            out.append(None)
    return out


def median_time(function: Callable[[], Any], repeats: int) -> float:
    """The median wall time of ``function``, the cyclic GC paused while it
    runs (as timeit does) so that objects a side keeps alive do not make it
    pay for the other's collections."""
    times = []
    for _ in range(repeats):
        gc.collect()
        gc.disable()
        try:
            start = time.perf_counter()
            function()
            times.append(time.perf_counter() - start)
        finally:
            gc.enable()
    return statistics.median(times)


def check_equal(label: str, theirs: list[dict[str, Any]], ours: list[float], loose: bool) -> None:
    for row, (their, value) in enumerate(zip(theirs, ours, strict=True)):
        if "error" in their:  # refused by the peer (MLflow: no expected calls): by us too
            if not math.isnan(value):
                raise SystemExit(f"{label}: row {row}: the peer refused it ({their}), we scored {value!r}")
            continue
        want = float(their["score"])
        same = math.isclose(value, want, rel_tol=0, abs_tol=1e-12) if loose else value == want
        if not same:
            raise SystemExit(f"{label}: row {row} differs: ours {value!r}, the peer's {their}")


def cpu_seconds(function: Callable[[], Any]) -> float:
    """The CPU time (user + system, of this process and of the children it
    waited for) that ``function`` takes."""
    import resource

    def now() -> float:
        own = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime

    gc.collect()
    start = now()
    function()
    return now() - start


#: The file-to-scores rows (``--file``): label, peer, the peer's options, our
#: metric as the CLI names it. MLflow is left out: it scores traces, and
#: writing one trace a line (~50 ms each) is not part of the peer's scoring.
FILE_PEERS: list[tuple[str, str, dict[str, Any], str]] = [
    ("ADK TrajectoryEvaluator IN_ORDER", "adk", {"match_type": "IN_ORDER"},
     "adk_tool_trajectory:match_type=IN_ORDER"),
    ("deepeval ToolCorrectness", "deepeval", {}, "deepeval_tool_correctness"),
    ("deepeval ToolCorrectness, input_parameters", "deepeval_args",
     {"evaluation_params": ["input_parameters"]},
     "deepeval_tool_correctness:evaluation_params=input_parameters"),
    ("ragas ToolCallF1", "ragas_f1", {}, "ragas_tool_call_f1"),
    ("ragas ToolCallAccuracy, strict_order=False", "ragas_accuracy_loose",
     {"strict_order": False}, "ragas_tool_call_accuracy:strict_order=false"),
    ("agentevals superset, exact arguments", "agentevals",
     {"trajectory_match_mode": "superset", "tool_args_match_mode": "exact"},
     "agentevals_trajectory:trajectory_match_mode=superset"),
]


#: FILE_PEERS' keys for the peers' own scorers (tests/peers/drive.py's names).
_DRIVER = {"deepeval_args": "deepeval", "ragas_accuracy_loose": "ragas_accuracy"}


def _metric_of(spec: str) -> Any:
    """The metric a CLI spec (``name:key=value``) names, built in process."""
    name, _, rest = spec.partition(":")
    options: dict[str, Any] = {}
    for pair in filter(None, rest.split(",")):
        key, _, value = pair.partition("=")
        options[key] = {"true": True, "false": False}.get(value, value)
    return get_metric(name, **options)


def from_file(lines: int, repeats: int, with_lines: bool = True,
              peers: tuple[str, ...] = ("adk",), baseline: str | None = None) -> None:
    """The file-to-scores rows (see the module's doc): per peer in ``peers``
    (FILE_PEERS' keys), the peer from the file and our CLI with its metric;
    tool_selection_accuracy through the CLI and from records; ADK's metric
    from records."""
    import json
    import subprocess
    import tempfile

    import agentmetrics

    data = [{"tool_calls": r["called"], "expected_tool_calls": r["expected"]}
            for r in records(lines)]
    folder = Path(tempfile.mkdtemp(prefix="bench-peers-"))
    path = folder / "calls.jsonl"
    with path.open("w", encoding="utf-8") as handle:
        for record in data:
            handle.write(json.dumps(record) + "\n")
    cli = [sys.executable, "-m", "agentmetrics", "evaluate", str(path), "--format", "summary"]

    def from_lines(scorer: Callable[[dict[str, Any]], Any]) -> Callable[[], None]:
        def side() -> None:
            with path.open("rb") as handle:
                for line in handle:
                    record = json.loads(line)
                    scorer({"called": record["tool_calls"],
                            "expected": record["expected_tool_calls"]})
        return side

    def run(*extra: str, env: dict[str, str] | None = None) -> Callable[[], None]:
        return lambda: subprocess.run([*cli, *extra], check=True, stdout=subprocess.DEVNULL,
                                      env=env)

    old_env = None
    if baseline is not None:  # an older checkout's package and plugins first on the path
        import os

        tree = Path(baseline).resolve()
        parts = [str(tree), *map(str, sorted((tree / "plugins").glob("*/")))]
        old_env = dict(os.environ, PYTHONPATH=os.pathsep.join(parts))

    def in_memory(metric: Any) -> Callable[[], None]:
        return lambda: agentmetrics.evaluate(data, [metric], progress=False)

    sides: dict[str, Callable[[], None]] = {}
    ratio_to: dict[str, str] = {}  # our side -> the peer side it is compared with
    for label, peer, options, metric in FILE_PEERS:
        if peer not in peers:
            continue
        theirs = f"{label}: json.loads + its objects + its scorer"
        sides[theirs] = from_lines(drive.PEERS[_DRIVER.get(peer, peer)][1](options))
        ours = f"  agentmetrics evaluate FILE --metric {metric}"
        sides[ours] = run("--metric", metric)
        ratio_to[theirs] = ratio_to[ours] = theirs
        if old_env is not None:
            sides[ours + " (baseline)"] = run("--metric", metric, env=old_env)
            ratio_to[ours + " (baseline)"] = theirs
        sides[f"  evaluate(records) {metric}"] = in_memory(_metric_of(metric))
        ratio_to[f"  evaluate(records) {metric}"] = theirs
        if with_lines:
            sides[ours + " --reader lines"] = run("--metric", metric, "--reader", "lines")
            ratio_to[ours + " --reader lines"] = theirs
    first = next(iter(sides)) if sides else None
    extra: dict[str, Callable[[], None]] = {
        "agentmetrics evaluate FILE (tool_selection_accuracy)": run(),
        "evaluate(records) tool_selection_accuracy": in_memory("tool_selection_accuracy"),
        "evaluate(records) adk_tool_trajectory IN_ORDER": in_memory(
            get_metric("adk_tool_trajectory", match_type="IN_ORDER")),
    }
    if with_lines:
        extra["agentmetrics evaluate FILE (tool_selection_accuracy) --reader lines"] = run(
            "--reader", "lines")
    for label, side in extra.items():
        sides[label] = side
        if first is not None:
            ratio_to[label] = first
    times: dict[str, list[float]] = {label: [] for label in sides}
    for _ in range(repeats):  # interleaved: every side once a round
        for label, side in sides.items():
            times[label].append(cpu_seconds(side))
    median = {label: statistics.median(found) for label, found in times.items()}
    print(f"{lines:,} lines of call objects with arguments ({path.stat().st_size / 1e6:.0f} MB), "
          f"CPU time, medians of {repeats} interleaved rounds; each of ours against the peer "
          f"above it (the rows below the peers: against {first})")
    print(f"{'side':<92}{'us/case':>9}{'vs peer':>9}")
    for label in sides:
        each = median[label] / lines
        against = ratio_to.get(label)
        ratio = f"{median[against] / median[label]:>8.1f}x" if against else ""
        print(f"{label:<92}{each * 1e6:>9.2f}{ratio}")
    path.unlink()
    folder.rmdir()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--file", type=int, metavar="LINES", default=None,
                        help="measure from a JSONL file of LINES records to scores instead")
    parser.add_argument("--no-line-reader", action="store_true",
                        help="with --file: leave out the rows of the line reader (the slowest)")
    parser.add_argument("--file-peers", default="adk,deepeval,ragas_f1,agentevals",
                        help="with --file: the peers to measure from the file (comma-separated; "
                             "also deepeval_args, ragas_accuracy_loose)")
    parser.add_argument("--baseline", metavar="DIR", default=None,
                        help="with --file: also run our CLI rows from an older checkout in DIR "
                             "(its package and plugins first on PYTHONPATH), side by side")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # ragas warns on every length mismatch
    if args.file is not None:
        from_file(args.file, args.repeats, with_lines=not args.no_line_reader,
                  peers=tuple(args.file_peers.split(",")), baseline=args.baseline)
        return
    every = records(args.cases)
    data = every
    versions = {name: importlib.metadata.version(name)
                for name in ("deepeval", "ragas", "agentevals", "google-adk", "mlflow")}
    print(f"python {sys.version.split()[0]}; {args.cases:,} cases; medians of {args.repeats}"
          + "".join(f"; {k} {v}" for k, v in versions.items()))
    c = median_time(lambda: [to_case(r) for r in data], args.repeats)
    print(f"(c) building {args.cases:,} AgentTestCases from the records: {c * 1e3:.0f} ms")
    ours_every = [{"tool_calls": r["called"], "expected_tool_calls": r["expected"]} for r in every]
    print(f"{'metric':<38}{'(p) peer':>11}{'(s) single':>12}{'(f) batch':>11}{'(r) records':>13}"
          f"{'(p)/(s)':>9}{'(p)/(f)':>9}{'(p)/(r)':>9}")
    for label, peer, options, build, compare in ROWS:
        data = every[:MLFLOW_CASES] if peer == "mlflow" else every
        scorer = drive.PEERS[peer][1](options)
        metric = build()
        if compare:
            theirs = peer_each(scorer, data)
            ours = metric.evaluate_batch(ToolCallBatch.from_cases([to_case(r) for r in data]),
                                         errors="record").values.tolist()
            check_equal(label, theirs, ours, loose="input_parameters" in options.get("evaluation_params", []))
        p = median_time(lambda: peer_each(scorer, data), args.repeats)
        s = median_time(lambda: score_each(metric, data), args.repeats)
        f = median_time(lambda: metric.evaluate_batch(ToolCallBatch.from_cases([to_case(r) for r in data]),
                                                      errors="record"), args.repeats)
        ours_data = ours_every[:len(data)]
        from_records = metric.evaluate_batch(ToolCallBatch.from_records(ours_data), errors="record")
        batched = metric.evaluate_batch(ToolCallBatch.from_cases([to_case(r) for r in data]),
                                        errors="record")
        if not np.array_equal(from_records.values, batched.values, equal_nan=True):
            raise SystemExit(f"{label}: from_records and from_cases give different values")
        r = median_time(lambda: metric.evaluate_batch(ToolCallBatch.from_records(ours_data),
                                                      errors="record"), args.repeats)
        shown = label + (f" [{len(data):,}]" if len(data) != len(every) else "")
        print(f"{shown:<38}{p * 1e3:>9.0f}ms{s * 1e3:>10.0f}ms{f * 1e3:>9.0f}ms{r * 1e3:>11.0f}ms"
              f"{p / s:>8.1f}x{p / f:>8.1f}x{p / r:>8.1f}x")


if __name__ == "__main__":
    main()
