"""``capture()`` and the run it gives: the tool calls of a live agent, read
from the model responses the process received inside a ``with`` block."""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping, Sequence
from contextvars import Token
from types import TracebackType
from typing import Any, Literal

from agentmetrics.capture import _hooks
from agentmetrics.capture._records import Turn, Usage
from agentmetrics.capture._state import ACTIVE, PROCESS, Recorder
from agentmetrics.errors import CaptureError, InvalidParameterError
from agentmetrics.model._model import AgentTestCase, ToolCall, UnreadableCase, describe
from agentmetrics.results._config import CAPTURED_MODEL

__all__ = ["Capture", "Run", "capture"]

_NO_TRAFFIC = (
    "the capture recorded no model response: nothing inside the `with` block called a "
    "model endpoint through a client it hooks (httpx and httpx2, which the openai, "
    "anthropic, google-genai, cohere, ollama, groq and mistralai clients use; aiohttp; "
    "botocore for Bedrock; LangChain, the OpenAI Agents SDK and OpenTelemetry spans). Fix: call the agent "
    "inside the block; a call made in a thread started without the context "
    "(threading.Thread, ThreadPoolExecutor) is not seen: use capture(scope=\"process\") "
    "or run it with contextvars.copy_context().run; see docs/capture.md for the clients "
    "that are not hooked (requests, aiobotocore, websockets)."
)


def _total(turns: Sequence[Turn]) -> Usage:
    total = Usage()
    for turn in turns:
        total = total + turn.usage
    return total


class Run:
    """What one :func:`capture` recorded, read on demand.

    ``turns`` lists every model response (readable or not); ``tool_calls``,
    ``usage`` and :meth:`case` need every response read exactly and raise
    :class:`~agentmetrics.errors.CaptureError` otherwise."""

    __slots__ = ("_ended", "_label", "_recorder", "_started")

    def __init__(self, recorder: Recorder, label: str = "capture") -> None:
        self._recorder = recorder
        self._label = label
        self._started: float | None = None  # time.perf_counter() at the block's start
        self._ended: float | None = None  # ... and at its end

    @property
    def latency(self) -> float | None:
        """The ``with`` block's wall time in seconds, once it has ended (None before)."""
        if self._started is None or self._ended is None:
            return None
        return self._ended - self._started

    # ------------------------------------------------------------------ reading

    @property
    def turns(self) -> tuple[Turn, ...]:
        """One :class:`Turn` per model response, in the order they were made."""
        from agentmetrics.capture._reading import read_turns

        recorder = self._recorder
        return read_turns(list(recorder.exchanges), list(recorder.events))

    @property
    def errors(self) -> tuple[str, ...]:
        """Why each unreadable response could not be read (empty: all were read)."""
        return tuple(self._why(turn) for turn in self.turns if turn.error is not None)

    @staticmethod
    def _why(turn: Turn) -> str:
        where = f" from {turn.endpoint}" if turn.endpoint else ""
        return (f"turn {turn.index}: the {turn.provider} response{where} (read as "
                f"{turn.format}, via {turn.source}) could not be read: {turn.error}")

    def _checked(self) -> tuple[Turn, ...]:
        turns = self.turns
        if not turns:
            raise CaptureError(_NO_TRAFFIC)
        failed = [turn for turn in turns if turn.error is not None]
        if failed:
            more = f" ({len(failed) - 1} more unreadable)" if len(failed) > 1 else ""
            raise CaptureError(f"{self._why(failed[0])}{more}. Its calls are unknown, so the "
                               f"run's calls cannot be given exactly.")
        return turns

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        """Every tool call the model made, in order, with outputs where known."""
        return tuple(call for turn in self._checked() for call in turn.tool_calls)

    @property
    def tool_names(self) -> tuple[str, ...]:
        return tuple(call.name for call in self.tool_calls)

    @property
    def models(self) -> tuple[str, ...]:
        """The models the responses name, each once, in the order first seen
        (a response that names none adds nothing)."""
        return tuple(dict.fromkeys(turn.model for turn in self.turns if turn.model))

    @property
    def model(self) -> str | None:
        """The one model every response came from, as the responses name it
        (``gpt-4o-mini-2024-07-18``); None when a response named none, when
        they named several, or when there was none. What :meth:`case` notes
        in ``metadata["captured_model"]`` and ``evaluate`` gives as
        ``result.config["model"]``."""
        turns = self.turns
        if not turns or any(not turn.model for turn in turns):
            return None
        models = {turn.model for turn in turns}
        return models.pop() if len(models) == 1 else None

    @property
    def usage(self) -> Usage:
        """Token usage summed over the turns (``unreported`` counts turns without it)."""
        return _total(self.turns)

    def case(
        self,
        input: Any = None,
        expected_tool_calls: Iterable[Any] | None = None,
        *,
        actual_output: Any = None,
        expected_output: Any = None,
        metadata: Mapping[str, Any] | None = None,
        id: Any = None,
        expected_turns: Sequence[Iterable[Any] | None] | None = None,
        errors: Literal["raise", "record"] = "raise",
    ) -> AgentTestCase | UnreadableCase:
        """The run as an :class:`~agentmetrics.AgentTestCase`.

        The case's fields are given here (``input``, ``expected_tool_calls``,
        ``actual_output``, ``expected_output``, ``metadata``); its calls are the
        run's, its ``latency`` the block's wall time, and its ``usage`` the
        tokens the responses reported (None when one of them reported none, so
        that a sum is never a lower bound taken for the whole). ``id`` goes
        into ``metadata["id"]``, as a case file's ``id`` does, so reports name
        the case; ``metadata["captured_turns"]`` counts the model responses,
        and ``metadata["captured_model"]`` names the model when they all came
        from one (:attr:`model`): ``evaluate`` of such cases, all of one
        model, gives it as ``result.config["model"]``.

        With ``expected_turns`` (one expected-call list per user turn), a
        multi-turn case: a user turn starts at each request whose last message
        is the user's own (not tool results sent back); each turn's ``input``
        is that message. ``errors="record"`` gives an
        :class:`~agentmetrics.UnreadableCase` (an error row in ``evaluate``)
        instead of raising when a response could not be read."""
        if errors not in ("raise", "record"):
            raise InvalidParameterError(
                f"errors: expected 'raise' or 'record', got {describe(errors)}.")
        try:
            turns = self._checked()
            model = self.model
            info = {"captured_turns": len(turns),
                    **({} if model is None else {CAPTURED_MODEL: model}),
                    **({} if metadata is None else metadata),
                    **({} if id is None else {"id": id})}
            measured = {"expected_output": expected_output, "latency": self.latency,
                        "usage": self._usage_of(turns)}
            if expected_turns is None:
                return AgentTestCase(
                    input=input, actual_output=actual_output,
                    tool_calls=[call for turn in turns for call in turn.tool_calls],
                    expected_tool_calls=expected_tool_calls, metadata=info, **measured)
            groups = self._user_turns(turns)
            if isinstance(expected_turns, (str, bytes)) or len(expected_turns) != len(groups):
                raise CaptureError(
                    f"expected_turns: expected one list of calls per user turn "
                    f"({len(groups)} captured: {[group[0] for group in groups]!r}), got "
                    f"{describe(expected_turns)}. Fix: give one entry per user turn, or "
                    f"leave out expected_turns for a single-turn case.")
            return AgentTestCase(
                input=input, actual_output=actual_output, metadata=info, **measured,
                turns=[AgentTestCase(input=text, tool_calls=list(calls),
                                     expected_tool_calls=expected)
                       for (text, calls), expected in zip(groups, expected_turns)])
        except CaptureError as error:
            if errors == "raise":
                raise
            return UnreadableCase(self._label, 0, str(error), id=id)

    @staticmethod
    def _usage_of(turns: Sequence[Turn]) -> dict[str, int] | None:
        """The run's token counts for a case: None unless every response reported its usage."""
        total = _total(turns)
        if not total.turns or total.unreported:
            return None
        return {"input_tokens": total.input_tokens, "output_tokens": total.output_tokens,
                "total_tokens": total.total_tokens}

    @staticmethod
    def _user_turns(turns: Sequence[Turn]) -> list[tuple[Any, list[ToolCall]]]:
        groups: list[tuple[Any, list[ToolCall]]] = []
        for turn in turns:
            if turn.user_turn or not groups:
                groups.append((turn.user_input, []))
            groups[-1][1].extend(turn.tool_calls)
        return groups

    def save(self, path: str | os.PathLike[str], input: Any = None,
             expected_tool_calls: Iterable[Any] | None = None, **fields: Any) -> None:
        """Append the run to a JSONL case file (``agentmetrics evaluate`` reads
        it): one line, the case's fields, calls with their arguments, ids and
        outputs. Nothing else is written (no headers, no URLs, no keys)."""
        import json

        from agentmetrics.capture._reading import case_line

        case = self.case(input, expected_tool_calls, **fields)
        assert isinstance(case, AgentTestCase)
        line = json.dumps(case_line(case), ensure_ascii=False, default=repr)
        with open(path, "a", encoding="utf-8") as file:
            file.write(line + "\n")

    def __len__(self) -> int:
        return len(self.turns)

    def __repr__(self) -> str:
        turns = self.turns
        failed = sum(turn.error is not None for turn in turns)
        names = [call.name for turn in turns for call in turn.tool_calls]
        shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
        return (f"<Run: {len(turns)} turn{'s' * (len(turns) != 1)}, {len(names)} tool "
                f"call{'s' * (len(names) != 1)}{f' ({shown})' if names else ''}"
                f"{f', {failed} unreadable' if failed else ''}>")


class Capture:
    """The context manager :func:`capture` returns; ``with`` or ``async with``."""

    __slots__ = ("_hooks", "_recorder", "_scope", "_token", "run")

    def __init__(self, scope: str, hooks: tuple[str, ...]) -> None:
        self._scope = scope
        self._hooks = hooks
        self._recorder = Recorder(None if set(hooks) >= set(_hooks.HOOKS) else frozenset(hooks))
        self._token: Token[tuple[Recorder, ...]] | None = None
        self.run = Run(self._recorder)

    def __enter__(self) -> Run:
        if self._token is not None or self._recorder in PROCESS:
            raise CaptureError("this capture is already open; expected a new capture() for "
                               "each `with` block. Fix: call capture() again.")
        _hooks.ensure(self._hooks)
        if self._scope == "process":
            PROCESS.append(self._recorder)
            self._token = ACTIVE.set(ACTIVE.get())
        else:
            self._token = ACTIVE.set((*ACTIVE.get(), self._recorder))
        _hooks.entered()
        self.run._started = time.perf_counter()
        return self.run

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.run._ended = time.perf_counter()
        token, self._token = self._token, None
        if self._recorder in PROCESS:
            PROCESS.remove(self._recorder)
        if token is not None:
            ACTIVE.reset(token)
        _hooks.exited()

    async def __aenter__(self) -> Run:
        return self.__enter__()

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None,
                        traceback: TracebackType | None) -> None:
        self.__exit__(kind, error, traceback)


def capture(*, scope: Literal["context", "process"] = "context",
            hooks: Iterable[str] | None = None) -> Capture:
    """Record the model responses received inside a ``with`` (or ``async with``)
    block and read their tool calls::

        with agentmetrics.capture() as run:
            agent("Cancel order 12345")
        run.tool_calls      # (ToolCall('GetOrder', ...), ToolCall('CancelOrder', ...))

    ``scope="context"`` (the default) records what this context does: the
    thread or asyncio task that opened the block and the tasks and threads
    started from it with a copy of its context, so concurrent captures each
    see their own. ``scope="process"`` records every exchange of the process
    while the block is open. ``hooks`` names the hooks to use (default: all of
    :data:`HOOKS`); each is installed on first use, only for a library that is
    already imported or when it is imported later. Nothing is sent anywhere and
    nothing is written unless :meth:`Run.save` is called."""
    if scope not in ("context", "process"):
        raise InvalidParameterError(
            f"scope: expected 'context' or 'process', got {describe(scope)}.")
    names = tuple(_hooks.HOOKS) if hooks is None else tuple(hooks)
    unknown = [name for name in names if name not in _hooks.HOOKS]
    if unknown or isinstance(hooks, str):
        raise InvalidParameterError(
            f"hooks: expected names from {list(_hooks.HOOKS)}, got {describe(hooks)}. Fix: "
            f"pass a list of those names, or leave hooks out for all of them.")
    return Capture(scope, tuple(names))
