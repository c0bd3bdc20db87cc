"""The ``agentmetrics`` command: ``evaluate`` test cases, ``list`` and ``describe`` metrics.

Exit status: 0 when done (and every pass rate reaches --fail-under), 1 when a
metric's pass rate is below --fail-under or the metric described is broken, 2
on bad input or usage.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from fractions import Fraction
from collections.abc import Sequence
from typing import IO, Any

from agentmetrics._dataset import example_cases, numbered_cases
from agentmetrics._metric import Metric
from agentmetrics.errors import (
    AgentMetricsError,
    CaseEvaluationError,
    EvaluationInterrupted,
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
)
from agentmetrics._streaming import CHUNK_CASES, RunningSummary
from agentmetrics.registry import MetricDescription, describe_metric, describe_metrics, get_metric

__all__ = ["main", "parse_metric_spec"]

EXAMPLE_CASES = "tau2_airline.jsonl"
#: The built-in, named by its distribution: another package that also claims
#: the name must not make a plain `agentmetrics evaluate` ambiguous.
DEFAULT_METRIC = "agentmetrics/tool_selection_accuracy"


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, braces and quotes, so a
    JSON list or object value keeps its own commas."""
    parts, depth, quote, start = [], 0, "", 0
    escaped = False
    for position, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return parts


def parse_metric_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name[:key=value,...]`` into a name and parameters.

    Values are read as JSON when they parse (``0.9``, ``true``, ``["a", "b"]``)
    and kept as strings otherwise; commas inside brackets, braces or quotes
    belong to the value.

    >>> parse_metric_spec("tool_selection_accuracy:threshold=0.9,order_matters=true")
    ('tool_selection_accuracy', {'threshold': 0.9, 'order_matters': True})
    >>> parse_metric_spec('trajectory_match:args=["a", "b"],mode=strict')
    ('trajectory_match', {'args': ['a', 'b'], 'mode': 'strict'})
    """
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in _split_top_level(rest))):
        key, equals, raw = item.partition("=")
        if not equals or not key.strip():
            raise InvalidParameterError(
                f"--metric {spec!r}: expected key=value after the colon, got {item!r}. "
                f"Fix: write e.g. --metric {name}:threshold=0.9"
            )
        try:
            params[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            params[key.strip()] = raw
    return name.strip(), params


_CONTROL = {code: f"\\x{code:02x}" for code in [*range(32), 127]}
_CONTROL.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})


def _cell(text: str) -> str:
    """A table cell on one line: newlines, tabs and terminal escapes (ANSI
    sequences start with ESC) shown escaped, never acted on."""
    return text.translate(_CONTROL)


def _print_table(rows: list[list[str]], out: IO[str], right: frozenset[int] = frozenset(),
                 widths: list[int] | None = None) -> list[int]:
    """Print aligned rows; ``widths`` keeps the columns of an earlier part of
    the same table (a later chunk of rows lines up with the first). Returns the
    widths used."""
    rows = [[_cell(cell) for cell in row] for row in rows]
    if widths is None:
        widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    for row in rows:
        cells = [
            cell.rjust(width) if col in right else cell.ljust(width)
            for col, (cell, width) in enumerate(zip(row, widths))
        ]
        out.write("  ".join(cells).rstrip() + "\n")
    return widths


class _Rows:
    """Writes each chunk's rows in the chosen format, then the end of the output."""

    columns: tuple[str, ...] = ("case", "id", "metric", "value", "passed", "threshold",
                                "reason", "error")
    count_columns = ("calls", "expected_calls")

    def __init__(self, out: IO[str], form: str, counts: bool = False) -> None:
        self.out = out
        self.form = form
        self.counts = counts
        self.widths: list[int] | None = None  # the table's columns, set by the first chunk
        if counts:
            self.columns = self.columns + self.count_columns
        self.first = True
        if form == "csv":
            import csv

            self.csv = csv.writer(out, lineterminator="\n")
            self.csv.writerow(self.columns)
        elif form == "json":
            out.write('{"results": [')

    def write(self, offset: int, result: Any) -> None:
        batch = result.batch
        records: list[tuple[Any, ...]] = []
        counts: tuple[Any, ...] = ()
        for row in range(len(batch)):
            case_id = batch.case_id(row)
            if self.counts:
                counts = (_count(batch.called_offsets, batch.called_given, row),
                          _count(batch.expected_offsets, batch.expected_given, row))
            for label in result.metrics:
                scores = result[label]
                error = scores.errors.get(row)
                value = float(scores.values[row])
                records.append((
                    offset + row, case_id, label, None if error else value,
                    bool(scores.passed[row]), scores.metric.threshold,
                    None if error else scores.reason(row), error,
                ) + counts)
        if self.form == "table":
            table = [[str(r[0] if r[1] is None else r[1]), r[2],
                      "-" if r[3] is None else f"{r[3]:.2f}",
                      "ERROR" if r[7] else ("PASS" if r[4] else "FAIL"),
                      *(["-" if c is None else str(c) for c in r[8:10]] if self.counts else []),
                      r[7] or r[6] or ""] for r in records]
            if self.first and table:
                table.insert(0, ["case", "metric", "value", "result",
                                 *(["calls", "expected"] if self.counts else []), "reason"])
            if table:
                self.widths = _print_table(table, self.out, right=frozenset({2}),
                                           widths=self.widths)
        elif self.form == "csv":
            self.csv.writerows(["" if v is None else v for v in r] for r in records)
        else:
            for record in records:
                text = _json(dict(zip(self.columns, record)))
                if self.form == "json":
                    text = ("\n  " if self.first else ",\n  ") + text
                else:
                    text += "\n"
                self.out.write(text)
                self.first = False
        self.first = self.first and not records

    def finish(self, summaries: list[RunningSummary], fail_under: float) -> None:
        if self.form == "json":
            rows = [_summary_record(summary) for summary in summaries]
            self.out.write("\n],\n" + f'"summary": {_json(rows, indent=2)},\n'
                           + f'"fail_under": {fail_under}}}\n')


def _finite(value: Any) -> Any:
    """NaN and infinities as null: JSON has neither, and output must stay JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def _json(value: Any, indent: int | None = None) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr, allow_nan=False, indent=indent)
    except ValueError:  # a non-finite float somewhere (an id read from a DataFrame, say)
        return json.dumps(_finite(value), ensure_ascii=False, default=repr, allow_nan=False,
                          indent=indent)


def _count(offsets: Any, given: Any, row: int) -> int | None:
    """How many calls were read for one side of a row; None when not given."""
    return int(offsets[row + 1] - offsets[row]) if given[row] else None


def _summary_record(summary: RunningSummary) -> dict[str, Any]:
    finite = summary.scored > 0
    return {
        "metric": summary.label,
        "config": repr(summary.metric),
        "cases": summary.n,
        "mean": summary.mean if finite else None,
        "min": summary.low if finite else None,
        "max": summary.high if finite else None,
        "passed": summary.passed,
        "pass_rate": summary.pass_rate if summary.n else None,
        "errors": summary.errors,
        "threshold": summary.metric.threshold,
    }


def _print_summary(summaries: list[RunningSummary], out: IO[str]) -> None:
    table = [["metric", "cases", "mean", "min", "max", "passed", "pass rate", "errors",
              "threshold"]]
    for summary in summaries:
        scored = summary.scored > 0
        table.append([
            repr(summary.metric),
            str(summary.n),
            f"{summary.mean:.3f}" if scored else "-",
            f"{summary.low:.2f}" if scored else "-",
            f"{summary.high:.2f}" if scored else "-",
            f"{summary.passed}/{summary.n}",
            f"{summary.pass_rate:.1%}" if summary.n else "-",
            str(summary.errors),
            f"{summary.metric.threshold:g}",
        ])
    out.write("Summary\n")
    _print_table(table, out, right=frozenset(range(1, 9)))


def _build_metric(spec: str) -> Metric:
    name, params = parse_metric_spec(spec)
    try:
        return get_metric(name, **params)
    except AgentMetricsError:
        raise
    except Exception as error:  # the plugin's own __init__ failed
        raise InvalidMetricError(
            f"--metric {spec!r}: the metric could not be built: {type(error).__name__}: "
            f"{error}. Fix: check its parameters (`agentmetrics describe {name}`), or report "
            f"it to the metric's author."
        ) from error


class _Lines:
    """The input line of each case not yet written: scoring errors name file:line."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.numbers: list[int] = []
        self.first_row = 0  # the global row of numbers[0]

    def track(self, numbered: Any) -> Any:
        for number, case in numbered:
            self.numbers.append(number)
            yield case

    def done(self, rows: int) -> None:
        del self.numbers[:rows]
        self.first_row += rows

    def where(self, row: int) -> str:
        index = row - self.first_row
        if 0 <= index < len(self.numbers):
            return f"{self.source}:{self.numbers[index]}"
        return f"case {row}"


def _evaluate(args: argparse.Namespace, out: IO[str]) -> int:
    metrics = [_build_metric(spec) for spec in args.metric or [DEFAULT_METRIC]]

    cases: Any
    lines: _Lines | None = None
    if args.file is None:
        cases = example_cases()
        source = f"bundled example: {EXAMPLE_CASES} (tau2-bench airline runs)"
    else:
        options = {"errors": args.errors, "input_format": args.input_format,
                   "hosted_tools": not args.no_hosted_tools}
        if args.file == "-":
            # Bytes: encodings are detected per file, a bad byte spoils one line only.
            stdin = None if sys.stdin is None else getattr(sys.stdin, "buffer", sys.stdin)
            source = "<stdin>"
            lines = _Lines(source)
            cases = lines.track(numbered_cases(stdin, **options))
        else:
            source = args.file
            lines = _Lines(source)
            cases = lines.track(numbered_cases(args.file, **options))

    from agentmetrics._progress import Progress
    from agentmetrics._streaming import score_stream

    rows = _Rows(out, args.format, counts=args.counts)
    with Progress(None, enabled=sys.stderr.isatty()) as bar:

        def on_chunk(offset: int, result: Any) -> None:
            rows.write(offset, result)
            if lines is not None:
                lines.done(len(result))
            bar.update(len(result))

        try:
            summaries = score_stream(
                cases, metrics, errors=args.errors, on_chunk=on_chunk,
                chunk_size=args.chunk_size, concurrency=args.concurrency, timeout=args.timeout,
                retries=args.retries, max_rate=args.max_rate, cache=args.cache)
        except EvaluationInterrupted as stop:
            summaries = stop.result  # type: ignore[assignment]
            rows.finish(summaries, args.fail_under)
            report = out if args.format == "table" else sys.stderr
            _print_summary(summaries, report)
            sys.stderr.write(f"\nagentmetrics: interrupted; the {summaries[0].n} cases above "
                             f"were written" + (", and every score computed is in the cache "
                                                f"{args.cache}" if args.cache else "")
                             + ". Run again to go on.\n")
            return INTERRUPTED
        except CaseEvaluationError as error:
            where = lines.where(error.index) if lines is not None else f"case {error.index}"
            named = where if error.case_id is None else f"{where} (id {error.case_id!r})"
            raise InvalidCaseError(
                f"{named}: could not be scored by {error.metric!r}: {error.message} Fix the "
                f"case, or pass --errors record to score the rest and report it."
            ) from None
        except (AgentMetricsError, OSError):
            raise  # OSError: writing the rows failed (a closed pipe), not a metric
        except Exception as error:  # a bug in a metric: no traceback, say whose it is
            if isinstance(error, ValueError) and "closed file" in str(error):
                raise  # stdout closed while writing
            raise InvalidMetricError(
                f"metric bug: {type(error).__name__}: {error}"
                + "".join(f" ({note})" for note in getattr(error, "__notes__", ()))
                + ". Fix: report it to the metric's author, or run with --errors record to "
                "score the rest (its rows then carry the error)."
            ) from error
    rows.finish(summaries, args.fail_under)

    # Tables get the summary on stdout; machine formats keep stdout for data.
    report = out if args.format == "table" else sys.stderr
    if args.format == "table":
        out.write(f"\nScored {summaries[0].n if summaries else 0} cases from {source}\n\n")
    _print_summary(summaries, report)
    # passed / n < fail_under, in exact arithmetic: no rounding decides a gate.
    failing = [s for s in summaries if s.n and Fraction(s.passed, s.n) < Fraction(args.fail_under)]
    if failing:
        report.write("\n" + "".join(
            f"FAILED: {s.label} passed {s.passed} of {s.n} cases ({s.passed / s.n:.4g}), below "
            f"--fail-under {args.fail_under:g}\n" for s in failing))
        return 1
    return 0


def _description_record(described: MetricDescription) -> dict[str, Any]:
    info = described.info
    return {
        "name": info.name,
        "class": info.class_name,
        "target": info.target,
        "distribution": info.distribution,
        "version": info.version,
        "requires_llm_judge": described.requires_llm_judge,
        "higher_is_better": described.higher_is_better,
        "required_fields": None if described.required_fields is None else list(described.required_fields),
        "default_threshold": described.default_threshold,
        "parameters": None if described.parameters is None else {
            key: value if value is None or isinstance(value, (str, int, float, bool)) else repr(value)
            for key, value in described.parameters.items()
        },
        "description": described.description,
        "needs": list(described.needs),
        "shadows": info.shadows,
        "shadowed_by": info.shadowed_by,
        "error": described.error,
    }


def _yes_no(value: bool | None) -> str:
    return "-" if value is None else ("yes" if value else "no")


def _list(args: argparse.Namespace, out: IO[str]) -> int:
    described = describe_metrics()
    if args.json:
        out.write(json.dumps([_description_record(d) for d in described], indent=2) + "\n")
        return 0
    table = [["name", "class", "distribution", "version", "llm judge", "required fields",
              "description"]]
    for entry in described:
        info = entry.info
        if entry.error is not None:
            description = f"BROKEN: {entry.info.error or entry.error}"
        elif info.shadowed_by:
            description = f"SHADOWED in this process by {info.shadowed_by}"
        else:
            description = entry.description or "-"
        table.append([
            info.name,
            info.class_name,
            info.distribution or (f"(in process, shadows {info.shadows})" if info.shadows
                                  else "(registered in process)"),
            info.version or "-",
            _yes_no(entry.requires_llm_judge),
            ", ".join(entry.required_fields) if entry.required_fields is not None else "-",
            description,
        ])
    _print_table(table, out)
    return 0


def _describe(args: argparse.Namespace, out: IO[str]) -> int:
    described = describe_metric(args.name)
    if args.json:
        out.write(json.dumps(_description_record(described), indent=2) + "\n")
        return 1 if described.error else 0
    info = described.info
    module, _, attribute = info.target.partition(":")
    source = "registered in this process" if info.distribution is None else (
        f"{info.distribution} {info.version or ''}".rstrip()
    )
    parameters = described.parameters
    rows = [
        ("name", info.name),
        ("class", f"{attribute} (from {module})"),
        ("distribution", source),
    ]
    if info.shadows:
        rows.append(("shadows", info.shadows))
    if info.shadowed_by:
        rows.append(("shadowed by", f"{info.shadowed_by} (plain-name lookups find it)"))
    if described.error is None:
        assert parameters is not None and described.required_fields is not None
        rows += [
            ("description", described.description or "-"),
            ("requires LLM judge", _yes_no(described.requires_llm_judge)),
            ("higher is better", _yes_no(described.higher_is_better)),
            ("required fields", ", ".join(described.required_fields) or "none"),
            ("default threshold", f"{described.default_threshold:g}"),
            ("parameters", ", ".join(f"{k}={v!r}" for k, v in parameters.items()) or "none"),
            ("status", f"ok (needs {', '.join(described.needs)})" if described.needs else "ok"),
        ]
    else:
        rows.append(("status", f"broken: {described.error}"))
    width = len("requires LLM judge")  # the longest key, broken or not
    for key, value in rows:
        out.write(f"{key + ':':<{width + 2}}{value}\n")
    return 1 if described.error else 0


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _non_negative(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected 0 or more, got {text!r}")
    return value


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {text!r}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="agentmetrics",
        description="Score how LLM agents use tools.",
    )
    from agentmetrics import __version__

    parser.add_argument("--version", action="version", version=f"agentmetrics {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    evaluate = commands.add_parser(
        "evaluate",
        help="score JSONL test cases and print a table and a summary",
        description=(
            "Score JSONL test cases (one object a line: tool_calls, expected_tool_calls, "
            "optional id, input, actual_output, metadata). With no FILE, scores the "
            "bundled tau2-bench airline example."
        ),
    )
    evaluate.add_argument("file", nargs="?", metavar="FILE", help="a .jsonl file, or - for stdin")
    evaluate.add_argument(
        "--metric",
        action="append",
        metavar="NAME[:key=value,...]",
        help=f"a metric to compute, repeatable (default: {DEFAULT_METRIC})",
    )
    evaluate.add_argument(
        "--format",
        choices=("table", "json", "csv", "jsonl"),
        default="table",
        help="how to print the rows: an aligned table (default), JSON, CSV or JSON lines; "
        "with csv and jsonl the summary goes to stderr",
    )
    from agentmetrics.formats import FORMATS

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
        type=_positive,
        default=None,
        metavar="N",
        help="cases in flight at once for metrics that wait (an LLM judge); default 16",
    )
    evaluate.add_argument(
        "--timeout", type=_seconds, default=None, metavar="S",
        help="seconds per attempt for metrics that wait; longer is a transient failure",
    )
    evaluate.add_argument(
        "--retries", type=_non_negative, default=0, metavar="R",
        help="retries after a timeout or a transient failure (backoff with jitter)",
    )
    evaluate.add_argument(
        "--max-rate", type=_seconds, default=None, metavar="QPS",
        help="at most QPS attempts a second per metric that waits",
    )
    evaluate.add_argument(
        "--cache", default=None, metavar="PATH",
        help="a SQLite file keeping every score of a metric that waits, reused by later runs",
    )
    evaluate.add_argument(
        "--chunk-size",
        type=_positive,
        default=CHUNK_CASES,
        metavar="N",
        help="cases read and scored at a time; memory depends on N, not on the file size",
    )
    evaluate.add_argument(
        "--fail-under",
        type=_rate,
        default=0.0,
        metavar="RATE",
        help="exit 1 when a metric's pass rate is below RATE (default 0)",
    )
    evaluate.set_defaults(run=_evaluate)

    listing = commands.add_parser(
        "list", help="list the installed metrics with their metadata (imports each plugin)"
    )
    listing.add_argument("--json", action="store_true", help="print JSON for machines")
    listing.set_defaults(run=_list)

    describe = commands.add_parser("describe", help="show one metric's metadata")
    describe.add_argument("name", metavar="NAME", help="registry name, class name or distribution/name")
    describe.add_argument("--json", action="store_true", help="print JSON for machines")
    describe.set_defaults(run=_describe)
    return parser


#: The exit status of a command whose reader went away (128 + SIGPIPE), as Unix tools give.
BROKEN_PIPE = 141
#: The exit status after Ctrl-C (128 + SIGINT), once what was scored is written.
INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = sys.stdout
    if out is None:
        print("agentmetrics: error: standard output is closed; expected somewhere to write "
              "the results. Fix: redirect it to a file or to /dev/null.", file=sys.stderr)
        return 2
    if hasattr(out, "reconfigure"):
        out.reconfigure(errors="backslashreplace")  # a lone surrogate never stops the output
    try:
        status: int = args.run(args, out)
        out.flush()
        return status
    except BrokenPipeError:
        # The reader (`| head`) has what it wanted: stop quietly, as Unix tools do.
        _quiet_stdout()
        return BROKEN_PIPE
    except (AgentMetricsError, OSError) as error:
        print(f"agentmetrics: error: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        if "closed file" not in str(error):
            raise
        print("agentmetrics: error: standard output was closed while writing. Fix: keep it "
              "open, or redirect it to a file.", file=sys.stderr)
        return 2


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush cannot
    raise BrokenPipeError again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
