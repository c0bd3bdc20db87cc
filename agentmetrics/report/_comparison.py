"""The report of a comparison: per metric the paired difference with its
interval and test, pass/fail flips with McNemar's test, regressions first
with both reasons, then improvements and what did not pair."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from agentmetrics._base._display import case_key, signed
from agentmetrics.report._charts import intervals_svg
from agentmetrics.report._config import config_diff_html, differences_line
from agentmetrics.report._page import esc, p_value, page, pct, section, table
from agentmetrics.report._result import EMPTY_CAUSE, _check_limit, provenance_html

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.io._compare import Comparison

__all__ = ["comparison_html", "empty_cause"]


#: A missing number on the page, as every other cell shows it.
_DASH = "\u2013"


def _summary(comparison: Comparison) -> str:
    rows = []
    for m in comparison:
        d = m.difference
        bar = "" if math.isnan(d.low) else (f' <span class="muted">[{signed(d.low, _DASH)}, '
                                            f"{signed(d.high, _DASH)}]</span>")
        verdict = m.verdict
        css = "worse" if verdict == "worse" else "better" if verdict == "better" else ""
        named = (m.metric if m.unit is None else
                 (f'{esc(m.metric)} <span class="muted">in {esc(m.unit)}</span>', m.metric, ""))
        cases = f"{m.improved:,}↑ {m.regressed:,}↓ {m.unchanged:,}="
        if m.new_errors:
            cases += f' · <span class="bad">{m.new_errors:,} newly unscored</span>'
        unpaired = (len(comparison.only_in_baseline[m.metric]),
                    len(comparison.only_in_candidate[m.metric]))
        rows.append((
            named, (f'<span class="verdict {css}">{esc(verdict)}</span>', verdict, ""),
            (f"{signed(d.mean, _DASH)}{bar}", d.mean, "n"), (p_value(d.p_value), d.p_value, "n"),
            (f"{_mean(m.baseline_mean)} → {_mean(m.candidate_mean)}", m.candidate_mean, "n"),
            (f"{pct(m.baseline_pass_rate)} → {pct(m.candidate_pass_rate)}",
             m.candidate_pass_rate - m.baseline_pass_rate, "n"),
            (f"+{m.newly_passing:,} / \u2212{m.newly_failing:,}", m.newly_failing - m.newly_passing,
             "n"),
            (p_value(m.mcnemar_p), m.mcnemar_p, "n"),
            (cases, m.regressed, "n"),
            (f"{m.paired:,}" + (f' <span class="muted">({unpaired[0]:,} / {unpaired[1]:,} '
                                f"unpaired)</span>" if any(unpaired) else ""), m.paired, "n"),
        ))
    first = next(iter(comparison), None)
    level = (f"{first.difference.ci:.0%} CI, {first.difference.method} test"
             if first is not None else "")
    columns = ("metric", "verdict", "difference [interval]", "p", "mean", "pass rate",
               "flips + / \u2212", "McNemar p", "cases ↑ ↓ =", "paired")
    body = table(columns, rows, caption=f"Candidate minus baseline ({level}); the verdict "
                 f"also weighs pass/fail flips. Mean and pass rate: baseline → candidate; "
                 f"flips: newly passing / newly failing; cases: improved, regressed, unchanged; "
                 f"unpaired: cases on one side only (baseline / candidate)",
                 table_id="comparison-table")
    points = [(m.metric, m.difference.mean, m.difference.low, m.difference.high)
              for m in comparison]
    if points:
        widest = max((abs(v) for _, *vs in points for v in vs if math.isfinite(v)), default=0.1)
        widest = max(widest * 1.1, 0.01)
        body += ('<figure class="differences">'
                 + intervals_svg(points, reference=0.0, span=(-widest, widest),
                                 label="difference per metric")
                 + "<figcaption>Mean difference per metric with its interval; right of the "
                   "dashed line is higher.</figcaption></figure>")
    return section("Summary", body, section_id="summary")


#: The class of each verdict in the headline.
_VERDICT_CSS = {"worse": "worse", "mixed": "worse", "better": "better"}


def _verdicts(comparison: Comparison) -> str:
    """The headline: the two sides by name and each metric's verdict, worst
    news first, each verdict's metrics after it."""
    parts = []
    for verdict, labels in comparison.verdicts().items():
        css = _VERDICT_CSS.get(verdict, "")
        parts.append(f'<span class="verdict {css}">{esc(verdict)}</span> on '
                     f'{esc(", ".join(labels))}')
    said = "; ".join(parts) or "no metric compared"
    differs = differences_line(comparison.baseline.config, comparison.candidate.config)
    return (f'<p class="verdicts" id="headline"><b>{esc(comparison.candidate.name)}</b> against '
            f"<b>{esc(comparison.baseline.name)}</b>: {said}"
            + (f'<br><span class="muted">{differs}</span>' if differs else "") + "</p>")


def _mean(value: float) -> str:
    return _DASH if math.isnan(value) else f"{value:.3f}"


def _changes(comparison: Comparison, limit: int, worse: bool) -> str:
    picked = comparison.regressions(limit=limit) if worse else comparison.improvements(
        limit=limit)
    total = sum(_count(comparison, m.metric, worse) for m in comparison)
    name = "Regressions" if worse else "Improvements"
    if not len(picked):
        none = "No case got worse." if worse else "No case got better."
        return section(name, f'<p class="{"good" if worse else "muted"}">{none}</p>',
                       section_id=name.lower())
    rows = []
    for row in picked:
        rows.append((
            case_key(row["key"], str), row["metric"], row["baseline"], row["candidate"],
            (signed(row["change"], _DASH), row["change"], "n"),
            ("pass" if row["baseline_passed"] else "fail") + " → "
            + ("pass" if row["candidate_passed"] else "fail"),
            (f'<div class="reason">{esc(row["baseline_reason"])}</div>', None, ""),
            (f'<div class="reason">{esc(row["candidate_reason"])}</div>', None, ""),
        ))
    ident = name.lower()
    left = total - len(rows)
    note = (f'<p class="note">{left:,} more not shown; <code>comparison.{ident}()</code> '
            f"lists them all.</p>" if left > 0 else "")
    body = (f'<input class="filter" type="search" placeholder="Filter" data-for="{ident}-table"'
            f' aria-label="Filter the {ident}">'
            + table(("case", "metric", "baseline", "candidate", "change", "pass/fail",
                     "baseline reason", "candidate reason"), rows, table_id=f"{ident}-table")
            + note)
    return section(f"{name} ({total:,}), {'worst' if worse else 'best'} first", body,
                   section_id=ident)


def _count(comparison: Comparison, metric: str, worse: bool) -> int:
    """How many cases of ``metric`` changed for the worse (or better): the
    rows :meth:`Comparison.regressions` lists, counted without building them."""
    import numpy as np

    b, c = comparison.baseline.metrics[metric], comparison.candidate.metrics[metric]
    left, right = comparison._pairs[metric]
    before, after = b.values[left], c.values[right]
    with np.errstate(invalid="ignore"):
        change = (after - before) * (1.0 if b.higher_is_better else -1.0)
    was, now = b.passed[left], c.passed[right]
    if worse:
        hit = (change < 0) | (was & ~now) | (np.isnan(after) & ~np.isnan(before))
    else:
        hit = (change > 0) | (now & ~was) | (np.isnan(before) & ~np.isnan(after))
    return int(hit.sum())


def _unpaired(comparison: Comparison) -> str:
    notes = []
    for m in comparison:
        for side, keys in (("baseline", comparison.only_in_baseline[m.metric]),
                           ("candidate", comparison.only_in_candidate[m.metric])):
            if keys:
                shown = ", ".join(case_key(k, str) for k in keys[:10]) + (
                    f" and {len(keys) - 10:,} more" if len(keys) > 10 else "")
                notes.append(f"{m.metric}: {len(keys):,} case{'s' if len(keys) != 1 else ''} "
                             f"only in the {side} ({shown}), not compared")
    notes += [f"{label}: only in the baseline, not compared"
              for label in comparison.metrics_only_in_baseline]
    notes += [f"{label}: only in the candidate, not compared"
              for label in comparison.metrics_only_in_candidate]
    if not notes:
        return ""
    return section("Not compared", "".join(f'<p class="note">{esc(n)}</p>' for n in notes),
                   section_id="unpaired")


def _side_cases(side: Any) -> int:
    """How many cases a side of a comparison has (its longest metric's)."""
    return max((len(scores.keys) for scores in side.metrics.values()), default=0)


def empty_cause(comparison: Comparison) -> str:
    """Why no case of ``comparison`` paired, most likely."""
    counts = [(name, _side_cases(side)) for name, side in
              (("baseline", comparison.baseline), ("candidate", comparison.candidate))]
    empty = [name for name, count in counts if not count]
    if empty:
        return (f"the {' and the '.join(empty)} ha{'s' if len(empty) == 1 else 've'} 0 cases: "
                f"{EMPTY_CAUSE}")
    if not len(comparison.metrics):
        return "the two runs share no metric"
    candidate, baseline = (f"{n:,} case{'' if n == 1 else 's'}" for _, n in counts[::-1])
    return (f"no case of the candidate ({candidate}) has a twin in the baseline "
            f"({baseline}): the ids (or the key that pairs cases) differ")


def comparison_html(comparison: Comparison, *, title: str | None = None,
                    limit: int = 100) -> str:
    """The report of ``comparison`` as one HTML document (see
    :meth:`agentmetrics.Comparison.to_html`)."""
    limit = _check_limit(limit)
    subtitle = (f"{esc(comparison.candidate.name)} (candidate) against "
                f"{esc(comparison.baseline.name)} (baseline)")
    headline = _verdicts(comparison)
    if not any(m.paired for m in comparison):
        text = (f"No cases were compared: no case paired on any metric, so this comparison "
                f"measures nothing and no verdict below means anything. Likely cause: "
                f"{empty_cause(comparison)}.")
        headline += f'<p class="headline bad" role="alert">{esc(text)}</p>'
    sections = [_summary(comparison), _changes(comparison, limit, worse=True),
                _changes(comparison, limit, worse=False), _unpaired(comparison)]
    sections.insert(1, config_diff_html(comparison.baseline.config, comparison.candidate.config))
    for side, ident in ((comparison.baseline, "baseline"), (comparison.candidate, "candidate")):
        provenance = getattr(side, "provenance", None)
        if provenance is not None:
            sections.append(provenance_html(provenance, heading=f"Provenance of the {ident}",
                                            section_id=f"provenance-{ident}"))
    return page(title or "agentmetrics comparison", subtitle, sections, headline=headline)
