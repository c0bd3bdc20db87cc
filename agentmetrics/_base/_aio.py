"""Running a coroutine to completion from synchronous code, wherever it is called.

``asyncio.run`` refuses to run inside a thread whose event loop is already
running, which is exactly where a Jupyter cell runs. ``run_sync`` then runs the
coroutine on a thread of its own, with its own loop, and waits for it; a
KeyboardInterrupt in the waiting thread cancels the coroutine and is re-raised
once the coroutine has finished cancelling (so it can save what it did).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["in_running_loop", "run_sync"]

T = TypeVar("T")


def in_running_loop() -> bool:
    """Whether this thread is inside a running event loop (a notebook cell, say)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to completion and return its result."""
    if not in_running_loop():
        return asyncio.run(coroutine)
    box: dict[str, Any] = {}
    started = threading.Event()

    def target() -> None:
        loop = asyncio.new_event_loop()
        try:
            task = loop.create_task(coroutine)
            box["loop"], box["task"] = loop, task
            started.set()
            box["value"] = loop.run_until_complete(task)
        except BaseException as error:
            box["error"] = error
        finally:
            started.set()
            loop.close()

    thread = threading.Thread(target=target, name="agentmetrics-run", daemon=True)
    thread.start()
    started.wait()
    try:
        while thread.is_alive():
            thread.join(0.05)
    except KeyboardInterrupt:
        if "task" in box:
            box["loop"].call_soon_threadsafe(box["task"].cancel)
        thread.join()
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]
