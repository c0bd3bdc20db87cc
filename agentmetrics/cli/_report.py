"""``agentmetrics report``: one self-contained HTML page of a run (a cases file
scored here, or a saved run) or of two runs compared."""

from __future__ import annotations

import argparse
import os
import sys
from typing import IO, Any

from agentmetrics.cli._common import DEFAULT_METRIC, build_metric, non_negative, positive
from agentmetrics.errors import InvalidParameterError
from agentmetrics.formats import FORMATS
from agentmetrics.io._dataset import read_cases

__all__ = ["add_parser"]


def _is_saved_run(path: str) -> bool:
    from agentmetrics.runs import is_saved_run

    return is_saved_run(path)


def _result(path: str, args: argparse.Namespace) -> Any:
    """The run in ``path``: a saved run as it was, or a cases file scored now."""
    if _is_saved_run(path):
        from agentmetrics.runs import load_result

        return load_result(path)
    from agentmetrics.engine._evaluate import score_cases

    metrics = [build_metric(spec) for spec in args.metric or [DEFAULT_METRIC]]
    cases = list(read_cases(path, errors=args.errors, input_format=args.input_format))
    return score_cases(cases, metrics, errors=args.errors, progress=False)


def _history(args: argparse.Namespace) -> Any:
    """The run history for the trend: the one named, or the default one when
    it exists; None for no trend."""
    from agentmetrics.runs import RunStore, default_store_path

    if args.no_history:
        return None
    if args.history is not None:
        if not os.path.exists(args.history):
            raise InvalidParameterError(
                f"--history {args.history}: expected a run history (made by `agentmetrics "
                f"evaluate --save`), but there is no such file.")
        return RunStore(args.history)
    default = default_store_path()
    return RunStore(default) if os.path.exists(default) else None


def _report(args: argparse.Namespace, out: IO[str]) -> int:
    if args.compare:
        if len(args.inputs) != 2:
            raise InvalidParameterError(
                f"--compare: expected two runs, BASELINE and CANDIDATE, got "
                f"{len(args.inputs)}. Fix: agentmetrics report --compare baseline.jsonl "
                f"candidate.jsonl -o comparison.html")
        from agentmetrics.io._compare import compare
        from agentmetrics.io._sides import side_from_result
        from agentmetrics.report._comparison import empty_cause

        on = None if args.on == "position" else args.on
        sides = [side_from_result(_result(path, args), on, path) for path in args.inputs]
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
        from agentmetrics.report._result import EMPTY_CAUSE

        result = _result(args.inputs[0], args)
        written = result.to_html(args.output, title=args.title, limit=args.limit,
                                 cluster=args.cluster or "auto", trials=args.trials or "auto",
                                 history=_history(args), trend=args.trend)
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


def add_parser(commands: Any) -> None:

    parser = commands.add_parser(
        "report",
        help="write one self-contained HTML report of a run, or of two compared",
        description=(
            "Write one HTML file that opens anywhere, offline: the summary with intervals, "
            "histograms, the per-tool table, failing cases worst first with both call "
            "sequences, errors, repeated trials, a trend over saved runs and the provenance "
            "(--compare: the paired differences, pass/fail flips and regressions). A run is "
            "a cases file (scored here with --metric) or a run saved by `agentmetrics "
            "evaluate --save`."),
    )
    parser.add_argument("inputs", nargs="+", metavar="RUN",
                        help="a cases file or a saved run (two with --compare)")
    parser.add_argument("-o", "--output", required=True, metavar="PATH",
                        help="where to write the HTML file")
    parser.add_argument("--compare", action="store_true",
                        help="compare two runs: RUN RUN are the baseline and the candidate")
    parser.add_argument("--metric", action="append", metavar="NAME[:key=value,...]",
                        help=f"for cases files: a metric to compute, repeatable (default: "
                        f"{DEFAULT_METRIC})")
    parser.add_argument("--title", default=None, help="the page's title")
    parser.add_argument("--limit", type=non_negative, default=100, metavar="N",
                        help="failing cases (and regressions) shown per metric, worst first "
                        "(default 100)")
    parser.add_argument("--cluster", default=None, metavar="KEY",
                        help="the metadata key of a case's task, for clustered intervals "
                        "(default: task_id when cases share one)")
    parser.add_argument("--trials", default=None, metavar="KEY",
                        help="the metadata key grouping repeated trials for pass@k and pass^k "
                        "(default: task_id when cases share one)")
    parser.add_argument("--history", default=None, metavar="FILE",
                        help="the run history for the trend (default: the default history, "
                        "when there is one)")
    parser.add_argument("--no-history", action="store_true", help="leave the trend out")
    parser.add_argument("--trend", type=positive, default=20, metavar="N",
                        help="runs in the trend (default 20)")
    parser.add_argument("--on", default="id", metavar="KEY",
                        help="--compare: what pairs cases: 'id' (default), another metadata "
                        "key, or 'position'")
    parser.add_argument("--allow-empty", action="store_true",
                        help="a run of 0 cases (or a comparison where no case pairs) is not "
                        "an error: exit 0 (default: the page says so and the exit status "
                        "is 1)")
    parser.add_argument("--errors", choices=("raise", "record"), default="record",
                        help="cases files: a line that cannot be scored is an error row "
                        "(record, default) or stops the run (raise)")
    parser.add_argument("--input-format", choices=tuple(FORMATS), default=None,
                        metavar="NAME", help="cases files: the format of 'response' payloads")
    parser.set_defaults(run=_report)
