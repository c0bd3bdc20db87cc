"""Items taken a chunk at a time."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

__all__ = ["chunked"]


def chunked(items: Iterable[Any], size: int) -> Iterator[list[Any]]:
    """Lists of ``size`` items (the last one shorter), in order, reading only one ahead."""
    iterator = iter(items)
    while chunk := list(islice(iterator, size)):
        yield chunk
