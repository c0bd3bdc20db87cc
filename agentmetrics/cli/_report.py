"""``agentmetrics report``: one self-contained HTML page of a run (a cases file
scored here, or a saved run) or of two runs compared."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import IO, Any

from agentmetrics.cli._common import DEFAULT_METRIC, build_metric
from agentmetrics.engine._evaluate import score_cases
from agentmetrics.errors import AgentMetricsError, InvalidParameterError
from agentmetrics.io._compare import compare
from agentmetrics.io._input import read_cases
from agentmetrics.io._sides import side_from_result
from agentmetrics.report._comparison import empty_cause
from agentmetrics.report._result import EMPTY_CAUSE
from agentmetrics.runs import RunStore, default_store_path, is_saved_run, load_result

__all__ = ["run_report"]


def _is_saved_run(path: str) -> bool:
    return is_saved_run(path)


def _result(path: str, args: argparse.Namespace) -> Any:
    """The run in ``path``: a saved run as it was, or a cases file scored now."""
    if _is_saved_run(path):
        return load_result(path)
    metrics = [build_metric(spec) for spec in args.metric or [DEFAULT_METRIC]]
    cases = list(read_cases(path, errors=args.errors, input_format=args.input_format))
    return score_cases(cases, metrics, errors=args.errors, progress=False)


def _history(args: argparse.Namespace) -> Any:
    """The run history for the trend: the one named, or the default one when
    it exists; None for no trend."""
    if args.no_history:
        return None
    if args.history:
        if not os.path.exists(args.history):
            raise InvalidParameterError(
                f"--history {args.history}: expected a run history (made by `agentmetrics "
                f"evaluate --save`), but there is no such file.")
        return RunStore(args.history)
    default = default_store_path()
    return RunStore(default) if os.path.exists(default) else None


def _names(args: argparse.Namespace, store: Any) -> list[str]:
    """What to call each input: ``--names``, else a saved run's label in the
    run history (when it was recorded there with one), else its path."""
    names = getattr(args, "names", None)
    if names is not None:
        if len(names) != len(args.inputs):
            raise InvalidParameterError(
                f"--names: expected {len(args.inputs)} name{'s' if len(args.inputs) != 1 else ''}"
                f", one for each run given, got {len(names)}. Fix: --names "
                f"{' '.join(['NAME'] * len(args.inputs))}")
        return list(names)
    labels: dict[str, str] = {}
    if store is not None:
        try:
            for run in store.list():
                if run.path and run.label:
                    labels[os.path.realpath(run.path)] = run.label  # the newest is listed first
        except AgentMetricsError:  # a history that cannot be read names nothing here
            labels = {}
    return [labels.get(os.path.realpath(path), path) if _is_saved_run(path) else path
            for path in args.inputs]


def _browse(args: argparse.Namespace, out: IO[str]) -> int:
    """The run browser of the history named by --history (or the default one)."""
    path = Path(args.history) if args.history else default_store_path()
    if not path.is_file():
        raise InvalidParameterError(
            f"--history {path}: expected a run history to browse (made by `agentmetrics "
            f"evaluate --save` or result.save(path)), but there is no such file. Fix: name the "
            f"history's .sqlite file, or save a run first.")
    store = RunStore(path)
    output = args.output or f"{path.stem}.html"
    runs = len(store.list())
    written = store.to_html(output, title=args.title, reports=not args.no_reports,
                            compare=None if args.no_reports else compare)
    print(f"run browser written to {written} ({runs:,} run{'s' if runs != 1 else ''})",
          file=out)
    if not runs and not args.allow_empty:
        print(f"agentmetrics: error: {path}: expected at least one run, got none, so the run "
              f"browser written to {written} lists nothing (its headline says so). Fix: save a "
              f"run into this history first (`agentmetrics evaluate FILE --save run.jsonl "
              f"--history {path}`), or pass --allow-empty when an empty history is expected.",
              file=sys.stderr)
        return 1
    return 0


def run_report(args: argparse.Namespace, out: IO[str]) -> int:
    if not args.inputs:
        if args.history is None:
            raise InvalidParameterError(
                "report: expected a run (a cases file or a saved run), or --history [FILE] for "
                "the run browser, got neither. Fix: agentmetrics report run.jsonl -o "
                "report.html, or agentmetrics report --history runs.sqlite -o runs.html")
        return _browse(args, out)
    if args.output is None:
        raise InvalidParameterError(
            "report: expected -o PATH, where to write the HTML page of the run, got none. "
            "Fix: agentmetrics report run.jsonl -o report.html")
    if args.compare:
        if len(args.inputs) != 2:
            raise InvalidParameterError(
                f"--compare: expected two runs, BASELINE and CANDIDATE, got "
                f"{len(args.inputs)}. Fix: agentmetrics report --compare baseline.jsonl "
                f"candidate.jsonl -o comparison.html")
        on = None if args.on == "position" else args.on
        names = _names(args, None if args.no_history else _history(args))
        sides = [side_from_result(_result(path, args), on, name)
                 for path, name in zip(args.inputs, names)]
        comparison = compare(sides[0], sides[1], on=on)
        written = comparison.to_html(args.output, title=args.title, limit=args.limit)
        what = f"{len(comparison.metrics)} metrics compared"
        nothing = None if any(m.paired for m in comparison) else (
            f"{args.inputs[0]} against {args.inputs[1]}: expected cases paired on at least one "
            f"metric, got none, so the report written to {written} compares nothing (its "
            f"headline says so). Likely cause: {empty_cause(comparison)}.")
    else:
        if len(args.inputs) != 1:
            raise InvalidParameterError(
                f"expected one run (a cases file or a saved run), got {len(args.inputs)}. "
                f"Fix: pass --compare to compare two runs.")
        store = _history(args)
        name = _names(args, store)[0]
        result = _result(args.inputs[0], args)
        written = result.to_html(args.output, title=args.title, limit=args.limit,
                                 cluster=args.cluster or "auto", trials=args.trials or "auto",
                                 history=store, trend=args.trend, name=name)
        what = (f"{len(result):,} cases, {len(result.metrics)} metric"
                + ("" if len(result.metrics) == 1 else "s"))
        nothing = None if len(result) else (
            f"{args.inputs[0]}: expected at least one case, got 0, so the report written to "
            f"{written} measures nothing (its headline says so). Likely cause: {EMPTY_CAUSE}.")
    print(f"report written to {written} ({what})", file=out)
    if nothing is not None and not args.allow_empty:
        # The page is written (it says the same in its headline), but a report
        # of nothing is not a success: a CI job that made it should fail.
        print(f"agentmetrics: error: {nothing} Fix: check the input, or pass --allow-empty "
              f"when an empty run is expected.", file=sys.stderr)
        return 1
    return 0
