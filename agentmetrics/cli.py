"""The ``agentmetrics`` command: ``evaluate`` test cases, ``list`` metrics.

Exit status: 0 when done (and every pass rate reaches --fail-under), 1 when a
metric's pass rate is below --fail-under, 2 on bad input or usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO, Any

from agentmetrics._dataset import example_cases, read_cases
from agentmetrics.errors import AgentMetricsError, InvalidParameterError
from agentmetrics.registry import get_metric, list_metrics

__all__ = ["main", "parse_metric_spec"]

EXAMPLE_CASES = "tau2_airline.jsonl"
DEFAULT_METRIC = "tool_selection_accuracy"


def parse_metric_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name[:key=value,...]`` into a name and parameters.

    Values are read as JSON when they parse (``0.9``, ``true``) and kept as
    strings otherwise.

    >>> parse_metric_spec("tool_selection_accuracy:threshold=0.9,order_matters=true")
    ('tool_selection_accuracy', {'threshold': 0.9, 'order_matters': True})
    """
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in rest.split(","))):
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


def _print_table(rows: list[list[str]], out: IO[str], right: frozenset[int] = frozenset()) -> None:
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    for row in rows:
        cells = [
            cell.rjust(width) if col in right else cell.ljust(width)
            for col, (cell, width) in enumerate(zip(row, widths))
        ]
        out.write("  ".join(cells).rstrip() + "\n")


def _evaluate(args: argparse.Namespace, out: IO[str]) -> int:
    specs = args.metric or [DEFAULT_METRIC]
    metrics = []
    for spec in specs:
        name, params = parse_metric_spec(spec)
        metrics.append(get_metric(name, **params))

    if args.file is None:
        cases = example_cases()
        label_of_source = f"bundled example: {EXAMPLE_CASES} (tau2-bench airline runs)"
    elif args.file == "-":
        cases = list(read_cases(sys.stdin))
        label_of_source = "<stdin>"
    else:
        cases = list(read_cases(args.file))
        label_of_source = args.file

    from agentmetrics._evaluate import evaluate  # numpy only when scoring

    result = evaluate(cases, metrics, progress=False)
    labels = result.metrics
    table = [["case", "metric", "value", "result", "reason"]]
    for row in range(len(cases)):
        case_id = result.batch.case_id(row)
        case_label = str(row if case_id is None else case_id)
        for label in labels:
            scores = result[label]
            table.append([
                case_label,
                scores.metric.name,
                f"{scores.values[row]:.2f}",
                "PASS" if scores.passed[row] else "FAIL",
                scores.reason(row),
            ])
    out.write(f"Scored {len(cases)} cases from {label_of_source}\n\n")
    if len(table) > 1:
        _print_table(table, out, right=frozenset({2}))

    summary = [["metric", "cases", "mean", "min", "max", "passed", "pass rate", "threshold"]]
    status = 0
    for row_summary, label in zip(result.summary(), labels):
        metric = result[label].metric
        n, passed = row_summary["n"], row_summary["passed"]
        rate = passed / n if n else 1.0
        if rate < args.fail_under:
            status = 1
        summary.append([
            repr(metric),
            str(n),
            f"{row_summary['mean']:.3f}" if n else "-",
            f"{row_summary['min']:.2f}" if n else "-",
            f"{row_summary['max']:.2f}" if n else "-",
            f"{passed}/{n}",
            f"{rate:.1%}",
            f"{metric.threshold:g}",
        ])
    out.write("\nSummary\n")
    _print_table(summary, out, right=frozenset({1, 2, 3, 4, 5, 6, 7}))
    if status:
        out.write(f"\nFAILED: a pass rate is below --fail-under {args.fail_under:g}\n")
    return status


def _list(args: argparse.Namespace, out: IO[str]) -> int:
    infos = list_metrics()
    if args.json:
        records = [
            {
                "name": info.name,
                "class": info.class_name,
                "target": info.target,
                "distribution": info.distribution,
                "version": info.version,
                "error": info.error,
            }
            for info in infos
        ]
        out.write(json.dumps(records, indent=2) + "\n")
        return 0
    table = [["name", "class", "distribution", "version", "status"]]
    for info in infos:
        table.append([
            info.name,
            info.class_name,
            info.distribution or "(registered in process)",
            info.version or "-",
            f"broken: {info.error}" if info.error else "ok",
        ])
    _print_table(table, out)
    return 0


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
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
        "--fail-under",
        type=_rate,
        default=0.0,
        metavar="RATE",
        help="exit 1 when a metric's pass rate is below RATE (default 0)",
    )
    evaluate.set_defaults(run=_evaluate)

    listing = commands.add_parser("list", help="list the installed metrics")
    listing.add_argument("--json", action="store_true", help="print JSON for machines")
    listing.set_defaults(run=_list)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args, sys.stdout)
        return status
    except (AgentMetricsError, OSError) as error:
        print(f"agentmetrics: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
