"""Capture the tool calls of a live agent, in process, with no backend::

    import agentmetrics as am

    with am.capture() as run:
        agent("Cancel order 12345")
    run.tool_calls                       # every call the model made, in order
    run.case(expected_tool_calls=["GetOrder", "CancelOrder"])   # an AgentTestCase

Every model response the process receives inside the block (through httpx or
httpx2, aiohttp, botocore, LangChain, the OpenAI Agents SDK or OpenTelemetry) is
recorded and read through :mod:`agentmetrics.formats`, with the same promise:
every call comes back, or :class:`~agentmetrics.errors.CaptureError` says
which response could not be read. See docs/capture.md.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable
from typing import Any, Literal

from agentmetrics._base._optional import require
from agentmetrics.capture import _hooks
from agentmetrics.capture._records import Turn, Usage
from agentmetrics.capture._run import Capture, Run, capture

__all__ = ["Capture", "HOOKS", "Run", "Turn", "Usage", "capture", "span_processor"]

#: The hooks a capture can use, by name.
HOOKS: tuple[str, ...] = tuple(_hooks.HOOKS)


# Pickles and reprs name the public path, not the private modules.
for _public in (Capture, Run, Turn, Usage):
    _public.__module__ = "agentmetrics.capture"
del _public


def span_processor() -> Any:
    """The OpenTelemetry span processor captures record through, for a
    ``TracerProvider`` that is not the global one
    (``provider.add_span_processor(agentmetrics.capture.span_processor())``).
    Needs ``opentelemetry-sdk``."""

    require("opentelemetry.sdk.trace", "otel")
    from agentmetrics.capture._otel import processor

    return processor()



class _CallableModule(types.ModuleType):
    """This package, callable: ``agentmetrics.capture()`` is :func:`capture`, so the
    package and the function it is named after are one object at the package root
    (``agentmetrics.capture.Turn`` and ``import agentmetrics.capture as c`` work too)."""

    def __call__(self, *, scope: Literal["context", "process"] = "context",
                 hooks: Iterable[str] | None = None) -> Capture:
        return capture(scope=scope, hooks=hooks)


sys.modules[__name__].__class__ = _CallableModule
