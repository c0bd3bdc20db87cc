"""Writing the HTML report of a large run (issue 29) and of one big group (issue 48).

    .venv/bin/python benchmarks/bench_report.py [--cases 1000000] [--repeats 3]
    .venv/bin/python benchmarks/bench_report.py --groups [--baseline REF] [--timeout 120]
    .venv/bin/python benchmarks/bench_report.py --runs 200 [--repeats 3]

A seeded run of ``--cases`` cases (3 called and 3 expected names out of 40
tools, case ids, an input, an actual and an expected output each), scored by
tool_selection_accuracy and tool_call_f1. Timed side by side, interleaved,
medians:

  (s) result.summary() plus result.failures(): the tables a user would print
  (h) result.to_html(path): the whole report (summary, clustered intervals
      absent: no tasks; histograms, per-tool table, the 100 worst failing
      cases per metric with both sequences, errors, provenance with the data's
      fingerprint)

and the report's size in bytes, for this run and for one of 100,000 cases.

With ``--groups``: ``result.to_html()`` of runs where one group is big, each
built and timed in a child process (so that a run of older code can be
stopped after ``--timeout`` seconds), interleaved, medians of ``--repeats``:

  task N    N cases of one task_id, 2 tools each, 40% passing: the repeated
            trials section (pass@k and pass^k of a task of N trials) and the
            clustered summary of one cluster
  tools N   N cases, each calling or missing a tool of its own: N distinct tools
  calls N   one failing case of N calls and N expected calls: the two
            sequences side by side

With ``--baseline REF`` (a git revision) each is also run on REF's code,
exported with ``git archive`` into a temporary folder and imported first; the
table gives both medians and baseline / current. A baseline that does not
finish within ``--timeout`` is shown as ``> timeout`` and not run again.

With ``--runs N``: the run browser (issue 53). A history of N runs in a
temporary folder, each of 20 cases scored by 5 metrics, saved to a file of its
own with a label; timed, medians of ``--repeats``:

  (p) store.to_html(path, reports=False): the page alone (every run read from
      the history, the runs table, a trend per metric)
  (r) store.to_html(path, compare=agentmetrics.compare), once: the page with
      each run's report and each consecutive pair's comparison beside it
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from agentmetrics import AgentTestCase, ToolCallBatch, ToolSelectionAccuracy, evaluate

#: The runs of --groups: (kind, size).
GROUPS = (("task", 4_000), ("task", 100_000), ("tools", 100_000), ("calls", 4_000),
          ("calls", 100_000))


def make_result(n: int, seed: int = 5):
    rng = np.random.default_rng(seed)
    vocabulary = tuple(f"tool_{i}" for i in range(40))
    called = rng.integers(0, 40, size=3 * n).astype(np.int32)
    expected = rng.integers(0, 40, size=3 * n).astype(np.int32)
    # A third of the cases call exactly what is expected.
    same = np.repeat(rng.random(n) < 0.33, 3)
    called[same] = expected[same]
    offsets = np.arange(0, 3 * n + 1, 3, dtype=np.int64)
    given = np.ones(n, dtype=bool)
    # Each case's input and outputs, as a run made in a notebook keeps them: the
    # report shows them, collapsed, under each failing case (issue 53).
    fields = {}
    for name, text in (("input", "Please cancel order {} and refund the card"),
                       ("actual_output", "Order {} is cancelled; the refund is on its way"),
                       ("expected_output", "Cancelled order {}")):
        column = np.empty(n, dtype=object)
        column[:] = [text.format(i) for i in range(n)]
        fields[name] = column
    batch = ToolCallBatch(vocabulary=vocabulary, called_ids=called, called_offsets=offsets,
                          expected_ids=expected, expected_offsets=offsets.copy(),
                          called_given=given, expected_given=given.copy(),
                          case_ids=tuple(f"case-{i}" for i in range(n)), fields=fields)
    return evaluate(batch, [ToolSelectionAccuracy(threshold=0.8), "tool_call_f1"],
                    progress=False)


def group_result(kind: str, n: int):
    """A run where one group is big (see the module's docstring)."""
    rng = np.random.default_rng(7)
    if kind == "task":
        passed = rng.random(n) < 0.4
        cases = [AgentTestCase(tool_calls=["GetOrder", "IssueRefund"] if ok else ["GetOrder"],
                               expected_tool_calls=["GetOrder", "IssueRefund"],
                               metadata={"id": f"case-{i}", "task_id": "refund"})
                 for i, ok in enumerate(passed.tolist())]
    elif kind == "tools":
        called = rng.random(n) < 0.5
        cases = [AgentTestCase(tool_calls=[f"tool_{i}" if ok else f"other_{i}"],
                               expected_tool_calls=[f"tool_{i}"], metadata={"id": f"case-{i}"})
                 for i, ok in enumerate(called.tolist())]
    elif kind == "calls":
        names = [f"tool_{i}" for i in range(50)]
        cases = [AgentTestCase(tool_calls=[names[i] for i in rng.integers(0, 30, n)],
                               expected_tool_calls=[names[i] for i in rng.integers(20, 50, n)],
                               metadata={"id": "long"})]
    else:
        raise ValueError(kind)
    return evaluate(cases, [ToolSelectionAccuracy(threshold=0.8), "tool_call_f1"],
                    progress=False)


def child(kind: str, n: int) -> None:
    """One timing of to_html() in this process, printed as JSON."""
    import agentmetrics

    result = group_result(kind, n)
    start = time.perf_counter()
    text = result.to_html()
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "bytes": len(text.encode("utf-8")),
                      "module": agentmetrics.__file__}))


def export(ref: str, folder: Path) -> Path:
    """REF's tree exported (git archive) under ``folder``, without touching the repository."""
    repo = Path(__file__).resolve().parents[1]
    tree = folder / "baseline"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", ref],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def timed(root: Path, kind: str, n: int, timeout: float) -> dict | None:
    """The child's JSON with ``root`` imported first; None after ``timeout`` seconds."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    try:
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", kind,
                              str(n)], env=env, cwd=root, capture_output=True, text=True,
                             timeout=timeout, check=True).stdout
    except subprocess.TimeoutExpired:
        return None
    answer = json.loads(out.splitlines()[-1])
    assert answer["module"].startswith(str(root)), f"imported {answer['module']}, not {root}"
    return answer


def groups(args: argparse.Namespace) -> None:
    current = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as folder:
        roots = {"current": current}
        if args.baseline:
            roots["baseline"] = export(args.baseline, Path(folder))
        samples: dict[tuple[str, int, str], list[float | None]] = {}
        sizes: dict[tuple[str, int], int] = {}
        for repeat in range(args.repeats):
            order = list(roots.items()) if repeat % 2 == 0 else list(roots.items())[::-1]
            for kind, n in GROUPS:
                for code, root in order:
                    done = samples.setdefault((kind, n, code), [])
                    if None in done:
                        continue  # it timed out once: it would again
                    answer = timed(root, kind, n, args.timeout)
                    done.append(None if answer is None else answer["seconds"])
                    if answer is not None and code == "current":
                        sizes[kind, n] = answer["bytes"]
    print(f"to_html() of runs with one big group; medians of {args.repeats}, interleaved, "
          f"each in a child process" + (f"; baseline {args.baseline}" if args.baseline else ""))

    def shown(values: list[float | None]) -> tuple[str, float | None]:
        if None in values:
            return f"> {args.timeout:.0f} s", None
        median = statistics.median(v for v in values if v is not None)
        return f"{median:.3f} s", median

    head = f"  {'run':<14}{'current':>12}{'page':>12}"
    print(head + (f"{'baseline':>14}{'baseline / current':>20}" if args.baseline else ""))
    for kind, n in GROUPS:
        now, now_s = shown(samples[kind, n, "current"])
        line = f"  {kind + ' ' + format(n, ','):<14}{now:>12}{sizes.get((kind, n), 0):>11,}B"
        if args.baseline:
            old, old_s = shown(samples[kind, n, "baseline"])
            ratio = (f"> {args.timeout / now_s:.0f}x" if old_s is None and now_s
                     else f"{old_s / now_s:.1f}x" if old_s and now_s else "")
            line += f"{old:>14}{ratio:>20}"
        print(line)


#: The metrics of --runs: five, one with a unit.
BROWSER_METRICS = ("tool_selection_accuracy", "tool_call_f1", "tool_call_micro_f1", "latency",
                   "answer_match")


def browser(args: argparse.Namespace) -> None:
    """The run browser over a history of ``args.runs`` runs (see the docstring)."""
    import agentmetrics
    from agentmetrics.runs import RunStore

    rng = np.random.default_rng(7)
    tools = [f"tool_{i}" for i in range(8)]
    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(Path(folder) / "runs.sqlite")
        start = time.perf_counter()
        for run in range(args.runs):
            cases = [AgentTestCase(
                tool_calls=[t for t in tools[:3] if rng.random() > 0.2], expected_tool_calls=tools[:3],
                latency=float(rng.uniform(0.5, 4.0)), actual_output="ok",
                expected_output="ok" if rng.random() > 0.3 else "no",
                metadata={"id": f"case-{i}"}) for i in range(20)]
            result = evaluate(cases, list(BROWSER_METRICS), progress=False)
            result.save(Path(folder) / f"run-{run}.jsonl", history=store,
                        label=f"nightly {run} (model v{run % 7})")
        built = time.perf_counter() - start
        page = Path(folder) / "browser.html"
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            store.to_html(page, reports=False)
            times.append(time.perf_counter() - start)
        size = page.stat().st_size
        start = time.perf_counter()
        store.to_html(page, compare=agentmetrics.compare)
        everything = time.perf_counter() - start
        written = len(list((Path(folder) / "browser_runs").iterdir()))
    print(f"{args.runs:,} runs of 20 cases, {len(BROWSER_METRICS)} metrics (history built in "
          f"{built:.1f} s); medians of {args.repeats}")
    print(f"  (p) to_html(path, reports=False)   {statistics.median(times):8.3f} s  "
          f"[goal < 2 s]  page {size:,} bytes")
    print(f"  (r) to_html(path, compare=...)     {everything:8.3f} s  ({written:,} pages beside "
          f"it: each run's report and each consecutive comparison)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--groups", action="store_true",
                        help="time the report of runs with one big group instead")
    parser.add_argument("--baseline", metavar="REF",
                        help="--groups: also time this git revision's code")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="--groups: seconds after which a run is stopped (default 120)")
    parser.add_argument("--runs", type=int, default=None, metavar="N",
                        help="time the run browser over a history of N runs instead")
    parser.add_argument("--child", nargs=2, metavar=("KIND", "N"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], int(args.child[1]))
        return
    if args.groups:
        groups(args)
        return
    if args.runs is not None:
        browser(args)
        return
    result = make_result(args.cases)
    failing = sum(int((~result[m].passed).sum()) for m in result.metrics)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "report.html")
        tables, report, alone = [], [], []
        for _ in range(args.repeats):
            start = time.perf_counter()
            result.summary()
            alone.append(time.perf_counter() - start)
            result.failures()
            tables.append(time.perf_counter() - start)
            result._provenance = None  # the data's fingerprint is taken in every repeat
            start = time.perf_counter()
            result.to_html(path)
            report.append(time.perf_counter() - start)
        size = os.path.getsize(path)
        small = make_result(100_000)
        small.to_html(path)
        small_size = os.path.getsize(path)
    s, h = statistics.median(tables), statistics.median(report)
    print(f"{args.cases:,} cases, 2 metrics, {failing:,} failing case-metric pairs; "
          f"medians of {args.repeats}")
    print(f"  (s) summary() + failures()   {s:8.3f} s  (summary() alone "
          f"{statistics.median(alone):.3f} s)")
    print(f"  (h) to_html(path)            {h:8.3f} s  {h / s:5.2f}x (s)  [goal <= 2x]")
    print(f"  report size: {size:,} bytes for {args.cases:,} cases; {small_size:,} bytes for "
          f"100,000 cases [goal < 5 MB]")


if __name__ == "__main__":
    main()
