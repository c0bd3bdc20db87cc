"""The framework hooks' model results and tool executions, merged into the
wire turns: one response, one turn, however many hooks saw it; each call
with its output."""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import attrs

from agentmetrics.capture._reading._exchange import Read, text_calls
from agentmetrics.capture._records import ModelEvent, ToolEvent, Turn, Usage
from agentmetrics.model._model import ToolCall

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
        # A response this source already reported can be reported again (two spans of
        # one call: a framework's and its client instrumentation's): fresh ones first.
        agree = [position for position in window
                 if _agree(event.calls, _api_calls(reads[position].turn))]
        agreeing = [position for position in agree if position in fresh] or agree
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
        reads.append(_text_turn(event))


def _text_turn(event: ModelEvent) -> Read:
    """A framework's result no wire response was seen for, as a turn; without calls,
    its text is read for a text protocol's (the tools a code action may call are
    not known here, so a code action is refused)."""
    read = _event_turn(event, None)
    if event.calls or event.text is None:
        return read
    try:
        protocol, calls = text_calls(event.text, None)
    except ValueError as why:
        read.turn = attrs.evolve(read.turn, error=str(why))
        return read
    read.turn = attrs.evolve(read.turn, tool_calls=calls, protocol=protocol)
    return read


def _name_agent(read: Read, agent: str) -> None:
    if read.turn.agent is None:
        read.turn = attrs.evolve(read.turn, agent=agent)


class _Results:
    """Where each tool result a request sent back is, by call id and by tool name,
    in request order: a call's output is found without scanning every later
    request (a capture of many conversations has many)."""

    def __init__(self, reads: list[Read]) -> None:
        self.by_id: dict[str, list[tuple[int, int]]] = {}
        self.idless: dict[str | None, list[tuple[int, int]]] = {}
        self.fresh: dict[str | None, list[tuple[int, int]]] = {}
        for number, read in enumerate(reads):
            # The results this request added to the conversation (it repeats the earlier ones).
            start = len(reads[number - 1].results) if number else 0
            for slot, (call_id, name, _) in enumerate(read.results):
                if call_id is not None:
                    self.by_id.setdefault(call_id, []).append((number, slot))
                else:
                    self.idless.setdefault(name, []).append((number, slot))
                if slot >= start:
                    self.fresh.setdefault(name, []).append((number, slot))

    @staticmethod
    def first(places: list[tuple[int, int]], after: int,
              used: set[tuple[int, int]]) -> tuple[int, int] | None:
        """The first place in a request after ``after`` not yet used."""
        for place in places[bisect.bisect_left(places, (after + 1, -1)):]:
            if place not in used:
                return place
        return None

    def find(self, call: ToolCall, after: int, used: set[tuple[int, int]]) -> tuple[int, int] | None:
        """A call's result: by its id (or, for a result sent without one, by name) in
        the first later request that has it; for a call without an id, by name among
        the results a request added."""
        if call.id is None:
            return self.first(self.fresh.get(call.name, []), after, used)
        found = [place for place in (self.first(self.by_id.get(call.id, []), after, used),
                                     self.first(self.idless.get(call.name, []), after, used))
                 if place is not None]
        return min(found) if found else None


class _Executions:
    """The tool executions the framework hooks saw, each given to one call: by call
    id, or by name to the first call before it."""

    def __init__(self, tools: list[ToolEvent]) -> None:
        self.tools = tools
        self.taken = [False] * len(tools)
        self.by_id: dict[str, list[int]] = {}
        self.by_name: dict[str | None, list[int]] = {}
        self.seqs: dict[str | None, list[int]] = {}
        for index, event in enumerate(tools):
            if event.call_id:
                self.by_id.setdefault(event.call_id, []).append(index)
            self.by_name.setdefault(event.name, []).append(index)
            self.seqs.setdefault(event.name, []).append(event.seq)

    def _first(self, indices: list[int], start: int, idless: bool) -> int | None:
        for index in indices[start:]:
            if not self.taken[index] and not (idless and self.tools[index].call_id):
                return index
        return None

    def take(self, call: ToolCall, seq: int) -> ToolEvent | None:
        names = self.by_name.get(call.name, [])
        after = bisect.bisect_right(self.seqs.get(call.name, []), seq)
        # A call with an id takes an execution of that id, or one reported without an id.
        found = [index for index in (
            self._first(self.by_id.get(call.id, []), 0, False) if call.id is not None else None,
            self._first(names, after, call.id is not None)) if index is not None]
        if not found:
            return None
        index = min(found)  # the earliest, as the executions came
        self.taken[index] = True
        return self.tools[index]


def pair_outputs(reads: list[Read], tools: list[ToolEvent]) -> list[Turn]:
    """Each call with its output: from the first later request that sent its result
    back (by id; for a call without one, by name and order among the results that
    request added to the conversation), else from a tool execution a framework
    saw (by id, or by name and order after the response)."""
    results = _Results(reads)
    executions = _Executions(tools)
    turns = []
    for position, read in enumerate(reads):
        used: set[tuple[int, int]] = set()
        calls = []
        for call in read.turn.tool_calls:
            output, found = call.output, call.output is not None
            if not found:
                place = results.find(call, position, used)
                if place is not None:
                    used.add(place)
                    output, found = reads[place[0]].results[place[1]][2], True
            if not found:
                event = executions.take(call, read.seq)
                if event is not None:
                    output, found = event.output, True
            calls.append(attrs.evolve(call, output=output) if found and output is not call.output
                         else call)
        turns.append(attrs.evolve(read.turn, tool_calls=tuple(calls)))
    return turns
