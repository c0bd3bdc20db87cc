"""The report of one evaluation: summary with intervals, histograms, the
per-tool table, failing cases worst first with both call sequences, error
rows, repeated trials, a trend over saved runs and the provenance.

Aggregates cover every case; details are kept for at most ``limit`` cases per
metric (the worst), with counts of what is left out, so that a run of a
million cases still makes a page a browser opens at once."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from agentmetrics._base._display import case_key, range_text, with_unit
from agentmetrics._secrets import mask_tokens
from agentmetrics.errors import InvalidParameterError
from agentmetrics.report._charts import axis_range, histogram, histogram_svg, trend_svg
from agentmetrics.report._config import config_html
from agentmetrics.report._page import esc, num, page, pct, section, table
from agentmetrics.report._sequences import side_by_side

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.model._metric_result import MetricResult
    from agentmetrics.results._results import EvaluationResult
    from agentmetrics.results._summary import Summary
    from agentmetrics.results._table import Table
    from agentmetrics.runs._history import RunStore
    from agentmetrics.runs._provenance import Provenance

__all__ = ["AUTO", "EMPTY_CAUSE", "lead_html", "parts_html", "provenance_html", "result_html",
           "session_headline"]

AUTO = "auto"
#: The metadata key of a task, looked for when ``cluster`` or ``trials`` is "auto".
TASK_KEY = "task_id"
#: The widest argument text shown in a call.
_ARGUMENTS_SHOWN = 160
#: The most tools listed in the per-tool table.
_TOOLS_SHOWN = 500


def _check_limit(limit: object) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InvalidParameterError(
            f"limit: expected a whole number >= 0 of failing cases to show per metric, got "
            f"{limit!r}.")
    return limit


def _task_key(result: EvaluationResult, key: str | Sequence[Any] | None) -> Any:
    """``key`` itself, or for "auto" the task key when every case has one and
    some task has more than one case; None otherwise."""
    if not (isinstance(key, str) and key == AUTO):
        return key
    cases = result.batch.cases
    if cases is None or not len(cases):
        return None
    labels = []
    for case in cases:
        metadata = getattr(case, "metadata", None)
        label = metadata.get(TASK_KEY) if isinstance(metadata, dict) else None
        if label is None:
            return None
        labels.append(label)
    try:
        return TASK_KEY if len(set(labels)) < len(labels) else None
    except TypeError:
        return None


# -- sections -------------------------------------------------------------------------


def _interval(mean: float, low: float, high: float, rate: bool = False) -> tuple[str, float,
                                                                                    str]:
    shown = pct if rate else num
    bar = "" if math.isnan(low) else f' <span class="muted">[{shown(low)}, {shown(high)}]</span>'
    return f"{shown(mean)}{bar}", mean, "n"


def _summary_rows(summary: Table, failing: dict[str, int] | None = None
                  ) -> list[tuple[Any, ...]]:
    """The summary's rows as cells; a metric with failing cases shown links to
    them (``failing``: label -> the index of its table of failing cases)."""
    rows = []
    for row in summary:
        label = row["metric"]
        at = (failing or {}).get(label)
        named: Any = label if at is None else (
            f'<a href="#failures-{at}" title="its failing cases">{esc(label)}</a>', label, "")
        passed_rate = _interval(row["pass_rate"], row.get("pass_low", math.nan),
                                row.get("pass_high", math.nan), rate=True)
        errors = row["errors"]
        rows.append((
            named, row["n"],
            _interval(row["mean"], row.get("mean_low", math.nan), row.get("mean_high", math.nan)),
            row.get("se", math.nan), row["std"], row["min"], row["max"], passed_rate,
            row["passed"], (f'<span class="bad">{errors:,}</span>' if errors else "0", errors,
                            "n"),
            row["threshold"]))
    return rows


#: The summary's columns as the report shows them: the names of the summary's
#: columns, a mean and a pass rate with their intervals in one cell each.
_SUMMARY_COLUMNS = ("metric", "n", "mean [mean_low, mean_high]", "se", "std", "min", "max",
                    "pass_rate [pass_low, pass_high]", "passed", "errors", "threshold")


def lead_html(result: EvaluationResult, summary: Summary, name: str | None = None) -> str:
    """The line a page opens with: the run's name (its label), its cases, and
    per metric its mean and pass rate with their intervals, in its unit."""
    n = len(result)
    items = []
    if name:
        items.append(f'<div class="run-name"><span class="muted">run</span><br><b>{esc(name)}'
                     f"</b></div>")
    model = result.config.get("model")
    if isinstance(model, str) and model:
        items.append(f'<div><span class="muted">model</span><br><b>{esc(model)}</b></div>')
    items.append(f'<div><span class="muted">cases</span><br><b>{n:,}</b></div>')
    units = {label: type(scores.metric).unit for label, scores in result.results.items()}
    for row in summary:
        label = row["metric"]
        mean = _interval(row["mean"], row.get("mean_low", math.nan),
                         row.get("mean_high", math.nan))[0]
        rate = _interval(row["pass_rate"], row.get("pass_low", math.nan),
                         row.get("pass_high", math.nan), rate=True)[0]
        unit = units.get(label)
        errors = row["errors"]
        broken = f' <span class="bad">{errors:,} not scored</span>' if errors else ""
        items.append(f'<div class="lead-metric" data-metric="{esc(label)}"><span class="muted">'
                     f'{esc(with_unit(label, unit))}</span><br>mean <b>{mean}</b> · passed '
                     f"<b>{rate}</b>{broken}</div>")
    return f'<div class="lead" id="lead">{"".join(items)}</div>'


def _summary_section(result: EvaluationResult, summary: Summary, cluster: Any) -> str:
    """One summary table; with ``cluster``, its intervals are the cluster-robust
    ones, and a line says so."""
    failing = {label: index for index, (label, scores) in enumerate(result.results.items())
               if (~scores.passed & ~np.isnan(scores.values)).any()}
    body = [table(_SUMMARY_COLUMNS, _summary_rows(summary, failing), caption=summary.title,
                  table_id="summary-table", css="sortable summary")]
    if cluster is not None:
        what = cluster if isinstance(cluster, str) else "the labels given"
        groups = summary.clusters or 0
        few = " (too few for an interval: it takes 2 or more)" if groups < 2 else ""
        body.append(f'<p class="note">The intervals are cluster-robust over {groups:,} task'
                    f'{"s" if groups != 1 else ""} ({esc(what)}){few}: cases of one task are '
                    f"not independent, so each task, not each case, is the unit.</p>")
    body.append('<p class="muted">A case that could not be scored counts as not passed; '
                "the mean is over the scored cases.</p>")
    return section("Summary", "".join(body), section_id="summary")


def _aggregates_section(result: EvaluationResult, ci: float) -> str:
    """The corpus-level aggregates the metrics declare (p95 latency, micro F1,
    total cost), the table ``result.aggregates()`` gives; nothing when none do."""
    aggregates = result.aggregates(ci)
    if not len(aggregates):
        return ""
    units = {label: type(scores.metric).unit for label, scores in result.results.items()}
    rows = []
    for row in aggregates:
        low, high = row["low"], row["high"]
        value = row["value"]
        shown = num(value) if not math.isnan(value) else "nan"
        if not math.isnan(low) or not math.isnan(high):
            shown += (f' <span class="muted">[{num(low) if not math.isnan(low) else "-"}, '
                      f'{num(high) if not math.isnan(high) else "-"}]</span>')
        rows.append((row["metric"], row["aggregate"], (shown, value, "n"),
                     units.get(row["metric"]) or "", row["n"], row["note"]))
    body = table(("metric", "aggregate", "value [low, high]", "unit", "n", "note"), rows,
                 caption=aggregates.title, table_id="aggregates-table", css="sortable")
    return section("Corpus aggregates", body, section_id="aggregates")


def _histograms_section(result: EvaluationResult) -> str:
    figures = []
    for label, scores in result.results.items():
        low, high = axis_range(scores.values, type(scores.metric).value_range,
                               float(scores.metric.threshold))
        counts = histogram(scores.values, (low, high))
        scored = int(counts.sum())
        caption = (f"{esc(with_unit(label, type(scores.metric).unit))}: {scored:,} scored "
                   f"case{'s' if scored != 1 else ''}"
                   + (f", {len(scores.errors):,} not scored" if scores.errors else ""))
        figures.append(f'<figure class="histogram" data-metric="{esc(label)}">'
                       f"{histogram_svg(counts, (low, high), float(scores.metric.threshold), label)}"
                       f"<figcaption>{caption}</figcaption></figure>")
    return section("Scores", f'<div class="charts">{"".join(figures)}</div>',
                   section_id="histograms")


def _per_tool_section(result: EvaluationResult, drill: bool) -> str:
    tools = result.per_tool()
    rows: list[Any] = tools.rows[:_TOOLS_SHOWN]
    if drill:  # each tool leads to the failing cases that call or expect it
        rows = [((f'<a class="drill" href="#failures" data-tool="{esc(row[0])}" title="the '
                  f'failing cases that call or expect it">{esc(row[0])}</a>', row[0], ""),
                 *row[1:]) for row in rows]
    body = table(tools.columns, rows, caption="Over the cases with both call lists; most "
                 "missed first" + ("; a tool leads to its failing cases" if drill else ""),
                 table_id="per-tool-table")
    if len(tools) > len(rows):
        body += f'<p class="note">{len(tools) - len(rows):,} more tools not listed.</p>'
    if not len(tools):
        body = '<p class="muted">No case has both its calls and its expected calls.</p>'
    return section("Per tool", body, section_id="per-tool")


def _call_texts(result: EvaluationResult, row: int) -> tuple[list[str] | None,
                                                              list[str] | None]:
    """Each call of case ``row`` as ``name(arguments)`` when the case keeps its
    arguments; None to show the names alone."""
    cases = result.batch.cases
    if cases is None:
        return None, None
    case = cases[row]
    shown: list[list[str] | None] = []
    for field in ("tool_calls", "expected_tool_calls"):
        calls = getattr(case, field, None)
        if calls is None:
            shown.append(None)
            continue
        texts = []
        for call in calls:
            name = getattr(call, "name", call)
            arguments = getattr(call, "arguments", None)
            if arguments:
                try:
                    text = json.dumps(arguments, ensure_ascii=False, sort_keys=True,
                                      default=repr)
                except (TypeError, ValueError):
                    text = repr(arguments)
                if len(text) > _ARGUMENTS_SHOWN:
                    text = text[: _ARGUMENTS_SHOWN - 1] + "…"
                texts.append(f"{name}({text})")
            else:
                texts.append(str(name))
        shown.append(texts)
    return shown[0], shown[1]


def _worst(scores: MetricResult, limit: int) -> tuple[npt.NDArray[np.intp], int]:
    """The failing scored cases, worst first (ties by position), at most
    ``limit``; and how many fail in all."""
    values = scores.values
    failing = np.flatnonzero(~scores.passed & ~np.isnan(values))
    total = len(failing)
    if not total:
        return failing, 0
    badness = values[failing] if type(scores.metric).higher_is_better else -values[failing]
    if limit == 0:
        return failing[:0], len(failing)
    if limit < len(failing):
        # The limit-th worst value; every case at least that bad is a candidate,
        # so that ties at the cut go by position, as the full sort would.
        cut = np.partition(badness, limit - 1)[limit - 1]
        keep = badness <= cut
        failing, badness = failing[keep], badness[keep]
    order = np.lexsort((failing, badness))[:limit]
    return failing[order], total


def _case_cell(result: EvaluationResult, row: int) -> tuple[str, Any, str]:
    ident = result.batch.case_id(row)
    if ident is None:
        return f"{row}", row, "n"
    return f'{row} <span class="muted">{esc(case_key(ident, str))}</span>', row, ""


#: The case fields a failing case shows, collapsed under its reason.
_DETAIL_FIELDS = (("input", "input"), ("actual_output", "actual output"),
                  ("expected_output", "expected output"))
#: The widest text of one case field shown.
_DETAIL_SHOWN = 2000


def _case_details(result: EvaluationResult, rows: Sequence[int]) -> dict[int, str]:
    """Per row, its input and outputs as a collapsed block ('' when it has
    none), every string scrubbed of the run's metrics' secrets as a reason is.
    Only the rows asked for are read (cases a reader builds on demand are
    built for them alone)."""
    if not rows:
        return {}
    cases = result.batch.cases
    columns = result.batch.fields
    prepare = getattr(cases, "prepare", None)
    if prepare is not None:
        prepare(rows)
    metrics = [scores.metric for scores in result.results.values()]
    out: dict[int, str] = {}
    for row in rows:
        case = cases[row] if cases is not None else None
        items = []
        for name, shown in _DETAIL_FIELDS:
            if case is not None:
                value = getattr(case, name, None)
            else:
                column = columns.get(name)
                value = None if column is None else column[row]
            if value is None:
                continue
            if isinstance(value, str):
                text = value
            else:
                try:
                    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)
                except (TypeError, ValueError):
                    text = repr(value)
            if len(text) > _DETAIL_SHOWN:
                text = text[: _DETAIL_SHOWN - 1] + "…"
            for metric in metrics:
                text = metric.scrub(text)
            items.append(f"<dt>{esc(shown)}</dt><dd>{esc(text)}</dd>")
        out[row] = ('<details class="case-detail"><summary>input and outputs</summary>'
                    f'<dl class="prov">{"".join(items)}</dl></details>' if items else "")
    return out


def _failures_section(result: EvaluationResult, limit: int) -> str:
    parts: list[str] = []
    any_failing = False
    for index, (label, scores) in enumerate(result.results.items()):
        rows_shown, total = _worst(scores, limit)
        if not total:
            continue
        any_failing = True
        rows = []
        details = _case_details(result, rows_shown.tolist())
        for row in rows_shown.tolist():
            called_text, expected_text = _call_texts(result, row)
            sequences = side_by_side(result.batch.called_names(row),
                                     result.batch.expected_names(row),
                                     called_text=called_text, expected_text=expected_text)
            rows.append((_case_cell(result, row), float(scores.values[row]),
                         (f'<div class="reason">{esc(scores.reason(row))}</div>{details[row]}',
                          None, ""),
                         (sequences, None, "")))
        ident = f"failures-{index}"
        tools = []
        for row in rows_shown.tolist():
            names = set(result.batch.called_names(row) or ()) | set(
                result.batch.expected_names(row) or ())
            tools.append({"tools": f" {' '.join(sorted(names))} "})
        left = total - len(rows)
        note = (f'<p class="note">{left:,} more failing cases not shown (the {len(rows):,} '
                f"worst are); <code>result.failures()</code> lists them all.</p>"
                if left else "")
        parts.append(
            f'<h3 data-metric="{esc(label)}">{esc(label)}: {total:,} failing case'
            f'{"s" if total != 1 else ""} (threshold {scores.metric.threshold:g})</h3>'
            f'<input class="filter" type="search" placeholder="Filter these cases" '
            f'data-for="{ident}" aria-label="Filter the failing cases of {esc(label)}">'
            + table(("case", "value", "reason", "called / expected"), rows, table_id=ident,
                    css="sortable failures", row_data=tools)
            + note)
    if not any_failing:
        scored = any(not np.isnan(scores.values).all() for scores in result.results.values())
        parts.append('<p class="good">Every scored case passed.</p>' if scored else
                     '<p class="muted">No case was scored, so none passed or failed.</p>')
    else:
        parts.insert(0, '<p class="note" id="drill-note" hidden><span></span><a class="drill" '
                        'href="#failures">Show every failing case</a></p>')
    return section("Failing cases, worst first", "".join(parts), section_id="failures")


def _errors_section(result: EvaluationResult, limit: int) -> str:
    parts: list[str] = []
    for index, (label, scores) in enumerate(result.results.items()):
        if not scores.errors:
            continue
        rows_of = sorted(scores.errors)[:limit]
        details = _case_details(result, [row for row in rows_of if row not in
                                         result.batch.invalid])
        rows = [(_case_cell(result, row), (f'<div class="reason">{esc(scores.errors[row])}'
                                           f"</div>{details.get(row, '')}", None, ""))
                for row in rows_of]
        left = len(scores.errors) - len(rows)
        note = f'<p class="note">{left:,} more error rows not shown.</p>' if left else ""
        parts.append(f'<h3 data-metric="{esc(label)}">{esc(label)}: {len(scores.errors):,} '
                     f"case{'s' if len(scores.errors) != 1 else ''} not scored</h3>"
                     + table(("case", "error"), rows, table_id=f"errors-{index}",
                             row_classes=["error"] * len(rows))
                     + note)
    if not parts:
        return ""
    return section("Errors", "".join(parts), section_id="errors")


def _trials_section(result: EvaluationResult, key: Any, ci: float) -> str:
    parts: list[str] = []
    for label in result.results:
        trials = result.trials(key, label)
        if not len(trials.tasks):
            continue
        summary = trials.summary(ci)
        rows = [(row["k"], _interval(row["pass@k"], row["pass@k_low"], row["pass@k_high"]),
                 _interval(row["pass^k"], row["pass^k_low"], row["pass^k_high"]))
                for row in summary]
        parts.append(table(("k", "pass@k [interval]", "pass^k [interval]"), rows,
                           caption=summary.title, table_id=f"trials-{len(parts)}"))
    if not parts:
        return ""
    note = ('<p class="muted">pass@k: the chance that at least one of k trials of a task '
            "passes; pass^k: that all k do. Unscored trials count as failed. Shown for every k "
            "up to 10, then 20, 50, 100, 200, 500, … and the fewest trials of any task; "
            "<code>result.trials(key).summary(ks=[...])</code> gives any other k.</p>")
    return section("Repeated trials", "".join(parts) + note, section_id="trials")


def _trend_section(result: EvaluationResult, store: RunStore, last: int, ci: float) -> str:
    summary = {row["metric"]: row for row in result.summary(ci)}
    figures = []
    for label in result.results:
        unit = type(result.results[label].metric).unit
        history = store.trend(label, last=max(0, last - 1))
        points = [(mask_tokens(run.label) if run.label else f"run {run.id}", m.mean,
                   m.mean_low, m.mean_high) for run, m in history]
        mine = summary[label]
        mine_run = result.provenance
        recorded = any(run.provenance.uid == mine_run.uid if mine_run.uid and run.provenance.uid
                       else (run.fingerprint == mine_run.fingerprint
                             and run.created == mine_run.created) for run, _ in history)
        if not recorded:
            points.append(("this run", mine["mean"], mine["mean_low"], mine["mean_high"]))
        rows = [(name, _interval(mean, low, high)) for name, mean, low, high in points]
        figures.append(f'<div class="trend-cell"><figure class="trend" data-metric="{esc(label)}">'
                       f"{trend_svg(points, f'{label} over the last {len(points)} runs', unit)}"
                       f"<figcaption>{esc(label)}: mean over the last {len(points)} runs, "
                       f"with intervals</figcaption></figure>"
                       + table(("run", "mean [interval]"), rows, css="sortable trend-table")
                       + "</div>")
    body = f'<div class="trend-grid">{"".join(figures)}</div>'
    return section("Trend", body + f'<p class="muted">From the run history '
                   f"{esc(store.path)}.</p>", section_id="trend")


def provenance_html(provenance: Provenance, *, heading: str = "Provenance",
                    section_id: str = "provenance") -> str:
    facts = [("agentmetrics", provenance.agentmetrics_version), ("ran at", provenance.created),
             ("host", provenance.host), ("platform", provenance.platform),
             ("python", provenance.python), ("cases", f"{provenance.cases:,}"),
             ("data fingerprint", provenance.fingerprint)]
    listing = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts)
    rows = [(spec.label, spec.name, spec.version, spec.source or "\u2013",
             (f"<code>{esc(json.dumps(dict(spec.params), sort_keys=True))}</code>", None, ""),
             spec.threshold, "higher" if spec.higher_is_better else "lower",
             range_text(spec.value_range))
            for spec in provenance.metrics]
    metrics = table(("label", "metric", "version", "from", "parameters", "threshold",
                     "better", "range"), rows, table_id=f"{section_id}-metrics")
    return section(heading, f'<dl class="prov">{listing}</dl>{metrics}'
                   '<p class="muted">Secret parameters are shown as ***.</p>',
                   section_id=section_id)


def _sections(result: EvaluationResult, *, limit: int, ci: float, cluster: Any, trials: Any,
              history: RunStore | None, trend: int) -> tuple[list[str], Summary | None]:
    """The page's sections, and the summary they show (None without metrics)."""
    cluster_key = _task_key(result, cluster)
    same = isinstance(trials, str) and isinstance(cluster, str) and trials == cluster
    trials_key = cluster_key if same else _task_key(result, trials)
    sections = []
    summary = result.summary(ci, cluster=cluster_key) if result.results else None
    if summary is not None:
        sections.append(_summary_section(result, summary, cluster_key))
        aggregates = _aggregates_section(result, ci)
        if aggregates:
            sections.append(aggregates)
        sections.append(_histograms_section(result))
    drill = limit > 0 and any((~scores.passed & ~np.isnan(scores.values)).any()
                              for scores in result.results.values())
    sections.append(_per_tool_section(result, drill))
    if result.results:
        sections.append(_failures_section(result, limit))
        sections.append(_errors_section(result, limit))
        if trials_key is not None:
            sections.append(_trials_section(result, trials_key, ci))
        if history is not None:
            sections.append(_trend_section(result, history, trend, ci))
    sections.append(config_html(result.config))
    sections.append(provenance_html(result.provenance))
    return sections, summary


#: Why a run has no cases, most likely.
EMPTY_CAUSE = ("the input held no cases (an empty cases file or saved run, a filter or query "
               "that matched nothing, or an export that failed before writing a line)")
#: The headline of a run of no cases: what it means and the likely cause.
EMPTY_HEADLINE = (
    f"No cases were scored: this run has 0 cases, so it measures nothing; every mean, pass "
    f"rate and interval below is empty, not zero. Likely cause: {EMPTY_CAUSE}.")
#: The headline of a run whose cases no metric could score.
UNSCORED_HEADLINE = (
    "No case could be scored: every case of this run is an error row for every metric, so "
    "it measures nothing. The errors below say why (often a missing field, such as the "
    "expected calls).")


def _headline(result: EvaluationResult) -> str:
    """A warning above everything when the run measures nothing; else ''."""
    if not len(result):
        text = EMPTY_HEADLINE
    elif result.results and all(np.isnan(scores.values).all()
                                for scores in result.results.values()):
        text = UNSCORED_HEADLINE
    else:
        return ""
    return f'<p class="headline bad" role="alert">{esc(text)}</p>'


def _subtitle(result: EvaluationResult) -> str:
    provenance = result.provenance
    metrics = ", ".join(result.metrics) or "no metrics"
    return (f"{len(result):,} case{'s' if len(result) != 1 else ''} · {esc(metrics)} · "
            f"ran {esc(provenance.created)} · agentmetrics "
            f"{esc(provenance.agentmetrics_version)}")


def result_html(
    result: EvaluationResult,
    *,
    title: str | None = None,
    limit: int = 100,
    ci: float = 0.95,
    cluster: str | Sequence[Any] | None = AUTO,
    trials: str | Sequence[Any] | None = AUTO,
    history: RunStore | None = None,
    trend: int = 20,
    name: str | None = None,
) -> str:
    """The report of ``result`` as one HTML document (see
    :meth:`agentmetrics.EvaluationResult.to_html`); ``name``, the run's name
    (its label), opens the headline."""
    limit = _check_limit(limit)
    sections, summary = _sections(result, limit=limit, ci=ci, cluster=cluster, trials=trials,
                                  history=history, trend=trend)
    lead = lead_html(result, summary, name) if summary is not None else ""
    return page(title or (f"{name}: agentmetrics report" if name else "agentmetrics report"),
                _subtitle(result), sections, headline=_headline(result) + lead)


def session_headline(outcomes: Sequence[tuple[str, bool]], shown: int = 10) -> str:
    """The headline of a pytest page: how many tests passed and failed on
    their metrics, the failing ones named first (``outcomes``: each test's id
    and whether all its evaluations passed)."""
    failed = [test for test, ok in outcomes if not ok]
    passed = len(outcomes) - len(failed)
    css = "bad" if failed else "good"
    text = (f'<p class="verdicts {css}" id="headline"><b>{len(failed):,} failed</b>, '
            f"{passed:,} passed, of {len(outcomes):,} test{'s' if len(outcomes) != 1 else ''} "
            f"with agentmetrics evaluations</p>")
    if failed:
        items = "".join(f"<li><code>{esc(test)}</code></li>" for test in failed[:shown])
        more = (f'<li class="muted">{len(failed) - shown:,} more</li>'
                if len(failed) > shown else "")
        text += f'<ul class="failed-tests">{items}{more}</ul>'
    return text


def parts_html(parts: Sequence[tuple[str, EvaluationResult]], *, title: str, subtitle: str,
               limit: int = 100, ci: float = 0.95, headline: str = "") -> str:
    """Several results on one page, each under its own heading (a pytest
    session's metrics, each over the tests that used it), ``headline``
    above them. Element ids get a prefix per part; user text is escaped, so
    ``id="`` occurs only in ids."""
    limit = _check_limit(limit)
    body = []
    for number, (heading, result) in enumerate(parts):
        found, _ = _sections(result, limit=limit, ci=ci, cluster=AUTO, trials=AUTO,
                             history=None, trend=0)
        inner = "".join(found)
        inner = inner.replace(' id="', f' id="part{number}-').replace(
            ' data-for="', f' data-for="part{number}-').replace(' href="#', f' href="#part{number}-')
        body.append(f'<article class="part" id="part{number}"><h2>{esc(heading)}</h2>'
                    f'<p class="muted">{_subtitle(result)}</p>{_headline(result)}{inner}'
                    f"</article>")
    if not parts:
        body.append('<p class="note">No agent_metric evaluation ran in this session.</p>')
    return page(title, subtitle, body, headline=headline)
