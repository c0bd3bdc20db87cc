"""bfcl_ast and expectation_match against BFCL's own AST checker (bfcl-eval in
.venv-bfcl, driven by tests/peers/drive_bfcl.py) on the same rows (issue 28).

    .venv/bin/python benchmarks/bench_bfcl.py [--repeats 3]

The rows are the differential test's: BFCL's vendored questions (Python
categories) and crafted entries, each with its acceptable answers and many
mutations (tests/peers/bfcl_rows.py, as the differential test uses them),
about 13,000 decoded outputs. Timed, medians of --repeats:

  (p) BFCL's ast_checker, a loop over the rows, in its own process (the time
      its loop takes, measured there; process start and JSON transport left out)
  (c) check_bfcl, the same loop, here
  (m) bfcl_ast.evaluate_batch on the rows as cases (bfcl_cases' shape)
  (e) expectation_match.evaluate_batch on the same cases

The verdicts of (p) and (c) are checked equal first.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

from agentmetrics import AgentTestCase, ToolCallBatch, get_metric
from agentmetrics.datasets import bfcl_calls, bfcl_expectation

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "peers"))
import bfcl_rows as rows_source  # noqa: E402

from agentmetrics_compat import check_bfcl  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rows = rows_source.rows()
    request = {"rows": [{k: row[k] for k in ("function", "output", "ground_truth", "category")} for row in rows],
               "repeats": args.repeats}
    done = subprocess.run([str(ROOT / ".venv-bfcl" / "bin" / "python"), str(rows_source.DRIVER)],
                          input=json.dumps(request), text=True, capture_output=True, check=True)
    response = json.loads(done.stdout)
    theirs = response["verdicts"]
    ours_times = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        ours = []
        for row in rows:
            try:
                ours.append(check_bfcl(row["function"], row["output"], row["ground_truth"], row["category"]).valid)
            except Exception:
                ours.append(None)
        ours_times.append(time.perf_counter() - start)
    same = sum(1 for o, t in zip(ours, theirs) if (o is None and "error" in t) or o == t.get("valid"))
    assert same == len(rows), f"{len(rows) - same} verdicts differ"
    cases = [AgentTestCase(tool_calls=bfcl_calls(row["output"]),
                           expectation=bfcl_expectation(row["ground_truth"], row["category"], row),
                           metadata={"id": row["id"], "category": row["category"],
                                     "bfcl": {"function": row["function"], "ground_truth": row["ground_truth"]}})
             for row in rows]
    batch = ToolCallBatch.from_cases(cases)
    timed = {}
    for label, metric in (("(m) bfcl_ast", get_metric("bfcl_ast")),
                          ("(e) expectation_match", get_metric("expectation_match"))):
        samples = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            metric.evaluate_batch(batch, errors="record")
            samples.append(time.perf_counter() - start)
        timed[label] = statistics.median(samples)
    peer = statistics.median(response["seconds"])
    print(f"{len(rows):,} rows, medians of {args.repeats}; bfcl-eval {response['version']}")
    print(f"  (p) BFCL's ast_checker       {peer * 1e3:9.1f} ms")
    print(f"  (c) check_bfcl               {statistics.median(ours_times) * 1e3:9.1f} ms  "
          f"{peer / statistics.median(ours_times):5.2f}x (p)'s speed")
    for label, seconds in timed.items():
        print(f"  {label:<28}{seconds * 1e3:9.1f} ms  {peer / seconds:5.2f}x (p)'s speed")


if __name__ == "__main__":
    main()
