"""Which captures are recording here.

A context variable holds the recorders of the captures open in the current
context, so threads, asyncio tasks and nested captures each see their own:
a task or a thread started with a copy of the context (``asyncio`` tasks,
``asyncio.to_thread``, LangChain's executors) records into the captures open
where it was started. Captures opened with ``scope="process"`` record every
exchange of the process, whatever its context.
"""

from __future__ import annotations

import itertools
import threading
from contextvars import ContextVar
from typing import Any

__all__ = ["ACTIVE", "PROCESS", "SENDING", "Recorder", "next_seq", "recorders", "sending"]


class Recorder:
    """What one capture records: the exchanges the HTTP and AWS hooks saw, and
    what the framework hooks reported (model results, tool executions).

    Appends come from any thread (``list.append`` is atomic); readers take a
    snapshot."""

    __slots__ = ("__weakref__", "events", "exchanges", "hooks", "lock")

    def __init__(self, hooks: frozenset[str] | None = None) -> None:
        #: The hooks this capture records from (None: all of them).
        self.hooks = hooks
        self.exchanges: list[Any] = []
        self.events: list[Any] = []
        self.lock = threading.Lock()


#: The recorders of the captures open in this context, outermost first.
ACTIVE: ContextVar[tuple[Recorder, ...]] = ContextVar("agentmetrics_capture", default=())
#: The recorders of the captures open with ``scope="process"``.
PROCESS: list[Recorder] = []
#: The recorders a wire hook is recording a model request into, while it sends
#: that request in this context. A hook beneath it sees the same request and
#: response (aiohttp under an httpx client's transport, as litellm and the SDKs'
#: ``DefaultAioHttpClient`` do; httpx2 under httpx) and records it into none of
#: them: one response, one exchange, told by the request being sent, not by
#: what it holds.
SENDING: ContextVar[tuple[Recorder, ...]] = ContextVar("agentmetrics_sending", default=())

_SEQ = itertools.count()


def next_seq() -> int:
    """A number that orders what the hooks saw, across threads."""
    return next(_SEQ)


def sending(found: tuple[Recorder, ...]) -> tuple[Recorder, ...]:
    """``found`` without the recorders an outer wire hook is already recording
    this context's request into (see :data:`SENDING`)."""
    outer = SENDING.get()
    return found if not outer else tuple(recorder for recorder in found if recorder not in outer)


def recorders(hook: str | None = None) -> tuple[Recorder, ...]:
    """The recorders what ``hook`` saw here belongs to (empty: record nothing)."""
    here = ACTIVE.get()
    if PROCESS:
        here = here + tuple(recorder for recorder in PROCESS if recorder not in here)
    if hook is None or not here:
        return here
    return tuple(recorder for recorder in here if recorder.hooks is None or hook in recorder.hooks)
