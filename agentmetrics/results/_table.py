"""Table: the small read-only table that summaries and reports return."""

from __future__ import annotations

import html
import math
from collections.abc import Iterator, Sequence
from typing import Any, overload

from agentmetrics._base._optional import require

__all__ = ["Table"]


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.3f}"
    return str(value)


class Table:
    """Rows of named columns, readable in a terminal and in Jupyter.

    ``table[i]`` is row ``i`` as a dict, ``table["column"]`` a column as a
    list, ``table[:k]`` the first k rows as a table; ``select(...)`` keeps some
    columns; ``to_dicts()`` and ``to_pandas()`` export it.
    """

    __slots__ = ("columns", "rows", "title")

    def __init__(self, columns: Sequence[str], rows: Sequence[Sequence[Any]], title: str = "") -> None:
        self.columns = tuple(columns)
        self.rows = [tuple(row) for row in rows]
        self.title = title

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return (dict(zip(self.columns, row)) for row in self.rows)

    @overload
    def __getitem__(self, key: int) -> dict[str, Any]: ...
    @overload
    def __getitem__(self, key: str) -> list[Any]: ...
    @overload
    def __getitem__(self, key: slice) -> Table: ...

    def __getitem__(self, key: int | str | slice) -> dict[str, Any] | list[Any] | Table:
        if isinstance(key, slice):
            return Table(self.columns, self.rows[key], self.title)
        if isinstance(key, str):
            try:
                column = self.columns.index(key)
            except ValueError:
                raise KeyError(f"no column {key!r}; the columns are {list(self.columns)}") from None
            return [row[column] for row in self.rows]
        return dict(zip(self.columns, self.rows[key]))

    def select(self, *columns: str) -> Table:
        """A table of some of the columns, in the order given."""
        try:
            indices = [self.columns.index(column) for column in columns]
        except ValueError:
            missing = next(c for c in columns if c not in self.columns)
            raise KeyError(f"no column {missing!r}; the columns are {list(self.columns)}") from None
        return Table(columns, [tuple(row[i] for i in indices) for row in self.rows], self.title)

    def to_dicts(self) -> list[dict[str, Any]]:
        return list(self)

    def to_pandas(self) -> Any:

        pd = require("pandas", "pandas")
        return pd.DataFrame(self.rows, columns=list(self.columns))

    def __repr__(self) -> str:
        return self.render(limit=50)

    def render(self, limit: int | None = None) -> str:
        """The table as aligned text, numbers right-aligned, at most ``limit`` rows."""
        shown = self.rows if limit is None else self.rows[:limit]
        cells = [list(self.columns)] + [[_cell(v) for v in row] for row in shown]
        numeric = [
            bool(shown) and all(isinstance(row[i], (int, float)) for row in shown)
            for i in range(len(self.columns))
        ]
        widths = [max(len(line[i]) for line in cells) for i in range(len(self.columns))]
        lines = [self.title] if self.title else []
        for line in cells:
            lines.append(
                "  ".join(
                    text.rjust(width) if numeric[i] else text.ljust(width)
                    for i, (text, width) in enumerate(zip(line, widths))
                ).rstrip()
            )
        if len(shown) < len(self.rows):
            lines.append(f"... {len(self.rows) - len(shown)} more rows")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(_cell(v))}</td>" for v in row) + "</tr>"
            for row in self.rows[:50]
        )
        more = f"<p>... {len(self.rows) - 50} more rows</p>" if len(self.rows) > 50 else ""
        caption = f"<caption>{html.escape(self.title)}</caption>" if self.title else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{more}"


# Pickles and reprs name the public path, not this private module.
for _public in (Table,):
    _public.__module__ = "agentmetrics"
del _public
