"""``agentmetrics demo``: the bundled tau2-bench runs scored, explained as it goes.

What ``make demo`` shows a newcomer, in at most 100 columns: what is scored and
what a pass means, a sample of rows, the summary with its interval, why so few
runs pass and which tools they miss, and the command that scores their own file.
Every number is computed from the data; none is written into the text.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import sys
from typing import IO

from agentmetrics.cli._common import DEFAULT_METRIC, build_metric, output_width, print_table, wrap
from agentmetrics.engine._evaluate import evaluate
from agentmetrics.io._input import example_cases

__all__ = ["run_demo"]

_SAMPLE = 8  # rows shown: the first PASS and FAIL rows of each kind, in file order


def _sample(rows: list[tuple[str, float, bool, str]]) -> list[int]:
    """Indices of a readable sample: passes and failures of different kinds
    (only extra tools, only missed tools, both), in file order."""
    def kind(row: tuple[str, float, bool, str]) -> tuple[bool, bool, bool]:
        return row[2], "Missing" in row[3], "Unexpected" in row[3]

    picked: list[int] = []
    seen: dict[tuple[bool, bool, bool], int] = {}
    for index, row in enumerate(rows):  # two of each kind at most, first come first
        shown = seen.get(kind(row), 0)
        if shown < 2 and len(picked) < _SAMPLE:
            seen[kind(row)] = shown + 1
            picked.append(index)
    return sorted(picked)


def run_demo(args: argparse.Namespace, out: IO[str]) -> int:
    width = output_width(out)
    cases = example_cases()
    metric = build_metric(DEFAULT_METRIC)
    result = evaluate(cases, metric)
    (label,) = result.metrics
    scores = result[label]
    values, passed = scores.values.tolist(), scores.passed.tolist()
    reasons = scores.reason_list()
    ids = [str(case.metadata.get("id", index)) for index, case in enumerate(cases)]

    def say(text: str = "") -> None:
        out.writelines(line + "\n" for line in wrap(text, width))

    say(f"Scoring {len(cases)} tau2-bench airline runs of one agent (claude-sonnet-4-5) against "
        f"the tool calls the benchmark expected.")
    say(f"Metric: {label}, the tools called and the tools expected compared as sets of "
        f"names (intersection over union, 0 to 1). A run passes at {metric.threshold:g} "
        f"or more.")
    say()
    rows = list(zip(ids, values, passed, reasons))
    picked = _sample(rows)
    say(f"{len(picked)} of the {len(cases)} rows ('agentmetrics evaluate' prints them all):")
    table = [["case", "score", "result", "reason"]]
    table += [[ids[i], f"{values[i]:.2f}", "PASS" if passed[i] else "FAIL", reasons[i]]
              for i in picked]
    print_table(table, out, right=frozenset({1}), width=width)
    say()

    summary = result.summary()[0]
    n, wins = summary["n"], summary["passed"]
    say(f"Summary: {wins} of {n} runs pass ({summary['pass_rate']:.0%}; 95% CI "
        f"{summary['pass_low']:.0%} to {summary['pass_high']:.0%}, Wilson). Mean score "
        f"{summary['mean']:.2f} (95% CI {summary['mean_low']:.2f} to {summary['mean_high']:.2f}).")
    say()

    rewarded = [case.metadata.get("reward") == 1.0 for case in cases]
    failing = [i for i in range(n) if not passed[i]]
    extra_only = sum(1 for i in failing if "Unexpected" in reasons[i] and "Missing" not in reasons[i])
    rewarded_failing = sum(1 for i in failing if rewarded[i])
    tools = result.per_tool()
    missed = sorted((row for row in tools if row["missed"]), key=lambda r: (-r["missed"], r["tool"]))
    extra = sorted((row for row in tools if row["unexpected"]),
                   key=lambda r: (-r["unexpected"], r["tool"]))
    top = " and ".join(f"{row['tool']} in {row['unexpected']}" for row in extra[:2])
    say(f"Why so few pass: tau2-bench rewarded {sum(rewarded)} of these runs, yet {rewarded_failing} "
        f"of those fail here. Of the {len(failing)} failing runs, {extra_only} called every "
        f"expected tool and lost points only for extra ones: the expected actions leave out "
        f"look-ups the agent makes ({top} runs), and intersection over union counts each "
        f"extra tool against the run.")
    say()
    say("Tools most often missed (runs that expected the tool but never called it):")
    print_table([["", row["tool"], f"missed in {row['missed']} of {row['expected']} run" + "s" * (row["expected"] != 1)]
                 for row in missed[:5]], out, width=width)
    say("Tools most often called without being expected:")
    print_table([["", row["tool"], f"in {row['unexpected']} run" + "s" * (row["unexpected"] != 1)]
                 for row in extra[:5]], out, width=width)
    say()
    say("Score your own runs: a JSONL file, one JSON object per line with the lists tool_calls "
        "and expected_tool_calls (agentmetrics evaluate --help):")
    command = _command()
    if command != "agentmetrics":
        activate = os.path.join(os.path.dirname(command), "activate")
        if os.path.basename(command) == "agentmetrics" and os.path.exists(activate):
            say(f"(agentmetrics is not on your PATH: run it as below, or `source "
                f"{_shown(activate)}` first)")
        else:
            say("(agentmetrics is not on your PATH: run it as below)")
    say(f"  {command} evaluate my_runs.jsonl")
    return 0


def _shown(path: str) -> str:
    """``path`` relative to here when it is below here (``.venv/bin/...``), else
    absolute; quoted for a shell when it needs to be."""
    relative = os.path.relpath(path)
    return shlex.quote(path if relative.startswith("..") else relative)


def _command() -> str:
    """What runs agentmetrics from here: ``agentmetrics`` when that name on the
    PATH is the program running now; else the path of the script that runs
    (``.venv/bin/agentmetrics`` after ``make demo``); else this Python with
    ``-m agentmetrics``."""
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    is_script = os.path.basename(script) == "agentmetrics" and os.path.isfile(script)
    on_path = shutil.which("agentmetrics")
    if on_path and is_script and os.path.samefile(on_path, script):
        return "agentmetrics"
    if is_script:
        return _shown(script)
    if on_path and os.path.dirname(os.path.realpath(on_path)) == os.path.dirname(
            os.path.realpath(sys.executable)):
        return "agentmetrics"  # this environment's script is first on the PATH
    return f"{_shown(sys.executable)} -m agentmetrics"
