"""The called and the expected calls of a case side by side, aligned so that
what was missed and what was not asked for stand out."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from agentmetrics.report._page import esc

__all__ = ["side_by_side"]

#: The longest call list shown in full; longer ones are cut with a count.
MAX_SHOWN = 60


def _span(text: str, css: str, title: str) -> str:
    return f'<span class="{css}" title="{title}">{esc(text)}</span>'


def side_by_side(called: Sequence[str] | None, expected: Sequence[str] | None,
                 *, called_text: Sequence[str] | None = None,
                 expected_text: Sequence[str] | None = None) -> str:
    """A two-column grid: called calls on the left, expected on the right,
    matched names on one row (by the longest matching blocks of names), a
    missed expected call marked ``missed`` and an unexpected call ``extra``.
    ``*_text`` show each call more fully (with its arguments) than its name."""
    head = '<div class="seq"><span class="head">called</span><span class="head">expected</span>'
    if called is None or expected is None:
        left = "not given" if called is None else ", ".join(called) or "no calls"
        right = "not given" if expected is None else ", ".join(expected) or "no calls"
        return (head + _span(left, "gap" if called is None else "", "")
                + _span(right, "gap" if expected is None else "", "") + "</div>")
    shown_called = list(called_text if called_text is not None else called)
    shown_expected = list(expected_text if expected_text is not None else expected)
    cells: list[str] = []
    matcher = difflib.SequenceMatcher(a=list(called), b=list(expected), autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op == "equal":
            for i, j in zip(range(a0, a1), range(b0, b1)):
                cells += [_span(shown_called[i], "", f"call {i + 1}"),
                          _span(shown_expected[j], "", f"expected {j + 1}")]
            continue
        rows = max(a1 - a0, b1 - b0)
        for k in range(rows):
            i, j = a0 + k, b0 + k
            cells.append(_span(shown_called[i], "extra", f"call {i + 1}: not expected here")
                         if i < a1 else '<span class="gap">·</span>')
            cells.append(_span(shown_expected[j], "missed", f"expected {j + 1}: not called here")
                         if j < b1 else '<span class="gap">·</span>')
    if not cells:
        cells = ['<span class="gap">no calls</span>', '<span class="gap">no calls</span>']
    if len(cells) > 2 * MAX_SHOWN:
        hidden = len(cells) // 2 - MAX_SHOWN
        cells = cells[: 2 * MAX_SHOWN] + [
            f'<span class="gap">… {hidden} more rows</span>', '<span class="gap"></span>']
    return head + "".join(cells) + "</div>"
