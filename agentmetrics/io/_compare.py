"""Paired comparison of two evaluations of the same cases: is the candidate better?"""

from __future__ import annotations

import html
import math
import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._display import case_key, signed
from agentmetrics._base._optional import require
from agentmetrics.errors import InvalidParameterError
from agentmetrics.io._sides import ComparisonSide, read_side, registered_range, side_from_result
from agentmetrics.report._comparison import comparison_html
from agentmetrics.report._page import write_page
from agentmetrics.results._config import config_differences, shown_value
from agentmetrics.results._results import EvaluationResult
from agentmetrics.results._table import Table
from agentmetrics.stats._intervals import check_ci
from agentmetrics.stats._tests import mcnemar_exact, paired_difference

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.io._sides import ComparisonSide, Scores
    from agentmetrics.results._results import EvaluationResult
    from agentmetrics.stats import Difference

__all__ = ["Comparison", "MetricComparison", "PairedCase", "compare", "config_lines"]


class PairedCase(NamedTuple):
    """One case scored on both sides by one metric: the columns of
    ``regressions()``, ``improvements()`` and ``to_pandas()``. ``change`` is in
    the metric's better direction (positive is better); a reason is the side's
    error where it could not score the case."""

    key: Any
    metric: str
    baseline: float
    candidate: float
    change: float
    baseline_passed: bool | None
    candidate_passed: bool | None
    baseline_reason: str | None
    candidate_reason: str | None


@attrs.frozen(slots=True)
class MetricComparison:
    """One metric, candidate against baseline, over the cases both sides have.

    ``difference`` is the mean of candidate minus baseline over the ``scored``
    pairs (cases scored on both sides), with its interval and p-value; the
    interval is clipped to ``+-(high - low)`` of the metric's ``value_range``,
    the differences its scores can have.
    ``improved``, ``regressed`` and ``unchanged`` count those pairs by score,
    in the metric's better direction. ``newly_passing`` and ``newly_failing``
    count pass/fail flips over all ``paired`` cases (a case that could not be
    scored did not pass), and ``mcnemar_p`` is the exact McNemar test of them.
    ``new_errors``: cases the candidate could not score but the baseline could;
    ``fixed_errors``: the other way round.
    """

    metric: str
    higher_is_better: bool
    paired: int
    scored: int
    baseline_mean: float
    candidate_mean: float
    difference: Difference
    baseline_pass_rate: float
    candidate_pass_rate: float
    improved: int
    regressed: int
    unchanged: int
    newly_passing: int
    newly_failing: int
    mcnemar_p: float
    new_errors: int
    fixed_errors: int
    #: The values' unit ("s", "tokens"), when known; None for a share or score.
    unit: str | None = None

    @property
    def alpha(self) -> float:
        return 1.0 - self.difference.ci

    @property
    def scores_worse(self) -> bool:
        """The interval of the score difference lies wholly on the bad side of 0."""
        d = self.difference
        return bool(d.high < 0) if self.higher_is_better else bool(d.low > 0)

    @property
    def scores_better(self) -> bool:
        d = self.difference
        return bool(d.low > 0) if self.higher_is_better else bool(d.high < 0)

    @property
    def passes_worse(self) -> bool:
        """More cases went from pass to fail than from fail to pass, beyond chance
        (McNemar's exact test at the level of the interval)."""
        return self.newly_failing > self.newly_passing and self.mcnemar_p < self.alpha

    @property
    def passes_better(self) -> bool:
        return self.newly_passing > self.newly_failing and self.mcnemar_p < self.alpha

    @property
    def significantly_worse(self) -> bool:
        """The candidate is worse beyond chance: its scores (the interval of the
        difference excludes 0 on the bad side) or its pass/fail outcomes."""
        return self.scores_worse or self.passes_worse

    @property
    def significantly_better(self) -> bool:
        return self.scores_better or self.passes_better

    @property
    def verdict(self) -> str:
        """``worse``, ``better``, ``mixed``, ``no clear difference``, or ``nothing
        compared`` when no case paired (not a verdict of no difference)."""
        if not self.paired:
            return "nothing compared"
        worse, better = self.significantly_worse, self.significantly_better
        if worse and better:
            return "mixed"
        return "worse" if worse else "better" if better else "no clear difference"


#: The verdicts of a metric, worst news first (see :attr:`MetricComparison.verdict`).
VERDICTS = ("worse", "mixed", "better", "no clear difference", "nothing compared")


def _finite_mean(values: npt.NDArray[np.float64]) -> float:
    return float(values.mean()) if len(values) else math.nan


class Comparison:
    """Candidate against baseline on the cases they share, per metric.

    ``comparison[metric]`` is a :class:`MetricComparison`. Cases on one side
    only are never dropped silently: they are in :attr:`only_in_baseline` and
    :attr:`only_in_candidate` (per metric, as keys), counted in the summary
    and listed by :meth:`to_pandas`.
    """

    __slots__ = (
        "_pairs",
        "baseline",
        "candidate",
        "metrics",
        "metrics_only_in_baseline",
        "metrics_only_in_candidate",
        "only_in_baseline",
        "only_in_candidate",
    )

    def __init__(self, baseline: ComparisonSide, candidate: ComparisonSide,
                 metrics: dict[str, MetricComparison],
                 pairs: dict[str, tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]],
                 only_in_baseline: dict[str, tuple[Any, ...]],
                 only_in_candidate: dict[str, tuple[Any, ...]],
                 metrics_only_in_baseline: tuple[str, ...],
                 metrics_only_in_candidate: tuple[str, ...]) -> None:
        self.baseline = baseline
        self.candidate = candidate
        self.metrics = metrics
        self._pairs = pairs
        #: Per metric, the keys of cases the baseline has and the candidate lacks.
        self.only_in_baseline = only_in_baseline
        #: Per metric, the keys of cases the candidate has and the baseline lacks.
        self.only_in_candidate = only_in_candidate
        self.metrics_only_in_baseline = metrics_only_in_baseline
        self.metrics_only_in_candidate = metrics_only_in_candidate

    def __getitem__(self, metric: str) -> MetricComparison:
        try:
            return self.metrics[metric]
        except KeyError:
            raise KeyError(f"no metric {metric!r} in this comparison; it has "
                           f"{list(self.metrics)}") from None

    def __iter__(self) -> Any:
        return iter(self.metrics.values())

    @property
    def significantly_worse(self) -> tuple[str, ...]:
        """The metrics on which the candidate is significantly worse."""
        return tuple(m.metric for m in self.metrics.values() if m.significantly_worse)

    @property
    def config_differences(self) -> dict[str, tuple[Any, Any]]:
        """What the two runs were made with, where it differs: per key
        ``(baseline value, candidate value)``, with
        :data:`agentmetrics.runs.NOT_SET` for the side that lacks the key
        (values of another type differ: ``1`` is not ``1.0``). Empty when the
        configurations agree, or neither side has one."""
        return config_differences(self.baseline.config, self.candidate.config)

    # -- tables ------------------------------------------------------------------

    def summary(self) -> Table:
        """Per metric: cases paired, the two means and their difference with its
        interval and p-value, cases improved/regressed/unchanged, the two pass
        rates, pass/fail flips with McNemar's p-value, and a verdict."""
        rows = []
        for m in self.metrics.values():
            d = m.difference
            rows.append((
                m.metric, m.paired, m.scored, m.baseline_mean, m.candidate_mean, d.mean, d.low,
                d.high, d.p_value, m.improved, m.regressed, m.unchanged,
                m.baseline_pass_rate, m.candidate_pass_rate, m.newly_passing, m.newly_failing,
                m.mcnemar_p, m.new_errors, len(self.only_in_baseline[m.metric]),
                len(self.only_in_candidate[m.metric]), m.verdict,
            ))
        columns = ("metric", "paired", "scored", "baseline", "candidate", "difference",
                   "low", "high", "p_value", "improved", "regressed", "unchanged",
                   "baseline_pass_rate", "candidate_pass_rate", "newly_passing",
                   "newly_failing", "mcnemar_p", "new_errors", "only_in_baseline",
                   "only_in_candidate", "verdict")
        first = next(iter(self.metrics.values()), None)
        level = f"{first.difference.ci:.0%} CI, {first.difference.method}" if first else ""
        return Table(columns, rows, title=f"Comparison: {self._title()} ({level})")

    def _row(self, metric: str, pair: int) -> PairedCase:
        """Paired case number ``pair`` of ``metric``: key, both values, change
        (in the better direction: positive is better), both pass flags, and
        each side's reason (its error where it could not score the case)."""
        b, c = self.baseline.metrics[metric], self.candidate.metrics[metric]
        i, j = int(self._pairs[metric][0][pair]), int(self._pairs[metric][1][pair])
        before, after = float(b.values[i]), float(c.values[j])
        sign = 1.0 if b.higher_is_better else -1.0
        return PairedCase(b.keys[i], metric, before, after, sign * (after - before),
                bool(b.passed[i]), bool(c.passed[j]),
                b.error(i) or b.reason(i), c.error(j) or c.reason(j))

    def regressions(self, metric: str | None = None, *, limit: int | None = None) -> Table:
        """The cases that got worse: a lower score (in the metric's better
        direction), a pass that became a fail, or a new error; both sides'
        values and reasons side by side, worst first."""
        return self._changes(metric, limit, worse=True)

    def improvements(self, metric: str | None = None, *, limit: int | None = None) -> Table:
        """The cases that got better, best first (the mirror of :meth:`regressions`)."""
        return self._changes(metric, limit, worse=False)

    def _changes(self, metric: str | None, limit: int | None, worse: bool) -> Table:
        labels = list(self.metrics) if metric is None else [self[metric].metric]
        picked: list[tuple[float, str, int]] = []
        for label in labels:
            b, c = self.baseline.metrics[label], self.candidate.metrics[label]
            left, right = self._pairs[label]
            before, after = b.values[left], c.values[right]
            change = (after - before) * (1.0 if b.higher_is_better else -1.0)
            was, now = b.passed[left], c.passed[right]
            if worse:
                hit = (change < 0) | (was & ~now) | (np.isnan(after) & ~np.isnan(before))
            else:
                hit = (change > 0) | (now & ~was) | (np.isnan(before) & ~np.isnan(after))
            picked.extend((float(change[k]), label, int(k)) for k in np.flatnonzero(hit))
        # Cases that lost (or gained) a score first, then by the size of the change.
        picked.sort(key=lambda p: (0, 0.0) if math.isnan(p[0]) else (1, p[0] if worse else -p[0]))
        rows = [self._row(label, pair) for _, label, pair in picked[:limit]]
        return Table(PairedCase._fields, rows, title="Regressions" if worse else "Improvements")

    def to_pandas(self) -> Any:
        """One row per case and metric: key, both values, change, pass flags,
        reasons (an error message where a side could not score the case), and
        ``status``: improved, regressed, unchanged, unscored, or only in one side."""

        pd = require("pandas", "pandas")
        records = []
        for label in self.metrics:
            for pair in range(len(self._pairs[label][0])):
                row = self._row(label, pair)
                change = row.change
                status = ("unscored" if math.isnan(change) else "improved" if change > 0
                          else "regressed" if change < 0 else "unchanged")
                records.append((*row, status))
            for side, keys in (("baseline", self.only_in_baseline[label]),
                               ("candidate", self.only_in_candidate[label])):
                scores = (self.baseline if side == "baseline" else self.candidate).metrics[label]
                index = {key: i for i, key in enumerate(scores.keys)}
                for key in keys:
                    i = index[key]
                    value, passed = float(scores.values[i]), bool(scores.passed[i])
                    reason = scores.error(i) or scores.reason(i)
                    records.append((*PairedCase(
                        key, label,
                        value if side == "baseline" else math.nan,
                        value if side == "candidate" else math.nan, math.nan,
                        passed if side == "baseline" else None,
                        passed if side == "candidate" else None,
                        reason if side == "baseline" else None,
                        reason if side == "candidate" else None),
                        f"only in {side}"))
        columns = [*PairedCase._fields, "status"]
        return pd.DataFrame(records, columns=columns)

    # -- display -----------------------------------------------------------------

    def _title(self) -> str:
        candidate, baseline = self.candidate.name, self.baseline.name
        if candidate != "candidate":
            candidate += " (candidate)"
        if baseline != "baseline":
            baseline += " (baseline)"
        return f"{candidate} against {baseline}"

    def verdicts(self) -> dict[str, list[str]]:
        """The metrics by verdict, worst news first: ``worse``, ``mixed``,
        ``better``, ``no clear difference``, ``nothing compared`` (verdicts no
        metric has are left out)."""
        found: dict[str, list[str]] = {verdict: [] for verdict in VERDICTS}
        for m in self.metrics.values():
            found[m.verdict].append(m.metric)
        return {verdict: labels for verdict, labels in found.items() if labels}

    @property
    def headline(self) -> str:
        """One line naming both sides and each metric's verdict, worst news
        first: ``"agent-b (candidate) against agent-a (baseline): worse on
        latency; better on tool_selection_accuracy"``."""
        verdicts = self.verdicts()
        said = "; ".join(f"{verdict} on {', '.join(labels)}"
                         for verdict, labels in verdicts.items())
        return f"{self._title()}: {said or 'no metric compared'}"

    def report(self, *, limit: int = 10) -> str:
        """The comparison as text: per metric its difference, flips and verdict,
        the worst regressions with both reasons, and what did not pair."""
        lines = [f"Comparison: {self._title()}", f"Verdict: {self.headline.split(': ', 1)[1]}"
                 if self.metrics else "Verdict: no metric compared"]
        for m in self.metrics.values():
            d = m.difference
            arrow = "higher" if m.higher_is_better else "lower"
            unit = "" if m.unit is None else f", in {m.unit}"
            lines += [
                "",
                f"{m.metric} ({arrow} is better{unit}): {m.paired} paired cases, {m.scored} scored "
                f"on both sides",
                f"  mean      {_num(m.baseline_mean)} -> {_num(m.candidate_mean)}, "
                f"difference {signed(d.mean)} [{signed(d.low)}, {signed(d.high)}] "
                f"({d.ci:.0%} CI), p = {_p(d.p_value)} ({d.method})",
                f"  cases     {m.improved} improved, {m.regressed} regressed, "
                f"{m.unchanged} unchanged" + (f", {m.new_errors} newly unscorable"
                                               if m.new_errors else ""),
                f"  pass rate {_pct(m.baseline_pass_rate)} -> {_pct(m.candidate_pass_rate)}: "
                f"{m.newly_passing} newly passing, {m.newly_failing} newly failing "
                f"(exact McNemar p = {_p(m.mcnemar_p)})",
                f"  verdict   {m.verdict}",
            ]
            only_b, only_c = self.only_in_baseline[m.metric], self.only_in_candidate[m.metric]
            for side, keys in (("baseline", only_b), ("candidate", only_c)):
                if keys:
                    shown = ", ".join(map(case_key, keys[:5])) + (
                        f" and {len(keys) - 5} more" if len(keys) > 5 else "")
                    lines.append(f"  only in the {side}: {_cases(len(keys))} ({shown}), not "
                                 f"compared")
        for label in self.metrics_only_in_baseline:
            lines.append(f"\n{label}: only in the baseline, not compared")
        for label in self.metrics_only_in_candidate:
            lines.append(f"\n{label}: only in the candidate, not compared")
        lines += config_lines(self.config_differences)
        worst = self.regressions(limit=limit)
        if len(worst):
            lines += ["", f"Regressions (worst {len(worst)})"]
            for row in worst:
                lines.append(f"  {case_key(row['key'])} {row['metric']}: {_num(row['baseline'])} -> "
                             f"{_num(row['candidate'])}")
                lines.append(f"    baseline:  {row['baseline_reason']}")
                lines.append(f"    candidate: {row['candidate_reason']}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.report()

    def _repr_html_(self) -> str:
        head = html.escape(f"Comparison: {self._title()}")
        notes = []
        for label in self.metrics:
            for side, keys in (("baseline", self.only_in_baseline[label]),
                               ("candidate", self.only_in_candidate[label])):
                if keys:
                    notes.append(f"{label}: {_cases(len(keys))} only in the {side}, not "
                                 f"compared")
        notes += [f"{label}: only in the baseline" for label in self.metrics_only_in_baseline]
        notes += [f"{label}: only in the candidate" for label in self.metrics_only_in_candidate]
        tail = "".join(f"<p>{html.escape(note)}</p>" for note in notes)
        worst = self.regressions(limit=20)
        regressions = worst._repr_html_() if len(worst) else ""
        return f"<p><b>{head}</b></p>{self.summary()._repr_html_()}{tail}{regressions}"

    def to_html(self, path: str | os.PathLike[str] | None = None, *, title: str | None = None,
                limit: int = 100) -> Any:
        """The comparison as one self-contained HTML page: per metric the paired
        difference with its interval and test, pass/fail flips with McNemar's
        test, the regressions worst first with both reasons, the improvements,
        what did not pair, and each side's provenance where known. Written to
        ``path`` (returned as a Path), or returned as a string without one.
        ``limit``: the most regressions (and improvements) listed."""

        text = comparison_html(self, title=title, limit=limit)
        return text if path is None else write_page(path, text)

    def plot(self, ax: Any = None) -> Any:
        """Each metric's mean difference (candidate minus baseline) with its
        interval, against a line at 0 (needs matplotlib). Returns the Axes."""

        require("matplotlib", "plot")
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 1 + 0.6 * max(1, len(self.metrics))))
        labels = list(self.metrics)
        for y, label in enumerate(labels):
            m = self.metrics[label]
            d = m.difference
            colour = {"worse": "#c44e52", "better": "#55a868"}.get(m.verdict, "#4c72b0")
            if math.isfinite(d.low) and math.isfinite(d.high):
                ax.errorbar(d.mean, y, xerr=[[d.mean - d.low], [d.high - d.mean]], fmt="o",
                            color=colour, capsize=4)
            else:
                ax.plot(d.mean, y, "o", color=colour)
        ax.axvline(0.0, color="grey", linestyle="--", linewidth=1)
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels)
        ax.set_ylim(-0.5, len(labels) - 0.5)
        first = next(iter(self.metrics.values()), None)
        level = f"{first.difference.ci:.0%} CI" if first else "CI"
        ax.set_xlabel(f"candidate - baseline (mean score, {level})")
        ax.set_title(f"{self.candidate.name} against {self.baseline.name}")
        return ax


def _cases(count: int) -> str:
    return f"{count} case" if count == 1 else f"{count} cases"


def config_lines(differences: dict[str, tuple[Any, Any]]) -> list[str]:
    """The text of configuration differences: ``model differs: gpt-4o ->
    gpt-4.1``, one a line (none when the configurations agree)."""
    def line(value: Any) -> str:  # one line, cut at 120 characters
        text = " ".join(shown_value(value).split())
        return text if len(text) <= 120 else text[:117] + "..."

    if not differences:
        return []
    return ["", "Configuration (baseline -> candidate)"] + [
        f"  {' '.join(key.split())} differs: {line(before)} -> {line(after)}"
        for key, (before, after) in differences.items()]


def _num(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def _pct(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1%}"


def _p(value: float) -> str:
    if math.isnan(value):
        return "-"
    return "< 0.0001" if value < 1e-4 else f"{value:.3g}"


def _pair(b: Scores, c: Scores) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp],
                                          tuple[Any, ...], tuple[Any, ...]]:
    where = {key: i for i, key in enumerate(c.keys)}
    left, right, only_b = [], [], []
    for i, key in enumerate(b.keys):
        j = where.pop(key, None)
        if j is None:
            only_b.append(key)
        else:
            left.append(i)
            right.append(j)
    return (np.array(left, dtype=np.intp), np.array(right, dtype=np.intp), tuple(only_b),
            tuple(where))


def _value_range(sources: tuple[Any, Any], label: str, before: npt.NDArray[np.float64],
                 after: npt.NDArray[np.float64]) -> tuple[float, float] | None:
    """The range the scores of ``label`` can take, for clipping the interval of
    their difference: the ``value_range`` of the metric that scored them (both
    sides' together, should they differ), or, for saved results, of the class
    the registry knows by the label's name; else [0, 1]. Saved scores outside
    their metric's range are refused when they are read (edited files); a
    range the scores do not keep to all the same (one side scored by a class
    whose range has changed since) gives way to [0, 1], and to no clipping
    when they leave that too."""

    declared = []
    for source in sources:
        if isinstance(source, EvaluationResult) and label in source.results:
            declared.append(type(source.results[label].metric).value_range)
        elif isinstance(source, ComparisonSide) and source.provenance is not None:
            # A saved run (or a result's side): the range its metric declared.
            declared.extend(spec.value_range for spec in source.provenance.metrics
                            if spec.label == label)
    if not declared:
        declared.append(registered_range(label))
    low = float(min(bounds[0] for bounds in declared))
    high = float(max(bounds[1] for bounds in declared))
    for bounds in ((low, high), (0.0, 1.0)):
        if all(bool(((side >= bounds[0]) & (side <= bounds[1])).all())
               for side in (before, after)):
            return bounds
    return None


#: The longest name of a side.
_NAME_LIMIT = 200


def _names(names: Any) -> tuple[str, str]:
    """``names`` checked: two non-empty strings, the baseline's then the candidate's."""
    fix = "Fix: names=('agent-a', 'agent-b'), the baseline's name then the candidate's."
    if isinstance(names, (str, bytes)) or not isinstance(names, (tuple, list)) or \
            len(names) != 2:
        raise InvalidParameterError(
            f"names: expected two names (baseline, candidate), got {names!r:.80}. {fix}")
    for which, name in zip(("baseline", "candidate"), names):
        if not isinstance(name, str) or not name.strip() or len(name) > _NAME_LIMIT:
            raise InvalidParameterError(
                f"names: the {which}'s name must be non-empty text of at most {_NAME_LIMIT} "
                f"characters, got {name!r:.80}. {fix}")
    return names[0], names[1]


def _side(value: Any, on: str | None, name: str) -> ComparisonSide:

    if isinstance(value, ComparisonSide):
        return value
    if isinstance(value, EvaluationResult):
        return side_from_result(value, on, name)
    if isinstance(value, (str, os.PathLike)):
        return read_side(value, on)
    raise InvalidParameterError(
        f"{name}: expected an EvaluationResult (from agentmetrics.evaluate) or the path of "
        f"a saved run (result.save, agentmetrics evaluate --save) or of saved results "
        f"(agentmetrics evaluate --format jsonl, or a pytest --agentmetrics-report), got "
        f"{type(value).__name__}.")


def compare(
    baseline: EvaluationResult | ComparisonSide | str | os.PathLike[str],
    candidate: EvaluationResult | ComparisonSide | str | os.PathLike[str],
    *,
    on: str | None = "id",
    metrics: str | Sequence[str] | None = None,
    ci: float = 0.95,
    method: Literal["t", "permutation"] = "t",
    resamples: int = 10_000,
    seed: int = 0,
    names: tuple[str, str] | None = None,
) -> Comparison:
    """Compare ``candidate`` against ``baseline`` case by case.

    Both are EvaluationResults, or paths of saved runs (``result.save(path)``,
    ``agentmetrics evaluate --save``) or of saved results (the rows of
    ``agentmetrics evaluate --format jsonl`` or ``json``, or a pytest
    ``--agentmetrics-report``). Cases pair on ``on``: the case id (default),
    another metadata key, or ``None`` for their position. ``metrics``: the
    labels to compare (default: every metric both sides have). ``names``:
    what to call the two sides, ``(baseline, candidate)``, on every page and
    in every report (default: the paths, or "baseline" and "candidate").

    Per metric: the mean paired difference with a ``ci`` t interval and the
    p-value of a paired t test (``method="t"``) or of a sign-flip permutation
    test (``"permutation"``, exact up to 16 non-zero differences, else
    ``resamples`` seeded random flips); the exact McNemar test of pass/fail
    flips; counts of improved, regressed and unchanged cases. Cases present
    on one side only are listed, not compared.

    The difference's interval is clipped to ``[-(high - low), high - low]``
    for the metric's ``value_range`` ``(low, high)``: no difference of two of
    its scores lies beyond. A saved run keeps its metrics' ranges; for saved
    results the range is that of the metric class the registry has under the
    label's name, or [0, 1].
    """

    ci = check_ci(ci)
    if method not in ("t", "permutation"):
        raise InvalidParameterError(f"method: expected 't' or 'permutation', got {method!r}.")
    base = _side(baseline, on, "baseline")
    cand = _side(candidate, on, "candidate")
    if names is not None:
        base_name, cand_name = _names(names)
        base, cand = attrs.evolve(base, name=base_name), attrs.evolve(cand, name=cand_name)
    common = [label for label in base.metrics if label in cand.metrics]
    if metrics is not None:
        wanted = [metrics] if isinstance(metrics, str) else list(metrics)
        unknown = [label for label in wanted if label not in common]
        if unknown:
            raise InvalidParameterError(
                f"metrics: {unknown[0]!r} is not a metric of both sides; expected some of "
                f"{common}. (baseline has {list(base.metrics)}, candidate has "
                f"{list(cand.metrics)})")
        common = wanted
    if not common:
        raise InvalidParameterError(
            f"baseline and candidate: expected at least one metric in common; the baseline "
            f"has {list(base.metrics)}, the candidate {list(cand.metrics)}. Fix: score both "
            f"with the same metrics (same parameters).")
    results: dict[str, MetricComparison] = {}
    pairs = {}
    only_b: dict[str, tuple[Any, ...]] = {}
    only_c: dict[str, tuple[Any, ...]] = {}
    for label in common:
        b, c = base.metrics[label], cand.metrics[label]
        left, right, only_b[label], only_c[label] = _pair(b, c)
        pairs[label] = (left, right)
        before, after = b.values[left], c.values[right]
        scored = ~(np.isnan(before) | np.isnan(after))
        scored_before, scored_after = before[scored], after[scored]
        bounds = _value_range((baseline if isinstance(baseline, EvaluationResult) else base,
                               candidate if isinstance(candidate, EvaluationResult) else cand),
                              label, scored_before, scored_after)
        difference = paired_difference(scored_before, scored_after, ci=ci, method=method,
                                       resamples=resamples, seed=seed, bounds=bounds)
        was, now = b.passed[left], c.passed[right]
        newly_passing = int(np.count_nonzero(now & ~was))
        newly_failing = int(np.count_nonzero(was & ~now))
        change = (after - before)[scored] * (1.0 if b.higher_is_better else -1.0)
        results[label] = MetricComparison(
            metric=label,
            higher_is_better=b.higher_is_better,
            paired=len(left),
            scored=int(scored.sum()),
            baseline_mean=_finite_mean(before[scored]),
            candidate_mean=_finite_mean(after[scored]),
            difference=difference,
            baseline_pass_rate=float(was.mean()) if len(was) else math.nan,
            candidate_pass_rate=float(now.mean()) if len(now) else math.nan,
            improved=int(np.count_nonzero(change > 0)),
            regressed=int(np.count_nonzero(change < 0)),
            unchanged=int(np.count_nonzero(change == 0)),
            newly_passing=newly_passing,
            newly_failing=newly_failing,
            mcnemar_p=mcnemar_exact(newly_failing, newly_passing),
            new_errors=int(np.count_nonzero(np.isnan(after) & ~np.isnan(before))),
            fixed_errors=int(np.count_nonzero(np.isnan(before) & ~np.isnan(after))),
            unit=b.unit if b.unit is not None else c.unit,
        )
    return Comparison(
        base, cand, results, pairs, only_b, only_c,
        tuple(label for label in base.metrics if label not in cand.metrics),
        tuple(label for label in cand.metrics if label not in base.metrics))


# Pickles and reprs name the public path, not this private module.
for _public in (Comparison,):
    _public.__module__ = "agentmetrics"
del _public
