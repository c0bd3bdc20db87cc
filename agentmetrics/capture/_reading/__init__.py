"""From what the hooks recorded to turns: each response read through
:mod:`agentmetrics.formats` (the same readers, the same census), its usage and
model, the tool results the next requests sent back, and the framework events
merged in (:mod:`._merge`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from agentmetrics.capture._reading._exchange import read_exchange
from agentmetrics.capture._reading._merge import merge_events, pair_outputs
from agentmetrics.capture._records import Exchange, ModelEvent, ToolEvent, Turn
from agentmetrics.model._model import ToolCall

__all__ = ["case_line", "read_turns"]


def read_turns(exchanges: Sequence[Exchange], events: Sequence[Any]) -> tuple[Turn, ...]:
    """The turns of a capture, in the order the responses were made."""
    # Copies: an exchange keeps its read, which the merge below must not change
    # (a nested capture holds the same exchange with other events).
    reads = [attrs.evolve(read) for read in (read_exchange(exchange) for exchange in
                                             sorted(exchanges, key=lambda item: item.seq))
             if read is not None]
    models = [event for event in events if isinstance(event, ModelEvent)]
    tools = sorted((event for event in events if isinstance(event, ToolEvent)),
                   key=lambda event: event.seq)
    merge_events(reads, models)
    reads.sort(key=lambda read: read.seq)
    turns = pair_outputs(reads, tools)
    out = []
    for index, turn in enumerate(turns):
        user_turn = turn.user_turn or index == 0
        out.append(attrs.evolve(turn, index=index, user_turn=user_turn))
    return tuple(out)


def _call_record(call: ToolCall) -> dict[str, Any]:
    # none given: null, which reads back so (a missing key reads as {})
    record: dict[str, Any] = {"name": call.name,
                              "arguments": call.arguments if call.arguments_given else None}
    if call.id is not None:
        record["id"] = call.id
    if call.output is not None:
        record["output"] = call.output
    if call.raw_arguments is not None:
        record["raw_arguments"] = call.raw_arguments
    return record


def case_line(case: Any) -> dict[str, Any]:
    """A case as one line of a JSONL case file (what ``read_cases`` reads back)."""
    record: dict[str, Any] = {}
    if case.input is not None:
        record["input"] = case.input
    if case.actual_output is not None:
        record["actual_output"] = case.actual_output
    if case.tool_calls is not None:
        record["tool_calls"] = [_call_record(call) for call in case.tool_calls]
    if case.expected_tool_calls is not None:
        record["expected_tool_calls"] = [_call_record(call) for call in case.expected_tool_calls]
    if case.metadata:
        record["metadata"] = case.metadata
    if case.turns is not None:
        record["turns"] = [case_line(turn) for turn in case.turns]
    for field in ("expected_output", "latency", "cost", "usage"):
        value = getattr(case, field)
        if value is not None:
            record[field] = value
    return record
