"""Charts as inline SVG, drawn from counts already computed: a histogram with
the threshold marked, intervals around a reference line, a trend over runs."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from agentmetrics.report._page import esc, num

__all__ = ["axis_range", "cut", "histogram", "histogram_svg", "intervals_svg", "trend_svg",
           "value_text"]

_W, _H = 360, 170
_LEFT, _RIGHT, _TOP, _BOTTOM = 40, 10, 10, 32


def axis_range(values: npt.NDArray[np.float64], value_range: tuple[float, float],
               threshold: float) -> tuple[float, float]:
    """The span a histogram's axis covers: the metric's ``value_range`` where
    its ends are finite; an infinite end (seconds, tokens, money) is the
    data's minimum or maximum, the threshold included so its line shows. Never
    empty: a span of one value is widened by one either way (or up from a
    finite end)."""
    low, high = (float(bound) for bound in value_range)
    if math.isfinite(low) and math.isfinite(high):
        return low, high
    scored = values[~np.isnan(values)]
    seen = [float(scored.min()), float(scored.max())] if len(scored) else []
    seen.append(threshold)
    if not math.isfinite(low):
        low = min(seen)
    if not math.isfinite(high):
        high = max(seen)
    if not high > low:  # one value: a unit's width around it, not below a finite floor
        finite_floor = math.isfinite(float(value_range[0]))
        low, high = (low, low + 1.0) if finite_floor else (high - 1.0, high)
    return low, high


def histogram(values: npt.NDArray[np.float64], value_range: tuple[float, float],
              bins: int = 20) -> npt.NDArray[np.int64]:
    """Counts of the scored values in ``bins`` equal bins over ``value_range``,
    a finite span (see :func:`axis_range`; the top edge inclusive, a value
    past either end counted in the end's bin); NaN (unscored) left out."""
    low, high = value_range
    scored = values[~np.isnan(values)]
    if not len(scored):
        return np.zeros(bins, dtype=np.int64)
    position = np.floor((scored - low) / (high - low) * bins).astype(np.int64)
    np.clip(position, 0, bins - 1, out=position)
    return np.bincount(position, minlength=bins).astype(np.int64)


def histogram_svg(counts: npt.NDArray[np.int64], value_range: tuple[float, float],
                  threshold: float, label: str) -> str:
    """Bars of ``counts`` across ``value_range`` and a dashed line at ``threshold``."""
    low, high = value_range
    width, height = _W - _LEFT - _RIGHT, _H - _TOP - _BOTTOM
    top = int(counts.max()) if len(counts) and counts.max() > 0 else 1
    step = width / max(1, len(counts))
    # Two decimals for a share or score; four significant digits for seconds or tokens.
    edge = "{:.2f}".format if high - low <= 1.0 else "{:.4g}".format
    parts = [f'<svg width="{_W}" height="{_H}" '
             f'viewBox="0 0 {_W} {_H}" role="img" aria-label="{esc(label)}">']
    for i, count in enumerate(counts.tolist()):
        if count:
            h = max(1.0, height * count / top)
            x = _LEFT + i * step
            a, b = low + (high - low) * i / len(counts), low + (high - low) * (i + 1) / len(counts)
            parts.append(f'<rect class="bar" x="{x + 0.5:.1f}" y="{_TOP + height - h:.1f}" '
                         f'width="{max(1.0, step - 1):.1f}" height="{h:.1f}">'
                         f"<title>{edge(a)}\u2013{edge(b)}: {count:,} cases</title></rect>")
    base = _TOP + height
    parts.append(f'<line class="axis" x1="{_LEFT}" y1="{base}" x2="{_LEFT + width}" y2="{base}"/>')
    parts.append(f'<line class="axis" x1="{_LEFT}" y1="{_TOP}" x2="{_LEFT}" y2="{base}"/>')
    for tick in (low, (low + high) / 2, high):
        x = _LEFT + width * (tick - low) / (high - low)
        parts.append(f'<text x="{x:.1f}" y="{base + 14}" text-anchor="middle">{tick:g}</text>')
    parts.append(f'<text x="{_LEFT - 4}" y="{_TOP + 9}" text-anchor="end">{top:,}</text>')
    parts.append(f'<text x="{_LEFT - 4}" y="{base}" text-anchor="end">0</text>')
    if low <= threshold <= high:
        x = _LEFT + width * (threshold - low) / (high - low)
        parts.append(f'<line class="threshold" x1="{x:.1f}" y1="{_TOP}" x2="{x:.1f}" '
                     f'y2="{base}"><title>threshold {threshold:g}</title></line>')
        parts.append(f'<text x="{x:.1f}" y="{base + 27}" text-anchor="middle">threshold '
                     f"{threshold:g}</text>")
    parts.append("</svg>")
    return "".join(parts)


def intervals_svg(rows: Sequence[tuple[str, float, float, float]], *, reference: float,
                  span: tuple[float, float], label: str) -> str:
    """One row per ``(name, estimate, low, high)``: a point with its interval,
    against a dashed line at ``reference`` (0 for a difference)."""
    row_h, left, width = 26, 170, 300
    total_h = _TOP + row_h * max(1, len(rows)) + 24
    a, b = span
    if not b > a:
        a, b = a - 1.0, b + 1.0

    def x_of(value: float) -> float:
        return left + width * (min(max(value, a), b) - a) / (b - a)

    parts = [f'<svg width="{left + width + 20}" '
             f'height="{total_h}" viewBox="0 0 {left + width + 20} {total_h}" role="img" '
             f'aria-label="{esc(label)}">']
    zero = x_of(reference)
    parts.append(f'<line class="zero" x1="{zero:.1f}" y1="{_TOP - 4}" x2="{zero:.1f}" '
                 f'y2="{total_h - 20}"/>')
    for i, (name, estimate, low, high) in enumerate(rows):
        y = _TOP + row_h * i + row_h / 2
        shown = name if len(name) <= 26 else name[:25] + "…"
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{esc(shown)}'
                     f"<title>{esc(name)}</title></text>")
        if math.isfinite(low) and math.isfinite(high):
            parts.append(f'<line class="whisker" x1="{x_of(low):.1f}" y1="{y:.1f}" '
                         f'x2="{x_of(high):.1f}" y2="{y:.1f}"/>')
        if math.isfinite(estimate):
            parts.append(f'<circle class="point" cx="{x_of(estimate):.1f}" cy="{y:.1f}" r="4">'
                         f"<title>{num(estimate)} [{num(low)}, {num(high)}]</title></circle>")
    for tick in (a, reference, b):
        parts.append(f'<text x="{x_of(tick):.1f}" y="{total_h - 6}" text-anchor="middle">'
                     f"{tick:+.2g}</text>")
    parts.append("</svg>")
    return "".join(parts)


#: The trend chart's size (the same for every metric) and its plot area.
_CW, _CH = 420, 190
_CL, _CR, _CT, _CB = 44, 12, 12, 46
#: Pixels per character of an x-axis label (11 px text), for what fits.
_CHAR = 6.2


def cut(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def value_text(value: float, unit: str | None) -> str:
    """A value as a chart or a cell shows it: 3 decimals for a score, 4
    significant digits for a value in its own unit."""
    if unit is None or not math.isfinite(value):
        return num(value)
    return f"{value:,.4g}"


def trend_svg(points: Sequence[tuple[str, float, float, float]], label: str,
              unit: str | None = None) -> str:
    """A metric's mean with its interval over runs, oldest first (``(run,
    mean, low, high)``): the same size for every metric (it scales to its
    box), the runs' names on the x axis as many as fit; ``label`` names it
    for screen readers; values in ``unit`` when the metric has one."""
    width, height = _CW - _CL - _CR, _CH - _CT - _CB
    finite = [v for _, m, lo, hi in points for v in (m, lo, hi) if math.isfinite(v)]
    low, high = min(finite, default=0.0), max(finite, default=1.0)
    if high - low < 1e-9:
        low, high = low - 0.5 if unit else max(0.0, low - 0.05), high + (0.5 if unit else 0.05)
    base = _CT + height

    def y_of(value: float) -> float:
        return _CT + height * (1 - (value - low) / (high - low))

    count = len(points)
    xs = [_CL + (width * i / (count - 1) if count > 1 else width / 2) for i in range(count)]
    parts = [f'<svg viewBox="0 0 {_CW} {_CH}" preserveAspectRatio="xMidYMid meet" role="img" '
             f'aria-label="{esc(label)}">',
             f'<line class="axis" x1="{_CL}" y1="{base}" x2="{_CL + width}" y2="{base}"/>',
             f'<line class="axis" x1="{_CL}" y1="{_CT}" x2="{_CL}" y2="{base}"/>']
    line = [f"{x:.1f},{y_of(m):.1f}" for x, (_, m, _, _) in zip(xs, points) if math.isfinite(m)]
    if len(line) > 1:
        parts.append(f'<polyline class="line" points="{" ".join(line)}"/>')
    radius = 3.5 if count <= 60 else 2.0
    for x, (run, mean, lo, hi) in zip(xs, points):
        if math.isfinite(lo) and math.isfinite(hi):
            parts.append(f'<line class="whisker" x1="{x:.1f}" y1="{y_of(lo):.1f}" x2="{x:.1f}" '
                         f'y2="{y_of(hi):.1f}"/>')
        if math.isfinite(mean):
            parts.append(f'<circle class="point" cx="{x:.1f}" cy="{y_of(mean):.1f}" '
                         f'r="{radius}"><title>{esc(run)}: {esc(value_text(mean, unit))} '
                         f"[{esc(value_text(lo, unit))}, {esc(value_text(hi, unit))}]</title></circle>")
    for value in (low, high):
        parts.append(f'<text x="{_CL - 4}" y="{y_of(value) + 4:.1f}" text-anchor="end">'
                     f"{esc(value_text(value, unit) if unit else f'{value:.2f}')}</text>")
    # Labels level under their runs, as many as fit inside the chart: every k-th
    # run, the newest always; the first starts at its run, the last ends at it.
    slot = width / max(1, count - 1) if count > 1 else width
    chars = max(6, min(28, int(slot / _CHAR) - 2))
    every = max(1, math.ceil((chars + 2) * _CHAR / max(slot, 1e-9)))
    shown = set(range(count - 1, -1, -every))
    for i in sorted(shown):
        run = points[i][0]
        anchor = ("middle" if count == 1 else "start" if i == 0 else
                  "end" if i == count - 1 else "middle")
        parts.append(f'<text class="tick" x="{xs[i]:.1f}" y="{base + 14}" '
                     f'text-anchor="{anchor}">{esc(cut(run, chars))}'
                     f"<title>{esc(run)}</title></text>")
    parts.append("</svg>")
    return "".join(parts)

