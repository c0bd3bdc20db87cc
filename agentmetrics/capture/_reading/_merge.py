"""The framework hooks' model results and tool executions, merged into the
wire turns: one response, one turn, however many hooks saw it; each call
with its output."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import attrs

from agentmetrics._model import ToolCall
from agentmetrics.capture._reading._exchange import Read
from agentmetrics.capture._records import ModelEvent, ToolEvent, Turn, Usage

__all__ = ["merge_events", "pair_outputs"]


def _agree(reported: Sequence[ToolCall], wire: Sequence[ToolCall]) -> bool:
    """Whether a framework's calls are the wire response's: the same calls in the
    same order, by name and (where both have them) arguments. Not by id: a
    framework may give ids the wire does not have (ADK names Gemini's calls
    ``get_weather_0``, LangChain gives them UUIDs)."""
    return len(reported) == len(wire) and all(
        ours.name == theirs.name and (not ours.arguments_given or not theirs.arguments_given
                                      or ours.arguments == theirs.arguments)
        for ours, theirs in zip(reported, wire))


def _api_calls(turn: Turn) -> tuple[ToolCall, ...]:
    """The calls a framework's own account of the response holds: none where the
    model asked in its text (the framework reports the text, as the wire has it)."""
    return turn.tool_calls if turn.protocol == "api" else ()


def _same_ids(reported: Sequence[ToolCall], wire: Sequence[ToolCall]) -> bool:
    return all(ours.id == theirs.id for ours, theirs in zip(reported, wire))


def _names(calls: Sequence[ToolCall]) -> str:
    return "[" + ", ".join(call.name for call in calls) + "]"


def _event_turn(event: ModelEvent, error: str | None) -> Read:
    turn = Turn(index=0, provider=event.provider or event.source, format=event.source,
                endpoint="", model=event.model, tool_calls=event.calls,
                usage=event.usage or Usage(turns=1, unreported=1), latency=None,
                streamed=False, source=event.source, agent=event.agent, error=error)
    return Read(turn, [], event.seq)


def merge_events(reads: list[Read], models: Sequence[ModelEvent]) -> None:
    """The framework hooks' model results, merged into the wire turns: one
    response, one turn, however many hooks saw it.

    A result is the wire response made between the framework's start and end of
    the call (its window) whose calls agree with it; it adds the agent's name and
    nothing else (no turn, no usage). A result without content (a span recorded
    without messages), or one that could not be read, adds nothing to a window
    that holds a wire response. Where the wire response in its window has other
    calls, that turn carries an error: neither account is kept. A result with no
    wire response in its window (a client no hook sees) is a turn of its own;
    then without content its calls are unknown, an error, never zero calls."""
    seqs = [read.seq for read in reads]  # in order: the wire reads come sorted
    matched: dict[int, set[str]] = {}
    for event in sorted(models, key=lambda item: item.seq):
        first = 0 if event.started is None else bisect.bisect_right(seqs, event.started)
        window = list(range(first, bisect.bisect_left(seqs, event.seq)))
        fresh = [position for position in window
                 if event.source not in matched.get(position, set())]
        if not event.content or event.error is not None:
            if window:
                if event.agent and len(window) == 1:
                    _name_agent(reads[window[0]], event.agent)
                continue
            reads.append(_event_turn(event, event.error or (
                f"the {event.source} hook saw a model response without its messages (a span "
                f"recorded without message content) and no HTTP hook saw that response, so its "
                f"calls are unknown. Fix: turn on the instrumentation's message content capture "
                f"(e.g. OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true), or let "
                f"capture() see the client's HTTP traffic (see docs/capture.md).")))
            continue
        agreeing = [position for position in fresh or window
                    if _agree(event.calls, _api_calls(reads[position].turn))]
        if agreeing:
            same = [position for position in agreeing
                    if _same_ids(event.calls, _api_calls(reads[position].turn))]
            position = (same or agreeing)[0]
            matched.setdefault(position, set()).add(event.source)
            if event.agent:
                _name_agent(reads[position], event.agent)
            continue
        if window:
            position = (fresh or window)[-1]
            read = reads[position]
            matched.setdefault(position, set()).add(event.source)
            if read.turn.error is None:
                read.turn = attrs.evolve(read.turn, error=(
                    f"the {event.source} hook reported the calls {_names(event.calls)} for "
                    f"the response the wire shows with {_names(read.turn.tool_calls)}; the two "
                    f"disagree, so neither is taken. Fix: report this at agentmetrics' issue "
                    f"tracker; capture(hooks=[...]) without {event.source!r} reads the wire "
                    f"alone."))
            continue
        reads.append(_event_turn(event, None))


def _name_agent(read: Read, agent: str) -> None:
    if read.turn.agent is None:
        read.turn = attrs.evolve(read.turn, agent=agent)


def pair_outputs(reads: list[Read], tools: list[ToolEvent]) -> list[Turn]:
    """Each call with its output: from the first later request that sent its result
    back (by id; for a call without one, by name and order among the results that
    request added to the conversation), else from a tool execution a framework
    saw (by id, or by name and order after the response)."""
    fresh = [read.results[len(reads[position - 1].results):] if position else read.results
             for position, read in enumerate(reads)]
    tools = list(tools)
    turns = []
    for position, read in enumerate(reads):
        used: set[tuple[int, int]] = set()
        calls = []
        for call in read.turn.tool_calls:
            output, found = call.output, call.output is not None
            for number in range(position + 1, len(reads)):
                if found:
                    break
                pool = reads[number].results if call.id is not None else fresh[number]
                for slot, (call_id, name, value) in enumerate(pool):
                    if (number, slot) in used:
                        continue
                    if (call_id == call.id) if call.id is not None and call_id is not None \
                            else name == call.name:
                        output, found = value, True
                        used.add((number, slot))
                        break
            if not found:
                for event in tools:
                    if (event.call_id == call.id) if call.id is not None and event.call_id \
                            else (event.name == call.name and event.seq > read.seq):
                        output, found = event.output, True
                        tools.remove(event)
                        break
            calls.append(attrs.evolve(call, output=output) if found and output is not call.output
                         else call)
        turns.append(attrs.evolve(read.turn, tool_calls=tuple(calls)))
    return turns
