"""What the commands share: metric specs, argument types, aligned tables, JSON out."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from typing import IO, Any, TypeVar

from agentmetrics._secrets import (
    MASK,
    credential_name,
    mask_tokens,
    mask_value,
    scrub_exception,
    shown_items,
)
from agentmetrics.errors import AgentMetricsError, InvalidMetricError, InvalidParameterError
from agentmetrics.metric._metric import Metric
from agentmetrics.registry import OWN_DISTRIBUTION, get_metric, get_metric_class

__all__ = ["DEFAULT_METRIC", "DEFAULT_WIDTH", "INTERRUPTED", "build_metric", "non_negative",
           "output_width", "parse_metric_spec", "positive", "print_table", "rate", "seconds", "to_json",
           "wrap"]

#: The built-in, named by its distribution: another package that also claims
#: the name must not make a plain `agentmetrics evaluate` ambiguous.
DEFAULT_METRIC = f"{OWN_DISTRIBUTION}/tool_selection_accuracy"
#: The exit status after Ctrl-C (128 + SIGINT), once what was scored is written.
INTERRUPTED = 130


def _split_top_level(text: str) -> list[str]:
    """``text`` split at the commas outside brackets, braces and quotes, so a
    JSON list or object value keeps its own commas."""
    parts, depth, quote, start = [], 0, "", 0
    escaped = False
    for position, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{(":
            depth += 1
        elif char in "]})":
            depth = max(0, depth - 1)
        elif char == "," and depth == 0:
            parts.append(text[start:position])
            start = position + 1
    parts.append(text[start:])
    return parts


def parse_metric_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name[:key=value,...]`` into a name and parameters.

    Values are read as JSON when they parse (``0.9``, ``true``, ``["a", "b"]``)
    and kept as strings otherwise; commas inside brackets, braces or quotes
    belong to the value.

    >>> parse_metric_spec("tool_selection_accuracy:threshold=0.9,order_matters=true")
    ('tool_selection_accuracy', {'threshold': 0.9, 'order_matters': True})
    >>> parse_metric_spec('trajectory_match:args=["a", "b"],mode=strict')
    ('trajectory_match', {'args': ['a', 'b'], 'mode': 'strict'})
    """
    name, _, rest = spec.partition(":")
    params: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in _split_top_level(rest))):
        key, equals, raw = item.partition("=")
        if not equals or not key.strip():
            raise InvalidParameterError(
                f"--metric {mask_tokens(spec)!r}: expected key=value after the colon, got "
                f"{mask_tokens(item)!r}. Fix: write e.g. --metric {name}:threshold=0.9"
            )
        try:
            params[key.strip()] = json.loads(raw)
        except json.JSONDecodeError:
            params[key.strip()] = raw
    return name.strip(), params


_CONTROL = {code: f"\\x{code:02x}" for code in [*range(32), 127]}
_CONTROL.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})


def _cell(text: str) -> str:
    """A table cell on one line: newlines, tabs and terminal escapes (ANSI
    sequences start with ESC) shown escaped, never acted on."""
    return text if text.isprintable() else text.translate(_CONTROL)


#: Text output fits this many columns when it does not go to a terminal (a
#: terminal's own width wins): tables wrap their last column to stay inside.
DEFAULT_WIDTH = 100
_NARROWEST = 20  # a wrapped last column keeps at least this many characters a line


def output_width(out: IO[str]) -> int:
    """The width text output should fit: the terminal's when ``out`` is one,
    else DEFAULT_WIDTH (files, pipes and captured output are the same every run)."""
    isatty = getattr(out, "isatty", None)
    try:
        if isatty is not None and isatty():
            import shutil

            return max(shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns, 40)
    except (OSError, ValueError):
        pass
    return DEFAULT_WIDTH


def print_table(rows: list[list[str]], out: IO[str], right: frozenset[int] = frozenset(),
                widths: list[int] | None = None, width: int | None = None) -> list[int]:
    """Print aligned rows; ``widths`` keeps the columns of an earlier part of
    the same table (a later chunk of rows lines up with the first). With
    ``width``, a last column that would cross it wraps at word boundaries onto
    lines indented under it (never cut: every word is printed). Returns the
    widths used."""
    rows = [[_cell(cell) for cell in row] for row in rows]
    fresh = widths is None
    if widths is None:
        widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    start = sum(widths[:-1]) + 2 * (len(widths) - 1)  # where the last column begins
    if fresh and width is not None and len(widths) > 1:
        widths[-1] = min(widths[-1], max(width - start, _NARROWEST))
    last = len(widths) - 1
    lines: list[str] = []  # written at once: one write per row costs a fifth of the table's time
    for row in rows:
        cells = [
            cell.rjust(size) if col in right else cell.ljust(size)
            for col, (cell, size) in enumerate(zip(row[:-1], widths[:-1]))
        ]
        tail = row[-1] if row else ""
        if width is None or len(tail) <= widths[-1] or last in right or not cells:
            lines.append("  ".join([*cells, tail.rjust(widths[-1]) if last in right else tail])
                         .rstrip())
            continue
        pieces = wrap(tail, widths[-1])
        lines.append("  ".join([*cells, pieces[0]]).rstrip())
        lines.extend(" " * start + piece for piece in pieces[1:])
    out.write("\n".join(lines) + "\n" if lines else "")
    return widths


def wrap(text: str, size: int) -> list[str]:
    """``text`` in lines of at most ``size`` characters, broken at spaces, a word
    longer than a line broken inside it; every word is kept. The same lines as
    ``textwrap.wrap(text, size, break_long_words=True, break_on_hyphens=False)``:
    table cells (single spaces between words that fit a line) are cut at
    their spaces directly, several times faster; anything else goes to textwrap."""
    if size >= 1 and text.isprintable() and "  " not in text and text[:1] != " " != text[-1:]:
        # Single spaces between words, nothing else textwrap breaks at (tabs, newlines).
        lines = []
        start = 0
        while len(text) - start > size:
            cut = text.rfind(" ", start, start + size + 1)  # the last space in reach
            if cut < 0:  # a word longer than a line: textwrap breaks it
                break
            lines.append(text[start:cut])
            start = cut + 1
        else:
            lines.append(text[start:])
            return lines
    import textwrap

    return textwrap.wrap(text, size, break_long_words=True, break_on_hyphens=False) or [""]


def _finite(value: Any) -> Any:
    """NaN and infinities as null: JSON has neither, and output must stay JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def to_json(value: Any, indent: int | None = None) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=repr, allow_nan=False, indent=indent)
    except ValueError:  # a non-finite float somewhere (an id read from a DataFrame, say)
        return json.dumps(_finite(value), ensure_ascii=False, default=repr, allow_nan=False,
                          indent=indent)



def _declared_secrets(name: str) -> tuple[str, ...]:
    """The ``secret_params`` of the metric registered as ``name`` (none if unknown)."""

    try:
        return tuple(get_metric_class(name.strip()).secret_params)
    except Exception:
        return ()


def shown_spec(spec: str) -> str:
    """A ``--metric`` spec as it may be printed: the values of the parameters
    the metric declares secret and of those whose name says they hold a
    credential (``api_key``, ``token``...) masked, and the credentials in URLs."""
    name, _, rest = spec.partition(":")
    if not rest:
        return spec
    secret = _declared_secrets(name)
    items = []
    for item in _split_top_level(rest):
        key, equals, raw = item.partition("=")
        hidden = key.strip() in secret or credential_name(key)
        items.append(f"{key}={MASK}" if equals and hidden and raw.strip()
                     else f"{key}{equals}{mask_value(raw)}" if equals else mask_value(item))
    return f"{name}:{','.join(items)}"


def build_metric(spec: str) -> Metric:
    name, params = parse_metric_spec(spec)
    variants = shown_items(params.items(), _declared_secrets(name))[1]
    try:
        return get_metric(name, **params)
    except AgentMetricsError as error:
        failure = scrub_exception(error, variants)
        if failure is error:
            raise
    except Exception as error:  # the plugin's own __init__ failed
        failure = scrub_exception(InvalidMetricError(
            f"--metric {shown_spec(spec)!r}: the metric could not be built: "
            f"{type(error).__name__}: {error}. Fix: check its parameters (`agentmetrics "
            f"describe {name}`), or report it to the metric's author."), variants)
    raise failure from None


_Number = TypeVar("_Number", int, float)


def _parsed(text: str, kind: Callable[[str], _Number], ok: Callable[[_Number], bool],
            expected: str) -> _Number:
    """``text`` read by ``kind`` and checked by ``ok``, or argparse's error
    saying what was ``expected``."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}")
    return value


def rate(text: str) -> float:
    return _parsed(text, float, lambda v: 0.0 <= v <= 1.0, "a number between 0 and 1")


def seconds(text: str) -> float:
    return _parsed(text, float, lambda v: 0 < v < math.inf, "a positive number")


def non_negative(text: str) -> int:
    return _parsed(text, int, lambda v: v >= 0, "a whole number, 0 or more")


def positive(text: str) -> int:
    return _parsed(text, int, lambda v: v >= 1, "a whole number of at least 1")
