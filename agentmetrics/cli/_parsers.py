"""The ``agentmetrics`` command line as argparse sees it: each command's
arguments, and its handler, imported when the command runs. Building the
parser (``--help``, a usage error) loads no handler, so neither numpy nor the
engine: a handler module imports what it needs at its top."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from functools import partial
from typing import IO, Any

from agentmetrics.cli._common import DEFAULT_METRIC, non_negative, positive, rate, seconds
from agentmetrics.engine._streaming import CHUNK_CASES
from agentmetrics.formats import FORMATS

__all__ = ["add_commands"]


def add_commands(commands: Any) -> None:
    """Every command, in the order ``--help`` lists them."""
    for add in (_add_demo, _add_evaluate, _add_compare, _add_report, _add_runs, _add_registry):
        add(commands)


# --------------------------------------------------------------------------- handlers, imported when run


def _run(command: str, args: argparse.Namespace, out: IO[str]) -> int:
    """Run ``command``: its handler module is imported here, when it runs."""
    handler: Callable[[argparse.Namespace, IO[str]], int]
    if command == "demo":
        from agentmetrics.cli._demo import run_demo as handler
    elif command == "evaluate":
        from agentmetrics.cli._evaluate import run_evaluate as handler
    elif command == "compare":
        from agentmetrics.cli._compare import run_compare as handler
    elif command == "report":
        from agentmetrics.cli._report import run_report as handler
    elif command == "runs list":
        from agentmetrics.cli._runs import run_runs_list as handler
    elif command == "list":
        from agentmetrics.cli._registry import run_list as handler
    else:
        from agentmetrics.cli._registry import run_describe as handler
    return handler(args, out)


def _handler(command: str) -> Callable[[argparse.Namespace, IO[str]], int]:
    """What ``main`` calls for ``command`` (``args.run``)."""
    return partial(_run, command)


# --------------------------------------------------------------------------- arguments


def _add_demo(commands: Any) -> None:
    demo = commands.add_parser(
        "demo", help="score the bundled tau2-bench airline runs and explain the result"
    )
    demo.set_defaults(run=_handler("demo"))


def _add_evaluate(commands: Any) -> None:
    evaluate = commands.add_parser(
        "evaluate",
        help="score JSONL or Parquet test cases and print a table and a summary",
        description=(
            "Score JSONL test cases (one object a line: tool_calls, expected_tool_calls, "
            "optional id, input, actual_output, metadata) or a Parquet file (tool_calls, "
            "expected_tool_calls and optional id columns). With no FILE, scores the "
            "bundled tau2-bench airline example."
        ),
    )
    evaluate.add_argument("file", nargs="?", metavar="FILE",
                          help="a .jsonl file (gzipped or not), a .parquet file (needs pyarrow), "
                          "or - for stdin")
    evaluate.add_argument(
        "--metric",
        action="append",
        metavar="NAME[:key=value,...]",
        help=f"a metric to compute, repeatable (default: {DEFAULT_METRIC})",
    )
    evaluate.add_argument(
        "--format",
        choices=("table", "json", "csv", "jsonl", "summary"),
        default="table",
        help="how to print the rows: an aligned table (default), JSON, CSV or JSON lines "
        "(with json, csv and jsonl the summary goes to stderr); summary: no rows, the summary alone",
    )

    evaluate.add_argument(
        "--input-format",
        choices=tuple(FORMATS),
        default=None,
        metavar="NAME",
        help="the format of 'response' payloads on lines that do not name one in 'format' "
        f"({', '.join(FORMATS)}); default: detect it per line",
    )
    evaluate.add_argument(
        "--no-hosted-tools",
        action="store_true",
        help="leave out calls to tools the provider runs itself (web search, code "
        "execution, MCP servers) when reading 'response' payloads",
    )
    evaluate.add_argument(
        "--counts",
        action="store_true",
        help="add the number of calls read from each side (calls, expected_calls) to every "
        "row, to audit what was read",
    )
    evaluate.add_argument(
        "--errors",
        choices=("raise", "record"),
        default="raise",
        help="a line or case that cannot be scored: stop with exit 2 (raise, default), or "
        "report it as a row with its error and go on (record)",
    )
    evaluate.add_argument(
        "--concurrency",
        type=positive,
        default=None,
        metavar="N",
        help="cases in flight at once for metrics that wait (an LLM judge); default 16",
    )
    evaluate.add_argument(
        "--timeout", type=seconds, default=None, metavar="S",
        help="seconds per attempt for metrics that wait; longer is a transient failure",
    )
    evaluate.add_argument(
        "--retries", type=non_negative, default=0, metavar="R",
        help="retries after a timeout or a transient failure (backoff with jitter)",
    )
    evaluate.add_argument(
        "--max-rate", type=seconds, default=None, metavar="QPS",
        help="at most QPS attempts a second per metric that waits",
    )
    evaluate.add_argument(
        "--cache", default=None, metavar="PATH",
        help="a SQLite file keeping every score of a metric that waits, reused by later runs",
    )
    evaluate.add_argument(
        "--reader",
        choices=("auto", "fast", "arrow", "lines"),
        default="auto",
        help="how JSONL is read: auto (default) decodes it in chunks with msgspec when the "
        "[fast] extra is installed (fast), else reads lines of tool-name lists through Arrow "
        "when pyarrow is installed and every metric scores from names (arrow); lines reads "
        "every line one by one. Lines the faster readers cannot take go to the line reader: "
        "the rows are the same",
    )
    evaluate.add_argument(
        "--chunk-size",
        type=positive,
        default=CHUNK_CASES,
        metavar="N",
        help="cases read and scored at a time; memory depends on N, not on the file size",
    )
    evaluate.add_argument(
        "--fail-under",
        type=rate,
        default=None,
        metavar="RATE",
        help="exit 1 when a metric's pass rate is below RATE, or when it scored no case "
        "(an empty file, or only error rows)",
    )
    evaluate.add_argument(
        "--allow-empty", action="store_true",
        help="with --fail-under: a run that scored no case passes the gate (default: it fails, "
        "exit 1)")
    evaluate.add_argument(
        "--save", default=None, metavar="PATH",
        help="also save the whole run to PATH (.parquet, .jsonl, .jsonl.gz, .json or .json.gz), "
        "with its provenance, and record it in the run history (see `agentmetrics runs list`)")
    evaluate.add_argument("--history", default=None, metavar="FILE",
                          help="with --save: the run history to record it in (default: "
                          "$AGENTMETRICS_HISTORY, else .agentmetrics/runs.sqlite)")
    evaluate.add_argument("--no-history", action="store_true",
                          help="with --save: do not record the run in a history")
    evaluate.add_argument("--label", default=None, help="with --save: the run's name in the "
                          "history")
    evaluate.add_argument("--config", action="append", default=None, metavar="KEY=VALUE",
                          help="with --save: what the run was made with, kept with it (repeat "
                          "it: --config model=gpt-4o --config commit=a1b2c3d; the values are "
                          "kept as text)")
    evaluate.set_defaults(run=_handler("evaluate"))


def _level(text: str) -> float:
    value = rate(text)
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"expected a level between 0 and 1, got {text!r}")
    return value


def _add_compare(commands: Any) -> None:

    parser = commands.add_parser(
        "compare",
        help="compare a candidate run against a baseline, case by case",
        description=(
            "Compare CANDIDATE against BASELINE on the cases both have: per metric the mean "
            "difference with its interval and p-value, the exact McNemar test of pass/fail "
            "flips, and the cases that got worse with both reasons. Each file is either "
            "test cases (scored here with --metric), a saved run (`agentmetrics evaluate "
            "--save`), or saved results (the rows of `agentmetrics evaluate --format jsonl`, "
            "its --format json, or a pytest --agentmetrics-report)."),
    )
    parser.add_argument("baseline", nargs="?", metavar="BASELINE",
                        help="the run to compare against (with --against: the new run)")
    parser.add_argument("candidate", nargs="?", metavar="CANDIDATE", help="the new run")
    parser.add_argument(
        "--against", default=None, metavar="RUN",
        help="the baseline is a run of the history: 'last', 'last~N' (N runs before it) or "
        "a run id (see `agentmetrics runs list`)")
    parser.add_argument("--history", default=None, metavar="FILE",
                        help="with --against: the run history (default: $AGENTMETRICS_HISTORY, "
                        "else .agentmetrics/runs.sqlite)")
    parser.add_argument("--html", default=None, metavar="PATH",
                        help="also write the comparison as a self-contained HTML page")
    parser.add_argument("--names", nargs=2, default=None, metavar=("BASELINE", "CANDIDATE"),
                        help="what to call the two sides in the report and the page "
                        "(default: the files' paths)")
    parser.add_argument(
        "--metric", action="append", metavar="NAME[:key=value,...]",
        help=f"for cases files: a metric to compute, repeatable (default: {DEFAULT_METRIC}); "
        f"for saved results: a metric to compare, as the results name it (default: all)")
    parser.add_argument(
        "--on", default="id", metavar="KEY",
        help="what pairs cases: 'id' (default), another metadata key (cases files), or "
        "'position'")
    parser.add_argument("--method", choices=("t", "permutation"), default="t",
                        help="the test of the mean difference: paired t (default) or a "
                        "sign-flip permutation test")
    parser.add_argument("--ci", type=_level, default=0.95, metavar="LEVEL",
                        help="confidence level of the intervals (default 0.95)")
    parser.add_argument("--resamples", type=positive, default=10_000, metavar="N",
                        help="random sign flips of the permutation test (default 10000)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the permutation test")
    parser.add_argument(
        "--fail-on-regression", action="store_true",
        help="exit 1 when the candidate is significantly worse on a metric: the interval of "
        "the score difference lies below 0 (in the metric's better direction), or "
        "significantly more cases went from pass to fail than from fail to pass; and when no "
        "case pairs at all (there is nothing to compare)")
    parser.add_argument(
        "--allow-empty", action="store_true",
        help="with --fail-on-regression: a comparison where no case pairs passes the gate "
        "(default: it fails, exit 1)")
    parser.add_argument("--show", type=positive, default=10, metavar="N",
                        help="regressions shown with their reasons (default 10)")
    parser.add_argument("--format", choices=("table", "json"), default="table",
                        help="a report to read (default) or one JSON document")
    parser.add_argument("--errors", choices=("raise", "record"), default="raise",
                        help="cases files: a line that cannot be scored stops the run "
                        "(raise) or is reported as an error row (record)")
    _add_cases_file_format(parser)
    parser.set_defaults(run=_handler("compare"))


def _add_cases_file_format(parser: Any) -> None:
    """``--input-format`` of a command whose runs may be cases files (compare, report)."""
    parser.add_argument("--input-format", choices=tuple(FORMATS), default=None,
                        metavar="NAME", help="cases files: the format of 'response' payloads")


def _add_report(commands: Any) -> None:

    parser = commands.add_parser(
        "report",
        help="write one self-contained HTML report of a run, or of two compared",
        description=(
            "Write one HTML file that opens anywhere, offline: the summary with intervals, "
            "histograms, the per-tool table, failing cases worst first with both call "
            "sequences, errors, repeated trials, a trend over saved runs and the provenance "
            "(--compare: the paired differences, pass/fail flips and regressions). A run is "
            "a cases file (scored here with --metric) or a run saved by `agentmetrics "
            "evaluate --save`. Without a RUN, --history [FILE] writes the run browser: one "
            "page over every run of the history, each run's report beside it."),
    )
    parser.add_argument("inputs", nargs="*", metavar="RUN",
                        help="a cases file or a saved run (two with --compare); none with "
                        "--history: the run browser")
    parser.add_argument("-o", "--output", default=None, metavar="PATH",
                        help="where to write the HTML file (required for a run; the run "
                        "browser's default: <history name>.html here)")
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
    parser.add_argument("--history", nargs="?", const="", default=None, metavar="FILE",
                        help="the run history for the trend (default: the default history, "
                        "when there is one); without a RUN, the history to browse (FILE "
                        "left out: the default one)")
    parser.add_argument("--no-history", action="store_true", help="leave the trend out")
    parser.add_argument("--no-reports", action="store_true",
                        help="the run browser: do not write each run's report and the "
                        "comparisons of consecutive runs beside it (faster)")
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
    parser.add_argument("--names", nargs="+", default=None, metavar="NAME",
                        help="what to call the run (with --compare: the baseline and the "
                        "candidate) on the page (default: a saved run's label in the run "
                        "history, else the file's path)")
    _add_cases_file_format(parser)
    parser.set_defaults(run=_handler("report"))


def _add_runs(commands: Any) -> None:
    parser = commands.add_parser(
        "runs", help="the history of saved runs",
        description="The runs recorded by `agentmetrics evaluate --save` and "
        "result.save(path), in a SQLite file (see `agentmetrics runs list --help`).")
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    listing = actions.add_parser(
        "list", help="the recorded runs, newest first",
        description="The recorded runs, newest first: id, when it ran, label, cases, and "
        "each metric's mean and pass rate (--format json: every column of the summary kept, "
        "with the saved file's path). Compare against one with `agentmetrics compare "
        "--against ID` (or last, last~N).")
    listing.add_argument("--history", default=None, metavar="FILE",
                         help="the run history (default: $AGENTMETRICS_HISTORY, else "
                         ".agentmetrics/runs.sqlite)")
    listing.add_argument("--limit", type=positive, default=None, metavar="N",
                         help="the N newest runs only")
    listing.add_argument("--format", choices=("table", "json"), default="table",
                         help="an aligned table (default) or one JSON document")
    listing.set_defaults(run=_handler("runs list"))


def _add_registry(commands: Any) -> None:
    listing = commands.add_parser(
        "list", help="list the installed metrics with their metadata (imports each plugin)"
    )
    listing.add_argument("--json", action="store_true", help="print JSON for machines")
    listing.set_defaults(run=_handler("list"))

    describe = commands.add_parser("describe", help="show one metric's metadata")
    describe.add_argument("name", metavar="NAME", help="registry name, class name or distribution/name")
    describe.add_argument("--json", action="store_true", help="print JSON for machines")
    describe.set_defaults(run=_handler("describe"))
