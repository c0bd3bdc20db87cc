"""``agentmetrics compare``: a candidate run against a baseline, case by case."""

from __future__ import annotations

import argparse
import math
from typing import IO, Any

from agentmetrics._base._lines import LineError, SourceError, lines, parse_json_line
from agentmetrics.cli._common import DEFAULT_METRIC, build_metric, to_json
from agentmetrics.engine._evaluate import score_cases
from agentmetrics.errors import InvalidParameterError
from agentmetrics.io._compare import compare
from agentmetrics.io._input import read_cases
from agentmetrics.io._sides import read_side, side_from_result
from agentmetrics.report._comparison import empty_cause
from agentmetrics.runs._format import is_saved_run
from agentmetrics.runs import NOT_SET
from agentmetrics.runs._history import RunStore
from agentmetrics.runs._load import load_result

__all__ = ["run_compare"]


def _kind(path: str) -> str:
    """``"run"`` for a saved run (``agentmetrics evaluate --save``), ``"results"``
    for saved scores (rows of ``agentmetrics evaluate``, its ``--format json``
    document, a pytest report), ``"cases"`` otherwise."""
    if is_saved_run(path):
        return "run"
    try:
        for line in lines(path):
            text = (line.text or "").strip(" \t\r\n")
            if line.error is not None or not text:
                if line.error is not None:
                    return "cases"  # the case reader reports the line as it should
                continue
            if text == "{" or text.startswith('{"results"'):
                return "results"  # a whole JSON document: evaluate --format json, pytest
            try:
                record = parse_json_line(text)
            except LineError:
                return "cases"
            return "results" if isinstance(record, dict) and {"case", "metric"} <= set(
                record) else "cases"
    except SourceError as error:
        raise InvalidParameterError(f"{path}: {error}") from None
    return "cases"


def _side(path: str, kind: str, args: argparse.Namespace, on: str | None) -> Any:
    """The scores of one file, named by it: saved results as they are, or a
    cases file scored with --metric."""
    if kind == "run":
        return side_from_result(load_result(path), on, path)
    if kind == "results":
        return read_side(path, on)
    metrics = [build_metric(spec) for spec in args.metric or [DEFAULT_METRIC]]
    cases = list(read_cases(path, errors=args.errors, input_format=args.input_format))
    return side_from_result(score_cases(cases, metrics, errors=args.errors, progress=False), on,
                            path)


def run_compare(args: argparse.Namespace, out: IO[str]) -> int:
    on = None if args.on == "position" else args.on
    args.runs = [path for path in (args.baseline, args.candidate) if path is not None]
    if args.against is not None:
        if len(args.runs) != 1:
            raise InvalidParameterError(
                f"--against {args.against}: the baseline is that run of the history; expected "
                f"one file, the CANDIDATE, got {len(args.runs)}. Fix: agentmetrics compare "
                f"--against {args.against} candidate.jsonl")
        return _against(args, out, on)
    if len(args.runs) != 2:
        raise InvalidParameterError(
            f"expected two files, BASELINE and CANDIDATE, got {len(args.runs)}. Fix: "
            f"agentmetrics compare baseline.jsonl candidate.jsonl, or compare against a run of "
            f"the history: agentmetrics compare --against last candidate.jsonl")
    base_kind, cand_kind = _kind(args.baseline), _kind(args.candidate)
    kinds = {"results" if kind == "run" else kind for kind in (base_kind, cand_kind)}
    if len(kinds) == 2 and args.metric:
        raise InvalidParameterError(
            "--metric: one side is a cases file (scored with --metric) and the other saved "
            "results; expected two of a kind. Fix: compare two cases files, or two saved "
            "results.")
    # --metric names the metrics to score in cases files, the labels to compare in saved results.
    labels = list(args.metric) if args.metric and kinds == {"results"} else None
    comparison = compare(
        _side(args.baseline, base_kind, args, on), _side(args.candidate, cand_kind, args, on),
        on=on,
        metrics=labels, ci=args.ci, method=args.method, resamples=args.resamples,
        seed=args.seed, names=_names(args))
    return _finish(comparison, args, out)


def _against(args: argparse.Namespace, out: IO[str], on: str | None) -> int:
    """``--against REF``: the stored run REF of the history is the baseline."""
    store = RunStore(args.history)
    run = store.get(args.against)
    baseline = side_from_result(store.load(run.id), on, f"run {run.id}"
                                + (f" ({run.label})" if run.label else ""))
    candidate = args.runs[0]
    kind = _kind(candidate)
    labels = list(args.metric) if args.metric and kind != "cases" else None
    comparison = compare(baseline, _side(candidate, kind, args, on), on=on, metrics=labels,
                         ci=args.ci, method=args.method, resamples=args.resamples,
                         seed=args.seed, names=_names(args))
    return _finish(comparison, args, out)


def _names(args: argparse.Namespace) -> tuple[str, str] | None:
    names = getattr(args, "names", None)
    return None if names is None else (names[0], names[1])


def _finish(comparison: Any, args: argparse.Namespace, out: IO[str]) -> int:
    """Print the comparison, write its page, and say whether the gate passes."""
    if args.html:
        comparison.to_html(args.html, limit=args.show)
    if args.format == "json":
        out.write(to_json(_document(comparison), indent=2) + "\n")
    else:
        out.write(comparison.report(limit=args.show) + "\n")
    import sys

    report = out if args.format == "table" else sys.stderr
    unpaired = [m.metric for m in comparison if not m.paired]
    if unpaired or not len(comparison.metrics):
        what = (f"no case paired on {', '.join(unpaired)}" if unpaired
                else "the two runs share no metric")
        report.write(f"\nwarning: {what}, so the comparison says nothing about "
                     f"{'them' if len(unpaired) > 1 else 'it'}. Likely cause: "
                     f"{empty_cause(comparison)}.\n")
        if args.fail_on_regression and not args.allow_empty:
            report.write(
                "FAILED: --fail-on-regression expected cases paired between the baseline and "
                "the candidate, and got none to compare. Fix: check both runs and --on (ids, "
                "another key, or position), or pass --allow-empty when an empty comparison is "
                "expected.\n")
            return 1
    worse = comparison.significantly_worse
    if args.fail_on_regression and worse:
        for label in worse:
            m = comparison[label]
            why = []
            if m.scores_worse:
                d = m.difference
                why.append(f"score difference {d.mean:+.4g} [{d.low:+.4g}, {d.high:+.4g}]")
            if m.passes_worse:
                why.append(f"{m.newly_failing} newly failing against {m.newly_passing} newly "
                           f"passing, McNemar p = {m.mcnemar_p:.3g}")
            report.write(f"\nFAILED: the candidate is significantly worse on {label} "
                         f"({'; '.join(why)})\n")
        return 1
    return 0


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def _document(comparison: Any) -> dict[str, Any]:
    metrics = []
    for m in comparison:
        d = m.difference
        metrics.append({
            "metric": m.metric,
            "higher_is_better": m.higher_is_better,
            "paired": m.paired,
            "scored": m.scored,
            "baseline_mean": _number(m.baseline_mean),
            "candidate_mean": _number(m.candidate_mean),
            "difference": {"mean": _number(d.mean), "low": _number(d.low),
                           "high": _number(d.high), "ci": d.ci, "p_value": _number(d.p_value),
                           "method": d.method},
            "improved": m.improved,
            "regressed": m.regressed,
            "unchanged": m.unchanged,
            "baseline_pass_rate": _number(m.baseline_pass_rate),
            "candidate_pass_rate": _number(m.candidate_pass_rate),
            "newly_passing": m.newly_passing,
            "newly_failing": m.newly_failing,
            "mcnemar_p": _number(m.mcnemar_p),
            "new_errors": m.new_errors,
            "fixed_errors": m.fixed_errors,
            "verdict": m.verdict,
            "significantly_worse": m.significantly_worse,
            "only_in_baseline": list(comparison.only_in_baseline[m.metric]),
            "only_in_candidate": list(comparison.only_in_candidate[m.metric]),
        })
    return {
        "baseline": comparison.baseline.name,
        "candidate": comparison.candidate.name,
        "headline": comparison.headline,
        # Per configuration key that differs, each side's value (a side without
        # the key left out).
        "config_differences": {
            key: {side: value for side, value in zip(("baseline", "candidate"), pair)
                  if value is not NOT_SET}
            for key, pair in comparison.config_differences.items()},
        "metrics": metrics,
        "metrics_only_in_baseline": list(comparison.metrics_only_in_baseline),
        "metrics_only_in_candidate": list(comparison.metrics_only_in_candidate),
        "regressions": comparison.regressions().to_dicts(),
    }
