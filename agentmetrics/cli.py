"""The ``agentmetrics`` command: ``evaluate`` test cases, ``list`` and ``describe`` metrics.

Exit status: 0 when done (and every pass rate reaches --fail-under), 1 when a
metric's pass rate is below --fail-under or the metric described is broken, 2
on bad input or usage.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import IO, Any

from agentmetrics._dataset import example_cases, read_cases
from agentmetrics.errors import AgentMetricsError, InvalidParameterError
from agentmetrics.registry import MetricDescription, describe_metric, describe_metrics, get_metric

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
        table.append([
            info.name,
            info.class_name,
            info.distribution or "(registered in process)",
            info.version or "-",
            _yes_no(entry.requires_llm_judge),
            ", ".join(entry.required_fields) if entry.required_fields is not None else "-",
            (entry.description or "-") if entry.error is None
            else f"BROKEN: {entry.info.error or entry.error}",
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
    if described.error is None:
        assert parameters is not None and described.required_fields is not None
        rows += [
            ("description", described.description or "-"),
            ("requires LLM judge", _yes_no(described.requires_llm_judge)),
            ("higher is better", _yes_no(described.higher_is_better)),
            ("required fields", ", ".join(described.required_fields) or "none"),
            ("default threshold", f"{described.default_threshold:g}"),
            ("parameters", ", ".join(f"{k}={v!r}" for k, v in parameters.items()) or "none"),
            ("status", "ok"),
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
