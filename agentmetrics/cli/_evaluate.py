"""``agentmetrics evaluate``: score a JSONL file chunk by chunk, print rows and a summary."""

from __future__ import annotations

import argparse
import gc
import math
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import IO, Any, NamedTuple

from agentmetrics._base._progress import Progress
from agentmetrics._secrets import mask_tokens, mask_value
from agentmetrics.cli._common import (
    DEFAULT_METRIC,
    INTERRUPTED,
    build_metric,
    output_width,
    print_table,
    to_json,
)
from agentmetrics.engine._evaluate import score_cases
from agentmetrics.engine._streaming import RunningSummary, score_chunks
from agentmetrics.errors import (
    AgentMetricsError,
    CaseEvaluationError,
    EvaluationInterrupted,
    InvalidCaseError,
    InvalidMetricError,
    InvalidParameterError,
)
from agentmetrics.io._input import open_input
from agentmetrics.results._config import RunConfig, run_config, shown_config_value
from agentmetrics.results._results import EvaluationResult
from agentmetrics.results._corpus import aggregates_table
from agentmetrics.results._summary import Summary

__all__ = ["run_evaluate"]


class Row(NamedTuple):
    """One output row: a case scored by one metric (the CSV and JSON columns,
    in order; the counts only with ``--counts``)."""

    case: int
    id: Any
    metric: str
    value: float | None
    passed: bool
    threshold: float
    reason: str | None
    error: str | None
    calls: int | None = None
    expected_calls: int | None = None


class _Rows:
    """Writes each chunk's rows in the chosen format, then the end of the output."""

    columns: tuple[str, ...] = Row._fields[:8]
    count_columns = Row._fields[8:]

    def __init__(self, out: IO[str], form: str, counts: bool = False,
                 where: Callable[[int], str] | None = None) -> None:
        self.out = out
        self.form = form
        self.counts = counts
        # A table row without an id is named by its place, said in words: "line 3"
        # (1-based, as error messages count lines) or "row 2" (Parquet, 0-based).
        self.where = where or (lambda row: f"case {row}")
        self.width = output_width(out)
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
        if self.form == "summary":
            return  # the summary alone: no row is rendered
        # A chunk's rows are tens of thousands of new lists and strings, none in a
        # cycle: the cyclic collector would scan them again and again (measured:
        # a quarter of the time). It runs again once the chunk is written.
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._write(offset, result)
        finally:
            if enabled:
                gc.enable()

    def _write(self, offset: int, result: Any) -> None:
        batch = result.batch
        if self.form == "jsonl" and not self.counts:
            lines = _jsonl_rows(offset, result)
            for start in range(0, len(lines), 256):  # a closed pipe stops the run soon
                self.out.write("".join(lines[start:start + 256]))
            return
        records: list[Row] = []
        counts: tuple[int | None, ...] = ()
        columns = [(label, result[label], result[label].values.tolist(),
                    result[label].passed.tolist(), result[label].reason_list())
                   for label in result.metrics]  # each metric's reasons in one call
        for row in range(len(batch)):
            case_id = batch.case_id(row)
            if self.counts:
                counts = (_count(batch.called_offsets, batch.called_given, row),
                          _count(batch.expected_offsets, batch.expected_given, row))
            for label, scores, values, passed, reasons in columns:
                error = scores.errors.get(row)
                records.append(Row(
                    offset + row, case_id, label, None if error else values[row],
                    passed[row], scores.metric.threshold, None if error else reasons[row],
                    error, *counts,
                ))
        if self.form == "table":
            table = [[self.where(r.case) if r.id is None else str(r.id), r.metric,
                      "-" if r.value is None else f"{r.value:.2f}",
                      "ERROR" if r.error else ("PASS" if r.passed else "FAIL"),
                      *(["-" if c is None else str(c) for c in (r.calls, r.expected_calls)]
                        if self.counts else []),
                      r.error or r.reason or ""] for r in records]
            if self.first and table:
                table.insert(0, ["case", "metric", "value", "result",
                                 *(["calls", "expected"] if self.counts else []), "reason"])
            if table:
                self.widths = print_table(table, self.out, right=frozenset({2}),
                                           widths=self.widths, width=self.width)
        elif self.form == "csv":
            width = len(self.columns)
            self.csv.writerows(["" if v is None else v for v in r[:width]] for r in records)
        else:
            for record in records:
                text = to_json(dict(zip(self.columns, record)))
                if self.form == "json":
                    text = ("\n  " if self.first else ",\n  ") + text
                else:
                    text += "\n"
                self.out.write(text)
                self.first = False
        self.first = self.first and not records

    def finish(self, summaries: list[RunningSummary], fail_under: float) -> None:
        if self.form == "json":
            rows = _summary_records(summaries)
            aggregates = [{key: _finite(value) for key, value in row.items()}
                          for row in _aggregates(summaries)]
            self.out.write("\n],\n" + f'"summary": {to_json(rows, indent=2)},\n'
                           + f'"aggregates": {to_json(aggregates, indent=2)},\n'
                           + f'"fail_under": {fail_under}}}\n')



def _jsonl_rows(offset: int, result: Any) -> list[str]:
    """The JSON lines of a chunk's rows, as ``to_json`` of each row's record
    gives them (tested equal), built column by column: each column's text made
    by one ``map`` of a builtin, the parts that are the same on every row once."""
    from json.encoder import encode_basestring as encode  # what json.dumps uses for a str

    batch = result.batch
    rows = len(batch)
    ids = batch.case_ids
    heads = [f'{{"case": {number}, "id": ' for number in range(offset, offset + rows)]
    if ids is None:
        id_texts: list[str] = ["null"] * rows
    else:
        id_texts = [encode(case_id) if type(case_id) is str else to_json(case_id)
                    for case_id in ids]
    per_metric = []
    for label in result.metrics:
        scores = result[label]
        metric = f', "metric": {encode(label)}, "value": '
        threshold = f', "threshold": {to_json(scores.metric.threshold)}, "reason": '
        values = list(map(float.__repr__, scores.values.tolist()))
        passed = [', "passed": true' if flag else ', "passed": false'
                  for flag in scores.passed.tolist()]
        reasons = list(map(encode, scores.reason_list()))
        lines = [f"{head}{case_id}{metric}{value}{flag}{threshold}{reason}, \"error\": null}}\n"
                 for head, case_id, value, flag, reason
                 in zip(heads, id_texts, values, passed, reasons)]
        for row, message in scores.errors.items():
            lines[row] = (f'{heads[row]}{id_texts[row]}{metric}null, "passed": false{threshold}'
                          f'null, "error": {encode(message)}}}\n')
        per_metric.append(lines)
    if len(per_metric) == 1:
        return per_metric[0]
    return [line for lines in zip(*per_metric) for line in lines]  # row by row


def _count(offsets: Any, given: Any, row: int) -> int | None:
    """How many calls were read for one side of a row; None when not given."""
    return int(offsets[row + 1] - offsets[row]) if given[row] else None


#: The summary's columns the printed table shows, to stay within 100 columns;
#: ``--format json`` holds every column of the summary.
PRINTED_COLUMNS = ("metric", "n", "mean", "mean_low", "mean_high", "pass_rate", "pass_low",
                   "pass_high", "errors")
#: The aggregates table's columns the printed table shows (``--format json``: all).
AGGREGATE_PRINTED = ("metric", "aggregate", "value", "low", "high", "n", "note")
#: The level of the summary's intervals.
CI = 0.95


def _summary(summaries: list[RunningSummary]) -> Any:
    """The run's :class:`~agentmetrics.results._summary.Summary`, from each metric's
    moments: the numbers ``evaluate(...).summary()`` gives on the same cases."""
    return Summary.from_moments([summary.moments for summary in summaries], CI)


def _summary_records(summaries: list[RunningSummary]) -> list[dict[str, Any]]:
    """The summary's rows for ``--format json``: every column of the summary
    (NaN as null), then ``config``, the configuration each label stands for."""
    return [{**{key: _finite(value) for key, value in row.items()},
             "unit": type(summary.metric).unit, "config": repr(summary.metric)}
            for row, summary in zip(_summary(summaries), summaries)]


def _aggregates(summaries: list[RunningSummary]) -> Any:
    """The run's corpus aggregates table, from each metric's merged state: the
    table ``evaluate(...).aggregates()`` gives on the same cases."""
    return aggregates_table([summary.corpus for summary in summaries
                             if summary.corpus is not None], CI)


def _finite(value: Any) -> Any:
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _print_summary(summaries: list[RunningSummary], out: IO[str]) -> None:
    out.write(_summary(summaries).select(*PRINTED_COLUMNS).render() + "\n")
    aggregates = _aggregates(summaries)
    if len(aggregates):
        out.write("\n" + aggregates.select(*AGGREGATE_PRINTED).render() + "\n")
    # Each label with the configuration it stands for: what a rerun must pass.
    print_table([[f"{summary.label}:", repr(summary.metric)] for summary in summaries], out,
                width=output_width(out))



def _config(pairs: list[str] | None) -> dict[str, str]:
    """``--config KEY=VALUE`` (repeated) as a configuration: each value its
    text; a key given twice with two values is refused."""
    config: dict[str, str] = {}
    for pair in pairs or ():
        key, equals, value = pair.partition("=")
        if not equals or not key.strip():
            shown = mask_tokens(mask_value(pair))  # a URL given without its key: masked
            raise InvalidParameterError(
                f"--config: expected KEY=VALUE (a name, '=', then the value), got "
                f"{shown!r:.80}. Fix: e.g. --config model=gpt-4o --config commit=a1b2c3d.")
        key = key.strip()
        if key in config and config[key] != value:
            before, after = (shown_config_value(key, text) for text in (config[key], value))
            raise InvalidParameterError(
                f"--config: {key!r} is given twice, as {before!r:.60} and {after!r:.60}; "
                f"expected each key once. Fix: keep the one the run was made with.")
        config[key] = value
    return config


def run_evaluate(args: argparse.Namespace, out: IO[str]) -> int:
    config = run_config(_config(args.config), "--config")  # said before scoring
    if args.save is not None:
        from agentmetrics.runs._format import form_of  # saving only: runs/ stays out of a plain run's start

        form_of(args.save, None)  # a name whose form is unknown: said before scoring
    else:
        given = [flag for flag, value in (("--history", args.history is not None),
                                          ("--no-history", args.no_history),
                                          ("--label", args.label is not None),
                                          ("--config", bool(args.config))) if value]
        if given:
            raise InvalidParameterError(
                f"{given[0]}: it says how --save records the run, and no --save was given. "
                f"Fix: add --save run.jsonl (or .parquet), or leave {given[0]} out.")
    metrics = [build_metric(spec) for spec in args.metric or [DEFAULT_METRIC]]


    # What score_chunks reads: lists of cases, or ToolCallBatches from Arrow.
    opened = open_input(args.file, chunk_size=args.chunk_size, errors=args.errors,
                       input_format=args.input_format, hosted_tools=not args.no_hosted_tools,
                       # a run saved keeps its cases' metadata and fields: read them
                       names_only=not args.save and all(metric.scores_from_names()
                                                        for metric in metrics),
                       reader=args.reader)
    chunks, lines, source = opened.chunks, opened.places, opened.source

    rows = _Rows(out, args.format, counts=args.counts,
                 where=lines.label if lines is not None else None)
    kept: list[Any] = []  # the chunks' results, for --save
    with Progress(None, enabled=sys.stderr.isatty()) as bar:

        def on_chunk(offset: int, result: Any) -> None:
            if args.save:
                kept.append(result)
            rows.write(offset, result)
            if lines is not None:
                lines.done(len(result))
            bar.update(len(result))

        try:
            summaries = score_chunks(
                chunks, metrics, errors=args.errors, on_chunk=on_chunk,
                concurrency=args.concurrency, timeout=args.timeout,
                retries=args.retries, max_rate=args.max_rate, cache=args.cache, config=config)
        except EvaluationInterrupted as stop:
            summaries = stop.result  # type: ignore[assignment]
            rows.finish(summaries, args.fail_under or 0.0)
            report = out if args.format in ("table", "summary") else sys.stderr
            _print_summary(summaries, report)
            sys.stderr.write(f"\nagentmetrics: interrupted; the {summaries[0].n} cases above "
                             f"were written" + (", and every score computed is in the cache "
                                                f"{args.cache}" if args.cache else "")
                             + (f"; the run was not saved to {args.save} (--save keeps whole "
                                f"runs only)" if args.save else "")
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
    rows.finish(summaries, args.fail_under or 0.0)

    # Tables get the summary on stdout; machine formats keep stdout for data.
    report = out if args.format in ("table", "summary") else sys.stderr
    if args.format in ("table", "summary"):
        out.write(("\n" if args.format == "table" else "")
                  + f"Scored {summaries[0].n if summaries else 0} cases from {source}\n\n")
    _print_summary(summaries, report)
    if args.save:
        _save(args, kept, metrics, report, config)
    return _gate(args, summaries, source, report)


def _gate(args: argparse.Namespace, summaries: list[Any], source: str, report: IO[str]) -> int:
    """The exit status --fail-under asks for: 1 when a metric's pass rate is
    below it, and when a metric scored no case at all (an empty file, or only
    error rows): a gate that checked nothing has not passed, unless
    --allow-empty says an empty run is expected."""
    unscored = [s for s in summaries if not s.scored]
    if unscored:
        what = ("no case" if not summaries[0].n else
                f"none of the {summaries[0].n} cases (every row is an error)")
        report.write(f"\nwarning: {', '.join(s.label for s in unscored)} scored {what} from "
                     f"{source}\n")
    if args.fail_under is None:
        return 0
    if unscored and not args.allow_empty:
        report.write("".join(
            f"FAILED: {s.label} scored 0 of {s.n} cases: --fail-under {args.fail_under:g} "
            f"expected cases to check and got none. Fix: check the input (an empty file, a "
            f"filter that kept nothing, lines that could not be read), or pass --allow-empty "
            f"when an empty run is expected.\n" for s in unscored))
        return 1
    # passed / n < fail_under, in exact arithmetic: no rounding decides a gate.
    failing = [s for s in summaries if s.n and Fraction(s.passed, s.n) < Fraction(args.fail_under)]
    if failing:
        report.write("\n" + "".join(
            f"FAILED: {s.label} passed {s.passed} of {s.n} cases ({s.passed / s.n:.4g}), below "
            f"--fail-under {args.fail_under:g}\n" for s in failing))
        return 1
    return 0



def _save(args: argparse.Namespace, parts: list[Any], metrics: list[Any], report: IO[str],
          config: RunConfig) -> None:
    """``--save PATH``: the whole run written to PATH, with its configuration
    (``config``, from ``--config``, which each chunk was scored with), and
    recorded in the history."""
    result = (EvaluationResult.concat(parts) if parts
              else score_cases([], metrics, progress=False, config=config))
    from agentmetrics.runs._history import RunStore  # saving only, as above

    history = None if args.no_history else RunStore(args.history)
    written = result.save(args.save, history=False)
    note = ""
    if history is not None:
        run = history.record(result, written, label=args.label)
        note = f" (run {run.id} in {history.path})"
    report.write(f"\nSaved the run to {written}{note}\n")
