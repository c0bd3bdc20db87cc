"""Each row's calls as ToolCall objects, built once per call item.

A metric that must look at each case's calls in Python (deepeval's greedy
pairing, MLflow's signatures, ragas' sorted lists) needs no whole
AgentTestCase for it: the calls are enough. When a reader kept a table of
call items (see :class:`~agentmetrics.cases._call_keys.CallItems`), every
item becomes one ToolCall, shared by all the calls (and rows) that hold it,
so a file in which the same calls recur builds each of them once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from agentmetrics._base._arrays import BoolArray, IdArray, IntArray
from agentmetrics.cases._call_keys import CallItems
from agentmetrics.model._model import ToolCall

__all__ = ["CallLists", "lists_of_items"]

Calls = tuple[ToolCall, ...]


@attrs.frozen(slots=True, eq=False)
class CallLists:
    """Per row, the calls made and expected as tuples of ToolCall, or None
    for a row the lists leave to the row's case: a side not given, a row
    that could not be read, a call without an item, a call whose arguments
    are not a JSON object (its text is not kept with the item) or an item
    ToolCall refuses.

    Built from call items, a call holds its name, arguments,
    ``arguments_given`` and output, but no ``id``: a metric that reads ids
    reads the cases. Built from the cases a batch holds, the lists are the
    cases' own tuples."""

    called: Sequence[Calls | None]
    expected: Sequence[Calls | None]


def _built(item: int, name: str, fields: Any) -> ToolCall | None:
    if fields["malformed"][item]:
        return None
    try:
        return ToolCall(name, fields["arguments"][item], output=fields["output"][item],
                        arguments_given=bool(fields["given"][item]))
    except Exception:  # the case's own reading decides, with its own error
        return None


def lists_of_items(vocabulary: Sequence[str], names: tuple[IdArray, IdArray],
                   offsets: tuple[IntArray, IntArray], given: tuple[BoolArray, BoolArray],
                   items: CallItems) -> CallLists:
    """The rows' calls from each side's name ids, offsets, given flags and
    call items: each distinct item built into one ToolCall (named by the
    first call that holds it: calls of one item share their name), each
    row's calls sliced from them."""
    sides = (items.called, items.expected)
    every = np.concatenate(sides) if len(sides[0]) + len(sides[1]) else np.zeros(0, np.int64)
    every_name = np.concatenate(names).astype(np.int64)
    table: list[ToolCall | None] = []
    if len(every):
        held = every >= 0
        distinct, first = np.unique(every[held], return_index=True)
        where = every_name[held][first]
        size = int(distinct[-1]) + 2 if len(distinct) else 1
        table = [None] * size  # the last slot stays None: item -1 reads it
        fields = items.fields
        for item, name in zip(distinct.tolist(), where.tolist()):
            table[item] = _built(item, vocabulary[name], fields)
    rows = len(offsets[0]) - 1
    out: list[list[Calls | None]] = []
    for side_items, side_offsets, side_given in zip(sides, offsets, given):
        calls = [table[item] for item in side_items.tolist()]
        bounds = side_offsets.tolist()
        lists: list[Calls | None] = [None] * rows
        for row in np.flatnonzero(side_given).tolist():
            found = tuple(calls[bounds[row]:bounds[row + 1]])
            if None not in found:
                lists[row] = found
        out.append(lists)
    return CallLists(out[0], out[1])
