"""Items made one ahead on a background thread, handed over in order.

For readers whose work is mostly in C that releases the GIL (Arrow parsing
JSON or Parquet): the next chunk is read while the caller scores and writes
the current one. An exception the reader raises reaches the caller at the
item it stood for, after every item before it, so what the caller sees is
what it would see reading in its own thread, only sooner.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

__all__ = ["prefetched"]

T = TypeVar("T")

_END = object()


def prefetched(items: Iterable[T]) -> Iterator[T]:
    """``items`` in order, each made while the caller works on the one before.

    Closing the returned iterator (or leaving a ``for`` loop over it) stops
    the background thread at its next item."""
    handoff: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=1)
    stop = threading.Event()

    def put(entry: tuple[bool, Any]) -> bool:
        while not stop.is_set():
            try:
                handoff.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def produce() -> None:
        try:
            for item in items:
                if not put((True, item)):
                    return
        except BaseException as error:
            put((False, error))
            return
        put((True, _END))

    thread = threading.Thread(target=produce, name="agentmetrics-reader", daemon=True)
    thread.start()
    try:
        while True:
            ok, item = handoff.get()
            if not ok:
                raise item
            if item is _END:
                return
            yield item
    finally:
        stop.set()
