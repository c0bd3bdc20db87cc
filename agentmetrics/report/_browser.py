"""The run browser: one page over every run of a run history, newest first,
with each metric's mean and pass rate, a trend per metric in one grid, a link
to each run's own report and to the comparison of each run with the one
before it; any other two runs picked get the command that compares them.

Every string from the history (labels, metric names, paths, configuration)
is data: masked of what looks like a credential, then escaped. Links are
relative to the page, so its folder can be moved as a whole."""

from __future__ import annotations

import datetime as _dt
import math
import os
import shlex
import urllib.parse
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentmetrics._secrets import MASK, credential_name, mask_tokens
from agentmetrics.errors import AgentMetricsError, InvalidParameterError
from agentmetrics.report._charts import cut, trend_svg, value_text
from agentmetrics.report._page import esc, page, pct, section, write_page

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.results._results import EvaluationResult
    from agentmetrics.runs._history import RunStore
    from agentmetrics.runs._store import RunRecord

__all__ = ["Compare", "browser_html", "write_browser"]

#: Compares two runs (baseline, candidate; ``names=`` the two sides' names) into
#: something with ``to_html(path)``: ``agentmetrics.compare``.
Compare = Callable[..., Any]

#: A history of at most this many runs gets the comparison of every two runs
#: written beside its page (45 pages at most); a longer one, each run's with
#: the run before it.
EVERY_PAIR = 10
#: The longest label or configuration text shown in a cell; the whole text is
#: in the cell's title.
_SHOWN = 60


# -- data as shown ------------------------------------------------------------------


def _clean(value: object) -> str:
    """Text from the history as it may be shown: what looks like a credential
    (a URL's user information, a token, a ``key=value`` credential) masked."""
    return mask_tokens(str(value))


def _cut(text: str, limit: int = _SHOWN) -> str:
    return cut(text, limit)


def _name(run: RunRecord) -> str:
    return _clean(run.label) if run.label else f"run {run.id}"


def _config(run: RunRecord) -> str:
    """The run's configuration (``RunRecord.config``, where the history keeps
    one) as compact ``key=value`` pairs; a credential-named key's value masked."""
    config = getattr(run, "config", None) or {}
    if not isinstance(config, Mapping):
        return _clean(config)
    pairs = []
    for key, value in config.items():
        shown = MASK if credential_name(str(key)) and value is not None else _clean(value)
        pairs.append(f"{_clean(key)}={shown}")
    return " ".join(pairs)


def _epoch(created: str) -> float:
    try:
        return _dt.datetime.fromisoformat(created).timestamp()
    except ValueError:
        return math.nan


def _when(created: str) -> str:
    """``2024-05-01 12:00`` from the provenance's ISO 8601 UTC time."""
    text = created.replace("T", " ").removesuffix("+00:00")
    return text[:16] if len(text) >= 16 else text


def _units(runs: Sequence[RunRecord]) -> dict[str, str | None]:
    """Each metric label (newest run's order first) with its unit, if any."""
    units: dict[str, str | None] = {}
    for run in runs:
        specs = {spec.label: spec.unit for spec in run.provenance.metrics}
        for summary in run.metrics:
            if summary.metric not in units or units[summary.metric] is None:
                units[summary.metric] = specs.get(summary.metric)
    return units


_value = value_text


# -- the files beside the page ------------------------------------------------------


class _Links:
    """What was written beside the page (relative hrefs) and why a run has no
    report."""

    def __init__(self) -> None:
        self.reports: dict[int, str] = {}
        self.comparisons: dict[int, str] = {}   # newer run id -> its comparison's href
        self.missing: dict[int, str] = {}       # run id -> why it has no report
        #: Every pair of runs has its comparison written (a small history).
        self.every_pair = False


def _why_not(run: RunRecord) -> str | None:
    """Why ``run`` cannot be opened from its file, without reading it; None when it may."""
    if run.path is None:
        return "recorded without a saved file"
    if not os.path.isfile(run.path):
        return "its saved file is gone (moved or deleted)"
    return None


def _write_files(store: RunStore, runs: Sequence[RunRecord], folder: Path, href: str,
                 reports: bool, compare: Compare | None) -> _Links:
    """Each run's report (``reports``) and, with ``compare``, each pair's
    comparison (every pair of a history of at most EVERY_PAIR runs, else
    each consecutive pair) written into ``folder`` (``href``, relative to the page)."""
    links = _Links()
    previous: tuple[RunRecord, EvaluationResult] | None = None
    # A small history gets the comparison of every pair, so that any two runs
    # picked have their page; a larger one each run against the one before.
    every = compare is not None and len(runs) <= EVERY_PAIR
    loaded: list[tuple[RunRecord, EvaluationResult]] = []
    for run in sorted(runs, key=lambda r: r.id):
        why = _why_not(run)
        if why is None and not (reports or compare is not None):
            previous = None
            continue
        result = None
        if why is None:
            try:
                result = store.load(run.id)
            except AgentMetricsError:
                why = "its saved file no longer holds this run (saved over or changed since)"
        if result is None:
            links.missing[run.id] = why or ""
            previous = None
            continue
        folder.mkdir(parents=True, exist_ok=True)
        if reports:
            name = f"{run.id}.html"
            result.to_html(folder / name, name=_cut(_name(run), 200))
            links.reports[run.id] = f"{href}/{name}"
        if compare is not None and previous is not None:
            before, baseline = previous
            name = f"compare-{before.id}-{run.id}.html"
            compare(baseline, result, names=(_cut(_name(before), 200),
                                             _cut(_name(run), 200))).to_html(
                folder / name, title=f"{_name(run)} against {_name(before)}")
            links.comparisons[run.id] = f"{href}/{name}"
        if every:
            loaded.append((run, result))
        previous = (run, result)
    if every and compare is not None:
        for k, (before, baseline) in enumerate(loaded):
            for run, result in loaded[k + 2:]:  # the consecutive pairs are written above
                name = f"compare-{before.id}-{run.id}.html"
                compare(baseline, result, names=(_cut(_name(before), 200),
                                                 _cut(_name(run), 200))).to_html(
                    folder / name, title=f"{_name(run)} against {_name(before)}")
        links.every_pair = True
    return links


# -- the page ---------------------------------------------------------------------


def _headline(store: RunStore, runs: Sequence[RunRecord]) -> str:
    name = _clean(store.path.name)
    if not runs:
        return (f'<p class="headline" role="status">No runs: the run history {esc(name)} holds '
                f"no saved run yet, so there is nothing to browse. Save one with "
                f"<code>agentmetrics evaluate FILE --save run.jsonl</code> or "
                f"<code>result.save(path)</code>.</p>")
    first, last = runs[-1].created, runs[0].created
    span = _when(first) if first == last else f"{_when(first)} to {_when(last)} (UTC)"
    return (f'<p class="runs-headline"><strong>{esc(name)}</strong>: {len(runs):,} '
            f"run{'s' if len(runs) != 1 else ''}, {esc(span)}</p>")


def _cell(markup: str, sort: object = None, css: str = "", title: str = "") -> str:
    attributes = "" if sort is None else f' data-v="{esc(sort)}"'
    attributes += f' class="{css}"' if css else ""
    attributes += f' title="{esc(title)}"' if title else ""
    return f"<td{attributes}>{markup}</td>"


def _row(run: RunRecord, metrics: Mapping[str, str | None], links: _Links,
         previous: RunRecord | None) -> str:
    name = _name(run)
    path = _clean(run.path) if run.path else ""
    # Only a run whose file is there can be compared by the command.
    quoted = shlex.quote(path) if path and run.id not in links.missing else ""
    report = links.reports.get(run.id)
    label = (f'<a href="{esc(report)}">{esc(_cut(name))}</a>' if report
             else esc(_cut(name)))
    why = links.missing.get(run.id)
    if why:
        label += f'<br><span class="muted nolink">no report: {esc(why)}</span>'
    cells = [
        _cell(f'<input type="checkbox" class="pick" aria-label="pick {esc(name)}" '
              f'data-id="{run.id}" data-name="{esc(name)}" '
              f'data-path="{esc(quoted)}">', sort=0),
        _cell(label, sort=name.lower(), css="label", title=f"{name}\n{path}" if path else name),
        _cell(esc(_when(run.created)), sort=_epoch(run.created), css="when",
              title=run.created),
    ]
    for metric, unit in metrics.items():
        summary = run.summary(metric)
        if summary is None:
            cells.append(_cell("", sort=""))
            continue
        bar = ("" if math.isnan(summary.mean_low) else
               f"[{_value(summary.mean_low, unit)}, {_value(summary.mean_high, unit)}]")
        rate_bar = ("" if math.isnan(summary.pass_low) else
                    f"[{pct(summary.pass_low)}, {pct(summary.pass_high)}]")
        # One cell a metric: its mean, then its pass rate (both intervals in the title).
        cells.append(_cell(f"<b>{esc(_value(summary.mean, unit))}</b> "
                           f'<span class="muted">{esc(pct(summary.pass_rate))}</span>',
                           sort=summary.mean, css="n",
                           title=f"{metric}: mean {_value(summary.mean, unit)} {bar}; pass rate "
                                 f"{pct(summary.pass_rate)} {rate_bar}"))
    config = _config(run)
    cells.append(_cell(f"{run.cases:,}", sort=run.cases, css="n"))
    cells.append(_cell(esc(_cut(config)), sort=config.lower(), css="config", title=config))
    extra = f' data-prev="{previous.id}"' if previous is not None else ""
    comparison = links.comparisons.get(run.id)
    if comparison:
        extra += f' data-cmp="{esc(comparison)}"'
    return f'<tr data-id="{run.id}"{extra}>{"".join(cells)}</tr>'


def _runs_section(runs: Sequence[RunRecord], metrics: Mapping[str, str | None], links: _Links,
                  href: str) -> str:
    heads = ['<th title="pick two runs to compare">pick</th>', "<th>run</th>",
             "<th>created (UTC)</th>"]
    for metric, unit in metrics.items():
        # A long name breaks after its underscores, never inside a word.
        shown = esc(_cut(metric, 40)).replace("_", "_<wbr>")
        unit_text = f" ({esc(unit)})" if unit else ""
        heads.append(f'<th class="m" title="{esc(metric)}: mean{unit_text} and pass rate">'
                     f'{shown}<br><span class="muted">mean{unit_text} · pass</span></th>')
    heads += ["<th>cases</th>", "<th>configuration</th>"]
    ordered = sorted(runs, key=lambda r: r.id)
    before = {run.id: (ordered[i - 1] if i else None) for i, run in enumerate(ordered)}
    rows = "".join(_row(run, metrics, links, before[run.id]) for run in runs)
    tools = (f'<div class="runs-tools"><input class="filter" type="search" data-for="runs" '
             f'placeholder="filter runs (label, configuration, time)" '
             f'aria-label="filter runs"> <a id="runs-compare" class="runs-compare" '
             f'aria-disabled="true" data-dir="{esc(shlex.quote(_clean(href)))}" '
             f'data-href="{esc(href)}">compare</a> '
             f'<span id="runs-compare-note" class="muted">pick two runs to compare them</span>'
             f'<pre id="runs-command" class="runs-command" hidden></pre></div>')
    every = ' data-every="1"' if links.every_pair else ""
    table = (f'<table class="sortable runs" id="runs"{every}><thead><tr>{"".join(heads)}</tr>'
             f"</thead><tbody>{rows}</tbody></table>")
    note = ('<p class="muted">Newest first. Click a column head to sort, type to filter. '
            + (f"A comparison page is written for every two runs (a history of at most "
               f"{EVERY_PAIR} runs).</p>" if links.every_pair else
               "A comparison page is written for each run against the one before it; for any "
               "other two runs the page shows the command that makes it.</p>"))
    return section("Runs", tools + table + note, section_id="runs-section")


def _trends_section(runs: Sequence[RunRecord], metrics: Mapping[str, str | None]) -> str:
    oldest = sorted(runs, key=lambda r: r.id)
    figures = []
    for metric, unit in metrics.items():
        points = [(_name(run), s.mean, s.mean_low, s.mean_high) for run in oldest
                  for s in [run.summary(metric)] if s is not None]
        title = metric if unit is None else f"{metric} ({unit})"
        chart = trend_svg(points, f"{metric}: mean over {len(points)} runs", unit)
        figures.append(f'<figure class="trend" data-metric="{esc(metric)}">'
                       f"{chart}<figcaption title=\"{esc(title)}\">"
                       f"{esc(_cut(title, 48))}: mean with its interval over {len(points):,} "
                       f"run{'s' if len(points) != 1 else ''}</figcaption></figure>")
    return section("Trends", f'<div class="runs-grid">{"".join(figures)}</div>',
                   section_id="trends")


def browser_html(store: RunStore, runs: Sequence[RunRecord] | None = None, *,
                 title: str | None = None, links: _Links | None = None,
                 href: str = ".") -> str:
    """The run browser of ``store`` as one HTML document (see
    :meth:`agentmetrics.runs.RunStore.to_html`); ``runs`` newest first (default:
    all of them)."""
    runs = store.list() if runs is None else runs
    links = links or _Links()
    if not links.missing:
        links.missing = {run.id: why for run in runs for why in [_why_not(run)] if why}
    name = _clean(store.path.name)
    sections = []
    if runs:
        metrics = _units(runs)
        sections.append(_runs_section(runs, metrics, links, href))
        if metrics:
            sections.append(_trends_section(runs, metrics))
    subtitle = (f"the run history {esc(name)} · {len(runs):,} run{'s' if len(runs) != 1 else ''}"
                f" · made by agentmetrics")
    return page(title or f"Runs of {name}", subtitle, sections,
                headline=_headline(store, runs))


def write_browser(store: RunStore, path: str | os.PathLike[str], *, title: str | None = None,
                  reports: bool = True, compare: Compare | None = None) -> Path:
    """Write the run browser of ``store`` to ``path``; with ``reports``, each
    run's own report beside it (``<stem>_runs/<id>.html``), and with
    ``compare`` (``agentmetrics.compare``) each run's comparison with the one
    before it (``<stem>_runs/compare-<before>-<id>.html``)."""
    if not isinstance(reports, bool):
        raise InvalidParameterError(
            f"reports: expected True (write each run's report beside the page) or False, got "
            f"{reports!r}.")
    if compare is not None and not callable(compare):
        raise InvalidParameterError(
            f"compare: expected a function comparing two runs (agentmetrics.compare) or None, "
            f"got {type(compare).__name__}. Fix: pass compare=agentmetrics.compare.")
    target = Path(path)
    runs = store.list()
    folder = f"{target.stem}_runs"
    links = _write_files(store, runs, target.parent / folder, urllib.parse.quote(folder),
                         reports, compare)
    return write_page(target, browser_html(store, runs, title=title, links=links, href=folder))
