"""``agentmetrics runs list``: the runs of the history, newest first."""

from __future__ import annotations

import argparse
import math
from typing import IO

from agentmetrics.cli._common import output_width, print_table, to_json
from agentmetrics.results._config import config_text
from agentmetrics.runs._history import RunStore

__all__ = ["CONFIG_WIDTH", "run_runs_list"]

#: The most characters of a run's configuration the table shows (``--format
#: json`` has all of it).
CONFIG_WIDTH = 48


def _number(value: float, form: str) -> str:
    return "-" if math.isnan(value) else format(value, form)


def run_runs_list(args: argparse.Namespace, out: IO[str]) -> int:
    import attrs


    store = RunStore(args.history)
    runs = store.list(limit=args.limit)
    if args.format == "json":
        out.write(to_json([{
            "id": run.id, "created": run.created, "label": run.label, "path": run.path,
            "cases": run.cases, "fingerprint": run.fingerprint,
            "uid": run.provenance.uid or None, "digest": run.digest,
            "agentmetrics_version": run.agentmetrics_version, "config": dict(run.config),
            "metrics": [attrs.asdict(m) for m in run.metrics]} for run in runs],
            indent=2) + "\n")
        return 0
    if not runs:
        out.write(f"No runs in {store.path} yet. Save one with `agentmetrics evaluate FILE "
                  f"--save run.jsonl` or result.save(path).\n")
        return 0
    configured = any(run.config for run in runs)
    rows = [["run", "created (UTC)", "label", "cases", "mean", "passed", "metric",
             *(["config"] if configured else [])]]
    for run in runs:
        when = run.created.replace("T", " ").removesuffix("+00:00")
        head = [str(run.id), when, run.label or "-", f"{run.cases:,}"]
        config = [config_text(run.config, CONFIG_WIDTH) or "-"] if configured else []
        if not run.metrics:
            rows.append([*head, "-", "-", "(no metrics)", *config])
        for position, m in enumerate(run.metrics):
            rows.append([*(head if position == 0 else [""] * 4), _number(m.mean, ".3f"),
                         _number(m.pass_rate, ".1%"), m.metric,
                         *(config if position == 0 else [""] * len(config))])
    out.write(f"Runs in {store.path}, newest first (passed: the pass rate; `--format json` "
              f"has every summary column{' and the whole config' if configured else ''})\n")
    print_table(rows, out, right=frozenset({0, 3, 4, 5}), width=output_width(out))
    return 0
