"""Call keys: every call of a batch as an int id, equal for two calls exactly
when the metric's equality says the calls are equal.

For "python" equality (what ADK's trajectory metric and others do: names
equal, ``arguments == arguments`` as Python compares dicts, and whether the
arguments were given at all), a call's key is ``(name id, given, frozen
arguments)``, where *frozen* turns the arguments into a hashable value that is
equal to another frozen value exactly when the arguments are ``==``:

- a dict of ``str`` keys becomes a frozenset of ``(key, frozen value)`` pairs;
- a list becomes a tuple of frozen values (no frozen value is a tuple or a
  frozenset otherwise, so a list stays unequal to a dict or a scalar);
- ``str``, ``int``, ``float``, ``bool`` and ``None`` stay themselves: their
  ``==`` and ``hash`` agree across types (``1 == 1.0 == True``, ``0.0 ==
  -0.0``, exact for huge ints), and a NaN inside a list or an object stays
  the same object, so it equals itself only, as inside a dict or a list
  compared by Python.
- A NaN that is an argument's own value has no key: metrics differ there (a
  dict's ``==`` takes the same NaN object as equal to itself, a value
  compared alone with ``!=`` does not), so its row goes to the metric. JSON
  has no NaN: only Python records and cases can hold one.
- A value nested deeper than :data:`MAX_DEPTH` levels has no key either.

Keys are interned in one dict shared by both sides, so Python's own hashing
and ``==`` decide which calls share an id. Any other value (a tuple, a set, a
subclass of str or float, a dict with keys other than ``str``, nesting deeper
than the recursion limit) has no key: its row is marked ``unkeyed`` and left to
the metric's case-by-case path, as is a row holding a call whose arguments are
not a JSON object (``raw_arguments``), which the metrics refuse with their own
message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from itertools import chain, repeat
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import BoolArray, IdArray, IntArray
from agentmetrics._columnar import ArgumentIds

__all__ = ["EMPTY_ID", "EQUALITIES", "NOT_GIVEN_ID", "ArgumentIdColumns", "CallArguments",
           "CallItems", "CallKeys", "Unkeyable", "argument_table", "arguments_of_calls",
           "arguments_of_items", "freeze_arguments", "keys_of_argument_ids", "keys_of_sides"]

#: The equalities :meth:`ToolCallBatch.call_keys` knows.
EQUALITIES = ("python",)

_SCALARS = frozenset({str, int, float, bool, type(None)})
_STR = frozenset({str})


class Unkeyable(Exception):
    """A value with no key under the equality: its row goes to the metric."""


@attrs.frozen(slots=True, eq=False)
class CallArguments:
    """Each call's arguments, one item a call, aligned with a batch's
    ``called_ids`` and ``expected_ids``: what a reader fills when it reads the
    arguments anyway (it saves the batch building its cases to find them).

    An item is the call's arguments as a ``dict`` (an object given), ``None``
    (``"arguments": null``: no arguments given, ``ToolCall.arguments_given``
    False) or the ``str`` of ``raw_arguments`` (arguments that are not a JSON
    object; such a call's row is left to the metric, which refuses it). A call
    given without arguments (a bare name, a call object with no
    ``"arguments"``) holds ``{}``."""

    called: Sequence[Any]
    expected: Sequence[Any]


@attrs.frozen(slots=True, eq=False)
class ArgumentIdColumns:
    """Each call's argument id, aligned with a batch's ``called_ids`` and
    ``expected_ids``, as a decoder gave them from one table (see
    :func:`argument_table`): two calls' arguments have the same id exactly
    when they are equal under Python equality, given or not alike; -1 for
    a call whose arguments have no key (its row is left to the metric),
    :data:`NOT_GIVEN_ID` for a call given none (``null``)."""

    called: npt.NDArray[np.int64]
    expected: npt.NDArray[np.int64]
    #: Each call's item id (its place in the decoder's table of distinct call
    #: texts), aligned likewise, -1 for a call without one; and per field,
    #: per item id, the field as a ToolCall holds it (see :class:`CallItems`).
    called_items: npt.NDArray[np.int64] | None = None
    expected_items: npt.NDArray[np.int64] | None = None
    item_fields: Mapping[str, Sequence[Any]] | None = None


@attrs.frozen(slots=True, eq=False)
class CallItems:
    """Each call's item id, aligned with a batch's ``called_ids`` and
    ``expected_ids`` (-1 for a call without one: its row is left to the
    metric), and per field each item's value as a ToolCall holds it:
    ``fields["arguments"]`` (a dict), ``fields["given"]``
    (``arguments_given``: False for arguments given as ``null``),
    ``fields["malformed"]`` (True where the call has ``raw_arguments``,
    arguments that are not an object) and ``fields["output"]``. Calls of one item have equal fields (the same keys
    in the same order, values of the same types): a metric may compare a
    pair of items once."""

    called: npt.NDArray[np.int64]
    expected: npt.NDArray[np.int64]
    fields: Mapping[str, Sequence[Any]]


@attrs.frozen(slots=True, eq=False)
class CallKeys:
    """Key ids aligned with a batch's ``called_ids`` and ``expected_ids``, in
    one vocabulary of ``size`` keys: two calls have the same id exactly when
    they are equal under ``equality``. ``unkeyed[row]`` is True for a row
    whose keys say nothing (a call with unreadable arguments, or a value the
    equality has no key for): a metric scores such a row case by case.
    ``not_given[row]`` is True for a row holding a call given no arguments
    (``"arguments": null``), which some peers refuse (agentevals)."""

    equality: str
    called_ids: IdArray
    expected_ids: IdArray
    size: int
    unkeyed: BoolArray
    not_given: BoolArray


class _Table(dict[Any, int]):
    """key -> id, a new key taking the next id."""

    def __missing__(self, key: Any) -> int:
        self[key] = new = len(self)
        return new


#: Values nested deeper than this have no key: their row goes to the metric,
#: whose own reading of them (often recursive, as a peer's is) then decides,
#: and decides alike however deep in the stack it is asked, far below the
#: recursion limit.
MAX_DEPTH = 200


def _freeze_value(value: Any, depth: int = 1) -> Any:
    kind = type(value)
    if kind in _SCALARS:
        return value
    if depth > MAX_DEPTH:
        raise Unkeyable
    if kind is list:
        return tuple(map(_freeze_value, value, repeat(depth + 1, len(value))))
    if kind is dict:
        return _freeze_object(value, set(map(type, value.values())), depth)
    raise Unkeyable


def freeze_arguments(arguments: dict[str, Any]) -> frozenset[tuple[str, Any]]:
    """The arguments as a hashable value, ``==`` to another's exactly when
    the arguments are (see the module's doc); Unkeyable if not possible."""
    kinds = set(map(type, arguments.values()))
    if float in kinds and any(value != value for value in arguments.values()
                              if type(value) is float):
        raise Unkeyable  # a NaN as an argument's own value (see the module's doc)
    return _freeze_object(arguments, kinds)


def _freeze_object(arguments: dict[str, Any], kinds: set[type],
                   depth: int = 0) -> frozenset[tuple[str, Any]]:
    """An object frozen (``kinds``: the types of its values; ``depth``: how
    deep it is nested in the arguments)."""
    if not set(map(type, arguments)) <= _STR:
        raise Unkeyable
    if kinds <= _SCALARS:
        return frozenset(arguments.items())
    try:
        return frozenset(zip(arguments, map(_freeze_value, arguments.values(),
                                            repeat(depth + 1, len(arguments)))))
    except RecursionError:
        raise Unkeyable from None


#: The frozen arguments of a call given no arguments (``None`` in a column):
#: equal to itself only, so it matches another such call and not one given ``{}``.
_NOT_GIVEN = object()
#: The frozen arguments of an unreadable call: a fresh object each time, equal
#: to nothing else, so no other call shares its key.
_Unreadable = object
_NO_ARGUMENTS: dict[str, Any] = {}
#: Per value type: 0 for the scalars a frozen dict keeps as they are (2 for a
#: float, which may be a NaN), 1 (the default) for the rest.
_NESTED = {**dict.fromkeys(_SCALARS, 0), float: 2}


def _freeze_item(item: Any) -> Any:
    """One column item frozen (``_NOT_GIVEN`` for None); Unkeyable if it has no key."""
    if type(item) is dict:
        return freeze_arguments(item)
    if item is None:
        return _NOT_GIVEN
    raise Unkeyable  # raw arguments text, or anything a reader should not have put here


def _frozen_column(items: Sequence[Any]) -> tuple[list[Any], list[int]]:
    """Each item of an argument column (see :class:`CallArguments`) frozen, and
    the positions of the items with no key (frozen as a fresh object).

    Column at a time: the types of every argument name and value are read in
    one pass each; the dicts of scalars only (most of them) are frozen by one
    ``map``, the others one by one."""
    n = len(items)
    if set(map(type, items)) <= {dict} and set(map(type, chain.from_iterable(items))) <= _STR:
        sizes = np.fromiter(map(len, items), dtype=np.int64, count=n)
        total = int(sizes.sum())
        kinds = map(type, chain.from_iterable(map(dict.values, items)))
        codes = np.fromiter(map(_NESTED.get, kinds, repeat(1)), dtype=np.int64, count=total)
        ends = np.cumsum(sizes)
        floats = codes == 2
        if floats.any():  # a NaN as an argument's own value: that item has no key
            values = np.fromiter(chain.from_iterable(map(dict.values, items)), dtype=object,
                                 count=total)
            where = np.flatnonzero(floats)
            found = where[np.isnan(values[where].astype(np.float64))]
            if len(found):
                return _frozen_one_by_one(items, list(range(n)), [None] * n)
        flags = codes == 1
        if not flags.any():
            return list(map(frozenset, map(dict.items, items))), []
        running = np.concatenate(([0], np.cumsum(flags)))
        slow = np.flatnonzero(running[ends] - running[ends - sizes]).tolist()
        source = list(items)
        for position in slow:
            source[position] = _NO_ARGUMENTS
        frozen: list[Any] = list(map(frozenset, map(dict.items, source)))
        try:  # the names are all str: freeze the values alone
            nested = [frozenset(zip(items[position], map(_freeze_value, items[position].values())))
                      for position in slow]
        except (Unkeyable, RecursionError):
            pass  # one by one below, to find the item
        else:
            for position, value in zip(slow, nested):
                frozen[position] = value
            return frozen, []
    else:
        slow = list(range(n))
        frozen = [None] * n
    return _frozen_one_by_one(items, slow, frozen)


def _frozen_one_by_one(items: Sequence[Any], slow: list[int],
                       frozen: list[Any]) -> tuple[list[Any], list[int]]:
    """``frozen`` with the items at ``slow`` frozen one by one (a fresh object
    for one with no key), and the positions of those with no key."""
    bad: list[int] = []
    for position in slow:
        try:
            frozen[position] = _freeze_item(items[position])
        except Unkeyable:
            frozen[position] = _Unreadable()
            bad.append(position)
    return frozen, bad


def _rows_of(positions: Iterable[int], offsets: IntArray) -> list[int]:
    found = np.searchsorted(offsets, np.asarray(list(positions), dtype=np.int64), side="right") - 1
    return [int(row) for row in found.tolist()]


def keys_of_sides(names: tuple[IdArray, IdArray], offsets: tuple[IntArray, IntArray],
                  arguments: CallArguments) -> CallKeys:
    """Python-equality call keys from each side's name ids and argument column:
    the frozen arguments interned in one dict, then (name id, arguments id)
    pairs numbered in numpy."""
    table = _Table()
    rows = len(offsets[0]) - 1
    unkeyed = np.zeros(rows, dtype=bool)
    not_given = np.zeros(rows, dtype=bool)
    found = []
    for ids, side_offsets, column in zip(names, offsets, (arguments.called, arguments.expected)):
        if len(column) != len(ids):
            raise ValueError(f"an argument column of {len(column)} items for {len(ids)} calls")
        frozen, bad = _frozen_column(column)
        found.append(np.fromiter(map(table.__getitem__, frozen), dtype=np.int64, count=len(frozen)))
        if bad:
            unkeyed[_rows_of(bad, side_offsets)] = True
        if frozen.count(_NOT_GIVEN):  # by identity: one pass in C
            not_given[_rows_of((position for position, value in enumerate(frozen)
                                if value is _NOT_GIVEN), side_offsets)] = True
    pairs = np.concatenate([ids.astype(np.int64) * len(table) + args
                            for ids, args in zip(names, found)])
    return _numbered(pairs, len(found[0]), unkeyed, not_given)


def arguments_of_calls(calls: Iterable[Any]) -> list[Any]:
    """The argument column (see :class:`CallArguments`) of ToolCall objects.
    A call given no arguments but holding some (``arguments_given=False`` set
    by hand) has no column item: it is given its own unkeyable item."""
    out: list[Any] = []
    for call in calls:
        if call.raw_arguments is not None:
            out.append(call.raw_arguments)
        elif call.arguments_given:
            out.append(call.arguments)
        elif not call.arguments:
            out.append(None)
        else:
            out.append(_Unreadable())
    return out


def arguments_of_items(items: Iterable[Any]) -> list[Any]:
    """The argument column of a plain record's call items (names, or call
    dicts the columnar reading has checked), as ToolCall reads them."""
    out: list[Any] = []
    for item in items:
        if type(item) is str:
            out.append(_NO_ARGUMENTS)
            continue
        raw = item.get("raw_arguments")
        if raw is not None:
            out.append(raw if type(raw) is str else _Unreadable())
            continue
        arguments = item.get("arguments", _NO_ARGUMENTS)
        out.append(arguments if arguments is None or type(arguments) is dict else _Unreadable())
    return out




#: The argument id :func:`argument_table` gives ``{}`` (and no ``"arguments"``).
EMPTY_ID = 0
#: The argument id :func:`argument_table` gives ``null`` (no arguments given).
NOT_GIVEN_ID = 1


def argument_table() -> ArgumentIds:
    """A decoder's argument ids under Python equality: the value of each
    distinct argument text (the bytes of a JSON value the decoder has
    checked, parsed by the line reader's parser) is frozen and interned once;
    ``{}`` and no ``"arguments"`` share an id (:data:`EMPTY_ID`), ``null``
    (not given) has its own (:data:`NOT_GIVEN_ID`)."""
    table = _Table()
    empty = table[frozenset()]
    not_given = table[_NOT_GIVEN]
    assert (empty, not_given) == (EMPTY_ID, NOT_GIVEN_ID)

    def intern(value: Any) -> int:
        try:
            return table[_freeze_item(value)]
        except (Unkeyable, RecursionError):
            return -1

    return ArgumentIds(intern, empty)


def keys_of_argument_ids(names: tuple[IdArray, IdArray], offsets: tuple[IntArray, IntArray],
                         arguments: ArgumentIdColumns) -> CallKeys:
    """Python-equality call keys from each side's name ids and argument ids:
    (name id, argument id) pairs numbered in numpy; a row holding a call of
    argument id -1 is ``unkeyed`` (that call's key is its own)."""
    columns = (arguments.called, arguments.expected)
    for ids, column in zip(names, columns):
        if len(column) != len(ids):
            raise ValueError(f"an argument id column of {len(column)} items for {len(ids)} calls")
    every = np.concatenate(columns).astype(np.int64)
    split = len(columns[0])
    not_given = _rows_holding(every == NOT_GIVEN_ID, split, offsets)
    bad = every < 0
    unkeyed = _rows_holding(bad, split, offsets)
    span = int(every.max()) + 1 if len(every) else 1
    if bad.any():  # a key of its own each: no other call shares it
        every[bad] = span + np.arange(int(bad.sum()), dtype=np.int64)
        span += int(bad.sum())
    pairs = np.concatenate(names).astype(np.int64) * span + every
    return _numbered(pairs, split, unkeyed, not_given)


def _rows_holding(calls: BoolArray, split: int, offsets: tuple[IntArray, IntArray]) -> BoolArray:
    """Per row, whether it holds a call flagged in ``calls`` (both sides' calls,
    the called side's first ``split``)."""
    rows = np.zeros(len(offsets[0]) - 1, dtype=bool)
    if calls.any():
        for flagged, side_offsets in ((calls[:split], offsets[0]), (calls[split:], offsets[1])):
            rows[_rows_of(np.flatnonzero(flagged).tolist(), side_offsets)] = True
    return rows


def _numbered(pairs: np.ndarray, split: int, unkeyed: np.ndarray,
              not_given: np.ndarray) -> CallKeys:
    """The keys of both sides' (name, argument) pairs, numbered 0..n-1 in
    order of value; the first ``split`` pairs are the called side's."""
    size = 0
    numbered = np.zeros(0, dtype=np.int32)
    if len(pairs):
        distinct, inverse = np.unique(pairs, return_inverse=True)
        size, numbered = len(distinct), inverse.reshape(-1).astype(np.int32)
    return CallKeys("python", numbered[:split], numbered[split:], size, unkeyed, not_given)
