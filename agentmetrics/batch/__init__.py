"""Building blocks for metrics that score a whole ToolCallBatch with arrays.

A metric overrides ``Metric.evaluate_batch(batch, *, errors)`` and returns a
MetricResult whose values, passed flags and reasons equal what ``evaluate``
gives case by case. These helpers cover the common parts::

    def evaluate_batch(self, batch, *, errors="raise"):
        failed = batch_errors(self, batch, errors)      # unreadable / missing rows
        values = ...                                    # one float64 per case
        values[list(failed)] = np.nan
        return MetricResult(self, values, passes(self, values), failed, explain)

A metric that must look at each case in Python can still skip the costly part,
its reasons: ``case_values(self, batch, errors, value)`` runs ``value(case)``
(the value ``measure`` gives, without the reason) in one tight loop, makes each
reason with ``evaluate`` when it is asked for, and leaves every case ``value``
raises on to ``evaluate``, so errors are those of the case-by-case loop. A
metric that reads only the calls can skip the cases too:
``values_of_calls(batch, value_of_calls)``, given as ``case_values``' ``bulk``,
runs ``value_of_calls(called, expected)`` on each row's calls, each ToolCall
built once per distinct call the reader kept (see ``ToolCallBatch.call_lists``).
"""

from __future__ import annotations

import math

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from agentmetrics._base._arrays import IdArray, IntArray
from agentmetrics._base._types import ErrorsMode, check_errors_mode
from agentmetrics._kernels import multiset_overlap, sequence_lcs, set_counts
from agentmetrics.cases._call_keys import CallArguments, CallItems, CallKeys
from agentmetrics.cases._call_lists import CallLists
from agentmetrics.cases._tool_call_batch import ToolCallBatch
from agentmetrics.errors import InvalidCaseError
from agentmetrics.model._model import ToolCall
from agentmetrics.model._metric_result import MetricResult, batch_errors, case_values, passes

if TYPE_CHECKING:  # pragma: no cover
    from agentmetrics.metric._metric import Metric

__all__ = [
    "CallArguments",
    "CallItems",
    "CallKeys",
    "CallLists",
    "ErrorsMode",
    "MetricResult",
    "NameReasons",
    "ToolCallBatch",
    "batch_errors",
    "case_values",
    "check_errors_mode",
    "passes",
    "ratio_result",
    "ratio_values",
    "require_cases",
    "row_lcs",
    "row_multiset_overlap",
    "row_set_counts",
    "values_of_calls",
]


def require_cases(metric: Metric, batch: ToolCallBatch, reads: str,
                  otherwise: str | None = None) -> None:
    """Refuse (InvalidCaseError) a batch that holds tool names only, built
    from columns or by a reader that keeps names alone, for a metric that
    reads more of a case: ``reads`` says what it reads ("compares
    arguments"), ``otherwise`` names a setting that needs names only."""
    if batch.cases is None:
        fix = "build it with ToolCallBatch.from_cases(...) (or evaluate() a list of AgentTestCase)"
        if otherwise:
            fix += f", or use {otherwise}"
        raise InvalidCaseError(
            f"{metric.name} {reads}, but this batch holds tool names only. Fix: {fix}.")


def _ids(batch: ToolCallBatch, keys: CallKeys | None) -> tuple[IdArray, IdArray, int]:
    if keys is None:
        return batch.called_ids, batch.expected_ids, len(batch.vocabulary)
    return keys.called_ids, keys.expected_ids, keys.size


def row_multiset_overlap(batch: ToolCallBatch, keys: CallKeys | None = None) -> IntArray:
    """Per case, calls matched one to one by tool name (repeats count); with
    ``keys`` (from :meth:`ToolCallBatch.call_keys`), by call key instead: calls
    equal under the keys' equality."""
    called, expected, size = _ids(batch, keys)
    return multiset_overlap(called, batch.called_offsets, expected, batch.expected_offsets, size)


def row_lcs(batch: ToolCallBatch, keys: CallKeys | None = None) -> IntArray:
    """Per case, the length of the longest common subsequence of the calls
    made and the calls expected, by tool name (by call key with ``keys``),
    every call counted: how many expected calls were made in the expected
    order (extra calls between them allowed). Bit-parallel over all cases
    whose expected side has at most 64 calls; exact for any length."""
    called, expected, _ = _ids(batch, keys)
    return sequence_lcs(called, batch.called_offsets, expected, batch.expected_offsets)


def row_set_counts(batch: ToolCallBatch,
                   keys: CallKeys | None = None) -> tuple[IntArray, IntArray, IntArray]:
    """Per case, distinct tools called, expected, and in both (distinct call
    keys with ``keys``)."""
    called, expected, size = _ids(batch, keys)
    counts = set_counts(called, batch.called_offsets, expected, batch.expected_offsets, size)
    return counts.called, counts.expected, counts.shared


def values_of_calls(batch: ToolCallBatch,
                    value: Callable[[tuple[ToolCall, ...], tuple[ToolCall, ...]], float]
                    ) -> npt.NDArray[np.float64]:
    """``value(called, expected)`` for each row, from the row's calls (see
    ``ToolCallBatch.call_lists``): float64, one per case, NaN for a row the
    lists leave to its case or on which ``value`` raises (anything), so that
    ``case_values(metric, batch, errors, value_of_case, bulk=...)`` scores
    those rows from their cases, with the case's own errors. All NaN when
    the batch has no call lists. ``value`` must give what ``measure`` gives
    as the value for a case holding those calls."""
    n = len(batch)
    lists = batch.call_lists()
    if lists is None:
        return np.full(n, np.nan)
    out = [math.nan] * n
    for row, (called, expected) in enumerate(zip(lists.called, lists.expected, strict=True)):
        if called is None or expected is None:
            continue
        try:
            out[row] = value(called, expected)
        except Exception:  # the case decides, with its own error
            continue
    return np.array(out, dtype=np.float64)


def ratio_result(
    metric: Metric,
    batch: ToolCallBatch,
    numerator: IntArray,
    denominator: IntArray,
    failed: Mapping[int, str],
    reason: Callable[[tuple[str, ...], tuple[str, ...]], str],
) -> MetricResult:
    """A MetricResult whose value is ``numerator / denominator`` per case
    (1.0 where the denominator is 0, NaN where ``failed`` has the case), and
    whose reason comes from the case's tool names, computed when asked for.

    The division is int64 / int64 in float64, which rounds exactly as
    Python's ``int / int`` does, so values equal a scalar ``a / b`` bit for bit.
    """
    values = np.ones(len(batch))
    np.divide(numerator, denominator, out=values, where=denominator > 0)
    return ratio_values(metric, batch, values, failed, reason)


def ratio_values(
    metric: Metric,
    batch: ToolCallBatch,
    values: npt.NDArray[np.float64],
    failed: Mapping[int, str],
    reason: Callable[[tuple[str, ...], tuple[str, ...]], str],
    many_reasons: Callable[[list[list[str] | None], list[list[str] | None]], list[str]]
    | None = None,
) -> MetricResult:
    """A MetricResult of ``values`` (one float64 per case, overwritten with NaN
    where ``failed`` has the case), with reasons from the case's tool names,
    computed when asked for (``many_reasons``, if given, makes those of many
    cases in one call: see :class:`NameReasons`)."""
    if failed:
        values[list(failed)] = np.nan
    return MetricResult(metric, values, passes(metric, values), dict(failed),
                        NameReasons(batch, reason, failed, many_reasons))


class NameReasons:
    """Reasons from each case's tool names: one case when asked for (``self(row)``),
    or every case at once (``many``), the names of all rows looked up together.
    ``many_reasons(called_lists, expected_lists)``, when given, makes the
    reasons of many rows in one call (lists of names; None for a failed row)."""

    __slots__ = ("batch", "failed", "many_reasons", "reason")

    def __init__(
        self,
        batch: ToolCallBatch,
        reason: Callable[[tuple[str, ...], tuple[str, ...]], str],
        failed: Mapping[int, str],
        many_reasons: Callable[[list[list[str] | None], list[list[str] | None]], list[str]]
        | None = None,
    ) -> None:
        self.batch = batch
        self.reason = reason
        self.failed = failed
        self.many_reasons = many_reasons

    def __call__(self, row: int) -> str:
        called, expected = self.batch.called_names(row), self.batch.expected_names(row)
        assert called is not None and expected is not None
        return self.reason(called, expected)

    def many(self, rows: int) -> list[str]:
        called, expected = self.batch.name_lists()
        for row in self.failed:
            called[row] = expected[row] = None
        if self.many_reasons is not None:
            return self.many_reasons(called, expected)
        reason = self.reason
        return ["" if c is None or e is None else reason(tuple(c), tuple(e))
                for c, e in zip(called, expected)]
