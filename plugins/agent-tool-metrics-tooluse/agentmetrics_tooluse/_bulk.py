"""The paired metrics' values for a whole batch at once: calls paired with the
expected calls of the same tool, for every case together, from the batch's
integer tool ids; only the comparison of a pair's values runs in Python.

The pairing is ``pair_calls``' rule for rule: per case and tool, a lone
expected call takes the best of its calls (the first on ties), a lone call
the best of its expected calls, and a tool with several of each on both sides
the optimal assignment (``best_assignment``, in Python, per such group). The
value is ``_mean_credit`` of the case's credits in expected order, so values
are the same floats as ``measure`` gives.

The values compared come from the batch's cases (``paired_values``) or, when
a decoder kept each call's item id and the arguments of each distinct item
(``paired_values_of_items``), from those: no case is built, and a pair's
credit is computed once per pair of distinct items.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import chain
from operator import attrgetter
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from agentmetrics import ToolCall
from agentmetrics_tooluse._assignment import best_assignment

if TYPE_CHECKING:
    from agentmetrics import ToolCallBatch

__all__ = ["paired_values", "paired_values_of_items"]

_CALLED = attrgetter("tool_calls")
_EXPECTED = attrgetter("expected_tool_calls")


def _segments_first_max(values: npt.NDArray[np.float64], starts: npt.NDArray[np.int64],
                        lengths: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For consecutive segments of ``values``: the position of each one's first maximum."""
    top = np.maximum.reduceat(values, starts)
    positions = np.arange(len(values))
    candidates = np.where(values == np.repeat(top, lengths), positions, len(values))
    return np.minimum.reduceat(candidates, starts)


def paired_values(batch: ToolCallBatch, given: Callable[[ToolCall], Any],
                  credit: Callable[[Any, Any], float],
                  checked: Callable[[ToolCall], bool] | None, missing_calls: str,
                  wanted: Callable[[ToolCall], Any] | None = None,
                  ) -> npt.NDArray[np.float64]:
    """Each case's value (float64), NaN where the case is left to ``measure``
    (a side not given, or expected calls none of which is ``checked``).
    ``credit(value, expected value)`` of what ``given`` gives of the call and
    ``wanted`` (``given`` if None) of the expected call is a pair's credit,
    also its weight."""
    cases = batch.cases
    assert cases is not None
    called: list[ToolCall] = list(chain.from_iterable(
        calls if calls is not None else () for calls in map(_CALLED, cases)))
    expected: list[ToolCall] = list(chain.from_iterable(
        calls if calls is not None else () for calls in map(_EXPECTED, cases)))
    if len(called) != len(batch.called_ids) or len(expected) != len(batch.expected_ids):
        raise ValueError("the batch's ids do not match its cases")
    kept = np.arange(len(expected))
    if checked is not None:
        kept = np.flatnonzero(np.fromiter(map(checked, expected), dtype=bool, count=len(expected)))
    of, of_wanted = given, given if wanted is None else wanted

    def credits_of(call_at: npt.NDArray[np.int64], want_at: npt.NDArray[np.int64]) -> Any:
        return np.array(list(map(credit, map(of, map(called.__getitem__, call_at.tolist())),
                                 map(of_wanted, map(expected.__getitem__, want_at.tolist())))),
                        dtype=np.float64)

    return _paired(batch, kept, credits_of, missing_calls)


def paired_values_of_items(batch: ToolCallBatch, items: tuple[npt.NDArray[np.int64],
                                                               npt.NDArray[np.int64]],
                           count: int, credit: Callable[[int, int], float], missing_calls: str,
                           checked: Callable[[int], bool] | None = None,
                           ) -> npt.NDArray[np.float64]:
    """:func:`paired_values` from each call's item id (``items``: called,
    expected; ids below ``count``, -1 for a call without one, whose case is
    left to ``measure``): ``credit(called item, expected item)`` is asked
    once per pair of distinct items, ``checked(expected item)`` (whether an
    expected call is scored) once per distinct expected item."""
    called_items, expected_items = items
    if len(called_items) != len(batch.called_ids) or len(expected_items) != len(batch.expected_ids):
        raise ValueError("the batch's item ids do not match its calls")
    kept = np.arange(len(expected_items))
    if checked is not None and len(expected_items):
        distinct, inverse = np.unique(expected_items, return_inverse=True)
        # A call without an item is kept: its case is measure's, whatever it holds.
        scored = np.array([item < 0 or checked(item) for item in distinct.tolist()], dtype=bool)
        kept = np.flatnonzero(scored[inverse.reshape(-1)])
    span = count + 1  # -1 (no item) is read as ``count``: its pairs are never compared

    def credits_of(call_at: npt.NDArray[np.int64], want_at: npt.NDArray[np.int64]) -> Any:
        pairs = (called_items[call_at] % span) * span + expected_items[want_at] % span
        distinct, inverse = np.unique(pairs, return_inverse=True)
        once = np.array([credit(pair // span, pair % span)
                         if pair // span < count and pair % span < count else 0.0
                         for pair in distinct.tolist()], dtype=np.float64)
        return once[inverse.reshape(-1)] if len(once) else np.zeros(0)

    out = _paired(batch, kept, credits_of, missing_calls)
    for side, offsets in ((called_items, batch.called_offsets),
                          (expected_items, batch.expected_offsets)):
        missing = np.flatnonzero(side < 0)
        if len(missing):  # no item: the case is measure's
            out[np.searchsorted(offsets, missing, side="right") - 1] = np.nan
    return out


def _paired(batch: ToolCallBatch, kept: npt.NDArray[np.int64],
            credits_of: Callable[[npt.NDArray[np.int64], npt.NDArray[np.int64]], Any],
            missing_calls: str) -> npt.NDArray[np.float64]:
    """The values, given which expected calls are checked (``kept``) and the
    credits of candidate pairs (``credits_of(call positions, expected
    positions)``)."""
    n = len(batch)
    c_counts = np.diff(batch.called_offsets)
    e_counts = np.diff(batch.expected_offsets)
    width = max(len(batch.vocabulary), 1)
    c_rows = np.repeat(np.arange(n, dtype=np.int64), c_counts)
    e_rows = np.repeat(np.arange(n, dtype=np.int64), e_counts)
    c_keys = c_rows * width + batch.called_ids.astype(np.int64)
    e_keys = (e_rows * width + batch.expected_ids.astype(np.int64))[kept]
    k_rows = e_rows[kept]

    # Every same-tool (call, expected) candidate pair, calls in their order.
    c_order = np.argsort(c_keys, kind="stable")
    sorted_keys = c_keys[c_order]
    low = np.searchsorted(sorted_keys, e_keys, "left")
    k = np.searchsorted(sorted_keys, e_keys, "right") - low
    total = int(k.sum())
    which = np.repeat(np.arange(len(e_keys)), k)  # index into kept
    starts = np.cumsum(k) - k
    within = np.arange(total) - np.repeat(starts, k)
    call_at = c_order[np.repeat(low, k) + within]
    want_at = kept[which]
    credits = credits_of(call_at, want_at)

    # How many expected calls share each one's tool in its case.
    _, inverse, counts = np.unique(e_keys, return_inverse=True, return_counts=True)
    m = counts[inverse]
    pair_credit = np.full(len(e_keys), np.nan)
    pair_call = np.full(len(e_keys), -1, dtype=np.int64)

    # A lone expected call: the best of its calls, the first on ties.
    lone = (m == 1) & (k > 0)
    if lone.any():
        segment = np.repeat(lone, k)
        seg_starts = (np.cumsum(k[lone]) - k[lone])
        best = _segments_first_max(credits[segment], seg_starts, k[lone])
        pair_credit[lone] = credits[segment][best]
        pair_call[lone] = call_at[segment][best]

    # A lone call and several expected calls: the best of those, the first on ties.
    one_call = (m > 1) & (k == 1)
    if one_call.any():
        members = np.flatnonzero(one_call)
        order = members[np.argsort(e_keys[members], kind="stable")]  # grouped, j ascending
        group_keys = e_keys[order]
        group_starts = np.flatnonzero(np.r_[True, group_keys[1:] != group_keys[:-1]])
        group_sizes = np.diff(np.r_[group_starts, len(order)])
        own = credits[starts[order]]
        best = _segments_first_max(own, group_starts, group_sizes)
        chosen = order[best]
        pair_credit[chosen] = credits[starts[chosen]]
        pair_call[chosen] = call_at[starts[chosen]]

    # Several of each: the optimal assignment, group by group.
    many = np.flatnonzero((m > 1) & (k > 1))
    if len(many):
        groups: dict[int, list[int]] = {}
        for e in many.tolist():
            groups.setdefault(int(e_keys[e]), []).append(e)
        credit_list = credits.tolist()
        starts_list, k_list = starts.tolist(), k.tolist()
        for members_list in groups.values():  # expected in j order; calls in i order
            calls = call_at[starts_list[members_list[0]]:starts_list[members_list[0]] + k_list[members_list[0]]]
            table = [[credit_list[starts_list[e] + a] for e in members_list]
                     for a in range(len(calls))]
            for a, b in best_assignment(table):
                e = members_list[b]
                pair_credit[e] = table[a][b]
                pair_call[e] = calls[a]

    # Per case: the credits of its paired expected calls, in expected order,
    # summed by Python's sum (as measure sums them: it compensates on 3.12+);
    # a case with at most one paired call needs no sum.
    wanted = np.bincount(k_rows, minlength=n)
    is_paired = pair_call >= 0
    paired_rows = k_rows[is_paired]
    made = np.bincount(paired_rows, minlength=n)
    credit_of = pair_credit[is_paired]
    count = made + (wanted - made if missing_calls == "zero" else 0)
    summed = np.zeros(n)
    single = made == 1
    summed[paired_rows[single[paired_rows]]] = credit_of[single[paired_rows]]
    several = np.flatnonzero(made > 1)
    if len(several):
        flat = credit_of.tolist()
        bounds = np.r_[0, np.cumsum(made)]
        for row, a, b in zip(several.tolist(), bounds[several].tolist(), bounds[several + 1].tolist()):
            summed[row] = sum(flat[a:b])
    with np.errstate(invalid="ignore", divide="ignore"):
        values = np.where(count > 0, summed / np.maximum(count, 1), 0.0)
    values[wanted == 0] = np.nan  # no expected call checked: measure's to say
    values[e_counts == 0] = 1.0  # no expected calls at all
    values[~(batch.called_given & batch.expected_given)] = np.nan
    return values
