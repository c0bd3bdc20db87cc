"""How values are shown wherever they are: a metric's range and unit; and
what a comparison's text (``Comparison.report()``, ``agentmetrics compare``)
and its HTML page both show: a case's pairing key and a signed change. Each
surface keeps its own marks: the text quotes a key as Python would (``'c1'``
and ``1`` differ) and shows a missing number as ``-``; the page shows the key
as the run page shows a case id and a missing number as an en dash, as every
other cell of it does."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["case_key", "range_text", "signed", "with_unit"]


def case_key(key: Any, shown: Callable[[Any], str] = repr) -> str:
    """A case's pairing key as a comparison shows it: a pytest case's key
    (``(test id, case index)``) as ``test [case i]``, any other key through
    ``shown`` (``repr`` in text, ``str`` on a page)."""
    if isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str):
        return f"{key[0]} [case {key[1]}]"
    return shown(key)


def signed(value: float, missing: str = "-") -> str:
    """A change with its sign, to three decimals; NaN (nothing to compare) as ``missing``."""
    return missing if math.isnan(value) else f"{value:+.3f}"


def range_text(value_range: tuple[float, float]) -> str:
    """A metric's ``value_range`` as an interval: ``[0, 1]``, ``[0, inf)``,
    ``(-inf, inf)`` (an infinite end is open: no value is infinite)."""
    low, high = (float(bound) for bound in value_range)
    return (f"{'(' if math.isinf(low) else '['}{low:g}, "
            f"{high:g}{')' if math.isinf(high) else ']'}")


def with_unit(text: str, unit: str | None) -> str:
    """``text`` (a metric's label) with the values' unit after it,
    ``latency (s)``; ``text`` itself for a share or score (no unit)."""
    return text if unit is None else f"{text} ({unit})"
