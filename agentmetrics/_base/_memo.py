"""A function's results remembered per string, up to a bound.

Hot paths look the same few strings up millions of times (tool names in a
dataset, key spellings in provider payloads); a bounded memo keeps that cheap
without letting a hostile input with millions of distinct strings grow memory.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["memo"]

_T = TypeVar("_T")


def memo(compute: Callable[[str], _T], limit: int) -> tuple[dict[str, _T], Callable[[str], _T]]:
    """``(cache, lookup)``: ``lookup(text)`` is ``compute(text)``, remembered for
    up to ``limit`` strings (past that, computed each time). Hot loops may read
    ``cache`` directly and call ``lookup`` on a miss.

    >>> cache, upper = memo(str.upper, limit=1)
    >>> upper("a"), upper("b"), cache
    ('A', 'B', {'a': 'A'})
    """
    cache: dict[str, _T] = {}

    def lookup(text: str) -> _T:
        found = cache.get(text)
        if found is None:
            found = compute(text)
            if len(cache) < limit:
                cache[text] = found
        return found

    return cache, lookup
