"""The called and the expected calls of a case side by side, aligned so that
what was missed and what was not asked for stand out."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from agentmetrics.report._page import esc

__all__ = ["side_by_side"]

#: The most rows shown; longer alignments are cut with a count of what is left.
MAX_SHOWN = 60
#: The most calls of each side aligned: room for the matches of the rows shown
#: and well beyond. Longer lists are cut before aligning, as difflib's time
#: grows with the product of the two lengths, and only MAX_SHOWN rows are shown.
ALIGNED = 4 * MAX_SHOWN


def _span(text: str, css: str, title: str) -> str:
    return f'<span class="{css}" title="{title}">{esc(text)}</span>'


def _more(count: int, what: str) -> str:
    return f'<span class="gap">… {count:,} more {what}</span>' if count else \
        '<span class="gap"></span>'


def side_by_side(called: Sequence[str] | None, expected: Sequence[str] | None,
                 *, called_text: Sequence[str] | None = None,
                 expected_text: Sequence[str] | None = None) -> str:
    """A two-column grid: called calls on the left, expected on the right,
    matched names on one row (by the longest matching blocks of names), a
    missed expected call marked ``missed`` and an unexpected call ``extra``.
    ``*_text`` show each call more fully (with its arguments) than its name.
    At most :data:`MAX_SHOWN` rows, aligned over the first :data:`ALIGNED`
    calls of each side, then how many calls of each side are not shown."""
    head = '<div class="seq"><span class="head">called</span><span class="head">expected</span>'
    if called is None or expected is None:
        left = "not given" if called is None else ", ".join(called) or "no calls"
        right = "not given" if expected is None else ", ".join(expected) or "no calls"
        return (head + _span(left, "gap" if called is None else "", "")
                + _span(right, "gap" if expected is None else "", "") + "</div>")
    shown_called = called_text if called_text is not None else called
    shown_expected = expected_text if expected_text is not None else expected
    matcher = difflib.SequenceMatcher(a=list(called[:ALIGNED]), b=list(expected[:ALIGNED]),
                                      autojunk=False)
    cells: list[str] = []
    used_called = used_expected = 0  # the calls of each side the rows so far show
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        rows = min(max(a1 - a0, b1 - b0), MAX_SHOWN - len(cells) // 2)
        for k in range(rows):
            i, j = a0 + k, b0 + k
            if op == "equal":
                cells += [_span(shown_called[i], "", f"call {i + 1}"),
                          _span(shown_expected[j], "", f"expected {j + 1}")]
            else:
                cells.append(_span(shown_called[i], "extra", f"call {i + 1}: not expected here")
                             if i < a1 else '<span class="gap">·</span>')
                cells.append(_span(shown_expected[j], "missed",
                                   f"expected {j + 1}: not called here")
                             if j < b1 else '<span class="gap">·</span>')
            if i < a1:
                used_called = i + 1
            if j < b1:
                used_expected = j + 1
    if not cells:
        cells = ['<span class="gap">no calls</span>', '<span class="gap">no calls</span>']
    more_called, more_expected = len(called) - used_called, len(expected) - used_expected
    if more_called or more_expected:
        cells += [_more(more_called, "call" if more_called == 1 else "calls"),
                  _more(more_expected, "expected call" if more_expected == 1
                        else "expected calls")]
    return head + "".join(cells) + "</div>"
